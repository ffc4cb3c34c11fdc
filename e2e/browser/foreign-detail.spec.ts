import type { Locator } from "@playwright/test";
import { expect, LEASE_ROW, test } from "../support/leasekeeper.js";
import { mutatingRequests, openConsole, plantedLease, sandboxOf, showLease, simStats } from "./operator.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Each environment or company the explanation names: by name, its id on hover and copyable, a link. */
async function expectNamedReferences(explanation: Locator, count: number): Promise<string[]> {
  const refs = explanation.getByTestId("named-ref");
  await expect(refs).toHaveCount(count);
  const ids: string[] = [];
  for (const ref of await refs.all()) {
    const id = (await ref.getAttribute("data-id")) ?? "";
    ids.push(id);
    const name = ref.getByTestId("name-link");
    await expect(name).toBeVisible();
    expect((await name.textContent())?.trim(), "named, not by id").not.toMatch(UUID);
    await expect(name.locator("[title]")).toHaveAttribute("title", id);
    await expect(ref.getByTestId("copy-button")).toHaveAttribute("aria-label", `Copy id ${id}`);
  }
  expect(new Set(ids).size, "both sides, not one twice").toBe(count);
  return ids;
}

// Done-when 2: filtering `foreign` and opening a row shows the field-by-field mismatch and the explanation.
test("filtering foreign and opening a row shows the field-by-field mismatch and what it means", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const before = await simStats(world);

  await page.getByTestId("filter-headline-foreign").click();
  await expect(page.getByTestId("filter-headline-foreign")).toHaveAttribute("aria-pressed", "true");
  const headlines = await page
    .locator(LEASE_ROW)
    .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-headline")));
  expect(headlines.length).toBeGreaterThan(0);
  expect(new Set(headlines)).toEqual(new Set(["foreign"]));

  // A lease recorded by another company: the companyId field is the mismatch.
  const leaseId = plantedLease(world, "foreign-company");
  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  await expect(drawer).toBeVisible();
  await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(leaseId);

  const table = drawer.getByTestId("ownership-table");
  await expect(table.locator('[data-field="companyId"]')).toHaveAttribute("data-match", "mismatch");
  await expect(table.locator('[data-field="provider"]')).toHaveAttribute("data-match", "match");
  for (const field of ["provider", "companyId", "environmentId", "apiUrl"]) {
    await expect(table.locator(`[data-field="${field}"]`)).toBeVisible();
  }
  await expect(table.locator('[data-field="companyId"]')).toContainText("mismatch");

  // The explanation is a sentence main wrote for this verdict, and release is refused in the plugin's words.
  const explanation = drawer.getByTestId("drawer-explanation");
  await expect(explanation).toHaveText(/\w+ .*\./);
  // It names the recorded company and the row's by name, never by a bare id.
  await expect(explanation).toContainText("another company (");
  const [recordedCompany] = await expectNamedReferences(explanation, 2);
  await expect(drawer.getByTestId("action-release")).toBeDisabled();
  await expect(drawer.getByTestId("drawer-refusals")).toContainText("does not belong to this environment");

  // The marker is never shown whole.
  const marker = (await table.locator('[data-field="marker"] td').nth(1).textContent()) ?? "";
  expect(marker).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);

  // The recorded company's link filters the table to that company's leases.
  await explanation.getByTestId("name-link").first().click();
  await expect(page.getByTestId("search")).toHaveValue(recordedCompany ?? "");

  // Escape closes the drawer.
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();

  // What the simulator holds: opening a lease acted on nothing.
  const after = await simStats(world);
  expect(mutatingRequests(after)).toBe(mutatingRequests(before));
  expect(mutatingRequests(after, sandboxOf(world, leaseId))).toBe(0);
});

test("a foreign environment's explanation names both environments, and each is a link to its rows", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const leaseId = plantedLease(world, "foreign-environment");
  await (await showLease(page, leaseId)).click();
  const explanation = page.getByTestId("lease-drawer").getByTestId("drawer-explanation");
  await expect(explanation).toContainText("another environment (");
  const [recorded, listed] = await expectNamedReferences(explanation, 2);

  // The environment it is listed under, then the one its metadata names: each selects it in the sidebar.
  for (const id of [listed, recorded]) {
    await explanation.locator(`[data-testid="named-ref"][data-id="${id}"]`).getByTestId("name-link").click();
    await expect(
      page.locator(`[data-testid="sidebar-environment"][data-environment-id="${id}"]`),
    ).toHaveAttribute("aria-current", "page");
  }
});

// Names, not ids: a ledger gives no run, issue or workspace names, so the drawer shows each id (whole on
// hover, copyable) and says why no name is shown.
test("what holds a lease is shown by id where its source gives no names, and the drawer says so", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await (await showLease(page, plantedLease(world, "run-failing"))).click();
  const holder = page.getByTestId("lease-drawer").getByTestId("drawer-holder");
  const run = holder.getByTestId("drawer-holder-run");
  await expect(run).toBeVisible();
  const id = (await run.locator("bdi").textContent())?.trim() ?? "";
  expect(id).toMatch(/\S/);
  await expect(run.locator("bdi")).toHaveAttribute("title", `run id ${id}`);
  await expect(run.getByTestId("copy-button")).toHaveAttribute("aria-label", `Copy run id ${id}`);
  await expect(holder.getByTestId("drawer-holder-names-note")).toHaveText(
    "This source does not give run, issue or workspace names.",
  );
});
