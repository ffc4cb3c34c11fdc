import { expect, test } from "../support/leasekeeper.js";
import { gateSearchWorker } from "../support/search-worker-gate.js";
import { filterAnswered, openConsole } from "./operator.js";

declare global {
  interface Window {
    /** Commits in which the lease table's component rendered, as React reports them to DevTools. */
    leaseTableRenders?: number;
  }
}

// A chip click shows the chip pressed at once and the rows it lets through when the search worker
// answers. Between the two the table's rows and order are what they were, so the table must not render
// for the press: at 20,000 rows that render was a share of every click's time to its rows.
test("a chip click renders the lease table when the search worker answers, not when the chip is pressed", async ({
  page,
  world,
}) => {
  await gateSearchWorker(page, { heldFromTheStart: false });
  await page.addInitScript(() => {
    // React tells a DevTools hook of every commit, production builds included. The table rendered in a
    // commit when the component that owns its scroll element is new or did work (React's PerformedWork).
    type Fiber = {
      tag: number;
      flags: number;
      child: Fiber | null;
      sibling: Fiber | null;
      return: Fiber | null;
      alternate: Fiber | null;
      memoizedProps: Record<string, unknown> | null;
    };
    const HOST_ELEMENT = 5;
    const PERFORMED_WORK = 1;
    window.leaseTableRenders = 0;
    const renderers = new Map<number, unknown>();
    (window as unknown as Record<string, unknown>).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      renderers,
      supportsFiber: true,
      inject(renderer: unknown) {
        renderers.set(renderers.size + 1, renderer);
        return renderers.size;
      },
      onScheduleFiberRoot() {},
      onCommitFiberRoot(_id: number, root: { current: Fiber }) {
        const stack: Fiber[] = [root.current];
        while (stack.length > 0) {
          const fiber = stack.pop()!;
          if (fiber.tag === HOST_ELEMENT && fiber.memoizedProps?.["data-testid"] === "lease-table") {
            const owner = fiber.return;
            if (owner && (owner.alternate === null || (owner.flags & PERFORMED_WORK) !== 0))
              window.leaseTableRenders = (window.leaseTableRenders ?? 0) + 1;
          }
          // A subtree React did not recreate in this commit rendered nothing.
          const untouched = fiber.alternate !== null && fiber.child === fiber.alternate.child;
          if (!untouched && fiber.child) stack.push(fiber.child);
          if (fiber !== root.current && fiber.sibling) stack.push(fiber.sibling);
        }
      },
      onCommitFiberUnmount() {},
      onPostCommitFiberRoot() {},
      checkDCE() {},
    };
  });

  await openConsole(page, world);
  await filterAnswered(page);
  const count = page.getByTestId("visible-count");
  const before = await count.getAttribute("data-count");
  const firstRow = await page.locator("[data-testid='lease-row']").first().getAttribute("data-lease-id");

  await page.evaluate(() => {
    window.holdSearchWorker?.();
    window.leaseTableRenders = 0;
  });
  const chip = page.getByTestId("filter-headline-leaking");
  await chip.click();
  await expect(chip).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("leases-view")).toHaveAttribute("aria-busy", "true");
  await page.waitForTimeout(300);
  expect(await count.getAttribute("data-count"), "the rows wait for the worker").toBe(before);
  await expect(page.locator("[data-testid='lease-row']").first()).toHaveAttribute("data-lease-id", firstRow!);
  expect(
    await page.evaluate(() => window.leaseTableRenders),
    "the lease table rendered for the press alone, before its rows changed",
  ).toBe(0);

  await page.evaluate(() => window.releaseSearchWorker?.());
  await filterAnswered(page);
  await expect(page.locator("[data-testid='lease-row']").first()).toHaveAttribute("data-headline", "leaking");
  expect(await page.evaluate(() => window.leaseTableRenders)).toBeGreaterThan(0);
});
