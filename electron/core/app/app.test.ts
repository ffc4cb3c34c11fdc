import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import { decodeInventoryRows } from "../../../shared/contract/index.js";
import { type Core, openCore } from "../compose/index.js";
import { memoryLogger } from "./log.js";
import { channelCaller, finishedJob } from "./testing/app-calls.js";
import { openDemoApp } from "./testing/demo-app.js";

/** The composition root against the simulator and a generated world: every channel, end to end. */

let demo: Demo;
let app: Core;
const log = memoryLogger();
const changes: string[] = [];

beforeAll(async () => {
  demo = await startDemo({ size: 150, seed: "app-test", transitionMs: 20, leases: "ledger" });
  app = await openDemoApp(demo, { version: "9.9.9", demo: true, log });
  app.events.subscribe((channel, payload) => {
    if (channel === "inventory:changed") changes.push((payload as { generatedAt: string }).generatedAt);
  });
}, 30_000);

afterAll(async () => {
  await app?.close();
  await demo?.stop();
});

const call = channelCaller(() => app);

async function refuse(channel: keyof Core["handlers"], request: unknown) {
  const result = await app.handlers[channel](request, { host: "test" });
  if (result.ok) throw new Error(`${channel} should have been refused`);
  return result.error;
}

describe("app:info and the inventory", () => {
  it("says which host, version and config it runs with, and that this is the demo", async () => {
    expect(await call("app:info")).toEqual({
      mode: "browser",
      version: "9.9.9",
      demo: true,
      configPath: demo.configPath,
      dataDir: path.join(demo.dir, ".leasekeeper"),
    });
  });

  it("scans on first ask, then answers from the cache until asked to refresh", async () => {
    const first = await call("inventory:get");
    // History is counted in the view, not carried in its rows.
    expect(first.leases.leaseId.length + first.history.count).toBe(demo.world.ledger.leases.length);
    const again = await call("inventory:get");
    expect(again.generatedAt).toBe(first.generatedAt);
    // A later scan is told apart by its time: wait for the clock to pass the first one's.
    await expect.poll(() => Date.now(), { interval: 1 }).toBeGreaterThan(Date.parse(first.generatedAt));
    const refreshed = await call("inventory:get", { refresh: true });
    expect(refreshed.generatedAt).not.toBe(first.generatedAt);
    expect(changes).toContain(refreshed.generatedAt);
  });

  it("cuts the view to one environment", async () => {
    const environmentId = demo.world.ledger.environments[0]!.id;
    const view = await call("inventory:get", { environmentId });
    expect(decodeInventoryRows(view).every((row) => row.environmentId === environmentId)).toBe(true);
  });

  it("lists untracked sandboxes, per credential when asked", async () => {
    const all = await call("untracked:list");
    expect(all.sandboxes.length).toBeGreaterThan(0);
    const credential = all.sandboxes[0]!.credential;
    const one = await call("untracked:list", { credential });
    expect(one.sandboxes.every((sandbox) => sandbox.credential === credential)).toBe(true);
  });
});

describe("leases:detail", () => {
  it("gives the evidence field by field, with the marker cut to 8 characters", async () => {
    const leaseId = demo.world.planted["owned-running"][0]!;
    const lease = demo.world.ledger.leases.find((row) => row.id === leaseId)!;
    const marker = (lease.metadata as { marker: string }).marker;
    const detail = await call("leases:detail", { leaseId });
    expect(detail.verdict.ownership).toEqual(["owned"]);
    expect(detail.ownershipEvidence.map((field) => field.field)).toEqual(
      expect.arrayContaining(["provider", "companyId", "environmentId", "apiUrl", "marker"]),
    );
    expect(detail.metadata.markerPrefix).toBe(`${marker.slice(0, 8)}…`);
    expect(JSON.stringify(detail)).not.toContain(marker);
    expect(detail.explanation.length).toBeGreaterThan(10);
    expect(detail.provider).toMatchObject({ code: "running", originFrom: "lease-metadata" });
    expect(detail.provider.credential).not.toBeNull();
  });

  it("names other rows on the same sandbox", async () => {
    const leaseId = demo.world.planted.shared[0]!;
    const detail = await call("leases:detail", { leaseId });
    expect(detail.sharedWith.length).toBeGreaterThan(0);
  });

  it("answers not-found for a lease the inventory does not have", async () => {
    expect(await refuse("leases:detail", { leaseId: "no-such-lease" })).toMatchObject({ code: "not-found" });
  });
});

describe("a sandbox Leasekeeper destroyed", () => {
  it("reads as destroyed by the operator at once, with the job, and its row leaves the attention counts", async () => {
    const leaseId = demo.world.planted.leaking[0]!;
    const before = decodeInventoryRows(await call("inventory:get")).find((row) => row.leaseId === leaseId)!;
    expect(before.headline).toBe("leaking");
    const changesBefore = changes.length;

    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [leaseId] },
    });
    expect(plan.items).toMatchObject([{ leaseId, decision: "do", confirmation: "click" }]);
    const { jobId } = await call("actions:execute", { planId: plan.planId });
    const job = await finishedJob(call, jobId);
    expect(job.items).toMatchObject([{ leaseId, state: "confirmed", effect: "delete" }]);

    // No refresh: the job's confirmation alone updates the inventory and announces the change. The row
    // is history now: out of the view, in its history pages.
    const view = await call("inventory:get");
    expect(view.leases.leaseId).not.toContain(leaseId);
    const historyRow = async () =>
      decodeInventoryRows(
        (await call("inventory:history", { environmentId: null, offset: 0, limit: 10, search: leaseId }))
          .rows,
      ).find((candidate) => candidate.leaseId === leaseId)!;
    const row = await historyRow();
    expect(row).toMatchObject({
      headline: "closed",
      provider: "gone",
      actedOnBy: { action: "destroy", effect: "delete", jobId },
      allowedActions: [],
    });
    expect(changes.length).toBeGreaterThan(changesBefore);
    const detail = await call("leases:detail", { leaseId });
    expect(detail.actedOnBy).toMatchObject({ action: "destroy", effect: "delete", jobId });
    expect(detail.actedOnBy?.operator).toMatch(/\S/);
    expect(detail.explanation).toContain(`Leasekeeper destroyed this sandbox (job ${jobId})`);
    expect(detail.paperclipWill).toMatch(/^Nothing: .*history/);

    // A fresh scan (CreateOS now lists it destroyed) keeps both the verdict and who destroyed it.
    await call("inventory:get", { refresh: true });
    const after = await historyRow();
    expect(after).toMatchObject({ headline: "closed", actedOnBy: { action: "destroy", jobId } });
  });
});

describe("a sandbox Leasekeeper released", () => {
  it("reads as released by the operator at once, with the job and the time, and leaves the attention counts", async () => {
    const rows = decodeInventoryRows(await call("inventory:get"));
    const leaking = rows.find(
      (row) => row.headline === "leaking" && row.allowedActions.includes("release") && row.actedOnBy === null,
    );
    expect(leaking, "the demo plants a leaking lease the plugin would release").toBeDefined();
    const leaseId = leaking!.leaseId;

    const plan = await call("actions:plan", {
      action: "release",
      selection: { kind: "leases", leaseIds: [leaseId] },
    });
    expect(plan.items).toMatchObject([{ leaseId, decision: "do" }]);
    const { jobId } = await call("actions:execute", { planId: plan.planId });
    const job = await finishedJob(call, jobId);
    const [item] = job.items;
    expect(item).toMatchObject({ leaseId, state: "confirmed" });

    const { entries } = await call("audit:query", { action: "release" });
    const operator = entries.find((entry) => entry.kind === "item" && entry.jobId === jobId)?.operator;
    expect(operator).toMatch(/\S/);

    // No refresh: the job's confirmation alone marks the row, and it no longer needs attention.
    const row = decodeInventoryRows(await call("inventory:get")).find(
      (candidate) => candidate.leaseId === leaseId,
    )!;
    expect(row.actedOnBy).toEqual({
      action: "release",
      effect: item!.effect,
      jobId,
      at: item!.finishedAt,
      operator,
    });
    expect(["ok", "closed"]).toContain(row.headline);
    const detail = await call("leases:detail", { leaseId });
    expect(detail.actedOnBy).toMatchObject({ action: "release", jobId, operator });
  });
});

describe("settings and credentials", () => {
  it("shows each credential as set or missing, where it is kept, and its last four characters only", async () => {
    const settings = await call("settings:get");
    expect(settings.credentials.length).toBe(demo.world.config.credentials.length);
    for (const credential of settings.credentials) {
      expect(credential).toMatchObject({ state: "set", storedIn: "env" });
      expect(credential.last4).toHaveLength(4);
    }
    expect(JSON.stringify(settings)).not.toContain(Object.values(demo.keys)[0]);
    expect(settings.vault).toMatchObject({ encryption: "key-file", persistAllowed: true });
  });

  it("tests a key against CreateOS: accepted, and a wrong one refused with its status", async () => {
    const name = demo.world.config.credentials[0]!.name;
    const origin = demo.world.config.credentials[0]!.origin;
    expect(await call("credentials:test", { name })).toMatchObject({ ok: true, httpStatus: 200 });
    await call("credentials:set", { name, origin, apiKey: "cos_wrong_key_0000", saveUnverified: true });
    expect(await call("credentials:test", { name })).toMatchObject({ ok: false, httpStatus: 401 });
    const cleared = await call("credentials:clear", { name });
    expect(cleared).toMatchObject({ state: "set", storedIn: "env", notVerified: false });
    expect(await call("credentials:test", { name })).toMatchObject({ ok: true });
  });

  it("says why a key failed its test once, in one sentence that names the status a single time", async () => {
    const { name, origin } = demo.world.config.credentials[0]!;
    const answer = await call("credentials:set", { name, origin, apiKey: "cos_wrong_key_0001" });
    expect(answer.test).toMatchObject({ ok: false, httpStatus: 401 });
    expect(answer.test.message).toBe(
      "CreateOS refused this key (HTTP 401): it is wrong, revoked, or not a key for this API URL.",
    );
    expect(answer.test.message.match(/HTTP 401/g)).toHaveLength(1);
  });

  it("does not save a key that fails its test unless the operator saves it anyway", async () => {
    const origin = demo.world.config.credentials[0]!.origin;
    const before = readFileSync(demo.configPath, "utf8");
    const refused = await call("credentials:set", {
      name: "rejected",
      origin,
      apiKey: "cos_nonsense_key_9z",
    });
    expect(refused).toMatchObject({ saved: false, credential: null, test: { ok: false, httpStatus: 401 } });
    expect(readFileSync(demo.configPath, "utf8")).toBe(before);
    const vaultFile = path.join(demo.dir, ".leasekeeper", "vault.json");
    expect((await call("settings:get")).credentials.map((entry) => entry.name)).not.toContain("rejected");

    const kept = await call("credentials:set", {
      name: "rejected",
      origin,
      apiKey: "cos_nonsense_key_9z",
      saveUnverified: true,
    });
    expect(kept).toMatchObject({
      saved: true,
      test: { ok: false },
      credential: { name: "rejected", state: "set", storedIn: "vault", last4: "y_9z", notVerified: true },
    });
    const raw = JSON.parse(readFileSync(demo.configPath, "utf8")) as {
      credentials: Array<Record<string, unknown>>;
    };
    expect(raw.credentials.find((entry) => entry.name === "rejected")).toMatchObject({ notVerified: true });
    expect(readFileSync(demo.configPath, "utf8")).not.toContain("cos_nonsense_key_9z");
    expect(readFileSync(vaultFile, "utf8")).not.toContain("cos_nonsense_key_9z");
    // The mark survives a reload of settings (it lives in the config with the credential's other fields).
    expect((await call("settings:get")).credentials.find((entry) => entry.name === "rejected")).toMatchObject(
      {
        notVerified: true,
      },
    );
  });

  it("saves a key that passes its test without a mark, and a passing test clears an earlier mark", async () => {
    const { origin, apiKeyEnv } = demo.world.config.credentials[0]!;
    const goodKey = demo.keys[apiKeyEnv]!;
    const marked = await call("credentials:set", {
      name: "renewed",
      origin,
      apiKey: "cos_not_yet_valid_1",
      saveUnverified: true,
    });
    expect(marked.credential).toMatchObject({ notVerified: true });
    const renewed = await call("credentials:set", { name: "renewed", origin, apiKey: goodKey });
    expect(renewed).toMatchObject({ saved: true, test: { ok: true }, credential: { notVerified: false } });
    const raw = JSON.parse(readFileSync(demo.configPath, "utf8")) as {
      credentials: Array<Record<string, unknown>>;
    };
    expect(raw.credentials.find((entry) => entry.name === "renewed")).not.toHaveProperty("notVerified");
    expect(JSON.stringify(renewed)).not.toContain(goodKey);
  });

  it("writes a new credential's key to the vault and its entry (never the key) to the config", async () => {
    const origin = demo.world.config.credentials[0]!.origin;
    const answer = await call("credentials:set", {
      name: "added",
      origin,
      apiKey: "cos_added_key_abcd",
      saveUnverified: true,
    });
    expect(answer.credential).toEqual({
      name: "added",
      origin,
      state: "set",
      last4: "abcd",
      storedIn: "vault",
      apiKeyEnv: "LEASEKEEPER_KEY_ADDED",
      notVerified: true,
    });
    const config = readFileSync(demo.configPath, "utf8");
    expect(config).toContain('"added"');
    expect(config).not.toContain("cos_added_key_abcd");
    const vault = readFileSync(path.join(demo.dir, ".leasekeeper", "vault.json"), "utf8");
    expect(vault).not.toContain("cos_added_key_abcd");
  });

  it("refuses a credential origin outside the plugin's URL rule", async () => {
    expect(
      await refuse("credentials:set", {
        name: "x",
        origin: "http://evil.example",
        apiKey: "cos_x_key_123456",
      }),
    ).toMatchObject({
      code: "invalid-request",
      message: expect.stringContaining("credentials:set: origin:"),
    });
  });

  it("updates the request budget and refresh interval in the config file", async () => {
    const settings = await call("settings:update", { rateLimitPerMinute: 120, refreshIntervalSeconds: 600 });
    expect(settings).toMatchObject({ rateLimitPerMinute: 120, refreshIntervalSeconds: 600 });
    const raw = JSON.parse(readFileSync(demo.configPath, "utf8")) as Record<string, unknown>;
    expect(raw).toMatchObject({ rateLimitPerMinute: 120, refreshIntervalSeconds: 600 });
    const status = await call("status:get");
    expect(status.origins.every((origin) => origin.budgetPerMinute === 120)).toBe(true);
    await call("settings:update", { rateLimitPerMinute: 300 });
  });

  it("keeps a price per vCPU-hour and per GiB-hour in the config file, and clears one set to null", async () => {
    const before = await call("settings:get");
    expect(before).toMatchObject({ pricePerVcpuHour: null, pricePerGibHour: null });
    const set = await call("settings:update", { pricePerVcpuHour: 0.04, pricePerGibHour: 0.005 });
    expect(set).toMatchObject({ pricePerVcpuHour: 0.04, pricePerGibHour: 0.005 });
    const raw = JSON.parse(readFileSync(demo.configPath, "utf8")) as Record<string, unknown>;
    expect(raw).toMatchObject({ pricePerVcpuHour: 0.04, pricePerGibHour: 0.005 });
    const cleared = await call("settings:update", { pricePerVcpuHour: null });
    expect(cleared).toMatchObject({ pricePerVcpuHour: null, pricePerGibHour: 0.005 });
    await call("settings:update", { pricePerGibHour: null });
    expect(JSON.parse(readFileSync(demo.configPath, "utf8"))).not.toHaveProperty("pricePerGibHour");
  });

  it("applies a typed-count threshold set in settings to the next plan", async () => {
    // Two rows a click would destroy (not ok: an ok sandbox always needs the count, whatever the threshold).
    const leaseIds = decodeInventoryRows(await call("inventory:get"))
      .filter((row) => row.headline !== "ok" && row.allowedActions.includes("destroy"))
      .filter((row) => row.destroyConfirmation === "click")
      .slice(0, 2)
      .map((row) => row.leaseId);
    expect(leaseIds).toHaveLength(2);
    const plan = () => call("actions:plan", { action: "destroy", selection: { kind: "leases", leaseIds } });

    expect((await call("settings:update", { typedCountAbove: 1 })).typedCountAbove).toBe(1);
    const raw = JSON.parse(readFileSync(demo.configPath, "utf8")) as Record<string, unknown>;
    expect(raw.typedCountAbove).toBe(1);
    expect((await plan()).countConfirmation).toMatchObject({ reasons: ["over-threshold"], threshold: 1 });

    await call("settings:update", { typedCountAbove: 20 });
    expect((await plan()).countConfirmation ?? null).toBeNull();
  });

  it("refuses invalid settings with a clear message", async () => {
    expect(await refuse("settings:update", { refreshIntervalSeconds: 5 })).toMatchObject({
      code: "invalid-request",
      message: expect.stringMatching(/^settings:update: refreshIntervalSeconds: /),
    });
    expect(
      await refuse("settings:update", { sources: [{ kind: "ledger", path: "relative.json" }] }),
    ).toMatchObject({
      code: "refused",
    });
  });

  it("will not let the UI pair a Paperclip URL with a CreateOS key's variable (no key exfiltration)", async () => {
    const apiKeyEnv = demo.world.config.credentials[0]!.apiKeyEnv;
    const ledger = path.join(demo.dir, "ledger.json");
    const error = await refuse("settings:update", {
      sources: [
        { kind: "ledger", path: ledger },
        { kind: "paperclip", url: "https://attacker.example", tokenEnv: apiKeyEnv },
      ],
    });
    expect(error.code).toBe("refused");
    const other = await refuse("settings:update", {
      sources: [
        { kind: "ledger", path: ledger },
        { kind: "paperclip", url: "https://attacker.example", tokenEnv: "AWS_SECRET_ACCESS_KEY" },
      ],
    });
    expect(other.code).toBe("refused");
    expect(readFileSync(demo.configPath, "utf8")).not.toContain("attacker.example");
  });
});

describe("status and outages", () => {
  it("reports each origin's budget and state, and never calls a gone provider's sandboxes gone", async () => {
    const before = await call("status:get");
    expect(before.origins.length).toBeGreaterThan(0);
    expect(before.origins.every((origin) => origin.state === "ok")).toBe(true);
    expect(before.lastRefreshAt).not.toBeNull();

    await demo.simulator.suspend();
    try {
      const view = await call("inventory:get", { refresh: true });
      const rows = decodeInventoryRows(view);
      expect(rows.some((row) => row.provider === "gone" && row.unknownReason !== null)).toBe(false);
      expect(
        rows.filter((row) => row.sandboxId !== null && row.provider === "unknown").length,
      ).toBeGreaterThan(0);
      const during = await call("status:get");
      expect(during.origins.some((origin) => origin.state === "down" && origin.lastError === "network")).toBe(
        true,
      );
    } finally {
      await demo.simulator.resume();
    }
  }, 60_000);

  it("a broken config file stops the app from starting with one line naming the file", async () => {
    const broken = path.join(demo.dir, "broken.config.json");
    writeFileSync(broken, "{ not json");
    await expect(
      openCore({ configPath: broken, mode: "browser", version: "x", log: memoryLogger() }),
    ).rejects.toThrow(`${broken}: is not valid JSON.`);
  });
});
