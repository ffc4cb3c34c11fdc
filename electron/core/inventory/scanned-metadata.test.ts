import { describe, expect, it } from "vitest";
import { encodeInventory } from "../../../shared/contract/inventory-view/encode.js";
import { ACTION_KINDS } from "../../../shared/domain/codes.js";
import { explainVerdictParts } from "../../../shared/domain/explain-verdict.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { recordedMarker } from "../../../shared/domain/marker-proof.js";
import { ownershipEvidence } from "../../../shared/domain/ownership-evidence.js";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { paperclipWill, recordedReuseLease } from "../../../shared/domain/paperclip-will.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import {
  HOST_BOOKKEEPING_KEYS,
  isTrimmableMetadata,
  keysLeftOutOfScan,
  scannedMetadata,
} from "../../../shared/domain/scanned-metadata.js";
import { meta } from "../../../shared/domain/test-fixtures.js";
import { decideLease } from "../actions/guard/rules.js";
import { leaseFingerprint } from "../actions/plan/fingerprint.js";
import { forcedReasonsOfLease, planNames } from "../actions/plan/forced-reasons.js";
import { staleConfigFields } from "./report.js";
import { generatedWorldInput } from "./testing/generated-world.js";

const BOOKKEEPING = Object.fromEntries(HOST_BOOKKEEPING_KEYS.map((key, at) => [key, `kept-${at}`]));

/** Metadata no generator writes, each with the host's keys beside it, planted on rows of the world. */
const HOSTILE: unknown[] = [
  JSON.parse(`{"__proto__": ${JSON.stringify(meta())}, "pluginId": "p"}`),
  meta({ provider: ["createos"], marker: [], ...BOOKKEEPING }),
  meta({ companyId: null, environmentId: null, apiUrl: null, provider: null, ...BOOKKEEPING }),
  meta({ pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: "9999999999999", ...BOOKKEEPING }),
  meta({ reuseLease: null, timeoutMs: null, shape: { nested: true }, ...BOOKKEEPING }),
  { providerMetadata: meta(), ...BOOKKEEPING },
  { ...BOOKKEEPING },
  [BOOKKEEPING],
  "metadata as a string",
  42,
  null,
];

function withHostileMetadata(input: ReturnType<typeof generatedWorldInput>) {
  const snapshot = input.snapshots[0]!;
  const leases = snapshot.leases.map((lease, at) =>
    at % 97 === 0
      ? { ...lease, metadata: HOSTILE[(at / 97) % HOSTILE.length] as LeaseRow["metadata"] }
      : lease,
  );
  return { ...input, snapshots: [{ ...snapshot, leases }] };
}

/** Everything Leasekeeper derives from each classified row, short of showing or repairing it. */
function judgements(inventory: Inventory) {
  const rows = new Map(inventory.leases.map((each) => [each.lease.id, each.lease]));
  const names = planNames(inventory);
  return inventory.leases.map((classified) => judgement(classified, names, rows));
}

function judgement(
  classified: ClassifiedLease,
  names: ReturnType<typeof planNames>,
  rows: ReadonlyMap<string, LeaseRow>,
) {
  const otherRows = classified.sharedWith.map((id) => rows.get(id)!);
  return {
    id: classified.lease.id,
    verdict: classified.verdict,
    provider: classified.provider,
    sharedWith: classified.sharedWith,
    explanation: explainVerdictParts(classified),
    evidence: ownershipEvidence(classified.lease, classified.environment),
    will: paperclipWill(classified),
    forced: forcedReasonsOfLease(classified, names),
    staleFields: staleConfigFields(classified),
    marker: recordedMarker(classified.lease.metadata),
    reuse: recordedReuseLease(classified.lease.metadata),
    fingerprint: leaseFingerprint(classified.lease, classified.provider.code),
    decisions: ACTION_KINDS.map((action) => decideLease(action, { ...classified, otherRows })),
  };
}

describe("judging a lease by the metadata a scan reads", () => {
  it("judges every row of a generated world, hostile metadata included, as by the whole metadata", () => {
    const input = withHostileMetadata(generatedWorldInput());
    const snapshot = input.snapshots[0]!;
    const leftOut = keysLeftOutOfScan(snapshot.environments.flatMap((each) => Object.keys(each.config)));
    let trimmed = 0;
    const scannedLeases = snapshot.leases.map((lease): LeaseRow => {
      if (!isTrimmableMetadata(lease.metadata)) return lease;
      const metadata = scannedMetadata(lease.metadata, leftOut);
      if (metadata !== lease.metadata) trimmed += 1;
      return { ...lease, metadata, partialMetadata: true };
    });
    // Most rows really lost keys, and every hostile kind was planted: the comparison means something.
    expect(trimmed).toBeGreaterThan(snapshot.leases.length / 2);
    expect(snapshot.leases.filter((lease) => !isTrimmableMetadata(lease.metadata)).length).toBeGreaterThan(
      HOSTILE.length,
    );

    const whole = reconcile(input);
    const scanned = reconcile({ ...input, snapshots: [{ ...snapshot, leases: scannedLeases }] });
    const expected = judgements(whole);
    const actual = judgements(scanned);
    expect(actual).toHaveLength(expected.length);
    for (const [at, judged] of expected.entries()) {
      const label = `${judged.id}: ${JSON.stringify(whole.leases[at]!.lease.metadata)?.slice(0, 120)}`;
      expect(actual[at], label).toEqual(judged);
    }
    expect(encodeInventory(scanned)).toEqual(encodeInventory(whole));
  });
});
