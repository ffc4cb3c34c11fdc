import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets a heap grow past what a full collection left live, in percent (decision 218). V8's
 * default grows it by a factor it picks from how fast the program allocates, up to four times: a scan
 * allocates fast, so the inventory worker's heap grew to about three times its live set before V8
 * collected, and that garbage is what set the process's peak memory.
 */
export const HEAP_GROWING_PERCENT = 50;

let limited = false;

/**
 * Caps heap growth at `HEAP_GROWING_PERCENT`, once per process, before the first inventory thread
 * starts. A V8 flag is the process's, so main's heap collects a little sooner too; it is read at each
 * collection, so setting it once the process runs changes only how soon the next collections come.
 */
export function limitHeapGrowth(): void {
  if (limited) return;
  limited = true;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
