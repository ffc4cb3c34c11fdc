import { expect, test } from "../support/leasekeeper.js";
import { leaseRow, openConsole, showLease } from "./operator.js";

const ANSWERS = /^(proven|another-lease|no-marker|cannot-read)$/;

test.use({ viewport: { width: 1280, height: 720 } });

// An answer belongs to the subject it was asked about. A proof read for lease A is not shown in the drawer
// once it shows lease B; going back to A shows A's answer again, with when it was read.
test("a proof on lease A is never shown in the drawer of lease B", async ({ page, world }) => {
  const [leaseA, leaseB] = world.planted("owned-running");
  expect(leaseA && leaseB).toBeTruthy();
  await openConsole(page, world);
  // B is opened first, so its detail is at hand when the drawer switches back to it.
  await (await showLease(page, leaseB!)).click();
  const drawer = page.getByTestId("lease-drawer");
  await expect(page.getByTestId("drawer-lease-id")).toHaveText(leaseB!);
  await expect(drawer.getByTestId("drawer-todo")).toBeVisible();
  await page.getByTestId("search").fill(leaseA!);
  await leaseRow(page, leaseA!).click();
  await expect(page.getByTestId("drawer-lease-id")).toHaveText(leaseA!);
  await drawer.getByTestId("prove-button").click();
  await expect(drawer.getByTestId("prove-answer")).toHaveAttribute("data-answer", ANSWERS);
  await expect(drawer.getByTestId("prove-answer")).toHaveAttribute("data-subject", new RegExp(leaseA!));

  // The drawer stays open and switches to B: nothing of A's answer may stay on screen.
  await page.getByTestId("search").fill(leaseB!);
  await leaseRow(page, leaseB!).click();
  await expect(page.getByTestId("drawer-lease-id")).toHaveText(leaseB!);
  await expect(drawer.getByTestId("drawer-todo")).toBeVisible();
  await expect(drawer.getByTestId("prove-answer")).toHaveCount(0);
  await expect(drawer.getByTestId("prove-button")).toBeEnabled();

  // Back on A, A's own answer is there again, saying when it was read.
  await page.getByTestId("search").fill(leaseA!);
  await leaseRow(page, leaseA!).click();
  await expect(page.getByTestId("drawer-lease-id")).toHaveText(leaseA!);
  await expect(drawer.getByTestId("prove-answer")).toHaveAttribute("data-subject", new RegExp(leaseA!));
  await expect(drawer.getByTestId("prove-answer")).toContainText(/read .*ago|read just now/);
});

test("a proof on one untracked sandbox is never shown under another", async ({ page, world }) => {
  await openConsole(page, world);
  await page.getByTestId("sidebar-untracked").first().click();
  const opens = page.getByTestId("untracked-open");
  await expect(opens.nth(1)).toBeVisible();
  await opens.nth(0).click();
  const detail = page.getByTestId("untracked-detail");
  const idA = (await detail.getByTestId("untracked-detail-id").textContent()) ?? "";
  await detail.getByTestId("prove-button").click();
  await expect(detail.getByTestId("prove-answer")).toHaveAttribute("data-answer", ANSWERS);

  await opens.nth(1).click();
  await expect(detail.getByTestId("untracked-detail-id")).not.toHaveText(idA);
  await expect(detail.getByTestId("prove-answer")).toHaveCount(0);
  await expect(detail.getByTestId("quarantine-refusal")).toHaveCount(0);
  // One name for one action: the same words as the drawer's.
  await expect(detail.getByTestId("prove-button")).toHaveText("Prove ownership");
});
