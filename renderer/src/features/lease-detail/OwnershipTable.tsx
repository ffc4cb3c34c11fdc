import type { FieldEvidenceView } from "../../../../shared/contract";
import { Text } from "../../components/Text";

const CHECK: Record<FieldEvidenceView["match"], { text: string; className: string }> = {
  match: { text: "✓ match", className: "match-yes" },
  mismatch: { text: "✗ mismatch", className: "match-no" },
  "not-compared": { text: "– not compared", className: "muted" },
};

/**
 * The ownership check field by field: what the lease recorded, what its environment says, and whether
 * they match. Values arrive in display form from main (URLs cut to origins, the marker cut to a prefix).
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
          <th scope="col">Environment's value</th>
          <th scope="col">Check</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((field) => {
          const check = CHECK[field.match];
          const recorded =
            field.field === "marker" && field.recorded !== null ? `${field.recorded}…` : field.recorded;
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
                <Text value={recorded} mono placeholder="(not recorded)" />
              </td>
              <td>
                <Text value={field.expected} mono placeholder="(not set)" />
              </td>
              <td>
                <span className={check.className}>{check.text}</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
