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
}

export interface Interaction {
  latencyMs: number;
  /** The input event's timestamp and the moment after the frame that showed the result (page ms). */
  startedAt: number;
  paintedAt: number;
}

export function installPageProbe(): void {
  const probe = {
    firstRowDomAt: null as number | null,
    firstRowPaintedAt: null as number | null,
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

  (window as unknown as { __lk: typeof probe }).__lk = probe;
}
