import type {
  ConfirmationMethod,
  JobEvent,
  JobItemState,
  PlanItem,
} from "../../../../shared/domain/actions.js";
import type { AuditRecord } from "../audit/audit-log.js";
import {
  type ItemEnd,
  type JobJournal,
  type JobRow,
  type JournalItem,
  publicItem,
} from "../journal/journal.js";
import type { FrozenItem } from "../plan/build-plan.js";
import type { SharedAuditLog } from "../ports.js";

export interface Operator {
  name: string;
  host: string;
}

export interface ItemOutcome {
  state: Exclude<JobItemState, "pending" | "running">;
  reason: string | null;
  message: string | null;
  httpStatus: number | null;
}

interface Pending {
  item: JournalItem;
  end: ItemEnd;
  audit: AuditRecord;
  after: (() => Promise<void>) | undefined;
  committed: () => void;
  failed: (error: unknown) => void;
}

/**
 * Writes a job's progress durably, then tells the world. Items that end in the same turn of the event
 * loop (a list pass settles dozens at once) share one transaction, which holds both the journal update
 * and the audit rows; events and lock releases happen only after it commits. With synchronous=FULL every
 * commit is an fsync, so grouping is what keeps a thousand-item job from being bound by the disk.
 */
export class ItemRecorder {
  readonly #journal: JobJournal;
  readonly #sharedAudit: SharedAuditLog | null;
  readonly #job: JobRow;
  readonly #operator: Operator;
  readonly #emit: (event: JobEvent) => void;
  readonly #items: Map<string, JournalItem>;
  readonly #started = new Map<string, number>();
  #pending: Pending[] = [];
  #scheduled = false;
  readonly #unsettled = new Set<Promise<void>>();
  readonly #onWriteFailed: () => void;

  constructor(options: {
    journal: JobJournal;
    /** The team's audit log when the journal is not in the team's store: each commit is copied there. */
    sharedAudit?: SharedAuditLog | null;
    job: JobRow;
    operator: Operator;
    emit: (event: JobEvent) => void;
    items: readonly JournalItem[];
    /** A commit failed: the job must send nothing more (called before any waiter hears of it). */
    onWriteFailed?: () => void;
  }) {
    this.#onWriteFailed = options.onWriteFailed ?? (() => undefined);
    this.#journal = options.journal;
    this.#sharedAudit = options.sharedAudit ?? null;
    this.#job = options.job;
    this.#operator = options.operator;
    this.#emit = options.emit;
    this.#items = new Map(options.items.map((item) => [item.itemId, { ...item }]));
  }

  /** Marks items running, durably, before any of them sends a request. */
  async start(itemIds: readonly string[]): Promise<void> {
    if (itemIds.length === 0) return;
    const startedAt = new Date().toISOString();
    try {
      await this.#journal.markRunning(this.#job.jobId, itemIds, startedAt);
    } catch (error) {
      this.#onWriteFailed();
      throw error;
    }
    const now = performance.now();
    for (const itemId of itemIds) {
      const item = this.#items.get(itemId);
      if (item === undefined) continue;
      item.state = "running";
      item.startedAt = startedAt;
      this.#started.set(itemId, now);
      this.#emitItem(item);
    }
  }

  /** Records, durably, that the item's request is about to leave; throws (and nothing may be sent) if not. */
  async sending(itemId: string): Promise<void> {
    const at = new Date().toISOString();
    try {
      await this.#journal.markSending(this.#job.jobId, itemId, at);
    } catch (error) {
      this.#onWriteFailed();
      throw error;
    }
    const item = this.#items.get(itemId);
    if (item !== undefined) item.sentAt = at;
  }

  /**
   * Ends an item; resolves once its outcome and audit row are committed and `after` (freeing the
   * sandbox's claim), which runs after the commit, is done.
   */
  finish(
    planItem: PlanItem,
    frozen: FrozenItem | undefined,
    outcome: ItemOutcome,
    after?: () => Promise<void>,
  ): Promise<void> {
    const item = this.#items.get(planItem.itemId);
    if (item === undefined) return Promise.resolve();
    const finishedAt = new Date().toISOString();
    const started = this.#started.get(planItem.itemId);
    const durationMs = started === undefined ? null : Math.round(performance.now() - started);
    const end: ItemEnd = { itemId: planItem.itemId, finishedAt, ...outcome };
    const audit = itemAuditRecord({
      job: this.#job,
      operator: this.#operator,
      planItem,
      confirmedBy: item.confirmedBy,
      frozen,
      outcome,
      sent: item.sentAt !== null,
      at: finishedAt,
      durationMs,
    });
    const done = new Promise<void>((committed, failed) => {
      this.#pending.push({ item, end, audit, after, committed, failed });
      this.#schedule();
    });
    this.#unsettled.add(done);
    const forget = () => this.#unsettled.delete(done);
    done.then(forget, forget);
    return done;
  }

  /** Resolves once everything ended so far is committed (rejects if a commit failed). */
  async flush(): Promise<void> {
    while (this.#unsettled.size > 0) await Promise.all([...this.#unsettled]);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#commit();
    });
  }

  async #commit(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    if (batch.length === 0) return;
    try {
      await this.#journal.finishItems(
        this.#job.jobId,
        batch.map((entry) => entry.end),
        batch.map((entry) => entry.audit),
      );
      if (this.#sharedAudit !== null) await this.#sharedAudit.append(batch.map((entry) => entry.audit));
    } catch (error) {
      // Not durable, so not done: nothing is reported, and the job stops as if the process had died.
      this.#onWriteFailed();
      for (const entry of batch) entry.failed(error);
      return;
    }
    for (const { item, end } of batch) {
      item.state = end.state;
      item.reason = end.reason;
      item.message = end.message;
      item.httpStatus = end.httpStatus;
      item.finishedAt = end.finishedAt;
    }
    // The item's end is durable whatever `after` does; a claim it fails to free lapses at its expiry.
    await Promise.all(batch.map((entry) => entry.after?.().catch(() => undefined)));
    for (const { item, committed } of batch) {
      this.#emitItem(item);
      committed();
    }
  }

  #emitItem(item: JournalItem): void {
    this.#emit({
      type: "item",
      jobId: this.#job.jobId,
      action: this.#job.action,
      operator: this.#operator.name,
      item: publicItem(item),
    });
  }
}

export function itemAuditRecord(input: {
  job: Pick<JobRow, "jobId" | "planId" | "action" | "override">;
  operator: Operator;
  planItem: PlanItem;
  /** How the operator confirmed it; null when it never got that far (skipped before acting). */
  confirmedBy: ConfirmationMethod | null;
  frozen: FrozenItem | undefined;
  outcome: ItemOutcome;
  /**
   * Whether its request left, in this run or an earlier run of the job (journalled before it leaves): the
   * hourly caps count what was sent, whatever the item's end, and the end alone does not say it.
   */
  sent: boolean;
  at: string;
  durationMs: number | null;
}): AuditRecord {
  const { planItem, outcome } = input;
  return {
    at: input.at,
    kind: "item",
    operator: input.operator.name,
    host: input.operator.host,
    action: input.job.action,
    planId: input.job.planId,
    jobId: input.job.jobId,
    itemId: planItem.itemId,
    leaseId: planItem.leaseId,
    sandboxId: planItem.sandboxId,
    origin: planItem.origin,
    credential: planItem.credential,
    environmentId: planItem.environmentId,
    environmentName: planItem.environmentName,
    companyId: planItem.companyId,
    effect: planItem.effect,
    verdict: planItem.verdict,
    evidence: input.frozen?.evidence ?? null,
    confirmation: input.confirmedBy,
    // Recorded only where it changed the outcome: an item that needed the override and got it.
    override: input.job.override && planItem.requiresOverride,
    outcome: outcome.state,
    reason: outcome.reason,
    httpStatus: outcome.httpStatus,
    durationMs: input.durationMs,
    message: outcome.message,
    sent: input.sent,
  };
}
