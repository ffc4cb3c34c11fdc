import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";
import { afterNextPaint } from "../lib/after-paint";
import { formatCount } from "../lib/format";
import { App } from "./App";
import { Providers } from "./providers";
import { restoreUrlState } from "./use-url-state";
import "./theme.css";
import "./base.css";

/** The app itself: loaded by the page's first script (main.tsx) once it has asked for the inventory. */
export function startApp(container: HTMLElement): void {
  // The CSP forbids eval; without this zod probes for it at start-up and Chromium logs a blocked eval.
  z.config({ jitless: true });

  restoreUrlState();

  createRoot(container).render(
    <StrictMode>
      <Providers>
        <App />
      </Providers>
    </StrictMode>,
  );

  // ICU's number data loads with the first number formatted (30–80 ms here). Loaded once the shell is
  // painted, while the inventory is on its way, it is not paid between the inventory's answer and its rows.
  afterNextPaint(() => formatCount(0));
}
