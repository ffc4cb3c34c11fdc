import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// The footer's origin dot says "connected" only from this run's listing of the origin: before this run
// has scanned (main's status carries no scan yet), the inventory shown may be an earlier run's.
test("before this run has listed an origin, its dot says when the inventory shown listed it, not 'connected'", async ({
  page,
  world,
}) => {
  // Main's status as it is before this run's first scan: no scan, the stored inventory shown.
  await page.route("**/api/status:get", async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { ok: boolean; data?: { scan?: unknown } };
    if (body.ok && body.data) body.data.scan = null;
    await route.fulfill({ response, json: body });
  });
  await openConsole(page, world);
  const dot = page.getByTestId("origin-status").first();
  await expect(dot).toBeVisible({ timeout: 10_000 });
  await expect(dot).toHaveAttribute("data-state", "listed");
  await expect(dot).toContainText(/listed at \d\d:\d\d/);
  await expect(dot).not.toContainText("connected");

  // With this run's scan in the status, the same origin is connected.
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await expect(dot).toHaveAttribute("data-state", "ok", { timeout: 15_000 });
  await expect(dot).toContainText("connected");
});
