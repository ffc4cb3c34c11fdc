import { randomUUID } from "node:crypto";
import { ulid } from "ulid";
import type { ActionSelection, Job, Plan, PlanItem } from "../../../shared/domain/actions.js";
import { typedCountPhrase } from "../../../shared/domain/bulk-confirmation.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import {
  dueAtFor,
  isDue,
  isOpenQuarantine,
  type OpenQuarantineCursor,
  QUARANTINE_MAX_HOURS,
  type Quarantine,
  type QuarantineState,
  quarantineClaim,
  quarantineUnread,
  unreadHoldSentence,
  unreadPartHoldSentence,
} from "../../../shared/domain/quarantine.js";
import { type ClaimHolder, claimKey, type SandboxClaims, type SandboxRef } from "../actions/claims/claims.js";
import type { ActionEngine } from "../actions/engine.js";
import type { Operator } from "../actions/jobs/recorder.js";
import type { JobRereader } from "../actions/ports.js";
import type { CreateosClient } from "../createos/client.js";
import { isCreateosError } from "../createos/errors.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import type { ProvenSandbox } from "../markers/proof-evidence.js";
import { recheckBeforePause } from "./pause-recheck.js";
import type { ProofNow } from "./proof-now.js";
import { type QuarantineAuditOutcome, quarantineAuditRecord } from "./quarantine-audit.js";
import type { QuarantineStore } from "./quarantine-store.js";
import { unreadPartOnly } from "./unread-part.js";

export interface QuarantineRequest {
  /**
   * A lease named with `sandboxId` (and `origin`) is quarantined only if the guard's plan finds the row
   * on that sandbox still: a row re-pointed since the caller judged it is refused, `changed-since-judged`.
   */
  leases?: {
    leaseId: string;
    sourceId?: string | undefined;
    sandboxId?: string | null | undefined;
    origin?: string | null | undefined;
  }[];
  untracked?: { sandboxId: string; origin?: string | undefined }[];
  hours: number;
  /** Forced destroys (the plugin would not act on them) are quarantined only with their ids typed back. */
  confirmSandboxIds?: readonly string[];
  /**
   * Of those, the ones a kept marker proof confirmed rather than a person (the janitor's): their due
   * destroys read the proof again, and go ahead only if it still proves.
   */
  proofConfirmedSandboxIds?: readonly string[];
}

/**
 * Asked with the inventory the guard's plan was made over (it may be newer than the one the caller
 * judged): a refusal when the caller no longer selects what it asked for there, and nothing is paused.
 */
export type QuarantineJudge = (
  inventoryGeneratedAt: string,
) => Promise<{ reason: string; message: string } | null>;

export type QuarantineOutcome =
  | { ok: true; quarantine: Quarantine }
  | { ok: false; leaseId: string | null; sandboxId: string | null; reason: string; message: string };

export interface QuarantineServiceDeps {
  store: QuarantineStore;
  engine: Pick<
    ActionEngine,
    "plan" | "execute" | "waitForJob" | "getJob" | "newestJobOfPlan" | "resume" | "recordAudit"
  >;
  /**
   * The inventory the app shows (rescanned when stale), to find untracked sandboxes and claims: its rows
   * may be only those that record one of `sandboxIds` (`recordedSandboxId`, in any origin), all a claim
   * reads of them.
   */
  inventory: (sandboxIds: readonly string[]) => Promise<Inventory>;
  /**
   * The sources as the engine re-reads them just before acting: a pause is sent only on a row (or an
   * untracked sandbox no row names) that is still what the guard's plan judged, with no part of the
   * sources unread that may name its sandbox.
   */
  leases: Pick<JobRereader, "rereadBatch" | "namesNow">;
  /** The configured keys, as the engine knows them: a refusal naming a part not read never says one. */
  knownSecrets?: () => Promise<ReadonlySet<string>>;
  /** A paced client for a configured credential, or null when it has no usable key. */
  openClient: (credential: string) => Promise<CreateosClient | null>;
  operator: Operator;
  now?: () => Date;
  /** The latest marker proof of a sandbox, kept in each quarantine audit entry. */
  proofFor?: (sandbox: ProvenSandbox) => Record<string, unknown> | null;
  /**
   * The kept marker proof of a quarantine a proof confirmed, read as a forced destroy's is read now
   * (`readProof`). Absent, such a quarantine's due destroy is never sent.
   */
  proofNow?: (quarantine: Quarantine) => Promise<ProofNow>;
  /** How a pass waits for a pause it sent to land before it judges anything on the sandbox. */
  pauseLanding?: PauseLanding;
  /** How many open quarantines a pass reads at a time (it reads them all, page after page). */
  openPageSize?: number;
  /**
   * With a store other machines share: the claims that let one machine at a time take a quarantine's
   * step (its pause, its due destroy). Absent, steps are only kept apart within this process.
   */
  steps?: QuarantineSteps;
}

export interface QuarantineSteps {
  claims: SandboxClaims;
  /** How long a step's claim lives unrenewed: once it lapses, another machine finishes the step. */
  ttlMs: number;
  /** How often a step under way renews its claim. */
  renewMs: number;
  /** This process's name in the claims (a fresh one by default). */
  owner?: string;
}

/** The claims table's key of a quarantine's step: not a sandbox, so a job's own claim on it is not in the way. */
const STEP_ORIGIN = "leasekeeper:quarantine";

export interface PauseLanding {
  /** Wait between reads of a sandbox still `pausing`. */
  pollMs: number;
  /** The longest a pass waits; a pause still landing then is judged on a later pass. */
  timeoutMs: number;
}

/** A list of quarantines, newest first, and whether older ones were left out of it. */
export interface QuarantineListing {
  quarantines: Quarantine[];
  cut: boolean;
}

/** What one pass did, and what it could not judge. */
export interface QuarantinePass {
  /** The quarantines the pass moved on (paused, cancelled, destroyed, kept, failed). */
  moved: Quarantine[];
  /**
   * The waiting quarantines whose claims the pass could not read, because the inventory could not be
   * read: none was cancelled or destroyed, and whether any is held or due to go is unknown. `because` is
   * the failure as raised, unredacted: whoever shows it passes it through the core's redactor. With
   * `partUnread`, the inventory was read but the due ones counted wait on a part of it that was not, or
   * of the scan their destroy was planned over, which may name their sandboxes (`quarantineUnread`, the
   * plan item's caution); `because` says which part.
   */
  unjudged: { count: number; because: string; partUnread?: true } | null;
}

/** Open quarantines read at once by a pass; it goes on page after page until every one is read. */
const OPEN_PAGE_SIZE = 1_000;

/** A snapshot upload takes seconds; a pass waits that long, and leaves a slower one to the next pass. */
const DEFAULT_PAUSE_LANDING: PauseLanding = { pollMs: 500, timeoutMs: 30_000 };

export const QUARANTINE_MESSAGES = {
  quarantined: (dueAt: string) => `Paused; destroyed at ${dueAt} unless it is claimed first.`,
  alreadyQuarantined: "This sandbox is already quarantined.",
  override:
    "A lease holds this sandbox (or shares it): a quarantine never overrides that, so it was not paused.",
  unreadPart: (part: string) =>
    `A part of the sources that could not be read may name this sandbox, as a live lease on it (${part}): a quarantine never overrides that, so it was not paused; quarantine it once that part is read.`,
  notConfirmed:
    "This would be a forced destroy: type its sandbox id back to quarantine it. Nothing was paused.",
  changedSinceJudged:
    "The guard's plan finds this row on another sandbox (or origin) than the one named, so nothing was paused.",
  notFound: "No quarantine with this id.",
  notOpen: "This quarantine has already ended.",
  cancelled: "Cancelled by the operator; the sandbox stays paused unless resumed.",
  claimed: (leaseId: string) => `Lease ${leaseId} holds this sandbox now, so the quarantine was cancelled.`,
  pauseFailed: "CreateOS did not pause this sandbox, so it will not be destroyed either.",
  gone: "CreateOS no longer has this sandbox.",
  destroyed: "Destroyed when due, through the guarded path.",
  elsewhere:
    "When due, the row no longer named this sandbox (or it was no longer untracked), so nothing was destroyed.",
  forcedNow:
    "When due, this destroy had become a forced one, which the quarantine was not confirmed for; kept.",
  proofNoLonger: "When due, the marker proof that confirmed this forced destroy no longer proved it; kept.",
  notConfirmedGone: "The destroy was sent but CreateOS did not confirm it; look at the sandbox.",
  destroying: "Its destroy is under way; it can no longer be cancelled.",
  noClient: "No usable key for this sandbox's credential, so it could not be reached.",
  hours: `The hours must be more than 0 and at most ${QUARANTINE_MAX_HOURS}.`,
} as const;

const PAUSED_STATES = new Set(["paused", "pausing"]);
/** A pause accepted but not landed: the snapshot is still uploading. */
const LANDING = "pausing";
const GONE_STATES = new Set(["destroyed", "destroying", "failed"]);

/**
 * Pauses sandboxes now and destroys them when due unless claimed. Everything is journalled before it is
 * sent, so a restart neither loses a quarantine nor repeats a step: a pause recorded as sent is read back
 * instead of sent again, and a due destroy is seen through by the engine's own journal (its job is
 * resumed, never a second one started for the same plan).
 */
export class QuarantineService {
  readonly #deps: QuarantineServiceDeps;
  readonly #now: () => Date;
  readonly #landing: PauseLanding;
  readonly #openPageSize: number;
  #running: Promise<unknown> = Promise.resolve();
  /** The plans each quarantine made (its check, its due destroys), named in its next audit entry. */
  readonly #plansOf = new Map<string, string[]>();
  /** The quarantines whose step this process is taking now. */
  readonly #inStep = new Set<string>();
  readonly #owner: string;

  constructor(deps: QuarantineServiceDeps) {
    this.#deps = deps;
    this.#owner = deps.steps?.owner ?? randomUUID();
    this.#now = deps.now ?? (() => new Date());
    this.#landing = deps.pauseLanding ?? DEFAULT_PAUSE_LANDING;
    this.#openPageSize = deps.openPageSize ?? OPEN_PAGE_SIZE;
  }

  list(options: { open?: boolean; limit?: number } = {}): Promise<Quarantine[]> {
    return this.#deps.store.list(options);
  }

  /**
   * The newest `limit` quarantines (only the open ones when asked), and whether more are recorded: one
   * more is read than is answered, so a list cut at its limit says it is cut.
   */
  async listNewest(options: { open?: boolean; limit: number }): Promise<QuarantineListing> {
    const read = await this.#deps.store.list({ ...options, limit: options.limit + 1 });
    return { quarantines: read.slice(0, options.limit), cut: read.length > options.limit };
  }

  /** Every open quarantine, however many, the first due first: read as a pass reads them, page by page. */
  listAllOpen(): Promise<Quarantine[]> {
    return this.#openQuarantines();
  }

  async quarantine(request: QuarantineRequest, judge?: QuarantineJudge): Promise<QuarantineOutcome[]> {
    if (!(request.hours > 0 && request.hours <= QUARANTINE_MAX_HOURS)) {
      throw new CoreError("call", "invalid-request", QUARANTINE_MESSAGES.hours);
    }
    const selections = await this.#selections(request.leases ?? [], request.untracked ?? []);
    const outcomes: QuarantineOutcome[] = [];
    const typed = new Set(request.confirmSandboxIds ?? []);
    const proven = new Set(request.proofConfirmedSandboxIds ?? []);
    const named = new Map((request.leases ?? []).map((lease) => [lease.leaseId, lease]));
    const wanted = (item: PlanItem) => {
      const sourceId = item.leaseId === null ? undefined : named.get(item.leaseId)?.sourceId;
      return sourceId === undefined || item.sourceId === sourceId;
    };
    for (const selection of selections) {
      // The guard's own plan decides what may be quarantined: whatever it would not destroy is not paused.
      const { plan, inventoryGeneratedAt } = await this.#deps.engine.plan({ action: "destroy", selection });
      const unselected = (await judge?.(inventoryGeneratedAt)) ?? null;
      for (const item of plan.items.filter(wanted)) {
        if (unselected !== null) {
          outcomes.push({ ok: false, leaseId: item.leaseId, sandboxId: item.sandboxId, ...unselected });
          continue;
        }
        // The plan is over the inventory held now, where a row is found by its id whatever it names.
        const expected = item.leaseId === null ? undefined : named.get(item.leaseId);
        if (
          (expected?.sandboxId !== undefined && expected.sandboxId !== item.sandboxId) ||
          (expected?.origin !== undefined && expected.origin !== item.origin)
        ) {
          outcomes.push({
            ok: false,
            leaseId: item.leaseId,
            sandboxId: item.sandboxId,
            reason: "changed-since-judged",
            message: QUARANTINE_MESSAGES.changedSinceJudged,
          });
          continue;
        }
        outcomes.push(await this.#quarantineItem(item, request.hours, { typed, proven }, plan.planId));
      }
    }
    return outcomes;
  }

  async cancel(quarantineId: string, options: { resume?: boolean } = {}): Promise<Quarantine> {
    const current = await this.#require(quarantineId);
    if (current.state === "destroying")
      throw new CoreError("call", "conflict", QUARANTINE_MESSAGES.destroying);
    const cancelled = await this.#deps.store.update(quarantineId, ["pausing", "waiting"], {
      state: "cancelled",
      endedAt: this.#now().toISOString(),
      reason: "operator",
      message: QUARANTINE_MESSAGES.cancelled,
    });
    if (cancelled === null) throw new CoreError("call", "conflict", QUARANTINE_MESSAGES.notOpen);
    await this.#audit(cancelled, "cancelled");
    if (options.resume) await this.#resumeSandbox(cancelled);
    return cancelled;
  }

  /** Resumes the sandbox of a quarantine, cancelling it first when it is still waiting. */
  async resume(quarantineId: string): Promise<Quarantine> {
    const current = await this.#require(quarantineId);
    if (isOpenQuarantine(current)) return this.cancel(quarantineId, { resume: true });
    if (current.state === "destroyed") throw new CoreError("call", "conflict", QUARANTINE_MESSAGES.gone);
    await this.#resumeSandbox(current);
    return current;
  }

  /**
   * One pass of the scheduler: finishes what a previous process left half-done, cancels what a lease
   * row holds now, and destroys what is due. Passes never overlap; a second call waits for the first.
   */
  runDue(): Promise<QuarantinePass> {
    const pass = this.#running.then(() => this.#pass());
    this.#running = pass.catch(() => undefined);
    return pass;
  }

  async #pass(): Promise<QuarantinePass> {
    const moved: Quarantine[] = [];
    const judged: QuarantinePass = { moved, unjudged: null };
    const open = await this.#openQuarantines();
    if (open.length === 0) return judged;
    // A step another machine (or this process) is taking is left to it; one whose claim lapsed (its
    // process died mid-way) is finished here, from what the store and CreateOS say now.
    for (const quarantine of open.filter((entry) => entry.state === "pausing")) {
      moved.push(...(await this.#step(quarantine, "pausing", (fresh) => this.#settlePause(fresh))));
    }
    for (const quarantine of open.filter((entry) => entry.state === "destroying")) {
      moved.push(...(await this.#step(quarantine, "destroying", (fresh) => this.#seeDestroyThrough(fresh))));
    }
    const waiting = (await this.#openQuarantines()).filter((q) => q.state === "waiting");
    if (waiting.length === 0) return judged;
    let inventory: Inventory | null = null;
    try {
      inventory = await this.#deps.inventory(waiting.map((quarantine) => quarantine.sandboxId));
    } catch (error) {
      // No inventory, no claims seen: nothing due is destroyed on a guess either (the plan needs one).
      // Neither cancelled nor destroyed is not "nothing was due": the pass says what it could not judge.
      return { moved, unjudged: { count: waiting.length, because: firstLine(error) } };
    }
    const heldBy: string[] = [];
    for (const quarantine of waiting) {
      const claim = quarantineClaim(quarantine, inventory);
      if (claim !== null) {
        const cancelled = await this.#deps.store.update(quarantine.quarantineId, ["waiting"], {
          state: "cancelled",
          endedAt: this.#now().toISOString(),
          reason: "claimed",
          claimedBy: claim.leaseId,
          message: QUARANTINE_MESSAGES.claimed(claim.leaseId),
        });
        if (cancelled !== null) {
          await this.#audit(cancelled, "cancelled");
          moved.push(cancelled);
        }
        continue;
      }
      if (!isDue(quarantine, this.#now())) continue;
      // A row not read may be a live lease on the sandbox: the destroy waits until that part is read.
      const unread = quarantineUnread(quarantine, inventory.gaps);
      if (unread !== null) {
        heldBy.push(unreadHoldSentence(unread));
        continue;
      }
      // Claimed first: of two schedulers on one store, one plans and sends the destroy.
      moved.push(...(await this.#step(quarantine, "waiting", (fresh) => this.#destroyDue(fresh, heldBy))));
    }
    if (heldBy.length > 0)
      return { moved, unjudged: { count: heldBy.length, because: heldBy[0]!, partUnread: true } };
    return judged;
  }

  /**
   * Every open quarantine, the first due first, read page after page: a pass that read only the newest
   * would never reach the oldest, which are the first due.
   */
  async #openQuarantines(): Promise<Quarantine[]> {
    const open: Quarantine[] = [];
    let after: OpenQuarantineCursor | null = null;
    do {
      const page = await this.#deps.store.listOpenByDue({ after, limit: this.#openPageSize });
      open.push(...page.quarantines);
      after = page.next;
    } while (after !== null);
    return open;
  }

  /**
   * Takes a quarantine's step only with its claim (in the team's store, when there is one) and only while
   * it is still in `state` once claimed; a step another holder is taking answers nothing. The claim is
   * renewed while the step runs and released after it; a process that dies mid-step leaves it to lapse.
   */
  async #step(
    quarantine: Quarantine,
    state: QuarantineState,
    body: (fresh: Quarantine) => Promise<Quarantine[]>,
  ): Promise<Quarantine[]> {
    return (
      (await this.#holding(quarantine.quarantineId, async () => {
        const fresh = await this.#deps.store.get(quarantine.quarantineId);
        return fresh === null || fresh.state !== state ? [] : body(fresh);
      })) ?? []
    );
  }

  /** Runs `body` holding the quarantine's step claim; null, and nothing run, when another holds it. */
  async #holding<T>(quarantineId: string, body: () => Promise<T>): Promise<T | null> {
    if (this.#inStep.has(quarantineId)) return null;
    this.#inStep.add(quarantineId);
    try {
      const steps = this.#deps.steps;
      if (steps === undefined) return await body();
      const ref: SandboxRef = { origin: STEP_ORIGIN, sandboxId: quarantineId };
      const holder: ClaimHolder = { owner: this.#owner, jobId: `quarantine:${quarantineId}` };
      // The claims' clock is the wall clock, whatever clock the quarantine's due times are read on.
      const taken = await steps.claims.claim([ref], holder, new Date(), steps.ttlMs);
      if (!taken.has(claimKey(ref))) return null;
      const renew = setInterval(() => {
        void steps.claims.claim([ref], holder, new Date(), steps.ttlMs).catch(() => undefined);
      }, steps.renewMs);
      renew.unref();
      try {
        return await body();
      } finally {
        clearInterval(renew);
        // One that cannot be released lapses at its expiry.
        await steps.claims.release(ref, holder).catch(() => undefined);
      }
    } finally {
      this.#inStep.delete(quarantineId);
    }
  }

  async #selections(
    leases: NonNullable<QuarantineRequest["leases"]>,
    untracked: NonNullable<QuarantineRequest["untracked"]>,
  ): Promise<ActionSelection[]> {
    const selections: ActionSelection[] = [];
    if (leases.length > 0) {
      selections.push({ kind: "leases", leaseIds: leases.map((lease) => lease.leaseId) });
    }
    if (untracked.length > 0) {
      const inventory = await this.#deps.inventory([]);
      const byCredential = new Map<string, string[]>();
      for (const ref of untracked) {
        const matches = inventory.untracked.filter(
          (sandbox) =>
            sandbox.sandboxId === ref.sandboxId &&
            (ref.origin === undefined || sandbox.origin === ref.origin),
        );
        if (matches.length !== 1) {
          throw new CoreError(
            "call",
            "not-found",
            matches.length === 0
              ? `No untracked sandbox ${ref.sandboxId} in the current inventory; refresh and try again.`
              : `Two origins list a sandbox ${ref.sandboxId}; name its origin.`,
          );
        }
        const { credential, sandboxId } = matches[0]!;
        byCredential.set(credential, [...(byCredential.get(credential) ?? []), sandboxId]);
      }
      for (const [credential, sandboxIds] of byCredential) {
        selections.push({ kind: "untracked", credential, sandboxIds });
      }
    }
    return selections;
  }

  async #quarantineItem(
    item: PlanItem,
    hours: number,
    confirmed: { typed: ReadonlySet<string>; proven: ReadonlySet<string> },
    checkPlanId: string,
  ): Promise<QuarantineOutcome> {
    const refuse = (reason: string, message: string): QuarantineOutcome => ({
      ok: false,
      leaseId: item.leaseId,
      sandboxId: item.sandboxId,
      reason,
      message,
    });
    if (item.decision === "skip") {
      return refuse(item.skipReason ?? "refused", item.skipMessage ?? "Refused by the guard.");
    }
    if (item.sandboxId === null || item.origin === null || item.credential === null) {
      return refuse("no-sandbox-id", "There is no sandbox to quarantine.");
    }
    const unread = unreadPartOnly(item);
    if (unread !== null) return refuse("unread-part", QUARANTINE_MESSAGES.unreadPart(unread));
    if (item.requiresOverride) return refuse("in-use", QUARANTINE_MESSAGES.override);
    const forced = item.confirmation === "typed-id";
    if (forced && !confirmed.typed.has(item.sandboxId))
      return refuse("not-confirmed", QUARANTINE_MESSAGES.notConfirmed);
    // With no client nothing is sent: the pause records why the quarantine failed.
    const client = await this.#client(item.credential);
    if (client !== null) {
      const refusal = await recheckBeforePause({
        item,
        client,
        leases: this.#deps.leases,
        now: this.#now(),
        ...(this.#deps.knownSecrets === undefined ? {} : { knownSecrets: this.#deps.knownSecrets }),
      });
      if (refusal !== null) {
        // A sandbox this service paused reads as changed to a plan made over the scan before: the open
        // quarantine on it is the reason to give, not the change it made itself.
        const open = await this.#openQuarantines();
        if (open.some((quarantine) => quarantine.sandboxId === item.sandboxId))
          return refuse("already-quarantined", QUARANTINE_MESSAGES.alreadyQuarantined);
        return refuse(refusal.reason, refusal.message);
      }
    }
    const createdAt = this.#now();
    const quarantine: Quarantine = {
      quarantineId: ulid(),
      sandboxId: item.sandboxId,
      origin: item.origin,
      credential: item.credential,
      leaseId: item.leaseId,
      sourceId: item.sourceId,
      environmentName: item.environmentName,
      hours,
      createdAt: createdAt.toISOString(),
      pausedAt: null,
      dueAt: dueAtFor(createdAt, hours),
      state: "pausing",
      endedAt: null,
      reason: null,
      message: null,
      claimedBy: null,
      confirmedBy: forced ? "typed-id" : "click",
      ...(forced && confirmed.proven.has(item.sandboxId) ? { confirmedByProof: true } : {}),
      planId: null,
      jobId: null,
      operator: this.#deps.operator.name,
    };
    // Claimed before it is recorded, so no other machine's pass takes its pause for a half-done one.
    const paused = await this.#holding(quarantine.quarantineId, async () => {
      if (!(await this.#deps.store.insert(quarantine))) return null;
      this.#plansOf.set(quarantine.quarantineId, [checkPlanId]);
      const [settled] = await this.#pause(quarantine, { sentBefore: false, awaitLanding: false });
      return { settled };
    });
    if (paused === null) return refuse("already-quarantined", QUARANTINE_MESSAGES.alreadyQuarantined);
    const { settled } = paused;
    if (settled === undefined) return { ok: true, quarantine: await this.#require(quarantine.quarantineId) };
    return settled.state === "failed"
      ? refuse(settled.reason ?? "pause-failed", settled.message ?? QUARANTINE_MESSAGES.pauseFailed)
      : { ok: true, quarantine: settled };
  }

  /**
   * A quarantine left `pausing` by a process that stopped: read the sandbox if the pause may have left.
   * The pass goes on to scan and to plan due destroys, so it first lets the pause land: a plan made while
   * the sandbox is `pausing` would be refused by its own re-check once it shows `paused`.
   */
  async #settlePause(quarantine: Quarantine): Promise<Quarantine[]> {
    return this.#pause(quarantine, {
      sentBefore: (await this.#deps.store.pauseSentAt(quarantine.quarantineId)) !== null,
      awaitLanding: true,
    });
  }

  async #pause(
    quarantine: Quarantine,
    options: { sentBefore: boolean; awaitLanding: boolean },
  ): Promise<Quarantine[]> {
    const client = await this.#client(quarantine.credential);
    if (client === null)
      return this.#end(quarantine, ["pausing"], "failed", "no-credential", QUARANTINE_MESSAGES.noClient);
    try {
      if (options.sentBefore) {
        // The pause may have reached CreateOS before the process stopped: read first, never pause twice.
        const { sandbox } = await client.getSandbox(quarantine.sandboxId);
        if (PAUSED_STATES.has(sandbox.status)) {
          if (options.awaitLanding) await this.#untilLanded(client, quarantine.sandboxId, sandbox.status);
          return this.#paused(quarantine, null);
        }
        if (GONE_STATES.has(sandbox.status)) {
          return this.#end(quarantine, ["pausing"], "failed", "gone", QUARANTINE_MESSAGES.gone);
        }
      }
      await this.#deps.store.markPauseSent(quarantine.quarantineId, this.#now().toISOString());
      const paused = await client.pauseSandbox(quarantine.sandboxId);
      if (options.awaitLanding) {
        const status =
          paused.outcome === "accepted" ? (paused.sandboxStatus ?? LANDING) : paused.sandboxStatus;
        await this.#untilLanded(client, quarantine.sandboxId, status);
      }
      return this.#paused(quarantine, paused.httpStatus);
    } catch (error) {
      // A lost answer may hide a pause that happened: what CreateOS says now decides.
      const now = await client.getSandbox(quarantine.sandboxId).catch(() => null);
      if (now !== null && PAUSED_STATES.has(now.sandbox.status)) return this.#paused(quarantine, null);
      const reason = isCreateosError(error) ? error.code : "request-failed";
      const message =
        isCreateosError(error) && error.code === "not-found"
          ? QUARANTINE_MESSAGES.gone
          : QUARANTINE_MESSAGES.pauseFailed;
      return this.#end(
        quarantine,
        ["pausing"],
        "failed",
        reason,
        message,
        isCreateosError(error) ? error.httpStatus : null,
      );
    }
  }

  /** Reads the sandbox until CreateOS shows it no longer `pausing`, or the pass has waited long enough. */
  async #untilLanded(client: CreateosClient, sandboxId: string, status: string | null): Promise<void> {
    const deadline = performance.now() + this.#landing.timeoutMs;
    let current = status;
    while (current === LANDING && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, this.#landing.pollMs));
      // An unreadable sandbox is left as it is: the due destroy's own re-check reads it again anyway.
      const read = await client.getSandbox(sandboxId).catch(() => null);
      if (read === null) return;
      current = read.sandbox.status;
    }
  }

  async #paused(quarantine: Quarantine, httpStatus: number | null): Promise<Quarantine[]> {
    const waiting = await this.#deps.store.update(quarantine.quarantineId, ["pausing"], {
      state: "waiting",
      pausedAt: this.#now().toISOString(),
      message: QUARANTINE_MESSAGES.quarantined(quarantine.dueAt),
    });
    if (waiting === null) return [];
    await this.#audit(waiting, "quarantined", httpStatus);
    return [waiting];
  }

  /**
   * Plans and starts the due destroy. One that waits on a part of the sources the plan's scan could not
   * read is left waiting, and why is added to `held` (a destroy planned again after a restart adds
   * nothing: the pass judges it again among the waiting ones).
   */
  async #destroyDue(quarantine: Quarantine, held: string[] = []): Promise<Quarantine[]> {
    const selection: ActionSelection =
      quarantine.leaseId === null
        ? { kind: "untracked", credential: quarantine.credential, sandboxIds: [quarantine.sandboxId] }
        : { kind: "leases", leaseIds: [quarantine.leaseId] };
    let plan: Plan;
    try {
      ({ plan } = await this.#deps.engine.plan({ action: "destroy", selection }));
    } catch {
      // Not planned now (no inventory, a source down): it stays due and is tried on the next pass.
      return [];
    }
    this.#plansOf.set(quarantine.quarantineId, [
      ...(this.#plansOf.get(quarantine.quarantineId) ?? []),
      plan.planId,
    ]);
    const item = plan.items.find(
      (candidate) =>
        candidate.sandboxId === quarantine.sandboxId &&
        candidate.origin === quarantine.origin &&
        candidate.leaseId === quarantine.leaseId &&
        (quarantine.sourceId === null || candidate.sourceId === quarantine.sourceId),
    );
    if (item === undefined)
      return this.#end(quarantine, ["waiting"], "kept", "elsewhere", QUARANTINE_MESSAGES.elsewhere);
    // Planned on a sandbox whose pause is still landing: the re-check would find it changed to `paused`
    // and refuse. That is the quarantine's own pause, not a change to judge, so it stays due for a later
    // pass, planned on what CreateOS shows once it has landed.
    if (item.decision === "do" && item.verdict.provider === LANDING) return [];
    if (item.decision === "skip") {
      return this.#end(
        quarantine,
        ["waiting"],
        "kept",
        item.skipReason ?? "refused",
        item.skipMessage ?? "Refused.",
      );
    }
    // A part not read since the pass's own read: the destroy waits for it as for one read then, not kept.
    const unread = unreadPartOnly(item);
    if (unread !== null) {
      held.push(unreadPartHoldSentence(unread));
      return [];
    }
    if (item.requiresOverride)
      return this.#end(quarantine, ["waiting"], "kept", "in-use", QUARANTINE_MESSAGES.override);
    if (item.confirmation === "typed-id" && quarantine.confirmedBy !== "typed-id") {
      return this.#end(quarantine, ["waiting"], "kept", "not-confirmed", QUARANTINE_MESSAGES.forcedNow);
    }
    // The proof that confirmed it was read over an earlier scan: a row recording its marker may have
    // started a lease since, or a part that may hold one gone unread. It is read again over this one.
    if (item.confirmation === "typed-id" && quarantine.confirmedByProof === true) {
      let reading: ProofNow;
      try {
        reading = await this.#proofNow(quarantine);
      } catch {
        // Not read now: it stays due, and the proof is read again on the next pass.
        return [];
      }
      if (!reading.proves)
        return this.#end(
          quarantine,
          ["waiting"],
          "kept",
          "needs-marker-proof",
          `${QUARANTINE_MESSAGES.proofNoLonger} ${reading.message}`,
        );
    }
    // Journalled before the job exists, so a restart looks for this plan's job rather than planning again.
    const destroying = await this.#deps.store.update(quarantine.quarantineId, ["waiting"], {
      state: "destroying",
      planId: plan.planId,
    });
    if (destroying === null) return [];
    let job: Job;
    try {
      job = await this.#deps.engine.execute({
        planId: plan.planId,
        keepItemIds: [item.itemId],
        confirmSandboxIds: item.confirmation === "typed-id" ? [item.sandboxId!] : [],
        // The operator confirmed this one sandbox when quarantining it; the count is that one.
        ...(plan.countConfirmation ? { typedCount: typedCountPhrase("destroy", 1) } : {}),
      });
    } catch (error) {
      if (isCoreError(error, "action") && error.code === "plan-consumed")
        return this.#seeDestroyThrough(destroying);
      // Nothing was started: back to waiting, still due, planned afresh on the next pass.
      await this.#deps.store.update(quarantine.quarantineId, ["destroying"], {
        state: "waiting",
        planId: null,
      });
      return [];
    }
    const withJob = await this.#deps.store.update(quarantine.quarantineId, ["destroying"], {
      jobId: job.jobId,
    });
    return this.#settleJob(withJob ?? destroying, await this.#deps.engine.waitForJob(job.jobId));
  }

  /** A destroy a previous pass (or process) started: find its job, resume it if interrupted, settle. */
  async #seeDestroyThrough(quarantine: Quarantine): Promise<Quarantine[]> {
    const ofPlan = quarantine.planId === null ? null : await this.#newestJobOfPlan(quarantine.planId);
    let job = ofPlan ?? (quarantine.jobId === null ? null : await this.#deps.engine.getJob(quarantine.jobId));
    if (job === null) {
      // The plan's job was never created: nothing was sent, so it is planned again on this pass.
      const back = await this.#deps.store.update(quarantine.quarantineId, ["destroying"], {
        state: "waiting",
        planId: null,
        jobId: null,
      });
      return back === null ? [] : this.#destroyDue(back);
    }
    if (job.state === "running") return [];
    if (job.state === "interrupted") {
      try {
        job = await this.#deps.engine.resume(job.jobId);
      } catch (error) {
        // Another process resumed it: its job is seen through there, and settled on a later pass.
        if (isCoreError(error, "action") && error.code === "job-already-resumed") return [];
        throw error;
      }
      await this.#deps.store.update(quarantine.quarantineId, ["destroying"], { jobId: job.jobId });
      job = await this.#deps.engine.waitForJob(job.jobId);
    }
    return this.#settleJob({ ...quarantine, jobId: job.jobId }, job);
  }

  /**
   * The newest job of a plan (the last of a chain of resumes is the one that says how it ended), or null
   * when no job ran it: read by the plan, however many jobs came after it. The null must be exact: the
   * destroy is planned again only for a plan no job ran, never over a sandbox its job may have destroyed.
   */
  #newestJobOfPlan(planId: string): Promise<Job | null> {
    return this.#deps.engine.newestJobOfPlan(planId);
  }

  async #settleJob(quarantine: Quarantine, job: Job): Promise<Quarantine[]> {
    if (job.state === "running" || job.state === "interrupted") return [];
    const item = job.items.find((candidate) => candidate.sandboxId === quarantine.sandboxId) ?? null;
    const patch = { jobId: job.jobId };
    if (item?.state === "confirmed") {
      const destroyed = await this.#deps.store.update(quarantine.quarantineId, ["destroying"], {
        ...patch,
        state: "destroyed",
        endedAt: this.#now().toISOString(),
        reason: null,
        message: QUARANTINE_MESSAGES.destroyed,
      });
      if (destroyed === null) return [];
      await this.#audit(destroyed, "destroyed", item.httpStatus);
      return [destroyed];
    }
    if (item?.state === "unconfirmed") {
      return this.#end(
        { ...quarantine, ...patch },
        ["destroying"],
        "failed",
        "unconfirmed",
        QUARANTINE_MESSAGES.notConfirmedGone,
      );
    }
    return this.#end(
      { ...quarantine, ...patch },
      ["destroying"],
      "kept",
      item?.reason ?? item?.state ?? "not-acted",
      item?.message ?? "The guarded destroy did not act on it.",
    );
  }

  async #end(
    quarantine: Quarantine,
    from: QuarantineState[],
    state: "kept" | "failed",
    reason: string,
    message: string,
    httpStatus: number | null = null,
  ): Promise<Quarantine[]> {
    const ended = await this.#deps.store.update(quarantine.quarantineId, from, {
      state,
      endedAt: this.#now().toISOString(),
      reason,
      message,
      jobId: quarantine.jobId,
    });
    if (ended === null) return [];
    await this.#audit(ended, state, httpStatus);
    return [ended];
  }

  async #resumeSandbox(quarantine: Quarantine): Promise<void> {
    const client = await this.#client(quarantine.credential);
    if (client === null) throw new CoreError("call", "unavailable", QUARANTINE_MESSAGES.noClient);
    try {
      await client.resumeSandbox(quarantine.sandboxId);
    } catch (error) {
      throw new CoreError(
        "call",
        isCreateosError(error) && error.code === "conflict" ? "conflict" : "unavailable",
        isCreateosError(error) ? error.message : "CreateOS could not be asked to resume the sandbox.",
      );
    }
  }

  #proofNow(quarantine: Quarantine): Promise<ProofNow> {
    const read = this.#deps.proofNow;
    if (read !== undefined) return read(quarantine);
    return Promise.resolve({
      proves: false,
      message:
        "No kept marker proof is read where this quarantine is judged, so the proof could not be read again.",
    });
  }

  async #client(credential: string): Promise<CreateosClient | null> {
    try {
      return await this.#deps.openClient(credential);
    } catch {
      return null;
    }
  }

  async #require(quarantineId: string): Promise<Quarantine> {
    const found = await this.#deps.store.get(quarantineId);
    if (found === null) throw new CoreError("call", "not-found", QUARANTINE_MESSAGES.notFound);
    return found;
  }

  async #audit(quarantine: Quarantine, outcome: QuarantineAuditOutcome, httpStatus: number | null = null) {
    const markerProof = this.#deps.proofFor?.(quarantine) ?? null;
    await this.#deps.engine.recordAudit([
      quarantineAuditRecord({
        quarantine,
        outcome,
        operator: this.#deps.operator,
        at: this.#now().toISOString(),
        markerProof,
        httpStatus,
        planIds: this.#plansOf.get(quarantine.quarantineId) ?? [],
      }),
    ]);
    // Named once: a later entry of the same quarantine names only the plans made after this one.
    this.#plansOf.delete(quarantine.quarantineId);
  }
}

/** A failure's first line: what a terminal or a log line says of it. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n", 1)[0]!.trim() || "no reason was given";
}
