// Instrumentation that runs inside the page (added with page.addInitScript before the app loads). It is
// plain browser JavaScript in a function: Playwright serializes the function's source, so it must not
// close over anything from this module.

export interface PageProbe {
  /** performance.now() when the first lease row entered the DOM, and after the frame that painted it. */
  firstRowDomAt: number | null;
  firstRowPaintedAt: number | null;
  /** Arms a measurement: the next keydown/pointerdown is t0; done when `until` holds at a frame start. */
  arm(until: string, expected: string): void;
  /** Resolves with ms from the input event to just after the frame that showed its result. */
  result(): Promise<Interaction>;
  /** The rAF timestamps of `frames + 1` frames, scrolling the table by `scrollStepPx` in each. */
  frames(frames: number, scrollStepPx: number): Promise<number[]>;
  /** React commits counted while `counting`: LeaseRow and LeaseTable renders, all commits. */
  counting: boolean;
  renders: { commits: number; leaseRows: number; leaseTable: number };
  resetRenders(): void;
}

export interface Interaction {
  latencyMs: number;
  /** The input event's timestamp and the moment after the frame that showed the result (page ms). */
  startedAt: number;
  paintedAt: number;
}

export function installPageProbe(): void {
  type Fiber = {
    tag: number;
    flags: number;
    child: Fiber | null;
    sibling: Fiber | null;
    return: Fiber | null;
    alternate: Fiber | null;
    memoizedProps: Record<string, unknown> | null;
  };
  const PERFORMED_WORK = 1;
  const probe = {
    firstRowDomAt: null as number | null,
    firstRowPaintedAt: null as number | null,
    counting: false,
    renders: { commits: 0, leaseRows: 0, leaseTable: 0 },
    resetRenders() {
      probe.renders = { commits: 0, leaseRows: 0, leaseTable: 0 };
    },
    pending: null as Promise<{ latencyMs: number; startedAt: number; paintedAt: number }> | null,
    arm(until: string, expected: string) {
      let startedAt: number | null = null;
      const check = (): boolean => {
        if (until === "search") {
          const input = document.querySelector<HTMLInputElement>("[data-testid='search']");
          return input !== null && input.value === expected && input.getAttribute("aria-busy") !== "true";
        }
        if (until === "pressed") {
          const [testId, pressed] = expected.split("=");
          // Pressed, and the rows it lets through drawn: the filter answers from a worker, after the press.
          return (
            document.querySelector(`[data-testid='${testId}']`)?.getAttribute("aria-pressed") === pressed &&
            document.querySelector("[data-testid='leases-view']")?.getAttribute("aria-busy") !== "true"
          );
        }
        if (until === "typed") {
          const input = document.querySelector<HTMLInputElement>("#bench-plain-input");
          return input !== null && input.value === expected;
        }
        return true;
      };
      probe.pending = new Promise((resolve) => {
        const onInput = (event: Event) => {
          if (startedAt !== null) return;
          // The event's own timestamp: when the browser received the input, before any handler ran.
          startedAt = event.timeStamp;
          const onFrame = () => {
            if (!check()) {
              requestAnimationFrame(onFrame);
              return;
            }
            // The frame that starts now paints the result; a message posted from rAF is delivered after it.
            const channel = new MessageChannel();
            channel.port1.onmessage = () => {
              const paintedAt = performance.now();
              resolve({ latencyMs: paintedAt - startedAt!, startedAt: startedAt!, paintedAt });
            };
            channel.port2.postMessage(null);
          };
          requestAnimationFrame(onFrame);
        };
        window.addEventListener("keydown", onInput, { capture: true, once: true });
        window.addEventListener("pointerdown", onInput, { capture: true, once: true });
      });
    },
    result() {
      return probe.pending!;
    },
    frames(count: number, scrollStepPx: number): Promise<number[]> {
      const scroller = document.querySelector<HTMLElement>("[data-testid='lease-table']");
      return new Promise((resolve) => {
        const stamps: number[] = [];
        const onFrame = (at: number) => {
          stamps.push(at);
          if (stamps.length > count) return resolve(stamps);
          if (scroller && scrollStepPx !== 0) scroller.scrollTop += scrollStepPx;
          requestAnimationFrame(onFrame);
        };
        requestAnimationFrame(onFrame);
      });
    },
  };

  // First lease row in the DOM, then the frame that paints it.
  const observer = new MutationObserver(() => {
    if (probe.firstRowDomAt !== null) return;
    if (document.querySelector("[data-testid='lease-row']") === null) return;
    probe.firstRowDomAt = performance.now();
    observer.disconnect();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        probe.firstRowPaintedAt = performance.now();
      };
      channel.port2.postMessage(null);
    });
  });
  observer.observe(document, { childList: true, subtree: true });

  // React DevTools' hook, as React itself calls it on every commit (production builds included). Only the
  // parts of the tree that were re-created in a commit are walked; a fiber rendered in it if it is new or
  // carries React's PerformedWork flag.
  const countCommit = (root: Fiber) => {
    probe.renders.commits += 1;
    const stack: Fiber[] = [root];
    while (stack.length > 0) {
      const fiber = stack.pop()!;
      const rendered = fiber.alternate === null || (fiber.flags & PERFORMED_WORK) !== 0;
      const testId = fiber.tag === 5 ? fiber.memoizedProps?.["data-testid"] : undefined;
      if (testId === "lease-row") {
        const owner = fiber.return;
        if (owner && (owner.alternate === null || (owner.flags & PERFORMED_WORK) !== 0))
          probe.renders.leaseRows += 1;
      } else if (testId === "lease-table") {
        const owner = fiber.return;
        if (owner && (owner.alternate === null || (owner.flags & PERFORMED_WORK) !== 0))
          probe.renders.leaseTable += 1;
      }
      void rendered;
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
      if (probe.counting) countCommit(root.current);
    },
    onCommitFiberUnmount() {},
    onPostCommitFiberRoot() {},
    checkDCE() {},
  };
  (window as unknown as { __lk: typeof probe }).__lk = probe;
}
