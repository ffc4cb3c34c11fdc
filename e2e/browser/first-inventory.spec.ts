import { expect, LEASE_ROW, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

const HELD_AT_MOST_MS = 10_000;

// The page's first script asks for the inventory before the app's code is run (about a second on a busy
// machine), and the app shows that answer without asking again. Here every script that draws the lease
// rows is held until the inventory has been asked for: a page that asked only from its app would wait.
test("the inventory is asked for before the app's code runs, and the app shows that answer", async ({
  page,
  world,
}) => {
  const inventoryRequests: number[] = [];
  let inventoryAsked!: () => void;
  const asked = new Promise<void>((resolve) => {
    inventoryAsked = resolve;
  });
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/api/inventory:get") {
      inventoryRequests.push(Date.now());
      inventoryAsked();
    }
  });
  const heldScripts: string[] = [];
  let askedWhileHeld = true;
  await page.route(/\/assets\/[^/]+\.js$/, async (route) => {
    const response = await route.fetch();
    const script = await response.text();
    if (script.includes("lease-row")) {
      heldScripts.push(new URL(route.request().url()).pathname);
      const released = await Promise.race([
        asked.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), HELD_AT_MOST_MS)),
      ]);
      if (!released) askedWhileHeld = false;
    }
    await route.fulfill({ response, body: script });
  });

  await openConsole(page, world);

  expect(heldScripts, "no script drew the lease rows").not.toHaveLength(0);
  expect(askedWhileHeld, "the inventory was asked for only once the lease table's script had run").toBe(true);
  await expect(page.locator(LEASE_ROW).first()).toBeVisible();
  expect(
    inventoryRequests,
    "the app asked for the inventory again instead of taking the first answer",
  ).toHaveLength(1);
});
