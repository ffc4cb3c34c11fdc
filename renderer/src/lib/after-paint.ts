/**
 * Runs `callback` once the browser has painted its next frame (a timer set from an animation-frame
 * callback fires after that frame), for work that must not delay what the frame shows. Returns a
 * function that cancels it.
 */
export function afterNextPaint(callback: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(callback, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
