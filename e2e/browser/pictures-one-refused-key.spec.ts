import { test as base, expect } from "@playwright/test";
import { TERMINAL_PROVIDER_STATUSES } from "../../shared/domain/codes.js";
import { openConsole, ownWorld } from "./operator.js";

// With two CreateOS accounts and one key refused, the Pictures name that account (at each API URL it is
// configured for) as not listed, and count the untracked sandboxes of the account that was listed.
const world = ownWorld({ size: 120 });

base.afterEach(() => world().setFaults([]));

base("one account's key refused: the Pictures name it not listed and count the other's", async ({ page }) => {
  const { demo } = world();
  const credentials = (demo.world.config as { credentials: { name: string; apiKeyEnv: string }[] })
    .credentials;
  const keyEnvs = [...new Set(credentials.map((credential) => credential.apiKeyEnv))];
  expect(keyEnvs).toHaveLength(2);
  const [listedEnv, refusedEnv] = keyEnvs as [string, string];
  const refusedKey = demo.keys[refusedEnv]!;
  const listedKey = demo.keys[listedEnv]!;
  const namesOf = (env: string) =>
    credentials.filter((credential) => credential.apiKeyEnv === env).map((credential) => credential.name);

  // What CreateOS holds for the account still listed: alive sandboxes no lease names.
  const named = new Set(demo.world.ledger.leases.map((lease) => lease.providerLeaseId));
  const listedAccount = demo.simulator.sandboxes().find((account) => listedKey.endsWith(account.apiKeyHint));
  if (!listedAccount) throw new Error("the simulator holds no account for the listed key");
  const untrackedOfListed = listedAccount.sandboxes.filter(
    (sandbox) =>
      !(TERMINAL_PROVIDER_STATUSES as readonly string[]).includes(sandbox.status) && !named.has(sandbox.id),
  ).length;
  expect(untrackedOfListed).toBeGreaterThan(0);

  await openConsole(page, world());
  world().setFaults([{ path: "^/v1/sandboxes", apiKey: refusedKey, status: 401 }]);
  await page.getByTestId("refresh").click();
  await page.getByTestId("nav-pictures").click();

  const unlisted = page.getByTestId("pictures-unlisted");
  const refusedNames = namesOf(refusedEnv);
  await expect(unlisted).toHaveAttribute("data-count", String(refusedNames.length), { timeout: 20_000 });
  for (const name of refusedNames) await expect(unlisted).toContainText(name);
  for (const name of namesOf(listedEnv)) await expect(unlisted).not.toContainText(name);

  const untracked = page.locator('[data-testid="holding"][data-label="untracked"]');
  await expect(untracked).toHaveAttribute("data-sandboxes", String(untrackedOfListed), { timeout: 20_000 });
  await expect(page.getByTestId("pictures-cost-unread")).toContainText("not listed");
});
