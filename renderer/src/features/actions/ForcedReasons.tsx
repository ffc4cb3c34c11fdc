import type { ForcedReason, PlanItem } from "../../../../shared/domain/actions";
import { WholeValue } from "./WholeValue";

/**
 * Why a destroy is forced, one sentence per reason, with both values whole so they can be compared:
 * what the lease recorded, and what the row or its environment says instead.
 */
export function ForcedReasons({ item }: { item: PlanItem }) {
  const reasons = item.forcedBecause ?? [];
  if (reasons.length === 0) return null;
  return (
    <ul className="forced-reasons" data-testid="forced-reasons">
      {reasons.map((reason) => (
        <li key={reason.code} data-testid="forced-reason" data-code={reason.code}>
          <ReasonSentence reason={reason} item={item} />
        </li>
      ))}
    </ul>
  );
}

function ReasonSentence({ reason, item }: { reason: ForcedReason; item: PlanItem }) {
  // A named value shows its name, its id on hover; a value without a name is shown whole.
  const recorded = <NamedValue value={reason.recorded} name={reason.recordedName} />;
  const expected = <NamedValue value={reason.expected} name={reason.expectedName} />;
  switch (reason.code) {
    case "foreign-company":
      return (
        <>
          Another company's: the lease records company {recorded}, the row company {expected}.
        </>
      );
    case "foreign-environment":
      return reason.expected === null ? (
        <>Its environment is gone: the lease records {recorded}, and no environment lists the row now.</>
      ) : (
        <>
          Another environment's: the lease records environment {recorded}, listed under {expected}.
        </>
      );
    case "environment-unread":
      return (
        <>
          Its environment could not be read: the row is listed under {expected}, which its source could not
          read, so whether Paperclip's plugin would accept the lease cannot be told (the lease records{" "}
          {recorded}).
        </>
      );
    case "foreign-provider":
      return (
        <>
          Another provider's: the lease records provider {recorded}, not {expected}.
        </>
      );
    case "company-scope-mismatch":
      return (
        <>
          The row's company {recorded} is not its environment's company {expected}.
        </>
      );
    case "metadata-missing":
      return (
        <>No owner recorded: the lease's metadata is {recorded}, so Paperclip cannot tell whose it is.</>
      );
    case "api-url-changed":
      return (
        <>
          API URL changed: the lease was made at {recorded}; its environment now uses {expected}.
        </>
      );
    case "api-url-not-origin":
      return (
        <>
          Recorded API URL is not an origin: the lease records {recorded}, and Paperclip's plugin compares it
          with {expected}, so it refuses every call on the lease.
        </>
      );
    case "config-rejected":
      return (
        <>
          Recorded config rejected: the lease records {reason.recordedName ?? "its config"} as{" "}
          <WholeValue value={reason.recorded ?? "nothing"} />, and Paperclip's plugin answers "
          {reason.expected ?? "Invalid CreateOS configuration."}", so every call on the lease fails.
        </>
      );
    case "untracked":
      return (
        <>
          No lease row of any source names it; CreateOS lists it at <WholeValue value={item.origin} /> for the
          credential <WholeValue value={item.credential} />.
        </>
      );
  }
}

function NamedValue({ value, name }: { value: string | null; name: string | null }) {
  if (value !== null && name && name !== value) {
    return (
      <strong className="whole-name" title={value} data-value={value}>
        <bdi>{name}</bdi>
      </strong>
    );
  }
  return <WholeValue value={value} placeholder="nothing" />;
}
