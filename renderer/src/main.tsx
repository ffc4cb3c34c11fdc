import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";
import { App } from "./app/App";
import { Providers } from "./app/providers";
import { restoreUrlState } from "./app/use-url-state";
import { afterNextPaint } from "./lib/after-paint";
import { formatCount } from "./lib/format";
import "./app/theme.css";
import "./app/base.css";

// The CSP forbids eval; without this zod probes for it at start-up and Chromium logs a blocked eval.
z.config({ jitless: true });

restoreUrlState();

const container = document.getElementById("root");
if (!container) throw new Error("Leasekeeper: #root is missing from index.html");
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
