import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENDED_LEASE_STATUSES } from "../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import {
  candidatesOf,
  type JanitorCandidate,
  planPass,
  proofSubjectOf,
} from "../../../shared/domain/janitor/index.js";
import {
  MARKER_ANSWERS,
  type MarkerProof,
  markerPrefix,
  type ProofSubject,
  proofKey,
  recordedMarker,
} from "../../../shared/domain/marker-proof.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import { generatedWorldInput } from "../inventory/testing/generated-world.js";
import { InventoryKeeper } from "../inventory/worker/inventory-keeper.js";
import type { InventoryRows } from "../inventory/worker/ports.js";
import type { QuarantineProofNow } from "../inventory/worker/protocol.js";
import { SecretRedactor } from "../redaction/redactor.js";
import { openMemoryDatabase } from "../store/database.js";
import { JudgedInventoryStore } from "../store/judged-inventory-store.js";
import type { Database } from "../store/sqlite/migrations/index.js";
import { type ProofNow, proofNowByMarkerIndex } from "./proof-now.js";

// A due quarantine's marker proof, read again over a stored inventory of many rows: the reading is the
// one a janitor's plan of a destroy of its sandbox gives over every row, and it reads only the rows it
// is about.

const NOW = new Date("2026-11-30T12:00:00Z");

/** The store a keeper reads, counting every row it hands over, whichever read hands it. */
function countingRows(rows: InventoryRows): { rows: InventoryRows; read: { count: number } } {
  const read = { count: 0 };
  const counted = new Proxy(rows, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const each = args.map((arg) =>
          typeof arg === "function"
            ? (...row: unknown[]) => {
                read.count += 1;
                return arg(...row);
              }
            : arg,
        );
        const answer = value.apply(target, each);
        if (name === "byKeys" && Array.isArray(answer))
          read.count += answer.filter((row) => row !== undefined).length;
        return answer;
      };
    },
  });
  return { rows: counted, read };
}

function isEnded(row: ClassifiedLease): boolean {
  return ENDED_LEASE_STATUSES.some((status) => status === row.lease.status);
}

/** The sandbox a candidate is, as a quarantine of it names it. */
function quarantineOf(candidate: JanitorCandidate): Quarantine {
  const base = {
    quarantineId: "q-1",
    environmentName: null,
    hours: 1,
    createdAt: "2026-11-30T10:00:00.000Z",
    pausedAt: "2026-11-30T10:00:01.000Z",
    dueAt: "2026-11-30T11:00:00.000Z",
    state: "waiting" as const,
    endedAt: null,
    reason: null,
    message: null,
    claimedBy: null,
    confirmedBy: "typed-id" as const,
    confirmedByProof: true,
    planId: null,
    jobId: null,
    operator: "janitor (ada)",
  };
  if (candidate.kind === "untracked") {
    const { sandboxId, origin, credential } = candidate.sandbox;
    return { ...base, sandboxId, origin, credential, leaseId: null, sourceId: null };
  }
  const { lease, provider, sourceId } = candidate.lease;
  return {
    ...base,
    sandboxId: recordedSandboxId(lease) ?? "sb-none",
    origin: provider.origin ?? "https://nowhere.example",
    credential: provider.credential ?? "default",
    leaseId: lease.id,
    sourceId,
  };
}

/** The prefix of the marker `row` records, as a proof of a sandbox holding it keeps it; null when none. */
function prefixOf(row: ClassifiedLease | undefined): string | null {
  const marker = row === undefined ? null : recordedMarker(row.lease.metadata);
  return marker === null ? null : markerPrefix(marker);
}

/** The proof a judge would keep for `candidate`, over a scan that read every row. */
function proofOf(
  candidate: JanitorCandidate,
  answer: MarkerProof["answer"],
  owners: readonly ClassifiedLease[],
  prefix: string | null,
): MarkerProof {
  const sandbox =
    candidate.kind === "lease"
      ? { sandboxId: recordedSandboxId(candidate.lease.lease), origin: candidate.lease.provider.origin }
      : { sandboxId: candidate.sandbox.sandboxId, origin: candidate.sandbox.origin };
  return {
    answer,
    reason: null,
    owners:
      answer === "another-lease"
        ? owners.map(({ sourceId, lease }) => ({
            sourceId,
            leaseId: lease.id,
            status: lease.status,
            relation: "names-this-sandbox" as const,
          }))
        : [],
    markerPrefix: prefix,
    message: "generated",
    subject: proofSubjectOf(candidate),
    ...sandbox,
    sandboxStatus: "running",
    readAt: "2026-11-30T09:00:00.000Z",
    gapMayRecord: false,
  };
}

/** Kept marker proofs holding only `proof`. */
function keeping(proof: MarkerProof | null) {
  return {
    loaded: async () => undefined,
    proofFor: (subject: MarkerProof["subject"]) =>
      proof !== null && proofKey(subject) === proofKey(proof.subject) ? proof : null,
  };
}

/** The proof kept under what the quarantine names (its row, or its sandbox), if `proof` is that one. */
function keptFor(quarantine: Quarantine, proof: MarkerProof | null): MarkerProof | null {
  if (proof === null) return null;
  const subject: ProofSubject | null =
    quarantine.leaseId === null
      ? {
          kind: "untracked",
          origin: quarantine.origin,
          credential: quarantine.credential,
          sandboxId: quarantine.sandboxId,
        }
      : quarantine.sourceId === null
        ? null
        : { kind: "lease", sourceId: quarantine.sourceId, leaseId: quarantine.leaseId };
  return subject !== null && proofKey(subject) === proofKey(proof.subject) ? proof : null;
}

/**
 * What a janitor's plan of a destroy of the quarantine's sandbox, over every row with the proof kept for
 * it alone, reads of the proof: its item's reading; the quarantine's sentences when the plan has no such
 * item, or reads no proof for it.
 */
function byWholePlan(whole: Inventory, quarantine: Quarantine, given: MarkerProof | null): ProofNow {
  const proof = keptFor(quarantine, given);
  const plan = planPass({
    policy: {
      version: 1,
      operator: quarantine.operator,
      rules: [
        {
          name: "quarantine-due",
          select: { kind: quarantine.leaseId === null ? "untracked" : "lease" },
          action: "destroy",
        },
      ],
    },
    inventory: whole,
    proofs: proof === null ? [] : [proof],
    now: NOW,
    history: [],
  });
  const item = plan.rules
    .flatMap((rule) => [...rule.selected, ...rule.skipped])
    .find(({ target }) =>
      target.kind === "untracked"
        ? quarantine.leaseId === null &&
          target.sandboxId === quarantine.sandboxId &&
          target.origin === quarantine.origin
        : target.leaseId === quarantine.leaseId &&
          (quarantine.sourceId === null || target.sourceId === quarantine.sourceId) &&
          target.sandboxId === quarantine.sandboxId &&
          target.origin === quarantine.origin,
    );
  if (item?.proof != null) return { proves: item.proof.proves, message: item.proof.message };
  return { proves: false, message: item === undefined ? "not listed" : "not forced" };
}

describe("a due quarantine's marker proof, read again over a stored inventory", () => {
  let db: Database;
  let keeper: InventoryKeeper;
  let read: { count: number };
  let whole: Inventory;

  beforeAll(async () => {
    db = openMemoryDatabase();
    const redactor = new SecretRedactor();
    const counting = countingRows(new JudgedInventoryStore(db, (value) => redactor.redactDeep(value)));
    read = counting.read;
    keeper = new InventoryKeeper(counting.rows, redactor, () => undefined);
    await keeper.handle({ type: "accept", inventory: reconcile(generatedWorldInput({ size: 1500 })) });
    whole = (await keeper.handle({ type: "inventory" })) as Inventory;
  });
  afterAll(async () => {
    await keeper.handle({ type: "close" });
    db.close();
  });

  const proofNow = (proof: MarkerProof | null) =>
    proofNowByMarkerIndex({
      quarantineProof: async (input) =>
        (await keeper.handle({ type: "quarantine-proof", input })) as QuarantineProofNow,
      markers: keeping(proof),
    });

  /** The reading, with how many stored rows it was handed. */
  async function readCounted(quarantine: Quarantine, proof: MarkerProof | null) {
    read.count = 0;
    const reading = await proofNow(proof)(quarantine);
    return { reading, rowsRead: read.count };
  }

  it("reads the quarantined row and the rows recording its marker, not every live row", async () => {
    const live = whole.leases.filter((row) => row.verdict.headline !== "closed");
    const forced = candidatesOf(whole).find(
      (candidate): candidate is Extract<JanitorCandidate, { kind: "lease" }> =>
        candidate.kind === "lease" &&
        !candidate.lease.verdict.ownership.includes("owned") &&
        isEnded(candidate.lease) &&
        recordedSandboxId(candidate.lease.lease) !== null &&
        prefixOf(candidate.lease) !== null,
    );
    if (forced === undefined)
      throw new Error("the generated world holds no ended row another environment owns");
    const prefix = prefixOf(forced.lease);
    const recorders = whole.leases.filter((row) => prefixOf(row) === prefix).length;
    const quarantine = quarantineOf(forced);
    const proof = proofOf(forced, "proven", [], prefix);

    const { reading, rowsRead } = await readCounted(quarantine, proof);

    expect(reading).toMatchObject(byWholePlan(whole, quarantine, proof));
    expect(reading.proves).toBe(true);
    expect(live.length, "live rows on other sandboxes").toBeGreaterThan(1000);
    expect(rowsRead, "the quarantined row, then the rows recording its marker").toBe(1 + recorders);
  });

  it("says what a janitor's plan of a destroy of that sandbox over every row says, whichever the quarantine and its proof", async () => {
    const candidates = candidatesOf(whole);
    const history = whole.leases.filter((row) => row.verdict.headline === "closed");
    const ended = whole.leases.filter((row) => isEnded(row));
    // The quarantines whose proof may still prove: a sandbox no row names, an ended row another owns.
    const forced = candidates.filter(
      (candidate) =>
        candidate.kind === "untracked" ||
        (!candidate.lease.verdict.ownership.includes("owned") && isEnded(candidate.lease)),
    );
    const quarantine = fc.oneof(
      fc.constantFrom(...forced).map((candidate) => ({ candidate, quarantine: quarantineOf(candidate) })),
      fc.constantFrom(...candidates).map((candidate) => ({ candidate, quarantine: quarantineOf(candidate) })),
      // A row whose source the quarantine did not record, a sandbox the row no longer names, history.
      fc
        .constantFrom(...candidates.filter((candidate) => candidate.kind === "lease"))
        .map((candidate) => ({ candidate, quarantine: { ...quarantineOf(candidate), sourceId: null } })),
      fc.constantFrom(...candidates).map((candidate) => ({
        candidate,
        quarantine: { ...quarantineOf(candidate), sandboxId: "sb-elsewhere" },
      })),
      fc.constantFrom(...history).map((lease) => {
        const candidate: JanitorCandidate = { kind: "lease", lease };
        return { candidate, quarantine: quarantineOf(candidate) };
      }),
    );
    const owner = fc.oneof(fc.constantFrom(...ended), fc.constantFrom(...whole.leases));
    const kept = fc.option(
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom("proven" as const, "another-lease" as const),
            fc.constantFrom(...MARKER_ANSWERS),
          ),
          fc.array(owner, { minLength: 1, maxLength: 3 }),
          fc.boolean(),
        )
        .map(([answer, owners, ownMarker]) => ({ answer, owners, ownMarker })),
      { nil: null, freq: 8 },
    );
    let proven = 0;
    let notListed = 0;
    let notForced = 0;
    await fc.assert(
      fc.asyncProperty(quarantine, kept, async ({ candidate, quarantine: held }, chosen) => {
        const proof =
          chosen === null
            ? null
            : proofOf(
                candidate,
                chosen.answer,
                chosen.owners,
                prefixOf(chosen.ownMarker && candidate.kind === "lease" ? candidate.lease : chosen.owners[0]),
              );
        const expected = byWholePlan(whole, held, proof);
        const reading = await proofNow(proof)(held);
        expect(reading.proves).toBe(expected.proves);
        if (expected.message === "not listed") {
          notListed++;
          expect(reading.message).toContain("does not list this sandbox as the quarantine names it");
        } else if (expected.message === "not forced") {
          notForced++;
          expect(reading.message).toContain("no longer reads this destroy as a forced one");
        } else {
          expect(reading.message).toBe(expected.message);
        }
        if (reading.proves) proven++;
      }),
      { numRuns: 80, seed: 288 },
    );
    expect(proven, "quarantines whose proof still proves").toBeGreaterThan(0);
    expect(notListed, "quarantines of a sandbox the inventory no longer lists so").toBeGreaterThan(0);
    expect(notForced, "quarantines of a row this environment owns").toBeGreaterThan(0);
  }, 60_000);
});
