/**
 * How many cores this process has opened through `openCore`, and how many are open now. Every host and
 * every CLI command opens its core there and nowhere else; the tests that enumerate them read these.
 */
let opened = 0;
let open = 0;

export function coresOpened(): number {
  return opened;
}

export function coresOpen(): number {
  return open;
}

export function noteOpened(): void {
  opened += 1;
  open += 1;
}

export function noteClosed(): void {
  open -= 1;
}
