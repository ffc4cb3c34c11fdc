import type { LeaseDetail } from "../../../../shared/contract";
import type { KnownNames, NameTarget } from "./mismatches";
import { NamedRef } from "./NameLink";

type Part = LeaseDetail["explanationParts"][number];
type Ref = Exclude<Part, string>;

/** Where a reference leads: an environment the inventory lists, or a company (named or not). */
function targetOf(part: Ref, names: KnownNames): NameTarget | null {
  if (part.ref === "company")
    return { kind: "company", companyId: part.id, name: names.companyName(part.id) };
  const name = names.environmentName(part.sourceId, part.id);
  return name === null
    ? null
    : { kind: "environment", sourceId: part.sourceId, environmentId: part.id, name };
}

/** Main's explanation of the verdict, with every environment and company it names by name, linked. */
export function Explanation({ parts, names }: { parts: readonly Part[]; names: KnownNames }) {
  return (
    <>
      {parts.map((part, at) =>
        typeof part === "string" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one sentence never reorder
          <span key={at}>{part}</span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one sentence never reorder
          <NamedRef key={at} target={targetOf(part, names)} id={part.id} />
        ),
      )}
    </>
  );
}
