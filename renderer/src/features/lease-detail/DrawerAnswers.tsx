import type { LeaseDetail } from "../../../../shared/contract";
import { CopyButton } from "../../components/CopyButton";
import { RelativeTime } from "../../components/RelativeTime";
import { Text } from "../../components/Text";
import { useUi } from "../../state/ui-store";
import { ActionButton, type ActionTarget } from "../actions/ActionButton";
import { actedOnEffect, actedOnWords } from "../actions/acted-on";
import { ProveOwnership } from "../markers/ProveOwnership";
import { Explanation } from "./Explanation";
import {
  type KnownNames,
  type Mismatch,
  type MismatchSide,
  markerCheck,
  mismatches,
  type NameTarget,
} from "./mismatches";
import { NamedRef, NameLink } from "./NameLink";

/**
 * The drawer's first three sections, in the order an operator asks: whose is it, what is wrong, and what
 * to do (and what Paperclip will do by itself). Everything below them is the evidence.
 */

/** A name with its id beside it, copyable; the id alone where no source gave a name. */
function Named({ name, id, target }: { name: string | null; id: string; target: NameTarget | null }) {
  const shown = name ? <strong>{name}</strong> : <bdi className="mono">{id}</bdi>;
  return (
    <span className="named">
      {target ? <NameLink target={target}>{shown}</NameLink> : shown}
      {name && (
        <bdi className="mono muted named-id" title={id}>
          {id}
        </bdi>
      )}
      <CopyButton value={id} label={`Copy id ${id}`} />
    </span>
  );
}

interface Holder {
  kind: "run" | "workspace" | "issue";
  id: string;
  /** How the source names it, or null: shown with the id on hover, else the id is shown. */
  name: string | null;
}

/** The run (named by its agent), workspace and issue holding the row, by name where the source gave one. */
export function holdersOf(row: LeaseDetail["row"]): Holder[] {
  const issueName =
    [row.issueIdentifier, row.issueTitle].filter((part): part is string => Boolean(part)).join(" ") || null;
  const holders: (Holder | null)[] = [
    row.heartbeatRunId ? { kind: "run", id: row.heartbeatRunId, name: row.agentName || null } : null,
    row.executionWorkspaceId
      ? { kind: "workspace", id: row.executionWorkspaceId, name: row.executionWorkspaceName || null }
      : null,
    row.issueId ? { kind: "issue", id: row.issueId, name: issueName } : null,
  ];
  return holders.filter((holder) => holder !== null);
}

function HolderName({ holder }: { holder: Holder }) {
  const { kind, id, name } = holder;
  return (
    <span className="named" data-testid={`drawer-holder-${kind}`}>
      {/* A run has no name of its own: it is named by its agent. */}
      {name && kind === "run" ? "run of" : kind}{" "}
      {name ? (
        <strong title={`${kind} id ${id}`}>
          <bdi>{name}</bdi>
        </strong>
      ) : (
        <bdi className="mono" title={`${kind} id ${id}`}>
          {id}
        </bdi>
      )}
      <CopyButton value={id} label={`Copy ${kind} id`} />
    </span>
  );
}

export function WhoseItIs({ detail }: { detail: LeaseDetail }) {
  const { company, environment, row } = detail;
  const holders = holdersOf(row);
  return (
    <section data-testid="drawer-whose" aria-labelledby="drawer-whose-title">
      <h3 className="section-title" id="drawer-whose-title">
        Whose is it
      </h3>
      <dl className="kv">
        <dt>Company</dt>
        <dd data-testid="drawer-company">
          <Named
            name={company.name}
            id={company.id}
            target={{ kind: "company", companyId: company.id, name: company.name }}
          />
        </dd>
        <dt>Environment</dt>
        <dd data-testid="drawer-environment">
          {environment ? (
            <Named
              name={environment.name || null}
              id={environment.id}
              target={{
                kind: "environment",
                sourceId: environment.sourceId,
                environmentId: environment.id,
                name: environment.name,
              }}
            />
          ) : (
            <span className="muted">
              not listed by its source
              {row.environmentId ? (
                <>
                  {" "}
                  (the row names <bdi className="mono">{row.environmentId}</bdi>)
                </>
              ) : (
                " (the row names none)"
              )}
            </span>
          )}
        </dd>
        <dt>Held by</dt>
        <dd data-testid="drawer-holder">
          {holders.length === 0 ? (
            <span className="muted">no run, workspace or issue holds it</span>
          ) : (
            <>
              {holders.map((holder) => (
                <span key={holder.kind} className="holder-line">
                  <HolderName holder={holder} />
                </span>
              ))}
              {detail.holderNamesNote && (
                <span className="muted holder-names-note" data-testid="drawer-holder-names-note">
                  {detail.holderNamesNote}
                </span>
              )}
            </>
          )}
        </dd>
      </dl>
    </section>
  );
}

const FIELD_WORDS: Record<string, { recorded: string; expected: string }> = {
  environmentId: { recorded: "environment", expected: "listed under" },
  companyId: { recorded: "company", expected: "the row's company" },
  provider: { recorded: "provider", expected: "the plugin needs" },
  apiUrl: { recorded: "API URL", expected: "the environment's now" },
};

function SideText({ field, side }: { field: string; side: MismatchSide }) {
  if (side.value === null) return <span className="muted">(not set)</span>;
  if (field === "environmentId" || field === "companyId")
    return <NamedRef target={side.target} id={side.value} />;
  return <bdi className="mono whole-value">{side.value}</bdi>;
}

function MismatchLine({ mismatch }: { mismatch: Mismatch }) {
  const words = FIELD_WORDS[mismatch.field] ?? {
    recorded: mismatch.field,
    expected: "the environment's now",
  };
  return (
    <li data-testid="drawer-mismatch" data-field={mismatch.field}>
      recorded: {words.recorded} <SideText field={mismatch.field} side={mismatch.recorded} />;{" "}
      {words.expected}: <SideText field={mismatch.field} side={mismatch.expected} />
    </li>
  );
}

export function WhatIsWrong({ detail, names }: { detail: LeaseDetail; names: KnownNames }) {
  const found = mismatches(detail.ownershipEvidence, detail.sourceId, names);
  const marker = detail.ownershipEvidence.find((line) => line.field === "marker");
  const markerState = marker ? markerCheck(marker) : "not-compared";
  const covered = new Set(found.map((mismatch) => mismatch.field));
  const otherStale = detail.staleConfigFields.filter((field) => !covered.has(field) && field !== "marker");
  // A company-scoped environment (older Paperclip) names its own company; the row's may differ.
  const scopeCompany = detail.verdict.ownership.includes("company-scope-mismatch")
    ? (detail.environment?.companyId ?? null)
    : null;
  const companyRef = (id: string) => (
    <NamedRef target={{ kind: "company", companyId: id, name: names.companyName(id) }} id={id} />
  );
  return (
    <section data-testid="drawer-wrong" aria-labelledby="drawer-wrong-title">
      <h3 className="section-title" id="drawer-wrong-title">
        What is wrong
      </h3>
      <p className={`explanation tone-${detail.verdict.headline}`} data-testid="drawer-explanation">
        <Explanation parts={detail.story.whatIsWrong} names={names} />
      </p>
      {(found.length > 0 ||
        scopeCompany !== null ||
        markerState === "malformed" ||
        markerState === "not-recorded") && (
        <ul className="mismatches" data-testid="drawer-mismatches">
          {found.map((mismatch) => (
            <MismatchLine key={mismatch.field} mismatch={mismatch} />
          ))}
          {scopeCompany !== null && (
            <li data-testid="drawer-mismatch" data-field="companyScope">
              the row's company {companyRef(detail.company.id)}; its environment's company:{" "}
              {companyRef(scopeCompany)}
            </li>
          )}
          {markerState === "malformed" && (
            <li data-testid="drawer-mismatch" data-field="marker">
              the recorded marker is not a UUID, so the next resume cannot check the workspace and starts a
              new one
            </li>
          )}
          {markerState === "not-recorded" && (
            <li data-testid="drawer-mismatch" data-field="marker">
              no marker is recorded, so the next resume cannot check the workspace and starts a new one
            </li>
          )}
        </ul>
      )}
      {otherStale.length > 0 && (
        <p className="muted" data-testid="drawer-stale-fields">
          Config changed since it was acquired: <span className="mono">{otherStale.join(", ")}</span>
        </p>
      )}
      {detail.metadata.shape !== "object" && (
        <p className="muted" data-testid="metadata-shape">
          {detail.metadata.shape === "nested"
            ? "The CreateOS fields sit nested under providerMetadata (another schema), so the plugin cannot read them."
            : "The lease's metadata is not a usable object, so nothing in it can name an owner."}
        </p>
      )}
    </section>
  );
}

export function WhatToDo({ detail }: { detail: LeaseDetail }) {
  const watchJob = useUi((state) => state.watchJob);
  const target: ActionTarget = {
    leaseId: detail.leaseId,
    sourceId: detail.sourceId,
    sandboxId: detail.row.providerLeaseId,
    allowedActions: detail.verdict.allowedActions,
    overridableActions: detail.verdict.overridableActions,
  };
  return (
    <section data-testid="drawer-todo" aria-labelledby="drawer-todo-title">
      <h3 className="section-title" id="drawer-todo-title">
        What to do
      </h3>
      {detail.actedOnBy && (
        <p className="what-happened" data-testid="drawer-acted-on" data-acted={detail.actedOnBy.action}>
          {capitalized(actedOnWords(detail.actedOnBy))} ({detail.actedOnBy.operator}){" "}
          <RelativeTime atMs={Date.parse(detail.actedOnBy.at)} />: {actedOnEffect(detail.actedOnBy)}. Job{" "}
          <button
            type="button"
            className="link"
            onClick={() => watchJob(detail.actedOnBy?.jobId ?? "")}
            data-testid="drawer-job-link"
          >
            <Text value={detail.actedOnBy.jobId} mono />
          </button>
          .
        </p>
      )}
      {detail.story.whatToDo !== null && (
        <p className="what-to-do" data-testid="drawer-next-step">
          {detail.story.whatToDo}
        </p>
      )}
      <div className="row-flex" data-testid="drawer-actions">
        <ActionButton action="release" target={target} />
        <ActionButton action="destroy" target={target} />
        {detail.verdict.refusals.length > 0 && (
          <ul className="refusals" data-testid="drawer-refusals">
            {detail.verdict.refusals.map((refusal) => (
              <li key={refusal.action} data-action={refusal.action} data-reason={refusal.reason}>
                <strong>{refusal.action}:</strong> {refusal.message}
              </li>
            ))}
          </ul>
        )}
      </div>
      {detail.row.providerLeaseId && (
        <ProveOwnership request={{ kind: "lease", leaseId: detail.leaseId, sourceId: detail.sourceId }} />
      )}
      <dl className="kv">
        <dt>Paperclip will</dt>
        <dd data-testid="drawer-paperclip-will" data-refuses-release={detail.story.refusesRelease}>
          {detail.paperclipWill}
        </dd>
      </dl>
    </section>
  );
}

function capitalized(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}
