import { useEffect } from "react";
import { useUi } from "../state/ui-store";

/** Puts the operator's theme choice on <html>; "system" leaves it to prefers-color-scheme. */
export function useTheme(): "light" | "dark" | "system" {
  const theme = useUi((state) => state.theme);
  useEffect(() => {
    const root = document.documentElement;
    if (theme === "system") root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", theme);
  }, [theme]);
  return theme;
}
