import { test as base, expect } from "@playwright/test";
import { openConsole, ownWorld, showLease } from "./operator.js";

// The drawer's "Other rows on this sandbox" is found among the rows read. With an environment's leases
// unread, a lease there may name the same sandbox: the drawer says none read does, and what was not read.
const world = ownWorld({ size: 120, leases: "paperclip" });

base.afterEach(() => world().demo.paperclip?.setFaults([]));

base(
  "with an environment unread, the drawer says no other lease read names the sandbox",
  async ({ page }) => {
    const paperclip = world().demo.paperclip;
    if (!paperclip) throw new Error("the world reads no Paperclip");
    const { environments, leases } = world().demo.world.paperclip;
    const unread = environments[0];
    if (!unread) throw new Error("the world has no environment");
    // A lease of another environment whose sandbox no other lease read names.
    const read = leases.filter((lease) => lease.environmentId !== unread.id);
    const named = new Map<string, number>();
    for (const lease of read)
      if (lease.providerLeaseId)
        named.set(lease.providerLeaseId, (named.get(lease.providerLeaseId) ?? 0) + 1);
    const lease = read.find(
      (candidate) =>
        candidate.status === "active" &&
        candidate.providerLeaseId &&
        named.get(candidate.providerLeaseId) === 1,
    );
    if (!lease) throw new Error("no lease names a sandbox alone");

    await openConsole(page, world());
    // Every environment read: that none other names it is said plainly.
    await (await showLease(page, String(lease.id))).click();
    const shared = page.getByTestId("lease-drawer").getByTestId("shared-with");
    await expect(shared).toContainText("No other lease names this sandbox.", { timeout: 15_000 });
    await page.getByTestId("drawer-close").click();

    paperclip.setFaults([{ path: `^/api/environments/${unread.id}/leases$`, status: 500 }]);
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
      timeout: 20_000,
    });

    await (await showLease(page, String(lease.id))).click();
    await expect(shared).toContainText("No other lease read names this sandbox", { timeout: 15_000 });
    await expect(shared).toContainText("1 environment was not read");
    await expect(shared).not.toContainText("No other lease names this sandbox");
  },
);
