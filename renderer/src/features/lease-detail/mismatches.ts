import type { FieldEvidenceView, InventoryView } from "../../../../shared/contract";

/** Where a named value leads when the operator clicks it: an environment in the sidebar, or a company. */
export type NameTarget =
  | { kind: "environment"; sourceId: string; environmentId: string; name: string }
  | { kind: "company"; companyId: string; name: string | null };

/** One side of a mismatch: the value whole, the name it goes by where a source gave one, and its link. */
export interface MismatchSide {
  value: string | null;
  name: string | null;
  target: NameTarget | null;
}

/** A field whose recorded value differs from what the row is held to, both sides whole. */
export interface Mismatch {
  field: string;
  recorded: MismatchSide;
  expected: MismatchSide;
}

/** The names the inventory knows: environments per source, companies by id. */
export interface KnownNames {
  environmentName(sourceId: string, environmentId: string): string | null;
  companyName(companyId: string): string | null;
}

export function knownNames(view: InventoryView | undefined): KnownNames {
  const environments = new Map<string, string>();
  const companies = new Map<string, string>();
  for (const environment of view?.environments ?? []) {
    if (environment.environmentId !== null && environment.name !== "")
      environments.set(JSON.stringify([environment.sourceId, environment.environmentId]), environment.name);
  }
  view?.companies.forEach((id, at) => {
    const name = view.companyNames[at];
    if (name) companies.set(id, name);
  });
  return {
    environmentName: (sourceId, environmentId) =>
      environments.get(JSON.stringify([sourceId, environmentId])) ?? null,
    companyName: (companyId) => companies.get(companyId) ?? null,
  };
}

function side(field: string, value: string | null, sourceId: string, names: KnownNames): MismatchSide {
  if (value === null) return { value, name: null, target: null };
  if (field === "environmentId") {
    const name = names.environmentName(sourceId, value);
    return {
      value,
      name,
      target: name === null ? null : { kind: "environment", sourceId, environmentId: value, name },
    };
  }
  if (field === "companyId") {
    const name = names.companyName(value);
    return { value, name, target: { kind: "company", companyId: value, name } };
  }
  return { value, name: null, target: null };
}

/**
 * The ownership and config fields that do not match, each side named where the inventory knows the
 * name ("recorded: environment acme-staging; listed under: acme-prod"). The marker is left to its own
 * line: it is checked for form, so it has no second side.
 */
export function mismatches(
  evidence: readonly FieldEvidenceView[],
  sourceId: string,
  names: KnownNames,
): Mismatch[] {
  return evidence
    .filter((line) => line.match === "mismatch" && line.field !== "marker")
    .map((line) => ({
      field: line.field,
      recorded: side(line.field, line.recorded, sourceId, names),
      expected: side(line.field, line.expected, sourceId, names),
    }));
}

/** What the marker row says: a marker is checked for form only, so it never reads as "not set". */
export type MarkerCheck = "well-formed" | "malformed" | "not-recorded" | "not-compared";

/** What the marker row's check column says, in plain words: a marker is compared with nothing. */
export const MARKER_CHECK_WORDS: Record<MarkerCheck, string> = {
  "well-formed": "✓ written as Paperclip writes one",
  malformed: "✗ not as Paperclip writes one",
  "not-recorded": "✗ none recorded",
  "not-compared": "– not compared",
};
/** What the marker row shows where another field shows the value it is compared with. */
export const MARKER_EXPECTED_WORDS = "nothing to compare with; its form is checked";

export function markerCheck(line: FieldEvidenceView): MarkerCheck {
  if (line.match === "not-compared") return "not-compared";
  if (line.recorded === null) return "not-recorded";
  return line.match === "match" ? "well-formed" : "malformed";
}
