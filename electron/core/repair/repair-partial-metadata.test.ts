import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseRepair, RepairRefusal } from "../../../shared/domain/lease-repair.js";
import { SourceError } from "../leases/source.js";
import { PartialScanSource } from "../leases/testing/partial-scan-source.js";
import type { SourceFinder } from "../leases/whole-lease.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";
import { repairJson } from "./repair-json.js";
import { proveAndRepair } from "./repair-service.js";
import { repairSql } from "./repair-sql.js";

// A repair writes the whole metadata back, so a row whose scan left the host's bookkeeping out of its
// metadata is read again whole, by id, before its repair is computed; when it cannot be, it is refused.
// The sandbox is proven against the simulator over real HTTP; the rows come from a ledger file read the
// way Paperclip's database source scans.

const OTHER_ENVIRONMENT = "55555555-5555-4555-8555-555555555555";
/** What the plugin and Paperclip's host wrote that a scan judging ownership does not read. */
const HOST_KEYS = {
  reusableSandboxLease: { version: 1, fingerprint: "fp-31", workspaceSentinel: "sentinel-31" },
  pluginId: "b1b2c3d4-0000-4000-8000-000000000031",
  pluginKey: "createos",
  note: "kept by the host",
};

const base = markedRow("sb-partial", 31);
const wrongEnvironment = {
  ...base,
  metadata: { ...(base.metadata as Record<string, unknown>), environmentId: OTHER_ENVIRONMENT, ...HOST_KEYS },
};

let w: MarkerWorld;
let source: PartialScanSource;
const sources: SourceFinder = (sourceId) => (sourceId === source.id ? source : undefined);

beforeAll(async () => {
  w = await markerWorld([running("sb-partial", holding(31))], [wrongEnvironment], {
    sources: (config) => {
      const ledger = config.sources[0]!;
      if (ledger.kind !== "ledger") throw new Error("the marker world's source is a ledger file");
      source = new PartialScanSource({ id: ledger.id, path: ledger.path });
      return [source];
    },
  });
});
afterAll(() => w?.stop());

const generatedAt = "2026-12-01T00:00:00.000Z";

describe("a repair of a row the scan read in part", () => {
  it("is computed from the whole row read by id, and keeps every key the scan did not read", async () => {
    const listed = w.inventory.leases.find((entry) => entry.lease.id === wrongEnvironment.id)!;
    expect(listed.lease.partialMetadata).toBe(true);
    expect(Object.keys(listed.lease.metadata as object)).not.toContain("pluginId");
    source.failReads = null;

    const [repair] = await proveAndRepair(w.service, [{ leaseId: wrongEnvironment.id }], sources);
    expect(repair!.proof?.answer).toBe("proven");
    expect(repair!.outcome.ok).toBe(true);
    const outcome = repair!.outcome as LeaseRepair;
    expect(outcome.problems).toContain("wrong-environment");
    expect(outcome.metadata).toMatchObject({ ...HOST_KEYS, environmentId: listed.lease.environmentId });
    expect(outcome.unrestorable.map((field) => field.field)).not.toContain("reusableSandboxLease");

    const json = repairJson([outcome], { handBack: false, generatedAt });
    expect(json.repairs[0]!.metadata).toMatchObject(HOST_KEYS);
    const sql = repairSql([outcome], { handBack: false, generatedAt });
    expect(sql).toMatch(/^UPDATE environment_leases/m);
    for (const value of ["fp-31", HOST_KEYS.pluginId, "kept by the host"]) expect(sql).toContain(value);
  });

  it("is refused, with the reason, when the whole row cannot be read; nothing would be written", async () => {
    source.failReads = new SourceError(source.id, "unreachable", "the Paperclip database is not reachable.");
    const [repair] = await proveAndRepair(w.service, [{ leaseId: wrongEnvironment.id }], sources);
    expect(repair!.proof?.answer).toBe("proven");
    const refusal = repair!.outcome as RepairRefusal;
    expect(refusal.ok).toBe(false);
    expect(refusal.reason).toBe("partial-metadata");
    expect(refusal.message).toContain("the Paperclip database is not reachable");

    const sql = repairSql([refusal], { handBack: false, generatedAt });
    expect(sql.split("\n").filter((line) => !line.startsWith("--"))).toEqual([""]);
    expect(sql).toContain("-- Nothing to repair.");
    expect(repairJson([refusal], { handBack: false, generatedAt }).repairs).toEqual([]);
  });

  it("is refused when the row is gone from its source", async () => {
    source.failReads = null;
    const [repair] = await proveAndRepair(w.service, [{ leaseId: wrongEnvironment.id }], () => undefined);
    expect(repair!.outcome).toMatchObject({ ok: false, reason: "partial-metadata" });
    expect((repair!.outcome as RepairRefusal).message).toContain("its source is no longer configured");
  });
});
