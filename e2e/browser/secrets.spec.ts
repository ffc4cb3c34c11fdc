import { expect, test } from "../support/leasekeeper.js";
import { openConsole, simStats } from "./operator.js";

// Done-when 8: a key typed into settings never appears in the page, in any response, or in storage.
test("a key typed into settings is sent once and never appears in the page, a response or storage", async ({
  page,
  world,
}) => {
  // A real key of a simulator account, so that "test connection" can succeed with it.
  const key = Object.values(world.demo.keys)[0]!;
  const forms = [key, Buffer.from(key).toString("base64"), encodeURIComponent(key)];
  const responses: string[] = [];
  page.on("response", async (response) => {
    if (!response.url().includes("/api/") || response.url().includes("/api/events")) return;
    try {
      responses.push(await response.text());
    } catch {
      // a body that is gone (navigation) cannot hold the key either
    }
  });
  const leaks = async (where: string) => {
    const html = await page.content();
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    for (const form of forms) {
      expect(html, `the key is in the page (${where})`).not.toContain(form);
      expect(storage, `the key is in storage (${where})`).not.toContain(form);
    }
  };

  await openConsole(page, world);
  await page.getByTestId("nav-settings").click();
  await page.getByTestId("credential-name").fill("canary");
  await page.getByTestId("credential-origin").fill(world.demo.simulator.url);
  await page.getByTestId("credential-key").fill(key);
  await leaks("while typed");
  await page.getByTestId("credential-save").click();
  await expect(page.getByTestId("credential-result")).toBeVisible();

  // The field is emptied; the table says only "set, ends in …" and the last four characters.
  await expect(page.getByTestId("credential-key")).toHaveValue("");
  const saved = page.locator('[data-testid="credential-row"][data-name="canary"]');
  const stored = await saved.count();
  test.info().annotations.push({ type: "key stored by the host", description: String(stored > 0) });
  if (stored > 0) {
    await expect(saved.getByTestId("credential-state")).toContainText(`ends in …${key.slice(-4)}`);
    const before = await simStats(world);
    await saved.getByTestId("credential-test").click();
    await expect(saved.getByTestId("credential-test-result")).toBeVisible({ timeout: 15_000 });
    // What the simulator holds: the test reached it, authorized with that key.
    const after = await simStats(world);
    expect(after.total).toBeGreaterThan(before.total);
  } else {
    // A host that may not store keys says so next to the field, and still shows nothing of the key.
    await expect(page.getByTestId("credential-result")).not.toBeEmpty();
  }
  await leaks("after saving");

  for (const view of ["leases", "pictures", "audit", "settings"] as const) {
    if (view === "leases") await page.getByTestId("sidebar-all").click();
    else await page.getByTestId(`nav-${view}`).click();
    // The view is shown with its data: no placeholder is left.
    await expect(page.getByTestId("skeleton")).toHaveCount(0);
    await leaks(`in the ${view} view`);
  }
  await page.waitForTimeout(300);
  for (const body of responses) for (const form of forms) expect(body).not.toContain(form);
  expect(responses.length).toBeGreaterThan(3);
});
