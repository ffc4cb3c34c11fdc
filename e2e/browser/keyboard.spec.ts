import { expect, test } from "../support/leasekeeper.js";
import {
  environmentOf,
  leaseRow,
  matchingCount,
  openConsole,
  plantedLease,
  sandboxOf,
  simSandbox,
} from "./operator.js";

// Done-when 10: keyboard only — navigate, select, open, and confirm an action.
test("keyboard only: find a row, move to it, select it, open it, and release it from the palette", async ({
  page,
  world,
}) => {
  const reusing = world
    .planted("leaking")
    .filter((id) => environmentOf(world, id).config.reuseLease === true);
  const leaseId = reusing[1] ?? plantedLease(world, "leaking");
  const sandboxId = sandboxOf(world, leaseId);
  expect((await simSandbox(world, sandboxId))?.status).toBe("running");
  await openConsole(page, world);

  // "/" jumps to the search; Enter hands focus back to the table.
  await page.keyboard.press("/");
  await expect(page.getByTestId("search")).toBeFocused();
  await page.keyboard.type(leaseId);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("lease-table")).toBeFocused();
  const row = leaseRow(page, leaseId);
  await expect(row).toBeVisible();
  // j moves within the rows shown: the search's answer must be the list on screen, not the one before.
  expect(await matchingCount(page)).toBe(1);

  // j moves the cursor onto the row, space selects it, Enter opens it, Escape closes it.
  await page.keyboard.press("j");
  await expect(row).toHaveAttribute("data-cursor", "true");
  await page.keyboard.press("Space");
  await expect(row).toHaveAttribute("data-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("lease-drawer")).toBeVisible();
  await expect(page.getByTestId("drawer-lease-id")).toHaveText(leaseId);
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("lease-drawer")).toBeHidden();

  // Ctrl-K, type the command, Enter; the plan opens with its confirm button focused; Enter confirms.
  await page.keyboard.press("Control+k");
  await expect(page.getByTestId("command-palette")).toBeVisible();
  await page.keyboard.type("release selected");
  await page.keyboard.press("Enter");
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-count-do")).toHaveAttribute("data-count", "1");
  await expect(dialog.getByTestId("confirm-button")).toBeFocused();
  await page.keyboard.press("Enter");

  await expect(page.getByTestId("job-summary").last()).toHaveAttribute("data-confirmed", "1", {
    timeout: 15_000,
  });
  expect((await simSandbox(world, sandboxId))?.status).toBe("paused");
  await expect(row).toHaveAttribute("data-provider", "paused", { timeout: 10_000 });
});
