import { expect, test } from "../support/leasekeeper.js";
import {
  mutatingRequests,
  openConsole,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
  simStats,
} from "./operator.js";

// Done-when 4: release on a foreign row is disabled with its reason, and the contract call refuses it too.
test("release on a foreign row is disabled with the plugin's reason, and main refuses it when asked directly", async ({
  page,
  world,
}) => {
  const leaseId = plantedLease(world, "foreign-environment");
  const sandboxId = sandboxOf(world, leaseId);
  const statusBefore = (await simSandbox(world, sandboxId))?.status;

  await openConsole(page, world);
  const row = await showLease(page, leaseId);
  await expect(row).toHaveAttribute("data-headline", "foreign");
  const release = row.getByTestId("action-release");
  await expect(release).toBeDisabled();

  // The reason is main's refusal message, shown on hover.
  await row.getByTestId("refusal-hint").first().hover();
  await expect(page.getByTestId("refusal-reason")).toContainText("does not belong to this environment");

  // The same request straight through the contract, as a hostile renderer would send it: main plans
  // nothing to do, and executing that plan acts on nothing.
  const answer = await page.evaluate(
    async ({ token, leaseId }) => {
      const call = async (channel: string, body: unknown) => {
        const response = await fetch(`/api/${channel}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": token },
          body: JSON.stringify(body),
        });
        return response.json();
      };
      const plan = await call("actions:plan", {
        action: "release",
        selection: { kind: "leases", leaseIds: [leaseId] },
      });
      const execute = plan.ok ? await call("actions:execute", { planId: plan.data.planId }) : null;
      return { plan, execute };
    },
    { token: world.token, leaseId },
  );
  if (answer.plan.ok) {
    expect(answer.plan.data.counts.do).toBe(0);
    expect(answer.plan.data.items[0].decision).toBe("skip");
    expect(answer.plan.data.items[0].skipReason).toMatch(/foreign/);
    if (answer.execute?.ok) {
      for (const item of answer.execute.data.items) expect(item.state).not.toBe("confirmed");
    } else {
      expect(answer.execute?.error.code).toMatch(/refused|conflict|invalid-request/);
    }
  } else {
    expect(answer.plan.error.code).toBe("refused");
  }

  // What the simulator holds once whatever main started has ended (a refused execute started nothing):
  // nothing was sent for that sandbox, and it is as it was.
  const jobId: string | undefined = answer.execute?.ok ? answer.execute.data.jobId : undefined;
  if (jobId !== undefined) {
    await expect
      .poll(
        () =>
          page.evaluate(
            async ({ token, jobId }) => {
              const response = await fetch("/api/jobs:get", {
                method: "POST",
                headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": token },
                body: JSON.stringify({ jobId }),
              });
              return ((await response.json()) as { data?: { state: string } }).data?.state;
            },
            { token: world.token, jobId },
          ),
        { timeout: 15_000 },
      )
      .toMatch(/^(completed|cancelled|interrupted)$/);
  }
  expect(mutatingRequests(await simStats(world), sandboxId)).toBe(0);
  expect((await simSandbox(world, sandboxId))?.status).toBe(statusBefore);
});
