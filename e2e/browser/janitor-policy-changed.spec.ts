import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test as base, expect } from "@playwright/test";
import { DEMO_POLICY, DEMO_POLICY_FILE } from "../../scripts/demo.js";
import { mutatingRequests, openConsole, ownWorld, simStats } from "./operator.js";

// An acting pass from the Janitor view runs the rules its plan showed: the policy file rewritten after
// the plan was shown (the same operator, so the same phrase, one more rule) refuses the pass, nothing
// reaches CreateOS, and the view reads the new plan and asks for the phrase again. The world is this
// spec's own (its policy file changes, and it acts).
const world = ownWorld({ size: 60 });

base("an acting pass over a policy rewritten since its plan was shown is refused", async ({ page }) => {
  base.setTimeout(180_000);
  const policyFile = path.join(world().demo.dir, DEMO_POLICY_FILE);
  const [firstRule] = DEMO_POLICY.rules;
  await writeFile(policyFile, JSON.stringify({ ...DEMO_POLICY, rules: [firstRule] }));

  await openConsole(page, world());
  await page.getByTestId("nav-janitor").click();
  const view = page.getByTestId("janitor-view");
  const rules = view.getByTestId("janitor-next").getByTestId("janitor-rule");
  await expect(rules).toHaveCount(1, { timeout: 30_000 });
  const before = mutatingRequests(await simStats(world()));

  await view.getByTestId("janitor-act-open").click();
  const act = view.getByTestId("janitor-act");
  const phrase = act.getByTestId("janitor-act-phrase");
  await phrase.fill(`act as ${DEMO_POLICY.operator}`);
  await writeFile(policyFile, JSON.stringify(DEMO_POLICY));
  await act.getByTestId("janitor-act-run").click();

  await expect(act.getByTestId("janitor-act-error")).toHaveText(
    "The policy file changed since its plan was shown: look at the new plan before acting.",
    { timeout: 60_000 },
  );
  await expect(rules).toHaveCount(2, { timeout: 30_000 });
  await expect(phrase).toHaveValue("");
  await expect(act.getByTestId("janitor-act-run")).toBeDisabled();
  await expect(view.getByTestId("janitor-no-pass")).toBeVisible();
  expect(mutatingRequests(await simStats(world()))).toBe(before);

  // The new plan shown, the phrase typed again runs it.
  await phrase.fill(`act as ${DEMO_POLICY.operator}`);
  await act.getByTestId("janitor-act-run").click();
  await expect(view.getByTestId("janitor-last-pass")).toHaveAttribute("data-mode", "act", {
    timeout: 120_000,
  });
});
