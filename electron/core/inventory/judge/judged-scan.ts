import type {
  Inventory,
  OriginHealth,
  ProviderObservation,
  SandboxListing,
} from "../../../../shared/domain/inventory.js";
import { judgeRow, SharedVerdicts } from "../../../../shared/domain/judge-row.js";
import { ObjectVersions } from "../../../../shared/domain/object-versions.js";
import type { Environment, LeaseRow, SourceProblem } from "../../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../../shared/domain/plugin-generations.js";
import {
  indexListings,
  type ListingIndex,
  observeProvider,
} from "../../../../shared/domain/provider-state.js";
import { mergeCompanies, sourceNotesOf } from "../../../../shared/domain/reconcile.js";
import {
  holdersFirst,
  NOT_SHARED,
  type SharedEvidence,
  sharedEvidenceIn,
} from "../../../../shared/domain/sandbox-groups.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import { originHealth, splitByGaps, untrackedSandboxes } from "../../../../shared/domain/untracked.js";
import { verdictChangesAt } from "../../../../shared/domain/verdict-changes-at.js";
import type { SourceRead, SourceReadEnd } from "../../leases/source-read.js";
import type { LeasekeeperActions } from "../leasekeeper-actions.js";
import { listedNames } from "./listed-names.js";
import type { RowRead, ScanRows } from "./ports.js";
import type { ScanMemory } from "./scan-memory.js";

/** One source as the scan reads it. */
export interface SourceToJudge {
  read: SourceRead;
  /** The source's configuration and address, as a fingerprint (see `ScanMemory`). */
  identity: string;
  /** When its read began (epoch ms). */
  startedAt: number;
}

export interface JudgeScanInput {
  /** The scan's writes to the store, begun for exactly these sources. */
  rows: ScanRows;
  /** Every source, in the order `rows.sourceIds` names them. */
  sources: readonly SourceToJudge[];
  listings: readonly SandboxListing[];
  /** CreateOS requests made to take the listings, reported as is. */
  requests: number;
  now: Date;
  /** The marks of Leasekeeper's jobs: part of what each row is judged from. */
  marks: LeasekeeperActions;
  memory: ScanMemory;
  /**
   * What every row's inputs begin with: the salt of the rules and keys the scan judges under
   * (`judgingSalt`). A stored row whose inputs began with another was judged under others, and is
   * judged again.
   */
  salt: string;
  /** A SHA-1 (or any) digest of a text: the rows' inputs. */
  digest: (text: string) => string;
  /**
   * The row a stored row was written from, as its source gave it (the store keeps it with the
   * configured keys taken out; the caller holds the rows that had one). Defaults to the stored JSON's.
   */
  leaseOf?: (stored: RowRead) => LeaseRow;
  /** Sandboxes touched beyond this many are not listed: the scan looks in the store for rows to judge together. */
  touchedLimit?: number;
}

/** What a source keeps beside its rows: what the scan-wide part of the inventory is put back from. */
export interface JudgedSourcePayload {
  environments: { id: string; companyId: string | null; name: string }[];
  problems: SourceProblem[];
  installedPlugin?: InstalledPlugin;
  note?: string;
}

/** The scan-wide part of the inventory, for the flip. */
export type JudgedScanPayload = Pick<
  Inventory,
  "untracked" | "untrackedUncertain" | "origins" | "companies" | "gaps" | "sourceNotes"
>;

export interface JudgedScan {
  generatedAt: string;
  requests: number;
  payload: JudgedScanPayload;
  /** Rows judged afresh by this scan, and rows whose stored verdict stood (nothing it reads changed). */
  rows: { judged: number; kept: number };
  /** Keeps what this scan read for the next one: call once its rows are in the store. */
  remember(): void;
}

/** Sandboxes touched beyond this many are not listed (a few megabytes of ids). */
const TOUCHED_LIMIT = 50_000;
/** Sandboxes whose rows are read back together at once. */
const GROUP_BATCH = 200;

/**
 * Judges one scan into the store (decision 222). Each source's rows are taken page by page as the
 * source reads them, judged by the rules `reconcile` applies (each as if alone on its sandbox), and
 * written where they differ from what the store holds; a row whose inputs did not change and whose
 * moment has not come is left as stored. After a read of changed rows, the stored rows it did not hand
 * over are judged again where something they depend on changed. Last, the rows of every sandbox that a
 * changed row names are judged together, and the listed sandboxes no row names are found.
 *
 * The caller flips the scan (`InventoryScanWrite.flip`) with what this returns, then calls `remember`.
 */
export async function judgeScan(input: JudgeScanInput): Promise<JudgedScan> {
  const { rows, sources, listings, now, marks, memory } = input;
  const nowMs = now.getTime();
  const listingIndex = indexListings(listings);
  const changes = memory.changesTo(listingIndex, input.digest);
  const versions = new ObjectVersions(input.digest);
  const verdicts = new SharedVerdicts();
  const touched = new TouchedSandboxes(input.touchedLimit ?? TOUCHED_LIMIT);
  const contexts = new Map<string, SourceContext>();
  const tally = { judged: 0, kept: 0 };
  const leaseOf = input.leaseOf ?? ((stored: RowRead) => JSON.parse(stored.data).lease as LeaseRow);
  rows.listed(listings);

  /** Judges a row with `shared` as its sandbox's other rows, and writes it where it changed. */
  const judge = (context: SourceContext, row: LeaseRow, seq: number, shared: SharedEvidence) => {
    const { environment, provider, inputs, rejudgeAtMs } = context.evidence(row);
    const classified = judgeRow(
      {
        sourceId: context.sourceId,
        row,
        environment,
        provider,
        shared,
        installedPlugin: context.installedPlugin,
        now,
      },
      verdicts,
    );
    tally.judged += 1;
    const { before, written } = rows.write(classified, { seq, inputs, rejudgeAtMs });
    if (written) {
      touched.add(recordedSandboxId(row));
      touched.add(before?.sandboxId ?? null);
    }
  };
  const judgeStored = (stored: RowRead, shared: SharedEvidence = NOT_SHARED) =>
    judge(contexts.get(stored.sourceId)!, leaseOf(stored), stored.seq, shared);

  const ends: SourceReadEnd[] = [];
  for (const [rank, source] of sources.entries()) {
    const { read } = source;
    const context = new SourceContext(read, rank, {
      salt: input.salt,
      versions,
      digest: input.digest,
      listingIndex,
      marks,
      nowMs,
    });
    contexts.set(read.sourceId, context);
    rows.beginSource(read.sourceId, read.scope);
    // A read of changed rows hands over few rows: those it did are not judged again below.
    const handled = read.scope === "changed" ? new Set<string>() : null;
    let seq = 0;
    for await (const page of read.pages()) {
      for (const row of page) {
        handled?.add(row.id);
        const stored = rows.stored(read.sourceId, row.id);
        const place = read.order === "by-id" ? 0 : handled === null ? seq++ : storedPlace(read, row, stored);
        if (stored !== undefined && context.standsAsStored(row, stored, place)) {
          tally.kept += 1;
          continue;
        }
        judge(context, row, place, NOT_SHARED);
      }
      rows.pause();
    }
    const end = read.end();
    ends.push(end);
    if (handled !== null) {
      for (const gone of rows.remove(read.sourceId, end.left)) touched.add(gone.sandboxId);
      let judgedAgain = 0;
      const again = (pages: Iterable<RowRead[]>) => {
        for (const page of pages)
          for (const stored of page) {
            if (stored.sourceId !== read.sourceId || handled.has(stored.leaseId)) continue;
            handled.add(stored.leaseId);
            judgedAgain += 1;
            judgeStored(stored);
          }
      };
      const known = memory.source(read.sourceId, source.identity);
      if (known === undefined || changes === null || known.plugin !== context.pluginVersion) {
        again(rows.rowsOfSource(read.sourceId));
      } else {
        for (const environmentId of context.environmentsChangedSince(known.environments))
          again(rows.rowsOfEnvironment(read.sourceId, environmentId));
        for (const origin of changes.origins) again(rows.rowsAtOrigin(read.sourceId, origin));
        for (const ids of changes.sandboxes.values())
          for (const batch of batches([...ids], GROUP_BATCH)) again([rows.rowsNaming(batch)]);
        again(rows.dueRows(read.sourceId, nowMs));
      }
      // The rows the read knew to be as they were and nothing judged again stood as stored.
      tally.kept += Math.max(0, (end.standing ?? 0) - judgedAgain);
    }
    for (const gone of rows.endSource(read.sourceId, context.payload(end))) touched.add(gone.sandboxId);
  }

  // Rows that share a sandbox: judged again together, now that every source's rows are in.
  const together = touched.overflowed ? rows.sandboxesToJudgeTogether() : [...touched.ids];
  for (const batch of batches(together, GROUP_BATCH)) {
    for (const group of bySandbox(rows.rowsNaming(batch))) {
      const ordered = group
        .map((stored) => ({ stored, lease: leaseOf(stored), rank: contexts.get(stored.sourceId)!.rank }))
        .sort(
          (a, b) =>
            a.rank - b.rank || a.stored.seq - b.stored.seq || compare(a.stored.leaseId, b.stored.leaseId),
        );
      const leases = new Set(ordered.map(({ stored }) => stored.leaseId)).size;
      if (leases <= 1 && ordered.every(({ stored }) => stored.sharedCount === 0)) continue;
      const holdersFirstRows = holdersFirst(ordered.map(({ lease }) => lease));
      for (const { stored, lease } of ordered)
        judge(
          contexts.get(stored.sourceId)!,
          lease,
          stored.seq,
          leases <= 1 ? NOT_SHARED : sharedEvidenceIn(lease, holdersFirstRows, leases),
        );
    }
    rows.pause();
  }

  const gaps = ends.flatMap((end) => end.gaps);
  const names = listedNames({
    listings,
    listingIndex,
    rows,
    earlier: memory.listedNames,
    changes,
    touched: touched.overflowed ? null : touched.ids,
  });
  const { untracked, uncertain } = splitByGaps(
    untrackedSandboxes(listings, names.named).filter(
      (sandbox) => !marks.deleted(sandbox.origin, sandbox.sandboxId),
    ),
    gaps,
  );
  const origins: OriginHealth[] = listings.map(originHealth);
  return {
    generatedAt: now.toISOString(),
    requests: input.requests,
    payload: {
      untracked,
      untrackedUncertain: uncertain,
      origins,
      companies: mergeCompanies(
        sources.map(({ read }, at) => ({ companies: ends[at]?.companies ?? read.companies })),
      ),
      gaps,
      ...sourceNotesOf(sources.map(({ read }) => read)),
    },
    rows: { ...tally },
    remember: () =>
      memory.remember(
        listingIndex,
        sources.map(({ read, identity, startedAt }, at) => {
          const context = contexts.get(read.sourceId)!;
          return {
            sourceId: read.sourceId,
            identity,
            startedAt,
            environments: context.environmentVersions,
            plugin: context.pluginVersion,
            problems: ends[at]?.problems ?? [],
            readUpTo: ends[at]?.readUpTo,
            ledgerItems: ends[at]?.ledgerItems,
          };
        }),
        changes,
        { sourceIds: rows.sourceIds, unnamed: names.unnamed },
      ),
  };
}

/** What every source's rows are judged against alike in one scan. */
interface ScanWide {
  salt: string;
  versions: ObjectVersions;
  digest: (text: string) => string;
  listingIndex: ListingIndex;
  marks: LeasekeeperActions;
  nowMs: number;
}

/** What every row of one source is judged against, and how its inputs are taken. */
class SourceContext {
  readonly sourceId: string;
  readonly rank: number;
  readonly installedPlugin: InstalledPlugin | undefined;
  readonly pluginVersion: string;
  readonly environmentVersions: Map<string, string>;
  readonly #read: SourceRead;
  readonly #environments = new Map<string, Environment>();
  readonly #shared: ScanWide;

  constructor(read: SourceRead, rank: number, shared: ScanWide) {
    this.#read = read;
    this.sourceId = read.sourceId;
    this.rank = rank;
    this.#shared = shared;
    // The first of a repeated id, as `reconcile` takes it.
    for (const environment of read.environments)
      if (!this.#environments.has(environment.id)) this.#environments.set(environment.id, environment);
    this.environmentVersions = new Map(
      [...this.#environments].map(([id, environment]) => [id, shared.versions.of(environment)]),
    );
    this.installedPlugin = read.installedPlugin;
    this.pluginVersion = shared.versions.of(read.installedPlugin);
  }

  /** What a row is judged from here and now, and the digest of it. */
  evidence(row: LeaseRow): {
    environment: Environment | null;
    provider: ProviderObservation;
    inputs: string;
    rejudgeAtMs: number | null;
  } {
    const { versions, listingIndex, marks, nowMs, salt, digest } = this.#shared;
    const environment =
      row.environmentId === null ? null : (this.#environments.get(row.environmentId) ?? null);
    const sandboxId = recordedSandboxId(row);
    const provider = marks.observe(observeProvider(row, environment, listingIndex), sandboxId);
    const { sandbox, observedAt: _, ...said } = provider;
    const inputs = digest(
      `${salt}\u0000${JSON.stringify(row)}\u0000${versions.of(environment)}\u0000${JSON.stringify(said)}\u0000${versions.of(sandbox)}\u0000${this.pluginVersion}`,
    );
    let rejudgeAtMs = verdictChangesAt(row, provider.code, nowMs);
    // A mark stands over a listing read before it only: the next listing may say otherwise.
    if (provider.actedOnBy != null) rejudgeAtMs = Math.min(rejudgeAtMs, nowMs + 1);
    return { environment, provider, inputs, rejudgeAtMs: Number.isFinite(rejudgeAtMs) ? rejudgeAtMs : null };
  }

  /** Whether the store holds this row judged from the very inputs it would be judged from now. */
  standsAsStored(
    row: LeaseRow,
    stored: { inputs: string; seq: number; rejudgeAtMs: number | null },
    seq: number,
  ) {
    if (stored.seq !== seq) return false;
    if (stored.rejudgeAtMs !== null && stored.rejudgeAtMs <= this.#shared.nowMs) return false;
    return stored.inputs === this.evidence(row).inputs;
  }

  /** The environments whose version differs from `before` (added and removed ones too). */
  environmentsChangedSince(before: ReadonlyMap<string, string>): string[] {
    const changed = new Set<string>();
    for (const [id, version] of this.environmentVersions) if (before.get(id) !== version) changed.add(id);
    for (const id of before.keys()) if (!this.environmentVersions.has(id)) changed.add(id);
    return [...changed];
  }

  payload(end: SourceReadEnd): JudgedSourcePayload {
    return {
      environments: [...this.#environments.values()].map(({ id, companyId, name }) => ({
        id,
        companyId,
        name,
      })),
      problems: end.problems,
      ...(this.installedPlugin === undefined ? {} : { installedPlugin: this.installedPlugin }),
      ...(this.#read.note === undefined ? {} : { note: this.#read.note }),
    };
  }
}

/** The sandbox ids the rows a scan wrote or deleted named, until there are too many to list. */
class TouchedSandboxes {
  readonly ids = new Set<string>();
  overflowed = false;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(sandboxId: string | null): void {
    if (sandboxId === null || this.overflowed) return;
    this.ids.add(sandboxId);
    if (this.ids.size > this.#limit) {
      this.overflowed = true;
      this.ids.clear();
    }
  }
}

/**
 * The place of a row a read of changed rows in the file's order hands over: the one it is stored at,
 * since such a read hands over no row whose place moved.
 */
function storedPlace(read: SourceRead, row: LeaseRow, stored: { seq: number } | undefined): number {
  if (stored === undefined)
    throw new Error(
      `${read.sourceId} handed over ${row.id} as changed in place, and the store holds no such row`,
    );
  return stored.seq;
}

function* batches<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let at = 0; at < items.length; at += size) yield items.slice(at, at + size);
}

function bySandbox(rows: readonly RowRead[]): RowRead[][] {
  const groups = new Map<string, RowRead[]>();
  for (const row of rows) {
    if (row.sandboxId === null) continue;
    const group = groups.get(row.sandboxId);
    if (group === undefined) groups.set(row.sandboxId, [row]);
    else group.push(row);
  }
  return [...groups.values()];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
