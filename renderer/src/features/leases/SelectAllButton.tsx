import { formatCount } from "../../lib/format";

/**
 * "Select all N matching": selects the rows the table holds. With History pressed those are the pages of
 * history read so far, which may be fewer than the leases that match, so the button then says how many
 * it selects ("loaded"), and its title how many match.
 */
export function SelectAllButton({
  ids,
  matching,
  onSelect,
}: {
  ids: readonly string[];
  /** Every lease that matches, loaded or not; null while not yet counted. */
  matching: number | null;
  onSelect: (ids: readonly string[]) => void;
}) {
  const whole = matching === ids.length;
  return (
    <button
      type="button"
      className="btn btn-small"
      data-testid="select-all-matching"
      title={
        whole
          ? undefined
          : `${matching === null ? "More leases may match" : `${formatCount(matching)} match`}; scroll to load the rest`
      }
      onClick={() => onSelect(ids)}
    >
      Select all {formatCount(ids.length)} {whole ? "matching" : "loaded"}
    </button>
  );
}
