import { expect, test } from "../support/leasekeeper.js";
import { environmentOf, openConsole, plantedLease } from "./operator.js";

test("a reload keeps the environment, the filters and the search, and the address never holds the token", async ({
  page,
  world,
}) => {
  const notFound: string[] = [];
  page.on("response", (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  await openConsole(page, world);
  expect(notFound, "nothing the page loads answers 404 (favicon included)").toEqual([]);
  await expect(page).toHaveTitle(/^Leases · [\d,]+ need attention — Leasekeeper$/);

  const stale = plantedLease(world, "metadata-missing");
  const environment = environmentOf(world, stale);
  await page
    .locator(`[data-testid="sidebar-environment"][data-environment-id="${environment.id}"]`)
    .first()
    .click();
  await page.getByTestId("filter-headline-stale").click();
  await page.getByTestId("search").fill(stale);
  await expect(page.getByTestId("filter-headline-stale")).toHaveAttribute("aria-pressed", "true");
  await expect(page).toHaveURL(/#.*q=/);
  expect(page.url()).not.toContain(world.token);
  await expect(page).toHaveTitle(new RegExp(`^Leases in ${literally(environment.name)}`));

  await page.reload();
  await expect(page.getByTestId("search")).toHaveValue(stale);
  await expect(page.getByTestId("filter-headline-stale")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("view-title")).toHaveText(environment.name);
  await expect(page.locator(`[data-testid="lease-row"][data-lease-id="${stale}"]`)).toBeVisible();

  // Back returns to the environment list before it was chosen.
  await page.goBack();
  await expect(page.getByTestId("view-title")).toHaveText("All environments");
  expect(notFound).toEqual([]);
});

test("a search typed key by key is written to the address once typing pauses, not once a key", async ({
  page,
  world,
}) => {
  await page.addInitScript(() => {
    const writes: string[] = [];
    (window as unknown as { historyWrites: string[] }).historyWrites = writes;
    for (const name of ["pushState", "replaceState"] as const) {
      const original = history[name].bind(history);
      history[name] = (data: unknown, unused: string, url?: string | URL | null) => {
        writes.push(`${name} ${String(url)}`);
        original(data, unused, url);
      };
    }
  });
  await openConsole(page, world);
  const writesSoFar = () =>
    page.evaluate(() => (window as unknown as { historyWrites: string[] }).historyWrites.length);
  const before = await writesSoFar();
  // Nine keystrokes in one turn of the page, as the browser delivers a fast typist's input events.
  await page.evaluate((text) => {
    const input = document.querySelector<HTMLInputElement>("[data-testid='search']")!;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
    for (let end = 1; end <= text.length; end++) {
      setValue.call(input, text.slice(0, end));
      input.dispatchEvent(new Event("input", { bubbles: true }));
    }
  }, "acme-prod");
  await expect(page.getByTestId("search")).toHaveValue("acme-prod");
  await expect(page).toHaveURL(/#q=acme-prod$/);
  const writes = await page.evaluate(() => (window as unknown as { historyWrites: string[] }).historyWrites);
  expect(writes.slice(before)).toEqual([expect.stringMatching(/^replaceState .*#q=acme-prod$/)]);

  await page.reload();
  await expect(page.getByTestId("search")).toHaveValue("acme-prod");
});

test("a reload straight after typing opens on the search as typed, though the address had not followed it yet", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("search").fill("acme");
  await expect(page).toHaveURL(/#q=acme$/);
  // Typed and reloaded in one turn of the page: well inside the pause the address waits for.
  await page.evaluate(() => {
    const input = document.querySelector<HTMLInputElement>("[data-testid='search']")!;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
    setValue.call(input, "acme-prod");
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
  expect(page.url()).toMatch(/#q=acme$/);
  await page.reload();
  await expect(page.getByTestId("search")).toHaveValue("acme-prod");
  await expect(page).toHaveURL(/#q=acme-prod$/);

  // What was kept for that reload is used once: back at the address it was kept for, a later reload
  // opens on the address as it then stands.
  await page.evaluate(() => history.replaceState(null, "", "#q=acme"));
  await page.reload();
  await expect(page.getByTestId("search")).toHaveValue("acme");
});

test('"?" lists the shortcuts, and the palette can open the same list', async ({ page, world }) => {
  await openConsole(page, world);
  await page.getByTestId("lease-table").focus();
  await page.keyboard.press("?");
  const dialog = page.getByTestId("shortcuts-dialog");
  await expect(dialog).toBeVisible();
  for (const key of ["Ctrl K", "?", "/", "R", "J", "K", "Space", "Enter", "X"])
    await expect(dialog.locator("kbd", { hasText: new RegExp(`^${literally(key)}$`) }).first()).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  await page.keyboard.press("Control+k");
  await page.getByTestId("palette-input").fill("shortcuts");
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
});

function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

test("the title counts the leases needing attention in the environment it names, as the view's own line does", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const attention = page.getByTestId("needs-attention");
  await expect(attention).toHaveAttribute("data-count", /^\d+$/);
  const everywhere = Number(await attention.getAttribute("data-count"));

  const stale = plantedLease(world, "metadata-missing");
  const environment = environmentOf(world, stale);
  await page
    .locator(`[data-testid="sidebar-environment"][data-environment-id="${environment.id}"]`)
    .first()
    .click();
  await expect(page.getByTestId("view-title")).toHaveText(environment.name);
  await expect(attention).not.toHaveAttribute("data-count", String(everywhere));
  const here = Number(await attention.getAttribute("data-count"));
  expect(here).toBeGreaterThan(0);
  await expect(page).toHaveTitle(
    `Leases in ${environment.name} · ${here.toLocaleString("en-US")} need attention — Leasekeeper`,
  );
});
