import pLimit from "p-limit";
import type { JobEvent, JobState, PlanItem } from "../../../../shared/domain/actions.js";
import { PLUGIN_MESSAGES } from "../../../../shared/domain/codes.js";
import { type UnreadRowsAt, unreadRowsAt } from "../../../../shared/domain/unread-rows.js";
import { type ClaimHolder, claimKey, type SandboxClaims } from "../claims/claims.js";
import { providerFailure } from "../errors.js";
import type { JobJournal, JobRow, JournalItem, StoredPlan } from "../journal/journal.js";
import type { ActionOptions } from "../options.js";
import type { FrozenItem } from "../plan/build-plan.js";
import {
  type JobRereader,
  leaseKey,
  type NamesNow,
  type ProviderPort,
  type RowsReread,
  type SharedAuditLog,
} from "../ports.js";
import { AccountReader, type SandboxRead } from "./account-reader.js";
import { act } from "./act.js";
import { keylessGaps } from "./keyless-gaps.js";
import { type Continuation, type RecheckResult, recheckLease, recheckUntracked } from "./recheck.js";
import { type ItemOutcome, ItemRecorder, type Operator } from "./recorder.js";
import { Verifier, type VerifyOutcome } from "./verify.js";

/**
 * Runs one job: its items grouped by CreateOS account, each account's items in batches. First, each
 * account is asked who it is (whoami): a key that now belongs to another account than the planned one
 * acts on nothing. For a batch, in this order: claim each sandbox in the store (one action per sandbox
 * across processes); re-read the rows from their sources and the sandboxes from CreateOS; re-check each
 * item against its plan; journal the ends and the survivors as running; before each request, journal
 * that it is being sent; send it through the origin's shared, paced queue; hand it to the verifier.
 * Accounts run side by side (their origins' queues pace them); a cancel is honoured between items, never
 * mid-request. A journal or audit write that fails stops every account's run before its next request.
 */

export interface RunnerDeps {
  journal: JobJournal;
  /**
   * The team's audit log when the journal is not in the team's store: each batch is copied there before
   * it is reported done.
   */
  sharedAudit?: SharedAuditLog | null;
  claims: SandboxClaims;
  holder: ClaimHolder;
  claimTtlMs: number;
  provider: ProviderPort;
  leases: JobRereader;
  /** Configured API keys, cut out of what an item says of a part of the sources not read. */
  knownSecrets?: () => Promise<ReadonlySet<string>>;
  now: () => Date;
  operator: Operator;
  options: ActionOptions;
  emit: (event: JobEvent) => void;
}

export interface JobRun {
  job: JobRow;
  stored: StoredPlan;
  /** Every item of the job as journalled; only `pending` ones are run. */
  items: readonly JournalItem[];
  /**
   * `cancel`: the operator stopped the job; items not yet sent end `cancelled`. `shutdown`: the engine is
   * closing; nothing more is written, so the job is found interrupted and resumable next time.
   */
  stopRequested: () => "cancel" | "shutdown" | null;
  /** The jobs this one continues (parent, its parent, …): none runs any more, so their claims are ours. */
  predecessors?: readonly string[];
}

export const RUN_MESSAGES = {
  cancelled: "The job was cancelled before this item started; nothing was sent.",
  noCredential: PLUGIN_MESSAGES.missingApiKey,
  sourceUnreadable: "The lease source could not be re-read just before acting, so nothing was done.",
  invalidItem: "This item names no sandbox, origin or effect to act on; nothing was sent.",
  accountChanged:
    "The key behind this credential now belongs to another CreateOS account than the one the plan was made with, so nothing was sent and no read by it counts.",
  accountUnknown: "CreateOS could not say whose key this credential holds, so nothing was sent",
} as const;

interface Prepared {
  toAct: Work[];
  /** Items a crashed run had already sent: only their outcome is awaited. */
  toVerify: Work[];
}

interface Work {
  journal: JournalItem;
  plan: PlanItem;
  frozen: FrozenItem | undefined;
}

/** A write of the journal or the audit log failed: nothing more may be sent by any run of the job. */
class Halt {
  failed = false;
}

/** The job's end state: `interrupted` when it was left for a later resume (shut down, or a write failed). */
export async function runJob(deps: RunnerDeps, outer: JobRun): Promise<JobState> {
  const halt = new Halt();
  const run: JobRun = {
    ...outer,
    stopRequested: () => (halt.failed ? "shutdown" : outer.stopRequested()),
  };
  const recorder = new ItemRecorder({
    journal: deps.journal,
    sharedAudit: deps.sharedAudit ?? null,
    job: run.job,
    operator: deps.operator,
    emit: deps.emit,
    items: run.items,
    onWriteFailed: () => {
      halt.failed = true;
    },
  });
  const planItems = new Map(run.stored.plan.items.map((item) => [item.itemId, item]));
  const byAccount = new Map<string, Work[]>();
  const unrunnable: Promise<void>[] = [];
  for (const journal of run.items) {
    if (journal.state !== "pending") continue;
    const plan = planItems.get(journal.itemId);
    if (plan === undefined) continue;
    if (plan.origin === null || plan.credential === null || plan.sandboxId === null || plan.effect === null) {
      // The plan rules never let such an item through; if one is journalled anyway it ends here, unsent.
      unrunnable.push(
        recorder.finish(plan, run.stored.frozen.get(plan.itemId), {
          state: "failed",
          reason: "invalid-item",
          message: RUN_MESSAGES.invalidItem,
          httpStatus: null,
        }),
      );
      continue;
    }
    const key = `${plan.origin}\u0000${plan.credential}`;
    const work = { journal, plan, frozen: run.stored.frozen.get(journal.itemId) };
    const list = byAccount.get(key);
    if (list === undefined) byAccount.set(key, [work]);
    else list.push(work);
  }

  const runs = await Promise.allSettled([
    ...unrunnable,
    ...[...byAccount.values()].map((works) => new AccountRun(deps, run, recorder, works, halt).run()),
  ]);
  await recorder.flush().catch(() => {
    halt.failed = true;
  });
  if (halt.failed || runs.some((result) => result.status === "rejected")) return "interrupted";
  const stop = outer.stopRequested();
  return stop === "shutdown" ? "interrupted" : stop === "cancel" ? "cancelled" : "completed";
}

class AccountRun {
  readonly #deps: RunnerDeps;
  readonly #run: JobRun;
  readonly #recorder: ItemRecorder;
  readonly #works: Work[];
  readonly #origin: string;
  readonly #credential: string;
  readonly #endings: Promise<void>[] = [];
  readonly #halt: Halt;
  /** Items whose sandbox this run has claimed and not yet released. */
  readonly #claimed = new Set<Work>();

  constructor(deps: RunnerDeps, run: JobRun, recorder: ItemRecorder, works: Work[], halt: Halt) {
    this.#deps = deps;
    this.#run = run;
    this.#recorder = recorder;
    this.#works = works;
    this.#halt = halt;
    this.#origin = works[0]!.plan.origin!;
    this.#credential = works[0]!.plan.credential!;
  }

  async run(): Promise<void> {
    const client = await this.#deps.provider.account(this.#origin, this.#credential).catch(() => null);
    if (client === null) {
      for (const work of this.#works) {
        this.#end(work, {
          state: "failed",
          reason: "no-credential",
          message: RUN_MESSAGES.noCredential,
          httpStatus: null,
        });
      }
      await Promise.allSettled(this.#endings);
      return;
    }
    if (!(await this.#sameAccount(client))) {
      await Promise.allSettled(this.#endings);
      return;
    }
    const listed = this.#run.stored.plan.origins.find(
      (entry) => entry.origin === this.#origin && entry.credential === this.#credential,
    )?.listedSandboxes;
    const reader = new AccountReader(client, {
      pageSize: this.#deps.provider.listPageSize,
      knownSize: listed ?? this.#works.length,
    });
    // A request went only after this account listed the sandbox live; that stays true on resume.
    for (const work of this.#works)
      if (work.journal.sentAt !== null) reader.markSeenLive(work.plan.sandboxId!);
    const verifier = new Verifier(reader, {
      pollMs: this.#deps.options.verifyPollMs,
      timeoutMs: this.#deps.options.verifyTimeoutMs,
      // While acting, reads of what was sent are a bounded share of the account's requests.
      actingPollMs: listInterval(reader.listCost, client.requestsPerMinute, this.#deps.options),
    });

    const concurrency = actConcurrency(client.requestsPerMinute, this.#deps.options);
    let next = 0;
    const prepareNext = (): Promise<Prepared> | null => {
      if (next >= this.#works.length || this.#run.stopRequested() !== null) return null;
      const size = batchSize(reader.listCost, client.requestsPerMinute, this.#deps.options);
      const batch = this.#works.slice(next, next + size);
      next += batch.length;
      return this.#prepare(batch, reader);
    };

    let upcoming = prepareNext();
    while (upcoming !== null) {
      const prepared = await upcoming;
      upcoming = null;
      // The next batch's re-read is sent while this batch's last requests are still queued, so the
      // origin's queue never runs dry between batches; it is still read before any of its items acts.
      const lead = concurrency + reader.listCost;
      await this.#act(prepared, reader, verifier, concurrency, (remaining) => {
        if (upcoming === null && remaining <= lead) upcoming = prepareNext();
      });
      upcoming ??= prepareNext();
    }
    for (const work of this.#works.slice(next)) this.#cancel(work);
    await verifier.drain(() => this.#run.stopRequested() === "shutdown");
    await Promise.allSettled(this.#endings);
    // Whatever is left unfinished (shut down, or a write failed) is resumed later, by this process or
    // another; its claims must not stand in that job's way.
    await Promise.all([...this.#claimed].map((work) => this.#release(work)));
  }

  /**
   * Whether the credential's key still belongs to the account the plan was made with (the first job to
   * ask pins it when planning could not). Otherwise every item ends here, with nothing sent.
   */
  async #sameAccount(client: { whoami(): Promise<string> }): Promise<boolean> {
    const { planId } = this.#run.job;
    let accountId: string;
    try {
      accountId = await client.whoami();
    } catch (error) {
      const failure = providerFailure(error);
      for (const work of this.#works) {
        this.#end(work, {
          state: mayHaveBeenSent(work) ? "unconfirmed" : "failed",
          reason: "provider-unknown",
          message: `${RUN_MESSAGES.accountUnknown} (${failure.message})`,
          httpStatus: failure.httpStatus,
        });
      }
      return false;
    }
    let planned: string | null;
    try {
      await this.#deps.journal.pinPlannedAccount(planId, this.#origin, this.#credential, accountId);
      planned = await this.#deps.journal.plannedAccount(planId, this.#origin, this.#credential);
    } catch {
      this.#halt.failed = true;
      return false;
    }
    if (planned === accountId) return true;
    for (const work of this.#works) {
      this.#end(work, {
        state: mayHaveBeenSent(work) ? "unconfirmed" : "skipped",
        reason: "account-changed",
        message: RUN_MESSAGES.accountChanged,
        httpStatus: null,
      });
    }
    return false;
  }

  /** Claims the batch's sandboxes, re-reads it, and ends every item that must not act. */
  async #prepare(batch: Work[], reader: AccountReader): Promise<Prepared> {
    const prepared: Prepared = { toAct: [], toVerify: [] };
    let taken: Set<string>;
    try {
      taken = await this.#deps.claims.claim(
        batch.map((work) => this.#ref(work)),
        this.#deps.holder,
        this.#deps.now(),
        this.#deps.claimTtlMs,
        // Resume and retry start only once the jobs they continue run no more.
        this.#run.predecessors ?? [],
      );
    } catch {
      this.#halt.failed = true;
      return prepared;
    }
    const locked: Work[] = [];
    for (const work of batch) {
      if (taken.has(claimKey(this.#ref(work)))) {
        locked.push(work);
        this.#claimed.add(work);
      } else {
        this.#end(work, {
          state: "skipped",
          reason: "cleanup-in-progress",
          message: PLUGIN_MESSAGES.cleanupInProgress,
          httpStatus: null,
        });
      }
    }
    if (locked.length === 0) return prepared;

    const untracked = locked.filter((work) => work.plan.leaseId === null || work.plan.sourceId === null);
    const [rows, reads, names] = await Promise.all([
      this.#rereadRows(locked),
      reader.readMany(locked.map((work) => work.plan.sandboxId!)),
      untracked.length === 0
        ? Promise.resolve({ named: new Set<string>(), gaps: [] })
        : this.#deps.leases.namesNow(untracked.map((work) => work.plan.sandboxId!)).catch(() => null),
    ]);
    // Every part of the sources this look found unread, whichever read found it; `unreadRowsAt` tells
    // which may hold a row naming an item's sandbox.
    const unreadAt = unreadRowsAt(
      await keylessGaps([...(rows?.gaps ?? []), ...(names?.gaps ?? [])], this.#deps.knownSecrets),
    );
    for (const work of locked) {
      const continuation: Continuation = {
        recheck: work.journal.recheck,
        verifyOnly: work.journal.verifyOnly === true,
        seenLive: reader.hasSeenLive(work.plan.sandboxId!),
      };
      const result = this.#recheck(
        work,
        { rows, names, unreadAt },
        reads.get(work.plan.sandboxId!)!,
        continuation,
      );
      switch (result.kind) {
        case "act":
          prepared.toAct.push(work);
          break;
        case "await-verification":
          prepared.toVerify.push(work);
          break;
        case "already-done":
          this.#end(work, {
            state: "confirmed",
            reason: "already-done",
            message: result.message,
            httpStatus: null,
          });
          break;
        case "skip":
          this.#end(work, { state: "skipped", ...refusalFields(result.refusal), httpStatus: null });
          break;
        case "unconfirmed":
          this.#end(work, {
            state: "unconfirmed",
            reason: result.reason,
            message: result.message,
            httpStatus: null,
          });
          break;
        case "provider-unreadable":
          this.#end(work, {
            state: "failed",
            reason: "provider-unknown",
            message: result.message,
            httpStatus: result.httpStatus,
          });
          break;
        case "source-unreadable":
          this.#end(work, {
            state: "failed",
            reason: "source-unreadable",
            message: RUN_MESSAGES.sourceUnreadable,
            httpStatus: null,
          });
          break;
      }
    }
    // What the re-check ended is durable before anything of the batch is sent; if it cannot be, nothing is.
    try {
      await this.#recorder.flush();
    } catch {
      this.#halt.failed = true;
    }
    return prepared;
  }

  /** Journals the batch as running, then sends each item's one request; `onProgress` gets how many are left. */
  async #act(
    prepared: Prepared,
    reader: AccountReader,
    verifier: Verifier,
    concurrency: number,
    onProgress: (remaining: number) => void,
  ): Promise<void> {
    const { toAct, toVerify } = prepared;
    if (this.#run.stopRequested() !== null) {
      for (const work of [...toVerify, ...toAct]) this.#cancel(work);
      return;
    }
    try {
      await this.#recorder.start([...toVerify, ...toAct].map((work) => work.journal.itemId));
    } catch {
      this.#halt.failed = true;
      return;
    }
    for (const work of toVerify) this.#verify(work, verifier, null);

    // Items start in order, at most `concurrency` at once.
    const limit = pLimit(Math.max(1, Math.floor(concurrency)));
    await limit.map(toAct, async (work, index) => {
      onProgress(toAct.length - index - 1);
      // Checked between items only: a request once sent is always seen through.
      if (this.#run.stopRequested() !== null) {
        this.#cancel(work);
        return;
      }
      try {
        await this.#recorder.sending(work.journal.itemId);
      } catch {
        this.#halt.failed = true;
        return;
      }
      const result = await act(reader, work.plan.effect!, work.plan.sandboxId!);
      if (result.kind === "verify") this.#verify(work, verifier, result.httpStatus);
      else {
        this.#end(work, {
          state: "failed",
          reason: result.reason,
          message: result.message,
          httpStatus: result.httpStatus,
        });
      }
    });
  }

  async #rereadRows(works: Work[]): Promise<RowsReread | null> {
    const refs = works.flatMap((work) =>
      work.plan.leaseId !== null && work.plan.sourceId !== null
        ? [
            {
              sourceId: work.plan.sourceId,
              leaseId: work.plan.leaseId,
              sharedWith: work.frozen?.sharedWith ?? [],
            },
          ]
        : [],
    );
    if (refs.length === 0) return { rows: new Map(), gaps: [] };
    try {
      return await this.#deps.leases.rereadBatch(refs);
    } catch {
      return null;
    }
  }

  #recheck(
    work: Work,
    sources: { rows: RowsReread | null; names: NamesNow | null; unreadAt: UnreadRowsAt },
    read: SandboxRead,
    continuation: Continuation,
  ): RecheckResult | { kind: "source-unreadable" } {
    const { plan } = work;
    const { rows, names, unreadAt } = sources;
    // Finding out what an earlier request did needs CreateOS only, whatever the sources say now.
    if (continuation.verifyOnly) return recheckUntracked(plan, read, continuation, false);
    const unread = unreadAt(plan.origin);
    if (plan.leaseId === null || plan.sourceId === null) {
      if (names === null) return { kind: "source-unreadable" };
      return recheckUntracked(plan, read, continuation, names.named.has(plan.sandboxId!), unread);
    }
    if (rows === null) return { kind: "source-unreadable" };
    return recheckLease({
      action: this.#run.job.action,
      item: plan,
      fresh: rows.rows.get(leaseKey(plan.sourceId, plan.leaseId)) ?? null,
      read,
      now: this.#deps.now(),
      continuation,
      unread,
    });
  }

  #verify(work: Work, verifier: Verifier, httpStatus: number | null): void {
    const watched = verifier.watch(work.plan.sandboxId!, work.plan.effect!).then((outcome: VerifyOutcome) => {
      if (outcome.state === "abandoned") {
        // Left running in the journal: a resume reads CreateOS and confirms it without a second request.
        return this.#release(work);
      }
      const reason = outcome.state === "confirmed" ? null : outcome.reason;
      return this.#endNow(work, { state: outcome.state, reason, message: outcome.message, httpStatus });
    });
    this.#endings.push(watched);
  }

  #cancel(work: Work): void {
    if (this.#run.stopRequested() === "shutdown") {
      this.#endings.push(this.#release(work));
      return;
    }
    this.#end(work, {
      state: "cancelled",
      reason: "cancelled",
      message: RUN_MESSAGES.cancelled,
      httpStatus: null,
    });
  }

  #end(work: Work, outcome: ItemOutcome): void {
    this.#endings.push(this.#endNow(work, outcome));
  }

  #endNow(work: Work, outcome: ItemOutcome): Promise<void> {
    return this.#recorder.finish(work.plan, work.frozen, outcome, () => this.#release(work));
  }

  #ref(work: Work) {
    return { origin: this.#origin, sandboxId: work.plan.sandboxId! };
  }

  /** Frees the sandbox's claim; a release that fails is not an error, the claim lapses at its expiry. */
  async #release(work: Work): Promise<void> {
    if (!this.#claimed.delete(work)) return;
    try {
      await this.#deps.claims.release(this.#ref(work), this.#deps.holder);
    } catch {
      // It lapses at its expiry.
    }
  }
}

/** An item an earlier run may already have acted on: it is never reported as simply not done. */
function mayHaveBeenSent(work: Work): boolean {
  return work.journal.sentAt !== null || work.journal.recheck || work.journal.verifyOnly === true;
}

function refusalFields(refusal: {
  reason: string;
  message: string;
}): Pick<ItemOutcome, "reason" | "message"> {
  return { reason: refusal.reason, message: refusal.message };
}

/**
 * How many items one re-check read covers. A list pass is worth it only for at least as many items as
 * it costs requests, and it is reused for at most `itemsPerListRequest` items per request it cost (so
 * re-checking adds a bounded share of requests) and for no longer than `recheckMaxAgeMs` at the origin's
 * pace (so the read is recent when the batch's last request goes).
 */
/**
 * How many of an account's requests may be queued or in flight at once: enough to keep the origin's
 * queue busy through a request's round trip, few enough that a cancel leaves little already queued
 * (at most `inFlightWindowMs` of the origin's pace).
 */
export function actConcurrency(requestsPerMinute: number, options: ActionOptions): number {
  const intervalMs = 60_000 / requestsPerMinute;
  return Math.max(2, Math.min(options.actConcurrency, Math.ceil(options.inFlightWindowMs / intervalMs)));
}

/** While an account acts, what it sent is read back at most once per this many of its requests' time. */
const REQUESTS_PER_ACTING_READ = 10;

/**
 * How often an account still acting reads back what it sent: once per `REQUESTS_PER_ACTING_READ`
 * requests' worth of the origin's pace for each request a read costs, so those reads are at most a
 * tenth of its requests (fewer when the next batch's re-read has just read them), never more often
 * than the verifier polls.
 */
export function listInterval(listCost: number, requestsPerMinute: number, options: ActionOptions): number {
  return Math.max(options.verifyPollMs, listCost * REQUESTS_PER_ACTING_READ * (60_000 / requestsPerMinute));
}

export function batchSize(listCost: number, requestsPerMinute: number, options: ActionOptions): number {
  const intervalMs = 60_000 / requestsPerMinute;
  const byAge = Math.floor(options.recheckMaxAgeMs / intervalMs);
  const byCost = listCost * options.itemsPerListRequest;
  return Math.max(1, Math.min(byAge, byCost, 1_000));
}
