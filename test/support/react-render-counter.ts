// Counts, inside a page, the React commits in which a component rendered the element that carries a
// given data-testid. React tells DevTools' global hook of every commit, production builds included. The
// hook installed here walks only the parts of the tree re-created in a commit, and counts an element's
// owning component as rendered when it is new or carries React's PerformedWork flag.
//
// Playwright serializes this function's source into the page (`page.addInitScript`), so it must not
// close over anything from this module.

export interface ReactRenderCounts {
  /** While false, commits pass uncounted. */
  counting: boolean;
  commits: number;
  /** Renders of the component that owns the element with each watched data-testid. */
  byTestId: Record<string, number>;
}

export interface ReactRenderCounterOptions {
  testIds: readonly string[];
  countingFromTheStart: boolean;
}

declare global {
  interface Window {
    reactRenders?: ReactRenderCounts;
  }
}

export function countReactRenders({ testIds, countingFromTheStart }: ReactRenderCounterOptions): void {
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
  const counts: ReactRenderCounts = { counting: countingFromTheStart, commits: 0, byTestId: {} };
  for (const testId of testIds) counts.byTestId[testId] = 0;
  window.reactRenders = counts;

  const countCommit = (root: Fiber) => {
    counts.commits += 1;
    const stack: Fiber[] = [root];
    while (stack.length > 0) {
      const fiber = stack.pop()!;
      const testId = fiber.tag === HOST_ELEMENT ? fiber.memoizedProps?.["data-testid"] : undefined;
      if (typeof testId === "string" && Object.hasOwn(counts.byTestId, testId)) {
        const owner = fiber.return;
        if (owner && (owner.alternate === null || (owner.flags & PERFORMED_WORK) !== 0))
          counts.byTestId[testId] = (counts.byTestId[testId] ?? 0) + 1;
      }
      // A subtree React did not re-create in this commit rendered nothing.
      const untouched = fiber.alternate !== null && fiber.child === fiber.alternate.child;
      if (!untouched && fiber.child) stack.push(fiber.child);
      if (fiber !== root && fiber.sibling) stack.push(fiber.sibling);
    }
  };

  const renderers = new Map<number, unknown>();
  (window as unknown as Record<string, unknown>).__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
    renderers,
    supportsFiber: true,
    inject(renderer: unknown) {
      const id = renderers.size + 1;
      renderers.set(id, renderer);
      return id;
    },
    onScheduleFiberRoot() {},
    onCommitFiberRoot(_id: number, root: { current: Fiber }) {
      if (counts.counting) countCommit(root.current);
    },
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
  };
}
