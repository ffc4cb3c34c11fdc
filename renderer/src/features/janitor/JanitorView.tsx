import { useState } from "react";
import type { JanitorPlan } from "../../../../shared/contract";
import type { PassItem, PassReport, PassResult, RulePlan } from "../../../../shared/domain/janitor";
import { RelativeTime } from "../../components/RelativeTime";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorCode, errorMessage } from "../../lib/errors";
import { formatExact } from "../../lib/format";
import { useUi } from "../../state/ui-store";
import { failureRunWords } from "./failure-run-words";
import { nextUnreadWords } from "./next-unread";
import { passCountsLine, passUnreadLine } from "./pass-summary";
import { useJanitorPlan, useJanitorStatus, useRunPass } from "./use-janitor";
import "./janitor.css";

const OUTCOME_WORDS: Record<PassResult["outcome"], string> = {
  "would-act": "would act",
  done: "done",
  unconfirmed: "sent, not confirmed",
  failed: "failed",
  skipped: "skipped",
  "not-reached": "not reached",
};

/**
 * The janitor's policy as the app sees it: its last pass (by `watch` or from here), what a pass would do
 * next, a dry pass on request, and an acting pass only behind the policy's phrase typed back.
 */
export function JanitorView() {
  const status = useJanitorStatus();
  const plan = useJanitorPlan();
  const run = useRunPass();
  if (status.isPending || plan.isPending) {
    return (
      <section className="view-scroll" data-testid="janitor-view" aria-label="Janitor">
        <SkeletonRows rows={6} />
      </section>
    );
  }
  if (status.isError) {
    return <ErrorState message={errorMessage(status.error)} onRetry={() => void status.refetch()} />;
  }
  const planned = plan.data;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys
    <section className="view-scroll janitor" data-testid="janitor-view" tabIndex={0} aria-label="Janitor">
      <PolicyLine plan={planned} policyFile={status.data.policyFile} />
      {plan.isError && <ErrorState message={errorMessage(plan.error)} onRetry={() => void plan.refetch()} />}
      {planned?.state === "planned" && (
        <div className="row-flex janitor-actions">
          <button
            type="button"
            className="btn btn-primary"
            data-testid="janitor-dry-run"
            disabled={run.isPending}
            onClick={() => run.mutate({})}
          >
            {run.isPending ? "Running a pass…" : "Run a dry pass"}
          </button>
          <span className="muted">
            Plans each rule with the guard and cancels the plans: nothing is sent to CreateOS that changes it.
          </span>
        </div>
      )}
      {run.isError && (
        <p className="field-error" role="alert" data-testid="janitor-run-error">
          {errorMessage(run.error)}
        </p>
      )}
      <h2 className="section-title">Last pass</h2>
      <LastPass report={status.data.lastPass} />
      {planned?.state === "planned" && (
        <>
          <h2 className="section-title">What it would do next</h2>
          <NextPass plan={planned} />
          <ActingRun phrase={planned.actPhrase} policyDigest={planned.policyDigest} />
        </>
      )}
    </section>
  );
}

function PolicyLine({ plan, policyFile }: { plan: JanitorPlan | undefined; policyFile: string | null }) {
  const showView = useUi((state) => state.showView);
  if (plan?.state === "no-policy" || (plan === undefined && policyFile === null)) {
    return (
      <EmptyState title="No policy configured">
        {plan?.state === "no-policy" ? plan.message : "No policy file is configured."}{" "}
        <button type="button" className="link" onClick={() => showView("settings")}>
          Open Settings
        </button>
      </EmptyState>
    );
  }
  if (plan?.state === "invalid") {
    return (
      <div className="card" data-testid="janitor-policy-invalid" role="alert">
        <p>
          The policy file <Text value={plan.policyFile} mono /> does not read as a policy:
        </p>
        <ul>
          {plan.problems.map((problem) => (
            <li key={problem} className="mono text-wrap">
              {problem}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <p className="muted" data-testid="janitor-policy">
      Policy <Text value={plan?.state === "planned" ? plan.policyFile : policyFile} mono />
      {plan?.state === "planned" && (
        <>
          {" "}
          · acts as <Text value={plan.plan.operator} />
        </>
      )}
    </p>
  );
}

function LastPass({ report }: { report: PassReport | null }) {
  if (report === null) {
    return (
      <p className="muted" data-testid="janitor-no-pass">
        No pass yet: neither <code>leasekeeper watch</code> nor this app has run the policy on this data
        directory.
      </p>
    );
  }
  const at = Date.parse(report.finishedAt);
  const planned = report.counts !== null;
  const unread = passUnreadLine(report);
  return (
    <div data-testid="janitor-last-pass" data-mode={report.mode}>
      <p>
        <strong>{report.mode === "act" ? "Acting pass" : "Dry run"}</strong> as{" "}
        <Text value={report.operator} />, finished <RelativeTime atMs={at} />{" "}
        <span className="muted">({formatExact(at)})</span>
        {report.stopped !== null && <span> · stopped ({report.stopped}) before its next request</span>}
      </p>
      <p
        className={!planned && report.error !== null ? "field-error" : "muted"}
        data-testid="janitor-last-counts"
        data-planned={planned}
        {...(planned || report.error === null ? {} : { role: "alert" })}
      >
        {passCountsLine(report)}
      </p>
      {unread !== null && (
        <p className="muted" data-testid="janitor-last-unread">
          {unread}
        </p>
      )}
      {planned && report.error !== null && (
        <p className="field-error" role="alert">
          The pass failed: {report.error}
        </p>
      )}
      <FailureRun report={report} />
      {!planned ? null : report.results.length === 0 ? (
        <p className="muted">It selected nothing.</p>
      ) : (
        <table className="data-table janitor-table">
          <thead>
            <tr>
              <th>Rule</th>
              <th>Action</th>
              <th>Sandbox</th>
              <th>Result</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {report.results.map((result) => (
              <tr
                key={`${result.rule}:${targetLabel(result.target)}`}
                data-testid="janitor-result"
                data-outcome={result.outcome}
              >
                <td>
                  <Text value={result.rule} />
                </td>
                <td>{result.action}</td>
                <td>
                  <Target target={result.target} />
                </td>
                <td>{OUTCOME_WORDS[result.outcome]}</td>
                <td className="text-wrap">
                  {result.message ?? ""}
                  {result.reason !== null && <div className="muted mono">{result.reason}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** The run of failed passes the last pass is in, or the one it ended: its error alone says neither. */
function FailureRun({ report }: { report: PassReport }) {
  const words = failureRunWords(report);
  if (words === null) return null;
  return (
    <div
      className="janitor-run"
      data-testid="janitor-last-run"
      data-state={words.state}
      title={`The first of them started ${formatExact(Date.parse(words.since))}`}
    >
      <p className={words.state === "recovered" ? "muted" : "field-error"}>{words.run}</p>
      {words.webhook !== null && <p className="muted">{words.webhook}</p>}
    </div>
  );
}

function NextPass({ plan }: { plan: Extract<JanitorPlan, { state: "planned" }> }) {
  const { counts, caps } = plan.plan;
  const unread = nextUnreadWords(plan.unread);
  return (
    <div data-testid="janitor-next">
      <p className="muted">
        Planned over the inventory scanned <RelativeTime atMs={Date.parse(plan.plan.inventoryGeneratedAt)} />:{" "}
        {counts.selected} selected, {counts.skipped} skipped · caps {caps.perPass} a pass, {caps.perHour} an
        hour ({caps.usedThisHour} used this hour)
      </p>
      {unread !== null && (
        <div className="janitor-unread" data-testid="janitor-next-unread">
          <p>{unread.heading}</p>
          {unread.lines.length > 0 && (
            <ul className="janitor-items">
              {unread.lines.map((line) => (
                <li key={line} className="muted" data-testid="janitor-next-gap">
                  {line}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <p className="muted" data-testid="janitor-history-note">
        History (closed leases, nothing left at CreateOS) is never a candidate: no rule lists it.
      </p>
      {plan.plan.rules.map((rule) => (
        <RuleSection key={rule.rule} rule={rule} />
      ))}
    </div>
  );
}

function RuleSection({ rule }: { rule: RulePlan }) {
  return (
    <section className="card janitor-rule" data-testid="janitor-rule" data-rule={rule.rule}>
      <h3>
        <Text value={rule.rule} /> <span className="muted">→ {rule.action}</span>
        {rule.quarantineHours !== null && <span className="muted"> for {rule.quarantineHours} h</span>}
      </h3>
      {rule.selected.length === 0 ? (
        <p className="muted">Would select nothing.</p>
      ) : (
        <ul className="janitor-items">
          {rule.selected.map((item) => (
            <li key={targetLabel(item.target)} data-testid="janitor-would-do">
              <Target target={item.target} />
              <span className="muted"> · {item.clauses.join(", ")}</span>
              {item.forced && <span className="muted"> · forced, {item.proof?.message ?? "no proof"}</span>}
            </li>
          ))}
        </ul>
      )}
      {rule.skipped.length > 0 && (
        <details>
          <summary>Skipped ({rule.skipped.length})</summary>
          <ul className="janitor-items">
            {rule.skipped.map((item) => (
              <li
                key={targetLabel(item.target)}
                data-testid="janitor-skipped"
                data-reason={item.skip?.reason}
              >
                <Target target={item.target} />
                <span className="muted"> · {item.skip?.message ?? item.skip?.reason}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/**
 * An acting pass, behind the policy's phrase typed back, as a bulk destroy is behind its count. It sends
 * the digest of the plan shown above, so main runs it only over those rules. Refused as a conflict (the
 * policy file changed, or a pass is running), the phrase is cleared and the plan is read again, to be
 * looked at before the phrase is typed again.
 */
function ActingRun({ phrase, policyDigest }: { phrase: string; policyDigest: string }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const run = useRunPass();
  if (!open) {
    return (
      <div className="janitor-acting">
        <button
          type="button"
          className="btn btn-danger"
          data-testid="janitor-act-open"
          onClick={() => setOpen(true)}
        >
          Run an acting pass…
        </button>
      </div>
    );
  }
  return (
    <section className="card janitor-acting" data-testid="janitor-act">
      <p>
        An acting pass does what the list above says, through the same guard, claims and audit as the screen.
        Type <code className="mono">{phrase}</code> to run it.
      </p>
      <input
        className="input mono"
        data-testid="janitor-act-phrase"
        aria-label="Confirmation phrase"
        value={typed}
        spellCheck={false}
        onChange={(event) => setTyped(event.target.value)}
      />
      <div className="row-flex">
        <button
          type="button"
          className="btn btn-danger"
          data-testid="janitor-act-run"
          disabled={typed.trim() !== phrase || run.isPending}
          onClick={() =>
            run.mutate(
              { act: true, confirm: typed.trim(), policyDigest },
              {
                onSuccess: () => {
                  setTyped("");
                  setOpen(false);
                },
                onError: (error) => {
                  if (errorCode(error) === "conflict") setTyped("");
                },
              },
            )
          }
        >
          {run.isPending ? "Acting…" : "Run the acting pass"}
        </button>
        <button type="button" className="btn" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {run.isError && (
        <p className="field-error" role="alert" data-testid="janitor-act-error">
          {errorMessage(run.error)}
        </p>
      )}
    </section>
  );
}

function targetLabel(target: PassItem["target"]): string {
  return target.kind === "lease"
    ? `lease:${target.sourceId}:${target.leaseId}`
    : `sb:${target.origin}:${target.sandboxId}`;
}

function Target({ target }: { target: PassItem["target"] }) {
  if (target.kind === "untracked") {
    return (
      <span>
        <Text value={target.sandboxId} mono />{" "}
        <span className="muted">untracked, account {target.credential}</span>
      </span>
    );
  }
  return (
    <span>
      <Text value={target.sandboxId ?? "(no sandbox)"} mono />{" "}
      <span className="muted">
        lease <Text value={target.leaseId} mono />
        {target.environmentName !== null && <> in {target.environmentName}</>}
      </span>
    </span>
  );
}
