import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseRepair, RepairRefusal } from "../../../shared/domain/lease-repair.js";
import { OTHER_KEY } from "../../../test/fixtures/leasekeeper.js";
import { LedgerSource } from "../leases/ledger.js";
import type { SourceFinder } from "../leases/whole-lease.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";
import { REDACTED, SecretRedactor } from "../redaction/redactor.js";
import { proveAndRepair } from "./repair-service.js";
import { repairSql } from "./repair-sql.js";

// The inventory a repair is judged on may be the one kept on disk (read back from the store once its
// history is shelved, or loaded at start), where every configured key was taken out of the rows. A
// repair writes the whole metadata back, so a row showing a key taken out is read again whole, by id,
// from its source: the key goes back as the source holds it, never as "[redacted]".

const OTHER_ENVIRONMENT = "55555555-5555-4555-8555-555555555555";
const base = markedRow("sb-kept", 41);
/** A row on the wrong environment whose metadata holds a configured key (pasted by hand). */
const wrongEnvironment = {
  ...base,
  metadata: {
    ...(base.metadata as Record<string, unknown>),
    environmentId: OTHER_ENVIRONMENT,
    note: `rotated from ${OTHER_KEY}`,
  },
};

let w: MarkerWorld;
let source: LedgerSource;
const sources: SourceFinder = (sourceId) => (sourceId === source.id ? source : undefined);

beforeAll(async () => {
  const redactor = new SecretRedactor();
  redactor.set([OTHER_KEY]);
  w = await markerWorld([running("sb-kept", holding(41))], [wrongEnvironment], {
    sources: (config) => {
      const ledger = config.sources[0]!;
      if (ledger.kind !== "ledger") throw new Error("the marker world's source is a ledger file");
      source = new LedgerSource({ id: ledger.id, path: ledger.path });
      return [source];
    },
    kept: (inventory) => redactor.redactDeep(inventory),
  });
});
afterAll(() => w?.stop());

const generatedAt = "2026-12-01T00:00:00.000Z";

describe("a repair judged on the inventory kept on disk", () => {
  it("writes the key back as the source holds it, read again by id", async () => {
    const kept = (await w.service.proveLeases([{ leaseId: wrongEnvironment.id }]))[0]!.classified;
    expect(JSON.stringify(kept.lease.metadata), "the kept row had the key taken out").toContain(REDACTED);
    const [repair] = await proveAndRepair(w.service, [{ leaseId: wrongEnvironment.id }], sources);
    expect(repair!.proof?.answer).toBe("proven");
    const outcome = repair!.outcome as LeaseRepair;
    expect(outcome.ok).toBe(true);
    expect(outcome.problems).toContain("wrong-environment");
    expect(outcome.metadata).toMatchObject({ note: `rotated from ${OTHER_KEY}` });
    const sql = repairSql([outcome], { handBack: false, generatedAt });
    expect(sql).toContain(OTHER_KEY);
    expect(sql).not.toContain(REDACTED);
  });

  it("is refused when the row cannot be read again; nothing with a key taken out is written", async () => {
    const [repair] = await proveAndRepair(w.service, [{ leaseId: wrongEnvironment.id }], () => undefined);
    const refusal = repair!.outcome as RepairRefusal;
    expect(refusal).toMatchObject({ ok: false, reason: "partial-metadata" });
    expect(refusal.message).toContain("a configured key taken out");
    expect(refusal.message).toContain("its source is no longer configured");
    expect(repairSql([refusal], { handBack: false, generatedAt })).toContain("-- Nothing to repair.");
  });
});
