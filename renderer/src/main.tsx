import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { Providers } from "./app/providers";
import "./app/theme.css";
import "./app/base.css";

const container = document.getElementById("root");
if (!container) throw new Error("Leasekeeper: #root is missing from index.html");
createRoot(container).render(
  <StrictMode>
    <Providers>
      <App />
    </Providers>
  </StrictMode>,
);
