/**
 * How long a host waits for the core to close before it exits anyway. Closing stops every job before
 * its next item and waits for the requests already sent; a provider that never answers must not keep
 * the app from quitting, and whatever is left is journalled, shown interrupted at the next start.
 */
export const CORE_CLOSE_BUDGET_MS = 10_000;

export async function closeWithin(
  close: () => Promise<void>,
  budgetMs: number = CORE_CLOSE_BUDGET_MS,
): Promise<"closed" | "timed-out"> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timed-out">((resolve) => {
    timer = setTimeout(() => resolve("timed-out"), budgetMs);
  });
  try {
    return await Promise.race([close().then(() => "closed" as const), timedOut]);
  } catch {
    return "closed";
  } finally {
    clearTimeout(timer);
  }
}
