import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import type { Plan, PlanItem } from "../../../../shared/domain/actions";
import { actedOnCount } from "../../../../shared/domain/bulk-confirmation";
import { api } from "../../api";
import { queryKeys } from "../../app/query-keys";
import { type PendingAction, useUi } from "../../app/ui-store";
import { Badge } from "../../components/Badge";
import { ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorCode, errorMessage } from "../../lib/errors";
import { formatCount, plural } from "../../lib/format";
import { actionLabel } from "./ActionButton";
import {
  type ConfirmationNeed,
  confirmationMatches,
  confirmationNeed,
  countMatches,
  countToType,
  executeRequest,
} from "./confirmation";
import "./actions.css";

const SHOWN_ITEMS = 200;

/**
 * The plan, as main made it, before anything happens: what will be done, what is skipped and why, counts
 * per effect, and the origins and credentials that will be used. Confirming executes the plan by id.
 */
export function PlanDialog() {
  const pending = useUi((state) => state.pendingAction);
  const cancelAction = useUi((state) => state.cancelAction);
  return (
    <Dialog.Root
      open={pending !== null}
      onOpenChange={(open) => {
        if (!open) cancelAction();
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" data-testid="plan-dialog" aria-describedby={undefined}>
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

  const execute = useMutation({
    mutationFn: (request: Parameters<typeof executeRequest>) =>
      api.invoke("actions:execute", executeRequest(...request)),
    onSuccess: (job) => {
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
        <p className="muted" style={{ margin: 0 }}>
          Main checked every row again and froze this plan. Nothing happens until you confirm.
        </p>
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
          onConfirm={(need, typed, override, typedCount) =>
            execute.mutate([plan.data, need, typed, override, typedCount])
          }
        />
      )}
    </>
  );
}

function PlanBody({
  plan,
  executing,
  executeError,
  onConfirm,
  onReplan,
}: {
  plan: Plan;
  executing: boolean;
  executeError: unknown;
  onConfirm(need: ConfirmationNeed, typed: string, override: boolean, typedCount: string | null): void;
  onReplan(): void;
}) {
  const need = useMemo(() => confirmationNeed(plan), [plan]);
  const [typed, setTyped] = useState("");
  const [typedCount, setTypedCount] = useState("");
  const [override, setOverride] = useState(false);
  // The button, the count to type and what main acts on are one number, and it follows the override.
  const acting = actedOnCount(plan, override);
  const expectedCount = countToType(plan, override);
  const countOk = countMatches(expectedCount, typedCount);
  const doItems = useMemo(() => plan.items.filter((item) => item.decision === "do"), [plan]);
  const skipGroups = useMemo(() => groupSkips(plan.items), [plan]);
  const overrideItems = doItems.filter((item) => item.requiresOverride).length;
  const matches = confirmationMatches(need, typed);
  const canConfirm =
    matches &&
    countOk &&
    acting > 0 &&
    !executing &&
    need.kind !== "nothing-to-do" &&
    need.kind !== "impossible";
  // An expired plan, or one already run (a plan runs once), can only be made again.
  const expired = ["plan-expired", "plan-consumed"].includes(errorCode(executeError) ?? "");
  const destroy = plan.action === "destroy";

  return (
    <form
      style={{ display: "contents" }}
      onSubmit={(event) => {
        event.preventDefault();
        if (canConfirm) onConfirm(need, typed, override, expectedCount === null ? null : typedCount);
      }}
    >
      <div className="dialog-body plan" data-testid="plan-body" data-plan-id={plan.planId}>
        <div className="plan-counts" data-testid="plan-counts">
          <div className="plan-count" data-testid="plan-count-do" data-count={plan.counts.do}>
            <strong>{formatCount(plan.counts.do)}</strong> will be done
            {plan.counts.do > 0 && (
              <span className="muted">
                {" "}
                (
                {[
                  plan.counts.pause > 0 ? `${formatCount(plan.counts.pause)} paused` : null,
                  plan.counts.delete > 0 ? `${formatCount(plan.counts.delete)} deleted` : null,
                ]
                  .filter(Boolean)
                  .join(", ")}
                )
              </span>
            )}
          </div>
          <div className="plan-count" data-testid="plan-count-skip" data-count={plan.counts.skip}>
            <strong>{formatCount(plan.counts.skip)}</strong> skipped
          </div>
          {plan.breakdown && plan.breakdown.length > 0 && (
            <div className="plan-count plan-breakdown" data-testid="plan-breakdown">
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
            </div>
          )}
          {plan.counts.typedId > 0 && (
            <div className="plan-count">
              <strong>{formatCount(plan.counts.typedId)}</strong> forced destroy
              {plan.counts.typedId === 1 ? "" : "s"}
            </div>
          )}
        </div>

        {plan.origins.length > 0 && (
          <section>
            <h3 className="section-title">Origins and credentials used</h3>
            <ul className="plain-list" data-testid="plan-origins">
              {plan.origins.map((entry) => (
                <li key={`${entry.origin} ${entry.credential}`}>
                  <Text value={entry.origin} mono /> with credential <Text value={entry.credential} mono /> ·{" "}
                  {plural(entry.items, "item")}
                </li>
              ))}
            </ul>
          </section>
        )}

        {skipGroups.length > 0 && (
          <section>
            <h3 className="section-title">Skipped, and why</h3>
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
        {doItems.length > 0 && (
          <section>
            <h3 className="section-title">What will be done</h3>
            <table className="data-table" data-testid="plan-do-items">
              <colgroup>
                <col style={{ width: "30%" }} />
                <col style={{ width: "30%" }} />
                <col style={{ width: "22%" }} />
                <col style={{ width: "18%" }} />
              </colgroup>
              <thead>
                <tr>
                  <th>Sandbox</th>
                  <th>Lease</th>
                  <th>Environment</th>
                  <th>Effect</th>
                </tr>
              </thead>
              <tbody>
                {doItems.slice(0, SHOWN_ITEMS).map((item) => (
                  <tr key={item.itemId} data-testid="plan-item" data-sandbox-id={item.sandboxId ?? ""}>
                    <td>
                      <Text value={item.sandboxId} mono />
                    </td>
                    <td>
                      <Text value={item.leaseId} mono placeholder="(untracked)" />
                    </td>
                    <td>
                      <Text value={item.environmentName} />
                    </td>
                    <td>
                      {item.effect === "pause" ? "pause" : "delete"}
                      {item.confirmation === "typed-id" && <span className="muted"> · forced</span>}
                      {item.requiresOverride && <span className="muted"> · override</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {doItems.length > SHOWN_ITEMS && (
              <p className="muted">
                …and {formatCount(doItems.length - SHOWN_ITEMS)} more, all counted above.
              </p>
            )}
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
            uses (override). Without it they are skipped.
          </label>
        )}

        {(need.kind === "sandbox-id" || need.kind === "phrase") && (
          <div className="field confirm-field">
            <label htmlFor="confirm-input">
              {need.kind === "sandbox-id" ? (
                <>
                  This is a forced destroy. Type the sandbox id{" "}
                  <code className="confirm-expected">{need.expected}</code> to confirm.
                </>
              ) : (
                <>
                  This selection includes forced destroys. Type{" "}
                  <code className="confirm-expected">{need.expected}</code> to confirm.
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
              {plan.countConfirmation?.reasons.includes("ok-sandboxes")
                ? "This destroys sandboxes nothing is wrong with."
                : `This destroys more than ${formatCount(plan.countConfirmation?.threshold ?? 0)} sandboxes.`}{" "}
              Type <code className="confirm-expected">{expectedCount}</code> to confirm.
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
        {need.kind !== "nothing-to-do" && acting === 0 && (
          <p className="muted" data-testid="plan-needs-override">
            Every sandbox in this plan is in use or shared with a live lease: nothing will be done without the
            override.
          </p>
        )}
        {need.kind === "impossible" && <p className="field-error">{need.message}</p>}
        {need.kind === "nothing-to-do" && (
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
        <span className="muted" style={{ marginRight: "auto" }}>
          Plan {plan.planId.slice(0, 8)} · expires {new Date(plan.expiresAt).toLocaleTimeString()}
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
            {executing
              ? "Starting…"
              : `${actionLabel(plan.action)} ${plural(acting, destroy ? "sandbox" : "lease", destroy ? "sandboxes" : "leases")}`}
          </button>
        )}
      </div>
    </form>
  );
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
