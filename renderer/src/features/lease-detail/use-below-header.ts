import { useEffect, useState } from "react";

/**
 * Where the header ends, in pixels from the top of the window, kept current as it resizes: the drawer
 * starts there, so it never covers the header's controls (Refresh, Commands, help, the theme).
 */
export function useBelowHeader(active: boolean): number {
  const [bottom, setBottom] = useState(0);
  useEffect(() => {
    if (!active) return;
    const header = document.querySelector<HTMLElement>(".topbar");
    if (header === null) return;
    const measure = () => setBottom(Math.max(0, Math.round(header.getBoundingClientRect().bottom)));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(header);
    window.addEventListener("resize", measure);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", measure);
    };
  }, [active]);
  return bottom;
}
