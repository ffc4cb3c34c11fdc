import { useCallback, useLayoutEffect, useRef } from "react";

/**
 * Focus back to what opened a dialog once it closes. Our dialogs open from state (a key, the palette, a
 * button in another view), not from a Radix trigger, so Radix has nothing to return focus to and drops
 * it to <body>. The element focused when the dialog opened is remembered (a layout effect runs before the
 * dialog moves focus inside) and focused again on close; when it is gone (the palette's own item), the
 * fallback takes it, by default the lease table, else whatever the page focuses first.
 */
export function useReturnFocus(
  open: boolean,
  fallback: () => HTMLElement | null = defaultFallback,
): (event: Event) => void {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (!open) return;
    const active = document.activeElement;
    opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
  }, [open]);
  return useCallback(
    (event: Event) => {
      event.preventDefault();
      const target = opener.current;
      opener.current = null;
      const next = target?.isConnected && !isInert(target) ? target : fallback();
      next?.focus({ preventScroll: true });
    },
    [fallback],
  );
}

function defaultFallback(): HTMLElement | null {
  return document.querySelector<HTMLElement>("[data-testid='lease-table']");
}

function isInert(element: HTMLElement): boolean {
  return element.closest("[inert], [aria-hidden='true'], [hidden]") !== null || element.matches(":disabled");
}
