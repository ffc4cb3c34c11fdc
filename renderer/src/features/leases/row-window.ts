import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";

/**
 * Which rows of a fixed-height list are in view, for a list inside a scroll element (below whatever
 * precedes the list body, such as a sticky header). Every row is `rowHeight` tall, so the window is
 * arithmetic on the scroll offset: nothing is measured or kept per row, and a list that grows from 20 to
 * 100,000 rows costs the same to filter, render and scroll.
 */
export interface RowWindow {
  /** The first row to draw and one past the last, overscan included. */
  first: number;
  end: number;
}

export function rowWindow(
  scroll: { top: number; height: number; bodyOffset: number },
  count: number,
  rowHeight: number,
  overscan: number,
): RowWindow {
  const top = scroll.top - scroll.bodyOffset;
  const first = Math.min(count, Math.max(0, Math.floor(top / rowHeight) - overscan));
  const end = Math.min(count, Math.ceil((top + scroll.height) / rowHeight) + overscan);
  return { first, end: Math.max(first, end) };
}

/**
 * The scroll offset that brings row `index` fully into view below the body's offset (the sticky
 * header), moving as little as possible; null when it is in view already.
 */
export function scrollTopFor(
  scroll: { top: number; height: number; bodyOffset: number },
  index: number,
  rowHeight: number,
): number | null {
  const rowTop = index * rowHeight;
  const rowBottom = rowTop + rowHeight;
  const shownTop = scroll.top;
  const shownBottom = scroll.top + scroll.height - scroll.bodyOffset;
  if (rowTop < shownTop) return rowTop;
  if (rowBottom > shownBottom) return rowBottom - (scroll.height - scroll.bodyOffset);
  return null;
}

/** Where the list stands in its scroll element now. */
export function scrollState(scroller: HTMLElement, body: HTMLElement | null) {
  return { top: scroller.scrollTop, height: scroller.clientHeight, bodyOffset: body?.offsetTop ?? 0 };
}

/**
 * The row window of `body` inside `scroller`, following scrolls and resizes. It re-renders only when
 * the window moves by a row, not on every scrolled pixel. The scroller is an element, not a ref: it is
 * an ancestor, whose ref is not set yet when the body's layout effects first run.
 *
 * Sizes are read where the browser has just laid out anyway (a scroll event, a resize observation, the
 * first mount) and kept: a filter that changes the row count computes the new window from them, because
 * reading an element's size right after React changed the rows would force a layout of the page before
 * the one the frame does.
 */
export function useRowWindow(
  scroller: HTMLElement | null,
  body: RefObject<HTMLElement | null>,
  count: number,
  rowHeight: number,
  overscan: number,
): RowWindow {
  const [shown, setShown] = useState<RowWindow>({ first: 0, end: 0 });
  const measured = useRef({ top: 0, height: 0, bodyOffset: 0 });
  const countRef = useRef(count);
  countRef.current = count;
  const place = useCallback(() => {
    const next = rowWindow(measured.current, countRef.current, rowHeight, overscan);
    setShown((current) => (current.first === next.first && current.end === next.end ? current : next));
  }, [rowHeight, overscan]);
  useLayoutEffect(() => {
    const element = scroller;
    if (!element) return;
    measured.current = scrollState(element, body.current);
    place();
    // The rows a scroll brings into view are drawn in the frame that scrolls, not one frame later.
    const onScroll = () => {
      measured.current = { ...measured.current, top: element.scrollTop };
      flushSync(place);
    };
    element.addEventListener("scroll", onScroll, { passive: true });
    const resize =
      typeof ResizeObserver === "function"
        ? new ResizeObserver(() => {
            measured.current = scrollState(element, body.current);
            flushSync(place);
          })
        : null;
    resize?.observe(element);
    return () => {
      element.removeEventListener("scroll", onScroll);
      resize?.disconnect();
    };
  }, [scroller, body, place]);
  // A new row count (a filter) moves the window's end before the rows are drawn.
  useLayoutEffect(() => {
    // Fewer rows than the kept offset reaches: the browser has clamped the offset; read where it is now.
    if (scroller && count > 0 && measured.current.top - measured.current.bodyOffset >= count * rowHeight)
      measured.current = scrollState(scroller, body.current);
    place();
  }, [count, place, scroller, body, rowHeight]);
  return shown;
}
