import { followAddressKeptForReload } from "./app/address-kept-for-reload";
import { askForFirstInventory } from "./state/first-inventory";

// The page's first script: small, so that the inventory is asked for before the app's code (most of
// the page's script) is fetched, parsed and run; the app's first inventory query takes that answer.

const container = document.getElementById("root");
if (!container) throw new Error("Leasekeeper: #root is missing from index.html");

followAddressKeptForReload(window);
askForFirstInventory();

import("./app/start-app").then(
  ({ startApp }) => startApp(container),
  () => {
    container.textContent = "Leasekeeper's page could not be loaded; reload the page to try again.";
  },
);
