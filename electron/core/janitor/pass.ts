import type { ActionSelection, AuditEntry, Job, PlanItem } from "../../../shared/domain/actions.js";
import { typedCountPhrase } from "../../../shared/domain/bulk-confirmation.js";
import type {
  PassGap,
  PassItem,
  PassPlan,
  PassReport,
  PassResult,
  PastAction,
  Policy,
  RulePlan,
} from "../../../shared/domain/janitor/index.js";
import { MAX_GAPS_IN_PASS_REPORT } from "../../../shared/domain/janitor/pass-report.js";
import type { ActionEngine } from "../actions/engine.js";
import { CoreError } from "../errors/core-error.js";
import type { PolicyPlanInput } from "../inventory/worker/protocol.js";
import type { MarkerService } from "../markers/index.js";
import type { QuarantineService } from "../quarantine/index.js";
import { finishPass } from "./finish-pass.js";
import { newPassReport } from "./new-pass-report.js";
import { noteTaken, readLastPass, readTakenOf, type TakenStore } from "./pass-state.js";
import type { HeldInventory } from "./plan-unread.js";

/**
 * One pass of a policy, through the same path as the operator's screen: a fresh scan, `planPass` over it
 * (the exclusions, the guard's verdict, the marker proof a forced destroy needs, the caps counted from
 * the audit log), then per rule the engine's own plan of what it selected, re-checked, claimed, acted on,
 * verified and audited by the engine (a quarantine by the core's QuarantineService). The janitor never
 * overrides, and types a sandbox id back only for an item `planPass` selected with a marker proof.
 *
 * A dry run makes the same plans and cancels them: the audit log shows each as a plan by the policy's
 * operator, closed without running, with what it would have done; nothing is sent to CreateOS but the
 * scan's and the plan's reads. The stop check runs before every request batch (the scan, each plan, each
 * job, each quarantine, the webhook); a stop while a job runs leaves it to the engine, whose journal marks
 * it interrupted when the core closes, and the next start resumes it.
 */

export type StopReason = "stop-file" | "signal";

export interface JanitorDeps {
  engine: Pick<
    ActionEngine,
    | "plan"
    | "execute"
    | "cancelPlan"
    | "waitForJob"
    | "queryAudit"
    | "listJobs"
    | "resume"
    | "ranWithOverride"
  >;
  quarantine: Pick<QuarantineService, "quarantine" | "listAllOpen" | "runDue"> | null;
  inventory: {
    refresh(): Promise<unknown>;
    policyPlan(input: PolicyPlanInput): Promise<PassPlan>;
    /** The inventory held now: when it was scanned, and what of the sources that scan could not read. */
    view(request: { refresh?: boolean }): Promise<HeldInventory>;
    /**
     * What main keeps of the inventory held now: every gap of its scan (the view lists the first ones
     * only). Null before there is one.
     */
    readonly summary: { generatedAt: string; gaps: readonly PassGap[] } | null;
  };
  markers: Pick<MarkerService, "keptProofs" | "loaded">;
  /**
   * Where the plans the rules took are noted: the store of the engine's journal and audit log (the
   * team's, when it has one); null where the core keeps no store.
   */
  taken: TakenStore | null;
  dataDir: string;
  /** The core's redactor (it knows the webhook URL). */
  redact(text: string): string;
  /** The core's metrics, when it has them. */
  metrics?: { recordPolicyPass(outcome: string): void } | undefined;
  fetch?: typeof fetch;
  webhookTimeoutMs?: number;
  now?: () => Date;
}

export interface PassOptions {
  policy: Policy;
  policyFile: string;
  act: boolean;
  /** Checked before each request batch; a reason halts the pass there. */
  stopped: () => StopReason | null;
  /** Aborted on a stop, so a wait for a job in flight ends at once. */
  signal: AbortSignal;
  /** Resume the interrupted jobs an earlier pass left (a second start does, once). */
  resume?: boolean;
  /** Told each result as it is known (the report's lines, as they happen). */
  onResult?: (result: PassResult) => void;
}

const HOUR_MS = 3_600_000;
/**
 * The ends of an item counted as an action taken when its audit entry does not say whether its request
 * left (it was written before the log recorded that). A failed one counts too: its request may have left
 * and taken effect at CreateOS (a 5xx or a timeout after it arrived).
 */
const TAKEN_OUTCOMES = new Set(["confirmed", "unconfirmed", "failed"]);
/** The most entries one read of the audit log answers (the audit query's own ceiling). */
const AUDIT_READ_LIMIT = 10_000;

class Stop extends Error {
  constructor(readonly reason: StopReason) {
    super(`stopped: ${reason}`);
  }
}

export async function runPass(deps: JanitorDeps, options: PassOptions): Promise<PassReport> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const results: PassResult[] = [];
  const push = (result: PassResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  const checkpoint = () => {
    const reason = options.stopped();
    if (reason !== null) throw new Stop(reason);
  };
  const report = newPassReport({
    policyFile: options.policyFile,
    operator: options.policy.operator,
    act: options.act,
    startedAt,
    results,
  });
  const previous = await readLastPass(deps.dataDir);

  try {
    if (options.act && options.resume) {
      const { resumed, unjudged } = await resumeInterrupted(deps, options.policy.operator, checkpoint);
      report.resumedJobs = resumed;
      report.unjudgedJobs = unjudged;
    }
    if (options.act && deps.quarantine !== null) {
      checkpoint();
      const due = await deps.quarantine.runDue();
      for (const moved of due.moved) {
        report.quarantinesDue[moved.state] = (report.quarantinesDue[moved.state] ?? 0) + 1;
      }
      // Counted apart from any outcome: waiting ones whose claims could not be read (no inventory).
      if (due.unjudged !== null) report.quarantinesDue["not judged"] = due.unjudged.count;
    }
    checkpoint();
    await deps.inventory.refresh();
    const plan = await planPolicy(deps, options.policy, now());
    report.plan = plan;
    const gaps = gapsOf(deps, plan);
    report.gaps = gaps?.listed ?? null;
    report.gapCount = gaps?.count ?? null;
    for (const rule of plan.rules) {
      if (rule.selected.length === 0) continue;
      await runRule(deps, options, rule, { checkpoint, push, now, judged: plan });
    }
  } catch (error) {
    if (error instanceof Stop) report.stopped = error.reason;
    else report.error = deps.redact(error instanceof Error ? error.message : String(error));
  }

  // Whatever the pass did not reach is said, so the report accounts for every selected item.
  if (report.plan !== null) {
    const reached = new Set(results.map((result) => resultKey(result.rule, result.target)));
    for (const rule of report.plan.rules) {
      for (const item of rule.selected) {
        if (reached.has(resultKey(rule.rule, item.target))) continue;
        push(result(rule, item, { outcome: "not-reached", message: "The pass stopped before this item." }));
      }
    }
  }
  report.counts = countResults(report, previous);
  await finishPass(deps, report, previous, options.policy.webhook?.url);
  deps.metrics?.recordPolicyPass(passOutcome(report));
  return report;
}

/**
 * What a pass of `policy` would select and skip now, over the inventory the core holds (no new scan):
 * the kept marker proofs, the caps counted from the audit log, every open quarantine. The pass itself
 * plans through here after its scan, and the app shows it as "what it would do next". The plan is worked
 * out where the rows are stored (`InventoryService.policyPlan`), so history is passed over, not copied.
 */
export async function planPolicy(
  deps: Pick<JanitorDeps, "engine" | "quarantine" | "inventory" | "markers" | "taken" | "dataDir">,
  policy: Policy,
  now: Date,
): Promise<PassPlan> {
  await deps.markers.loaded();
  const { webhook: _mainOnly, ...planned } = policy;
  // Every one, page by page: a read of the newest only would leave out the oldest, and a rule could
  // then select a sandbox an open quarantine holds.
  const quarantines = (await deps.quarantine?.listAllOpen()) ?? [];
  return deps.inventory.policyPlan({
    policy: planned,
    proofs: deps.markers.keptProofs(),
    now: now.toISOString(),
    history: await history(deps, now, policy.operator),
    quarantines: quarantines.map(({ sandboxId, origin, state }) => ({ sandboxId, origin, state })),
  });
}

interface RuleContext {
  checkpoint: () => void;
  push: (result: PassResult) => void;
  now: () => Date;
  /** The pass's plan: what its policy selected, and over which scan. */
  judged: PassPlan;
}

async function runRule(deps: JanitorDeps, options: PassOptions, rule: RulePlan, context: RuleContext) {
  if (rule.action === "quarantine" && options.act) {
    await quarantineRule(deps, options.policy, rule, context);
    return;
  }
  // The guard's own plan, per selection; a quarantine's dry run plans the destroy it would end in.
  const action = rule.action === "release" ? "release" : "destroy";
  for (const batch of batches(rule.selected)) {
    context.checkpoint();
    const { plan, inventoryGeneratedAt } = await deps.engine.plan({ action, selection: batch.selection });
    const selectedNow = await selectedOver(deps, options.policy, rule, inventoryGeneratedAt, context);
    const kept: PlanItem[] = [];
    const confirm: string[] = [];
    for (const item of rule.selected.filter((selected) => batch.items.includes(selected))) {
      const planned = plan.items.find((candidate) => matches(candidate, item));
      const judged = selectedNow?.find((candidate) => sameTarget(candidate.target, item.target));
      const refused = judged === undefined ? changedSinceJudged(selectedNow) : planRefusal(planned, judged);
      if (refused !== null) {
        context.push(result(rule, item, { ...refused, planId: plan.planId }));
        continue;
      }
      kept.push(planned!);
      if (planned!.confirmation === "typed-id" && planned!.sandboxId !== null)
        confirm.push(planned!.sandboxId);
    }
    if (!options.act || kept.length === 0) {
      await deps.engine.cancelPlan(plan.planId);
      for (const item of batch.items) {
        const planned = plan.items.find((candidate) => matches(candidate, item));
        if (planned === undefined || !kept.includes(planned)) continue;
        context.push(
          result(rule, item, {
            outcome: "would-act",
            message: `Dry run: the guard's plan would ${rule.action} this; the plan was cancelled.`,
            planId: plan.planId,
          }),
        );
      }
      continue;
    }
    context.checkpoint();
    await noteTaken(deps, {
      rule: rule.rule,
      action: rule.action,
      planId: plan.planId,
      operator: options.policy.operator,
      at: context.now().toISOString(),
    });
    const started = await deps.engine.execute({
      planId: plan.planId,
      keepItemIds: kept.map((item) => item.itemId),
      confirmSandboxIds: confirm,
      ...(plan.countConfirmation ? { typedCount: typedCountPhrase(plan.action, kept.length) } : {}),
    });
    const job = await untilDone(deps.engine.waitForJob(started.jobId), options.signal);
    if (job === null) {
      context.checkpoint();
      return;
    }
    for (const item of batch.items) {
      const planned = plan.items.find((candidate) => matches(candidate, item));
      if (planned === undefined || !kept.includes(planned)) continue;
      const done = job.items.find((jobItem) => jobItem.itemId === planned.itemId);
      context.push(result(rule, item, { ...jobOutcome(done), planId: plan.planId, jobId: job.jobId }));
    }
  }
}

/**
 * The rule's items as the policy selects them in the inventory the engine planned over. The engine scans
 * again when the one held is older than it allows (and a scan starts after every job finishes), so a
 * later rule's plan may be over a newer scan than the pass judged: the policy is judged again over that
 * one, and an item is acted on only when it selects it as before, the same sandbox at the same origin.
 * Null when the inventory held now is not the engine's either (another scan finished in between):
 * nothing is judged.
 */
async function selectedOver(
  deps: JanitorDeps,
  policy: Policy,
  rule: RulePlan,
  inventoryGeneratedAt: string,
  context: RuleContext,
): Promise<readonly PassItem[] | null> {
  if (inventoryGeneratedAt === context.judged.inventoryGeneratedAt) return rule.selected;
  const again = await planPolicy(deps, policy, context.now());
  if (again.inventoryGeneratedAt !== inventoryGeneratedAt) return null;
  return again.rules.find((candidate) => candidate.rule === rule.rule)?.selected ?? [];
}

function sameTarget(a: PassItem["target"], b: PassItem["target"]): boolean {
  return targetKey(a) === targetKey(b) && a.sandboxId === b.sandboxId && a.origin === b.origin;
}

function changedSinceJudged(
  selectedNow: readonly PassItem[] | null,
): Pick<PassResult, "outcome"> & { reason: string; message: string } {
  return {
    outcome: "skipped",
    reason: "changed-since-judged",
    message:
      selectedNow === null
        ? "The guard planned over a newer scan than the pass judged, and the policy could not be judged again over it."
        : "The guard planned over a newer scan than the pass judged, and in it the policy does not select this as it did.",
  };
}

/**
 * One call per sandbox, so a stop lands between two pauses. The service plans with the guard, which may
 * scan again: the policy is judged over that scan as a destroy's is, and a sandbox the rule no longer
 * selects there is not paused.
 */
async function quarantineRule(deps: JanitorDeps, policy: Policy, rule: RulePlan, context: RuleContext) {
  const service = deps.quarantine;
  for (const item of rule.selected) {
    if (service === null) {
      context.push(result(rule, item, { outcome: "failed", message: "Quarantine needs the local store." }));
      continue;
    }
    context.checkpoint();
    const { target } = item;
    const confirm = item.forced && item.proof?.proves === true && target.sandboxId !== null;
    const stillSelected = async (inventoryGeneratedAt: string) => {
      const selectedNow = await selectedOver(deps, policy, rule, inventoryGeneratedAt, context);
      if (selectedNow?.some((candidate) => sameTarget(candidate.target, target))) return null;
      const { reason, message } = changedSinceJudged(selectedNow);
      return { reason, message };
    };
    const outcomes = await service.quarantine(
      {
        hours: rule.quarantineHours ?? 0,
        ...(target.kind === "lease"
          ? // The service plans over the inventory held then: the row must still name the sandbox judged.
            {
              leases: [
                {
                  leaseId: target.leaseId,
                  sourceId: target.sourceId,
                  sandboxId: target.sandboxId,
                  origin: target.origin,
                },
              ],
            }
          : { untracked: [{ sandboxId: target.sandboxId, origin: target.origin }] }),
        confirmSandboxIds: confirm && target.sandboxId !== null ? [target.sandboxId] : [],
        // Confirmed by the proof, not a person: the due destroy reads the proof again.
        proofConfirmedSandboxIds: confirm && target.sandboxId !== null ? [target.sandboxId] : [],
      },
      stillSelected,
    );
    const outcome = outcomes[0];
    if (outcome?.ok) {
      await noteTaken(deps, {
        rule: rule.rule,
        action: "quarantine",
        planId: outcome.quarantine.quarantineId,
        operator: policy.operator,
        at: context.now().toISOString(),
      });
      context.push(
        result(rule, item, {
          outcome: "done",
          message: `Paused; destroyed at ${outcome.quarantine.dueAt} unless it is claimed first.`,
          quarantineId: outcome.quarantine.quarantineId,
          planId: outcome.quarantine.planId,
        }),
      );
    } else {
      context.push(
        result(rule, item, {
          outcome: "skipped",
          reason: outcome?.reason ?? "not-in-plan",
          message: outcome?.message ?? "The guard's plan did not list this sandbox.",
        }),
      );
    }
  }
}

/** Leases in one plan; untracked sandboxes in one plan per credential, as the screen plans them. */
function batches(items: readonly PassItem[]): { selection: ActionSelection; items: PassItem[] }[] {
  const leases = items.filter((item) => item.target.kind === "lease");
  const out: { selection: ActionSelection; items: PassItem[] }[] = [];
  if (leases.length > 0) {
    const leaseIds = [
      ...new Set(leases.map((item) => (item.target.kind === "lease" ? item.target.leaseId : ""))),
    ];
    out.push({ selection: { kind: "leases", leaseIds }, items: leases });
  }
  const byCredential = new Map<string, PassItem[]>();
  for (const item of items) {
    if (item.target.kind !== "untracked") continue;
    const list = byCredential.get(item.target.credential) ?? [];
    list.push(item);
    byCredential.set(item.target.credential, list);
  }
  for (const [credential, list] of byCredential) {
    const sandboxIds = list.map((item) => item.target.sandboxId!);
    out.push({ selection: { kind: "untracked", credential, sandboxIds }, items: list });
  }
  return out;
}

function matches(planned: PlanItem, item: PassItem): boolean {
  const { target } = item;
  if (target.kind === "lease")
    return planned.leaseId === target.leaseId && planned.sourceId === target.sourceId;
  return (
    planned.leaseId === null && planned.sandboxId === target.sandboxId && planned.origin === target.origin
  );
}

/** Why the guard's plan does not let the janitor act on an item, or null when it does. */
function planRefusal(
  planned: PlanItem | undefined,
  item: PassItem,
): Pick<PassResult, "outcome" | "reason" | "message"> | null {
  if (planned === undefined)
    return { outcome: "skipped", reason: "not-in-plan", message: "The guard's plan did not list it." };
  // A lease row is matched by its id: the sandbox the guard planned on must be the one the pass judged.
  if (planned.sandboxId !== item.target.sandboxId || planned.origin !== item.target.origin)
    return {
      outcome: "skipped",
      reason: "changed-since-judged",
      message: "The guard's plan names another sandbox for this row than the pass judged.",
    };
  if (planned.decision !== "do")
    return { outcome: "skipped", reason: planned.skipReason, message: planned.skipMessage };
  if (planned.requiresOverride) {
    return {
      outcome: "skipped",
      reason: "needs-override",
      message: "The guard asks for its override; the janitor never overrides.",
    };
  }
  if (planned.confirmation === "typed-id" && !(item.forced && item.proof?.proves === true)) {
    return {
      outcome: "skipped",
      reason: "needs-marker-proof",
      message:
        "A forced destroy needs its sandbox id typed back; the janitor types it only with a marker proof.",
    };
  }
  return null;
}

function jobOutcome(
  item: Job["items"][number] | undefined,
): Pick<PassResult, "outcome" | "reason" | "message"> {
  if (item === undefined) return { outcome: "failed", reason: null, message: "The job did not list it." };
  const outcome =
    item.state === "confirmed"
      ? "done"
      : item.state === "unconfirmed"
        ? "unconfirmed"
        : item.state === "skipped"
          ? "skipped"
          : item.state === "failed"
            ? "failed"
            : "not-reached";
  return { outcome, reason: item.reason, message: item.message };
}

function result(rule: RulePlan, item: PassItem, fields: Partial<PassResult>): PassResult {
  return {
    rule: rule.rule,
    action: rule.action,
    target: item.target,
    outcome: "skipped",
    reason: null,
    message: null,
    planId: null,
    jobId: null,
    quarantineId: null,
    ...fields,
  };
}

function targetKey(target: PassItem["target"]): string {
  return target.kind === "lease"
    ? `lease\u0000${target.sourceId}\u0000${target.leaseId}`
    : `sandbox\u0000${target.origin}\u0000${target.sandboxId}`;
}

function resultKey(rule: string, target: PassItem["target"]): string {
  return `${rule}\u0000${targetKey(target)}`;
}

/** Resolves with the job, or null once the pass is told to stop (the job goes on in the engine). */
async function untilDone(job: Promise<Job>, signal: AbortSignal): Promise<Job | null> {
  if (signal.aborted) return null;
  return Promise.race([
    job,
    new Promise<null>((resolve) => signal.addEventListener("abort", () => resolve(null), { once: true })),
  ]);
}

/**
 * The actions taken in the last hour, as the audit log has them: items whose request was sent
 * (`tookAction`) of the plans a rule of the policy noted taking, and the quarantines it made, by rule;
 * and every other such action recorded as the policy's operator, by no rule. The hourly caps are the
 * policy's, not one data directory's: the plans taken are noted in the store the audit log is in, so two
 * watchers on a team's store, or one restarted with a fresh data directory, count each rule's actions
 * together. An action under the policy's operator name that no rule noted (a person's console configured
 * with that name) counts against the policy's caps alone. A dry run's plans were cancelled and never ran,
 * so they count for nothing.
 */
async function history(
  deps: Pick<JanitorDeps, "engine" | "taken" | "dataDir">,
  now: Date,
  operator: string,
): Promise<PastAction[]> {
  const since = new Date(now.getTime() - HOUR_MS).toISOString();
  const { entries, cut } = await deps.engine.queryAudit({ since, limit: AUDIT_READ_LIMIT });
  // The read keeps the hour's newest entries: counted from them alone, a cap already used would read as
  // free, so no plan is made, and nothing is done, until the hour can be counted whole.
  if (cut) {
    // A sentence for the operator, whichever host asked: the console's plan shows it as it is.
    throw new CoreError(
      "call",
      "unavailable",
      `The audit log holds more than ${AUDIT_READ_LIMIT.toLocaleString("en-US")} entries from the last hour, so the actions this policy took in it could not all be counted against its hourly caps; nothing is planned or done until they can be.`,
    );
  }
  const taken = await readTakenOf(
    deps,
    operator,
    entries.map((entry) => entry.planId),
  );
  const past: PastAction[] = [];
  for (const entry of entries) {
    const by = taken.get(entry.planId);
    if (by !== undefined) {
      const counts =
        by.action === "quarantine"
          ? entry.action === "quarantine" && entry.outcome === "quarantined"
          : tookAction(entry);
      if (counts) past.push({ rule: by.rule, action: by.action, at: entry.at, sandboxId: entry.sandboxId });
      continue;
    }
    if (!isOperator(entry.operator, operator)) continue;
    const action = pastActionOf(entry);
    if (action !== null) past.push({ rule: "", action, at: entry.at, sandboxId: entry.sandboxId });
  }
  return past;
}

/** The action an audit entry records taking, or null when it records none (a plan, a step, nothing sent). */
function pastActionOf(entry: AuditEntry): PastAction["action"] | null {
  if (entry.action === "quarantine") return entry.outcome === "quarantined" ? "quarantine" : null;
  if (!tookAction(entry)) return null;
  return entry.action === "destroy" || entry.action === "release" ? entry.action : null;
}

/**
 * Whether an action item's audit entry records an action taken: its request was sent, in its job or a
 * run of the job it continues, whatever the item's end. A failed item that sent nothing took none; a
 * resumed one an earlier run sent may end failed or skipped on the re-read, and that request may have
 * taken effect all the same. An entry that does not say whether it was sent counts by its end
 * (`TAKEN_OUTCOMES`): so counted, a cap may go under-used, and a resumed item that ended skipped is missed.
 */
function tookAction(entry: AuditEntry): boolean {
  if (entry.kind !== "item") return false;
  if (typeof entry.sent === "boolean") return entry.sent;
  return TAKEN_OUTCOMES.has(entry.outcome);
}

/**
 * Interrupted jobs of plans a rule of the policy noted taking, resumed through the engine (items found
 * running are re-checked): noted in the store the journal is in, so on a team's store a watcher finishes
 * the job another watcher of the policy left when it died; and this data directory's `taken.jsonl` of
 * before. A job resumes with the override it ran with, and the janitor never overrides: a job that ran
 * with one was not a pass's, and is left. The audit log names a plan's operator only by the configured
 * name, which a person's console configured alike shares, and a console notes no plan taken, so a plan
 * made under the policy's name and not noted is no proof a pass made it: its job is left to whoever ran
 * it. `unjudged` are the jobs left that may have been the policy's: run with the override on a plan noted
 * taken, made under the policy's operator name, or whose plan the audit log's newest plans did not hold
 * when older ones were left out of the read. Two that try at once are one resume between them: the
 * engine lets one take it.
 */
async function resumeInterrupted(
  deps: JanitorDeps,
  operator: string,
  checkpoint: () => void,
): Promise<{ resumed: string[]; unjudged: string[] }> {
  // Every interrupted job is listed however many came after it, so a cut list leaves none of them out.
  const interrupted = (await deps.engine.listJobs({ limit: 500 })).jobs.filter(
    (job) => job.state === "interrupted",
  );
  if (interrupted.length === 0) return { resumed: [], unjudged: [] };
  const taken = await readTakenOf(
    deps,
    operator,
    interrupted.map((job) => job.planId),
  );
  const unjudged = await namedAsOperator(
    deps,
    operator,
    interrupted.filter((job) => !taken.has(job.planId)),
  );
  const resumed: string[] = [];
  for (const job of interrupted) {
    if (!taken.has(job.planId)) continue;
    checkpoint();
    try {
      if (await deps.engine.ranWithOverride(job.jobId)) {
        unjudged.push(job.jobId);
        continue;
      }
      const next = await deps.engine.resume(job.jobId);
      await deps.engine.waitForJob(next.jobId);
      resumed.push(job.jobId);
    } catch {
      // Resumed by another start already, or no longer resumable: nothing to finish here.
    }
  }
  return { resumed, unjudged };
}

/**
 * Of jobs no rule of the policy noted taking, the ones the audit log says were planned under the policy's operator
 * name, or cannot say whose they are (their plan among the older entries a cut read left out).
 */
async function namedAsOperator(deps: JanitorDeps, operator: string, jobs: readonly Job[]): Promise<string[]> {
  if (jobs.length === 0) return [];
  const { entries, cut } = await deps.engine.queryAudit({ outcome: "planned", limit: AUDIT_READ_LIMIT });
  const read = new Map<string, boolean>();
  for (const entry of entries) {
    if (entry.kind === "plan") read.set(entry.planId, isOperator(entry.operator, operator));
  }
  return jobs.filter((job) => read.get(job.planId) ?? cut).map((job) => job.jobId);
}

/** The audit log's operator is the name the config or policy gives, then how it ran ("ada (cli)"). */
function isOperator(recorded: string, operator: string): boolean {
  return recorded === operator || recorded.startsWith(`${operator} `);
}

/**
 * What the sources could not read in the scan the plan was made over: its rows are all the plan could
 * select among. Read from the summary, which keeps every gap (the view caps them), so the count is
 * all of them and the ones listed are the first. Null when the inventory held now is another
 * scan's (one finished in between).
 */
function gapsOf(
  deps: Pick<JanitorDeps, "inventory">,
  plan: PassPlan,
): { listed: PassGap[]; count: number } | null {
  const held = deps.inventory.summary;
  if (held === null || held.generatedAt !== plan.inventoryGeneratedAt) return null;
  return {
    listed: held.gaps
      .slice(0, MAX_GAPS_IN_PASS_REPORT)
      .map(({ source, origin, message }) => ({ source, origin, message })),
    count: held.gaps.length,
  };
}

function countResults(report: PassReport, previous: PassReport | null): PassReport["counts"] {
  if (report.plan === null) return null;
  const count = (outcome: PassResult["outcome"]) =>
    report.results.filter((result) => result.outcome === outcome).length;
  const before = new Set(
    previous?.policyFile === report.policyFile && previous.plan !== null ? selectedKeys(previous.plan) : [],
  );
  const now = selectedKeys(report.plan);
  return {
    selected: report.plan.counts.selected,
    wouldAct: count("would-act"),
    done: count("done"),
    failed: count("failed") + count("unconfirmed"),
    skipped: count("skipped"),
    new: now.filter((key) => !before.has(key)).length,
  };
}

function selectedKeys(plan: PassPlan): string[] {
  return plan.rules.flatMap((rule) => rule.selected.map((item) => resultKey(rule.rule, item.target)));
}

function passOutcome(report: PassReport): string {
  if (report.stopped !== null) return "stopped";
  if (report.error !== null) return "failed";
  if (report.mode === "dry-run") return "dry-run";
  const acted = report.counts === null ? 0 : report.counts.done + report.counts.failed;
  return acted > 0 ? "acted" : "nothing-to-do";
}
