import { StrictMode } from "react";
import { createRoot } from "react-dom/client";

function App() {
  return <h1>Leasekeeper</h1>;
}

const container = document.getElementById("root");
if (!container) throw new Error("Leasekeeper: #root is missing from index.html");
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
