import type { FieldEvidenceView } from "../../../../shared/contract";
import { Text } from "../../components/Text";
import { MARKER_CHECK_WORDS, MARKER_EXPECTED_WORDS, type MarkerCheck, markerCheck } from "./mismatches";

const CHECK: Record<FieldEvidenceView["match"], { text: string; className: string }> = {
  match: { text: "✓ match", className: "match-yes" },
  mismatch: { text: "✗ mismatch", className: "match-no" },
  "not-compared": { text: "– not compared", className: "muted" },
};

const MARKER: Record<MarkerCheck, { text: string; className: string }> = {
  "well-formed": { text: MARKER_CHECK_WORDS["well-formed"], className: "match-yes" },
  malformed: { text: MARKER_CHECK_WORDS.malformed, className: "match-no" },
  "not-recorded": { text: MARKER_CHECK_WORDS["not-recorded"], className: "match-no" },
  "not-compared": { text: MARKER_CHECK_WORDS["not-compared"], className: "muted" },
};

/**
 * The ownership check field by field: what the lease recorded, what the row is held to, and whether
 * they match. Values arrive in display form from main (URLs cut to origins, the marker cut to a prefix);
 * a mismatching value wraps instead of being cut, so the two sides can be compared character by
 * character. The marker has no second side: it is checked for form (a UUID, which the next resume needs).
 */
export function OwnershipTable({ fields }: { fields: FieldEvidenceView[] }) {
  return (
    <table className="data-table ownership-table" data-testid="ownership-table">
      <colgroup>
        <col style={{ width: "17%" }} />
        <col style={{ width: "32%" }} />
        <col style={{ width: "32%" }} />
        <col style={{ width: "19%" }} />
      </colgroup>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Recorded in the lease</th>
          <th scope="col">Held to</th>
          <th scope="col">Check</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((field) => {
          const marker = field.field === "marker";
          const check = marker ? MARKER[markerCheck(field)] : CHECK[field.match];
          const whole = field.match === "mismatch";
          return (
            <tr
              key={field.field}
              className={field.match === "mismatch" ? "mismatch" : undefined}
              data-testid="ownership-field"
              data-field={field.field}
              data-match={field.match}
            >
              <td className="mono">{field.field}</td>
              <td>
                <Value value={field.recorded} whole={whole} placeholder="(not recorded)" />
              </td>
              <td>
                {marker ? (
                  <span className="muted" title="A marker is a UUID; only its form can be checked here">
                    {MARKER_EXPECTED_WORDS}
                  </span>
                ) : (
                  <Value value={field.expected} whole={whole} placeholder="(not set)" />
                )}
              </td>
              <td>
                <span className={check.className} data-testid="ownership-check">
                  {check.text}
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Value({ value, whole, placeholder }: { value: string | null; whole: boolean; placeholder: string }) {
  if (whole && value) return <bdi className="mono text-wrap">{value}</bdi>;
  return <Text value={value} mono placeholder={placeholder} />;
}
