import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import type { MarkerProofView, PlanPreview } from "../../../../shared/contract";
import type { ExecuteRequest, PlanItem } from "../../../../shared/domain/actions";
import { isActedOn, planTally } from "../../../../shared/domain/bulk-confirmation";
import { keptPlan } from "../../../../shared/domain/kept-items";
import { api } from "../../api";
import { Badge } from "../../components/Badge";
import { ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorCode, errorMessage } from "../../lib/errors";
import { formatCount, formatExact, plural } from "../../lib/format";
import { useReturnFocus } from "../../lib/return-focus";
import { queryKeys } from "../../state/query-keys";
import { type PendingAction, useUi } from "../../state/ui-store";
import { actionLabel } from "./ActionButton";
import { confirmationMatches, confirmationNeed, countMatches, executeRequest } from "./confirmation";
import { ForcedLine } from "./ForcedLine";
import { WholeValue } from "./WholeValue";
import "./actions.css";

const SHOWN_ITEMS = 200;

/**
 * The plan, as main made it, before anything happens: what will be done, what is skipped and why, counts
 * per effect, and the origins and credentials that will be used. Confirming executes the plan by id.
 */
export function PlanDialog() {
  const pending = useUi((state) => state.pendingAction);
  const cancelAction = useUi((state) => state.cancelAction);
  const returnFocus = useReturnFocus(pending !== null);
  // Radix closes the topmost of its open layers on Escape, and a plan opened from the non-modal drawer
  // was, now and then, not the one it took for topmost: Escape left the plan open. The plan closes on
  // Escape itself, and the drawer leaves Escape alone while a dialog is open above it.
  useEffect(() => {
    if (pending === null) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") cancelAction();
    };
    document.addEventListener("keydown", onKeyDown, { capture: true });
    return () => document.removeEventListener("keydown", onKeyDown, { capture: true });
  }, [pending, cancelAction]);
  return (
    <Dialog.Root
      open={pending !== null}
      onOpenChange={(open) => {
        if (!open) cancelAction();
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content
          className="dialog plan-dialog"
          data-testid="plan-dialog"
          aria-describedby={undefined}
          onCloseAutoFocus={returnFocus}
        >
          {pending && <PlanContent pending={pending} />}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function PlanContent({ pending }: { pending: PendingAction }) {
  const cancelAction = useUi((state) => state.cancelAction);
  const watchJob = useUi((state) => state.watchJob);
  const clearSelection = useUi((state) => state.clearSelection);
  const client = useQueryClient();

  const plan = useMutation({
    mutationFn: () => api.invoke("actions:plan", { action: pending.action, selection: pending.selection }),
  });
  // Ask once per opened dialog (a plan is recorded in the audit log, so it is not re-asked on re-render).
  const asked = useRef(false);
  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    plan.mutate();
  }, [plan]);

  // A plan shown and then closed without running is recorded cancelled, so it can never run later and
  // the audit log says so; one that expired first is left to read "expired, never run".
  const shown = useRef<{ planId: string; expiresAt: string } | null>(null);
  shown.current = plan.data ? { planId: plan.data.planId, expiresAt: plan.data.expiresAt } : null;
  const ran = useRef(false);
  useEffect(
    () => () => {
      const left = shown.current;
      if (left === null || ran.current || Date.parse(left.expiresAt) <= Date.now()) return;
      void api
        .invoke("actions:cancel-plan", { planId: left.planId })
        .then(() => client.invalidateQueries({ queryKey: queryKeys.auditAll }))
        // Unrecorded, the plan still expires on its own and never runs after that; nothing to tell.
        .catch(() => undefined);
    },
    [client],
  );

  const execute = useMutation({
    mutationFn: (request: ExecuteRequest) => api.invoke("actions:execute", request),
    onSuccess: (job) => {
      ran.current = true;
      client.setQueryData(queryKeys.job(job.jobId), job);
      watchJob(job.jobId);
      if (pending.selection.kind === "leases" && pending.selection.leaseIds.length > 1) clearSelection();
      cancelAction();
    },
  });

  const title = `${actionLabel(pending.action)} ${pending.label}`;
  return (
    <>
      <div className="dialog-header">
        <Dialog.Title asChild>
          <h2 className="row-flex" style={{ flexWrap: "nowrap", minWidth: 0 }}>
            <Text value={title} />
          </h2>
        </Dialog.Title>
        {plan.isSuccess && <PlannedOver plan={plan.data} />}
      </div>
      {plan.isPending || plan.isIdle ? (
        <div className="dialog-body">
          <SkeletonRows rows={5} />
        </div>
      ) : plan.isError ? (
        <>
          <div className="dialog-body">
            <ErrorState
              title="Could not make a plan"
              message={errorMessage(plan.error)}
              onRetry={() => plan.mutate()}
            />
          </div>
          <div className="dialog-footer">
            <Dialog.Close asChild>
              <button type="button" className="btn">
                Close
              </button>
            </Dialog.Close>
          </div>
        </>
      ) : (
        <PlanBody
          plan={plan.data}
          executing={execute.isPending}
          executeError={execute.isError ? execute.error : null}
          onReplan={() => {
            execute.reset();
            plan.mutate();
          }}
          onConfirm={(request) => execute.mutate(request)}
        />
      )}
    </>
  );
}

/**
 * What the plan was made over, said only with a plan in hand: main may plan over an inventory kept from an
 * earlier scan (up to a minute old, or loaded from the store), so its scan time is said, not "just read".
 */
function PlannedOver({ plan }: { plan: PlanPreview }) {
  const at = plan.inventoryGeneratedAt;
  const atMs = at === undefined ? Number.NaN : Date.parse(at);
  return (
    <p className="muted" style={{ margin: 0 }} data-testid="plan-inventory-time" data-at={at ?? ""}>
      {Number.isFinite(atMs) ? (
        <>
          Planned over the inventory scanned at{" "}
          <time dateTime={at} title={formatExact(atMs)}>
            {new Date(atMs).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
          </time>
          .
        </>
      ) : (
        "Main did not say when the inventory this plan was made over was scanned."
      )}{" "}
      Nothing is sent to CreateOS until you confirm; anything that changes before then is left alone.
    </p>
  );
}

function PlanBody({
  plan,
  executing,
  executeError,
  onConfirm,
  onReplan,
}: {
  plan: PlanPreview;
  executing: boolean;
  executeError: unknown;
  onConfirm(request: ExecuteRequest): void;
  onReplan(): void;
}) {
  const [removed, setRemoved] = useState<ReadonlySet<string>>(() => new Set());
  const keepItemIds = useMemo(
    () =>
      removed.size === 0
        ? null
        : plan.items.filter((item) => !removed.has(item.itemId)).map((item) => item.itemId),
    [plan, removed],
  );
  // What the operator kept is confirmed as main will confirm it: as a plan of those items alone.
  const trimmed = useMemo(() => keptPlan(plan, keepItemIds ?? undefined), [plan, keepItemIds]);
  const kept = trimmed.ok ? trimmed.kept : { items: [], confirmationPhrase: null, countConfirmation: null };
  const keptView = { ...plan, ...kept };
  const need = confirmationNeed(keptView);
  const [typed, setTyped] = useState("");
  const [typedCount, setTypedCount] = useState("");
  const [override, setOverride] = useState(false);
  // The summary, the button, the count to type and its warning are one breakdown of what main acts on,
  // and it follows the override.
  const tally = planTally(keptView, override);
  const acting = tally.acting;
  const expectedCount = tally.countPhrase;
  const countOk = countMatches(expectedCount, typedCount);
  const doItems = useMemo(() => plan.items.filter((item) => item.decision === "do"), [plan]);
  const keptDo = doItems.filter((item) => !removed.has(item.itemId));
  const skipGroups = useMemo(() => groupSkips(plan.items), [plan]);
  const overrideItems = keptDo.filter((item) => item.requiresOverride).length;
  const forcedItems = tally.forced;
  const matches = confirmationMatches(need, typed);
  const everyItemRemoved = doItems.length > 0 && keptDo.length === 0;
  const canConfirm =
    trimmed.ok &&
    matches &&
    countOk &&
    acting > 0 &&
    !executing &&
    need.kind !== "nothing-to-do" &&
    need.kind !== "impossible";
  // An expired plan, or one already run (a plan runs once), can only be made again.
  const expired = ["plan-expired", "plan-consumed"].includes(errorCode(executeError) ?? "");
  const destroy = plan.action === "destroy";
  const toggle = (itemId: string) =>
    setRemoved((current) => {
      const next = new Set(current);
      if (!next.delete(itemId)) next.add(itemId);
      return next;
    });

  return (
    <form
      style={{ display: "contents" }}
      onSubmit={(event) => {
        event.preventDefault();
        if (!canConfirm) return;
        onConfirm(
          executeRequest(
            plan,
            need,
            typed,
            override,
            expectedCount === null ? null : typedCount,
            keepItemIds,
          ),
        );
      }}
    >
      <div className="dialog-body plan" data-testid="plan-body" data-plan-id={plan.planId}>
        <div className="plan-counts" data-testid="plan-counts">
          {/* data-count: the items kept to do; the summary says how many are acted on, as the button does. */}
          <div className="plan-count" data-testid="plan-count-do" data-count={keptDo.length}>
            <span data-testid="plan-summary" data-acting={acting}>
              {tally.summary}
            </span>
            {acting > 0 && !destroy && (
              <span className="muted">
                {" "}
                ({effectSummary(keptDo.filter((item) => isActedOn(item, override)))})
              </span>
            )}
            {tally.byHeadline.length > 0 && (
              <span className="muted" data-testid="plan-headlines">
                {" "}
                ({tally.byHeadline.map((group) => `${formatCount(group.count)} ${group.headline}`).join(", ")}
                )
              </span>
            )}
          </div>
          {removed.size > 0 && (
            <div className="plan-count" data-testid="plan-count-removed" data-count={removed.size}>
              <strong>{formatCount(removed.size)}</strong> removed by you
            </div>
          )}
          <div className="plan-count" data-testid="plan-count-skip" data-count={plan.counts.skip}>
            <strong>{formatCount(plan.counts.skip)}</strong> left alone
          </div>
          {forcedItems > 0 && (
            <div className="plan-count">
              <strong>{formatCount(forcedItems)}</strong> forced (not Paperclip's to clean up)
            </div>
          )}
        </div>

        {doItems.length > 0 && (
          <section aria-labelledby="plan-do-title">
            {/* The breakdown by headline and environment shares the title's line, so the items start higher. */}
            <div className="plan-do-head">
              <h3 className="section-title" id="plan-do-title">
                What will be done
              </h3>
              {plan.breakdown && plan.breakdown.length > 0 && (
                <p className="plan-breakdown" data-testid="plan-breakdown">
                  {plan.breakdown.map((group, index) => (
                    <span
                      key={`${group.headline} ${group.environmentId ?? ""}`}
                      data-headline={group.headline}
                      data-environment-id={group.environmentId ?? ""}
                      data-count={group.count}
                    >
                      {index > 0 ? ", " : ""}
                      <strong>{formatCount(group.count)}</strong> {group.headline}
                      {group.environmentName || group.environmentId ? (
                        <>
                          {" "}
                          in <Text value={group.environmentName ?? group.environmentId} />
                        </>
                      ) : null}
                    </span>
                  ))}
                </p>
              )}
            </div>
            <ul className="plan-items" data-testid="plan-do-items">
              <li className="plan-item plan-items-head" aria-hidden="true">
                <span>Sandbox</span>
                <span>Lease</span>
                <span>Environment</span>
                <span>What happens</span>
                <span />
              </li>
              {doItems.slice(0, SHOWN_ITEMS).map((item) => (
                <PlanItemRow
                  key={item.itemId}
                  item={item}
                  proof={plan.forcedProofs?.[item.itemId]}
                  removed={removed.has(item.itemId)}
                  onToggle={() => toggle(item.itemId)}
                />
              ))}
            </ul>
            {doItems.length > SHOWN_ITEMS && (
              <p className="muted">
                …and {formatCount(doItems.length - SHOWN_ITEMS)} more, all counted above.
              </p>
            )}
          </section>
        )}

        {skipGroups.length > 0 && (
          <section>
            <h3 className="section-title">Left alone, and why</h3>
            <ul className="plain-list skip-list" data-testid="plan-skips">
              {skipGroups.map((group) => (
                <li key={group.reason} data-reason={group.reason} data-count={group.items.length}>
                  <Badge tone="neutral" plain label={group.reason} count={group.items.length} />{" "}
                  <span className="text-wrap-inline">{group.message}</span>
                </li>
              ))}
            </ul>
          </section>
        )}

        {plan.origins.length > 0 && (
          <section>
            <h3 className="section-title">Where Leasekeeper will send the requests</h3>
            <ul className="plain-list" data-testid="plan-origins">
              {plan.origins.map((entry) => (
                <li key={`${entry.origin} ${entry.credential}`} className="text-wrap-inline">
                  <WholeValue value={entry.origin} /> with the credential{" "}
                  <WholeValue value={entry.credential} /> · {plural(entry.items, "item")}
                </li>
              ))}
            </ul>
          </section>
        )}
      </div>
      <div className="dialog-confirm" data-testid="plan-confirm">
        {overrideItems > 0 && (
          <label className="override" data-testid="plan-override">
            <input
              type="checkbox"
              checked={override}
              onChange={(event) => setOverride(event.target.checked)}
            />
            Also act on {plural(overrideItems, "sandbox", "sandboxes")} that a run or another live lease still
            uses (override). Without it they are left alone.
          </label>
        )}

        {(need.kind === "sandbox-id" || need.kind === "phrase") && (
          <div className="field confirm-field">
            <label htmlFor="confirm-input">
              {need.kind === "sandbox-id" ? (
                <>
                  This destroy is forced. Type the sandbox id{" "}
                  <code className="confirm-expected">{need.expected}</code> to confirm.
                </>
              ) : (
                <>
                  {formatCount(forcedItems)} of these destroys are forced. Type{" "}
                  <code className="confirm-expected">{need.expected}</code> to confirm them.
                </>
              )}
            </label>
            <input
              id="confirm-input"
              className="input mono"
              data-testid="confirm-input"
              autoComplete="off"
              spellCheck={false}
              // biome-ignore lint/a11y/noAutofocus: the typed confirmation is the one thing to do next
              autoFocus
              value={typed}
              aria-invalid={typed !== "" && !matches}
              onChange={(event) => setTyped(event.target.value)}
            />
            {typed !== "" && !matches && <span className="field-error">That does not match yet.</span>}
          </div>
        )}
        {expectedCount !== null && (
          <div className="field confirm-field" data-testid="count-field">
            <label htmlFor="count-input">
              <span data-testid="count-warning">{tally.warning}</span> Type{" "}
              <code className="confirm-expected">{expectedCount}</code> to confirm.
            </label>
            <input
              id="count-input"
              className="input mono"
              data-testid="count-input"
              autoComplete="off"
              spellCheck={false}
              value={typedCount}
              aria-invalid={typedCount !== "" && !countOk}
              onChange={(event) => setTypedCount(event.target.value)}
            />
            {typedCount !== "" && !countOk && <span className="field-error">That does not match yet.</span>}
          </div>
        )}
        {everyItemRemoved ? (
          <p className="muted" data-testid="plan-all-removed">
            You removed every item, so there is nothing to do. Put an item back, or cancel.
          </p>
        ) : (
          need.kind !== "nothing-to-do" &&
          acting === 0 && (
            <p className="muted" data-testid="plan-needs-override">
              Every sandbox kept is in use or shared with a live lease: nothing will be done without the
              override.
            </p>
          )
        )}
        {need.kind === "impossible" && <p className="field-error">{need.message}</p>}
        {need.kind === "nothing-to-do" && !everyItemRemoved && (
          <p className="muted" data-testid="plan-nothing">
            Nothing in this selection can be {plan.action === "release" ? "released" : "destroyed"}; see the
            reasons above.
          </p>
        )}
        {executeError !== null && (
          <p className="field-error" role="alert" data-testid="execute-error">
            {errorMessage(executeError)}
          </p>
        )}
      </div>
      <div className="dialog-footer">
        <span className="muted plan-expiry">
          Plan <bdi className="mono">{plan.planId}</bdi> · holds until{" "}
          {new Date(plan.expiresAt).toLocaleTimeString()}
        </span>
        <Dialog.Close asChild>
          <button type="button" className="btn" data-testid="plan-cancel">
            Cancel
          </button>
        </Dialog.Close>
        {expired ? (
          <button type="button" className="btn btn-primary" onClick={onReplan}>
            Plan again
          </button>
        ) : (
          <button
            type="submit"
            className={`btn ${destroy ? "btn-danger" : "btn-primary"}`}
            disabled={!canConfirm}
            data-testid="confirm-button"
            data-count={acting}
            // biome-ignore lint/a11y/noAutofocus: with nothing to type, confirming is the next step
            autoFocus={need.kind === "click" && expectedCount === null}
          >
            {executing ? "Starting…" : tally.button}
          </button>
        )}
      </div>
    </form>
  );
}

/** One item of "What will be done": whole ids, where it is listed, what happens, and why it is forced. */
function PlanItemRow({
  item,
  proof,
  removed,
  onToggle,
}: {
  item: PlanItem;
  proof: MarkerProofView | undefined;
  removed: boolean;
  onToggle(): void;
}) {
  const forced = item.confirmation === "typed-id";
  return (
    <li
      className={`plan-item${removed ? " is-removed" : ""}`}
      data-testid="plan-item"
      data-item-id={item.itemId}
      data-sandbox-id={item.sandboxId ?? ""}
      data-removed={removed}
    >
      <WholeValue value={item.sandboxId} testId="plan-item-sandbox" />
      <WholeValue value={item.leaseId} placeholder="none (untracked)" testId="plan-item-lease" />
      <div className="plan-item-where" title={whereTitle(item)}>
        {item.leaseId === null ? (
          <span className="muted">no environment</span>
        ) : (
          <>
            <WholeValue value={item.environmentName ?? item.environmentId} placeholder="no environment" />
            {item.companyName ? (
              <span className="muted">
                {" "}
                · <bdi>{item.companyName}</bdi>
              </span>
            ) : null}
          </>
        )}
      </div>
      <div className="plan-item-effect">
        {effectWords(item)}
        {forced && <span className="plan-forced"> · forced</span>}
        {item.requiresOverride && <span className="muted"> · needs override</span>}
        {item.caution ? (
          <div className="muted" data-testid="plan-item-caution">
            {item.caution}
          </div>
        ) : null}
      </div>
      <button
        type="button"
        className="btn btn-small plan-item-toggle"
        data-testid={removed ? "plan-item-restore" : "plan-item-remove"}
        aria-label={`${removed ? "Put back" : "Remove"} sandbox ${item.sandboxId ?? item.leaseId ?? item.itemId}`}
        onClick={onToggle}
      >
        {removed ? "Put back" : "Remove"}
      </button>
      {forced && !removed && <ForcedLine item={item} proof={proof} />}
    </li>
  );
}

/** The item's environment and company whole, for the hover of a row that cuts them to one line. */
function whereTitle(item: PlanItem): string | undefined {
  if (item.leaseId === null) return undefined;
  const environment = item.environmentName ?? item.environmentId ?? "no environment";
  const company = item.companyName
    ? `${item.companyName}${item.companyId ? ` (${item.companyId})` : ""}`
    : item.companyId;
  return company ? `${environment} · ${company}` : environment;
}

function effectWords(item: PlanItem): string {
  return item.effect === "pause" ? "pause" : "delete";
}

function effectSummary(items: readonly PlanItem[]): string {
  const paused = items.filter((item) => item.effect === "pause").length;
  const deleted = items.length - paused;
  return [
    paused > 0 ? `${formatCount(paused)} paused` : null,
    deleted > 0 ? `${formatCount(deleted)} deleted` : null,
  ]
    .filter(Boolean)
    .join(", ");
}

interface SkipGroup {
  reason: string;
  message: string;
  items: PlanItem[];
}

/** Skipped items grouped by reason, largest group first, with main's sentence for each reason. */
export function groupSkips(items: readonly PlanItem[]): SkipGroup[] {
  const groups = new Map<string, SkipGroup>();
  for (const item of items) {
    if (item.decision !== "skip") continue;
    const reason = item.skipReason ?? "skipped";
    let group = groups.get(reason);
    if (!group) {
      group = { reason, message: item.skipMessage ?? "", items: [] };
      groups.set(reason, group);
    }
    group.items.push(item);
  }
  return [...groups.values()].sort((a, b) => b.items.length - a.items.length);
}
