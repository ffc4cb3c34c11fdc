/**
 * `fn` over `items`, the results handed on in the items' order while up to `ahead` calls run at once:
 * a call starts only when a result is taken, so no more than `ahead` results wait for a slow reader.
 * A call that fails fails the iteration when its turn comes; calls still running when the iteration
 * stops are left to settle (`fn` is given the iteration's `stopped` signal to stop them).
 */
export async function* inOrderAhead<T, R>(
  items: readonly T[],
  ahead: number,
  fn: (item: T, stopped: AbortSignal) => Promise<R>,
): AsyncGenerator<R, void, undefined> {
  const limit = Math.max(1, Math.floor(ahead));
  const stop = new AbortController();
  const running: Promise<R>[] = [];
  let next = 0;
  const start = () => {
    const call = fn(items[next++]!, stop.signal);
    // Awaited in its turn, unless the iteration stops first: then its failure must not go unhandled.
    call.catch(() => undefined);
    running.push(call);
  };
  try {
    while (next < items.length && running.length < limit) start();
    while (running.length > 0) {
      const result = await running.shift()!;
      if (next < items.length) start();
      yield result;
    }
  } finally {
    stop.abort(new Error("the iteration stopped"));
  }
}
