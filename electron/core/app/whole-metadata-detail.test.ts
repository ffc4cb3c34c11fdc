import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeaseDetailSchema } from "../../../shared/contract/index.js";
import type { ClassifiedLease, ProviderObservation } from "../../../shared/domain/inventory.js";
import { LeaseRowSchema } from "../../../shared/domain/paperclip.js";
import { classifyLease } from "../../../shared/domain/verdict.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { environment, leaseRow, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { Core } from "../compose/index.js";
import { SourceError } from "../leases/source.js";
import { PartialScanSource, scanned } from "../leases/testing/partial-scan-source.js";
import { readLeaseDetail } from "./detail.js";
import { channelCaller } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// A row whose scan left the host's bookkeeping out of its metadata: its detail shows the whole record,
// read again by id from the source that listed it, or says why it shows only the scanned keys.

let sim: Simulator;
let dir: string;
let cleanup: () => Promise<void>;

/** What the plugin and Paperclip's host record for themselves, which a scan leaves out. */
const HOST_KEYS = {
  reusableSandboxLease: { version: 1, fingerprint: "fp-1" },
  pluginId: "createos-plugin",
  remoteCwd: "/paperclip-workspace",
};

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  sim = await startSimulator({
    fleet: {
      accounts: [
        { apiKey: SECRET_KEY, sandboxes: [{ id: "sb-whole", status: "running", shape: "s-1vcpu-1gb" }] },
      ],
    },
    rateLimitPerMinute: 0,
  });
});

afterAll(async () => {
  await sim?.stop();
  await cleanup?.();
});

function wholeRow() {
  const base = leaseRow("", "sb-whole");
  return { ...base, metadata: { ...base.metadata, apiUrl: sim.url, ...HOST_KEYS } };
}

async function writeLedger(file: string, leases: unknown[]) {
  await writeJson(file, {
    environments: [environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } })],
    leases,
  });
}

const keysOf = (detail: { metadata: { entries: { key: string }[] } }) =>
  detail.metadata.entries.map((entry) => entry.key);

describe("a lease's detail, from a source that scans part of the metadata", () => {
  let source: PartialScanSource;
  let listed: ClassifiedLease;

  beforeAll(async () => {
    const file = path.join(dir, "partial-ledger.json");
    await writeLedger(file, [wholeRow()]);
    source = new PartialScanSource({ id: "ledger:partial", path: file });
    const snapshot = await source.load();
    const lease = snapshot.leases[0]!;
    const env = snapshot.environments[0]!;
    const provider: ProviderObservation = {
      code: "running",
      origin: sim.url,
      originFrom: "lease-metadata",
      credential: "account",
      observedAt: new Date().toISOString(),
      rawStatus: "running",
      unknownReason: null,
      sandbox: null,
      actedOnBy: null,
    };
    listed = {
      sourceId: source.id,
      lease,
      environment: env,
      provider,
      verdict: classifyLease(lease, env, provider, { now: new Date(), otherRowsOnSandbox: [] }),
      sharedWith: [],
    };
  });

  const found = () => ({ lease: listed, byId: new Map(), companies: [] });

  it("lists every key of the row read again by id, those the scan did not read included", async () => {
    expect(listed.lease.partialMetadata).toBe(true);
    expect(Object.keys(listed.lease.metadata as object)).not.toContain("pluginId");
    source.failReads = null;
    const detail = await readLeaseDetail(found(), (id) => (id === source.id ? source : undefined));
    expect(LeaseDetailSchema.parse(detail)).toEqual(detail);
    expect(keysOf(detail)).toEqual(expect.arrayContaining(["reusableSandboxLease", "pluginId", "remoteCwd"]));
    expect(detail.metadata.partialNote).toBeNull();
  });

  it("answers from the scanned keys and says why when the row cannot be read again", async () => {
    source.failReads = new SourceError(source.id, "unreachable", "the Paperclip database is not reachable.");
    const detail = await readLeaseDetail(found(), (id) => (id === source.id ? source : undefined));
    expect(LeaseDetailSchema.parse(detail)).toEqual(detail);
    expect(keysOf(detail)).toEqual(Object.keys(listed.lease.metadata as object));
    expect(keysOf(detail)).toContain("marker");
    expect(keysOf(detail)).not.toContain("pluginId");
    expect(detail.metadata.partialNote).toBe(
      "The scan read this row without Paperclip's own bookkeeping keys; the whole record could not be read: the Paperclip database is not reachable.",
    );
    // The rest of the detail stands: the verdict the scan judged is still there.
    expect(detail.verdict.headline).toBe(listed.verdict.headline);
  });

  it("says so when the source that listed the row is no longer configured", async () => {
    const detail = await readLeaseDetail(found(), () => undefined);
    expect(detail.metadata.partialNote).toMatch(/could not be read: its source is no longer configured\.$/);
    expect(keysOf(detail)).not.toContain("pluginId");
  });
});

describe("leases:detail through the composition root", () => {
  let app: Core;
  let ledger: string;
  let whole: ReturnType<typeof wholeRow>;

  beforeAll(async () => {
    const appDir = path.join(dir, "app");
    ledger = path.join(appDir, "ledger.json");
    whole = wholeRow();
    // The file holds the row as a trimming scan reads it; each test then puts in what a read by id finds.
    await mkdir(appDir, { recursive: true });
    await writeLedger(ledger, [scanned(LeaseRowSchema.parse(whole))]);
    app = await openOneAccountApp({
      dir: appDir,
      sources: [{ kind: "ledger", path: "ledger.json", name: "ledger" }],
      origin: sim.url,
      actions: false,
    });
    await call("inventory:get", { refresh: true });
  });

  afterAll(async () => {
    await app?.close();
  });

  const call = channelCaller(() => app);

  it("shows the whole metadata the source holds now for a row its scan read in part", async () => {
    await writeLedger(ledger, [whole]);
    const detail = await call("leases:detail", { leaseId: whole.id });
    expect(keysOf(detail)).toEqual(expect.arrayContaining(["reusableSandboxLease", "pluginId", "remoteCwd"]));
    expect(detail.metadata.partialNote).toBeNull();
  });

  it("still answers, from the scanned keys, when the source cannot be read or the row is gone", async () => {
    await rm(ledger);
    const unreadable = await call("leases:detail", { leaseId: whole.id });
    expect(unreadable.metadata.partialNote).toMatch(
      /^The scan read this row without Paperclip's own bookkeeping keys; the whole record could not be read: cannot read ledger file .*ENOENT/,
    );
    expect(keysOf(unreadable)).toContain("marker");
    expect(keysOf(unreadable)).not.toContain("pluginId");

    await writeLedger(ledger, []);
    const gone = await call("leases:detail", { leaseId: whole.id });
    expect(gone.metadata.partialNote).toMatch(/could not be read: the row is no longer in its source\.$/);
    expect(keysOf(gone)).toContain("marker");
  });
});
