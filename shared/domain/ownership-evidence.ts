import { displayApiUrl, displayRecordedApiUrl, originOf, sameApiUrl } from "./api-url.js";
import { CREATEOS_PROVIDER } from "./codes.js";
import { hasDrifted } from "./config-drift.js";
import {
  displayValue,
  isWellFormedMarker,
  type LeaseMetadata,
  metadataObject,
  recorded,
} from "./lease-metadata.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import type { InstalledPlugin } from "./plugin-generations.js";

export const EVIDENCE_FIELDS = [
  "provider",
  "companyId",
  "environmentId",
  "apiUrl",
  "shape",
  "rootfs",
  "region",
  "marker",
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];

export type EvidenceMatch = "match" | "mismatch" | "not-compared";

/** One line of the detail view: what the lease recorded, what its environment expects, and whether they agree. */
export interface FieldEvidence {
  field: EvidenceField;
  recorded: string | null;
  expected: string | null;
  match: EvidenceMatch;
}

const MARKER_PREFIX = 8;

/**
 * The lease's metadata set against the environment it is listed under, field by field. Nothing is
 * compared when the metadata is not an object (there is nothing recorded), nor an environment's field
 * against an environment that is not there (the company is the row's own, so it is always compared).
 * The marker authenticates the workspace on resume, so it is only ever shown as a short prefix,
 * and it is checked for form, not against anything.
 */
export function ownershipEvidence(
  row: LeaseRow,
  environment: Environment | null,
  installed?: InstalledPlugin,
): FieldEvidence[] {
  const metadata = metadataObject(row.metadata);
  return EVIDENCE_FIELDS.map((field) => {
    const expected = expectedValue(field, row, environment);
    if (metadata === null) return { field, recorded: null, expected, match: "not-compared" };
    if (field === "marker") {
      const marker = recorded(metadata, "marker");
      return {
        field,
        recorded: redactMarker(marker),
        expected: null,
        match: isWellFormedMarker(marker) ? "match" : "mismatch",
      };
    }
    return {
      field,
      recorded: shownValue(metadata, field),
      expected,
      match: compare(field, metadata, row, environment, installed),
    };
  });
}

/**
 * The company is the lease row's own: the host passes the row's companyId when it releases or destroys,
 * so that is what the plugin holds the metadata to, whatever (if anything) the environment names.
 */
function expectedValue(field: EvidenceField, row: LeaseRow, environment: Environment | null): string | null {
  if (field === "provider") return CREATEOS_PROVIDER;
  if (field === "companyId") return row.companyId;
  if (environment === null || field === "marker") return null;
  if (field === "environmentId") return environment.id;
  if (field === "apiUrl") return displayApiUrl(environment.config.apiUrl);
  return displayValue(environment.config[field]);
}

/** The API URL as recorded, path included: `…/v1` is not the origin the plugin compares it with. */
function shownValue(metadata: LeaseMetadata, field: EvidenceField): string | null {
  const value = recorded(metadata, field);
  return field === "apiUrl" && typeof value === "string" ? displayRecordedApiUrl(value) : displayValue(value);
}

function compare(
  field: Exclude<EvidenceField, "marker">,
  metadata: LeaseMetadata,
  row: LeaseRow,
  environment: Environment | null,
  installed: InstalledPlugin | undefined,
): EvidenceMatch {
  const value = recorded(metadata, field);
  if (field === "provider") return value === CREATEOS_PROVIDER ? "match" : "mismatch";
  if (field === "companyId") return value === row.companyId ? "match" : "mismatch";
  if (environment === null) return "not-compared";
  switch (field) {
    case "environmentId":
      return value === environment.id ? "match" : "mismatch";
    case "apiUrl":
      // The plugin compares the recorded text with the parsed origin: `…/v1` never matches.
      return originOf(value) === value && sameApiUrl(value, environment.config.apiUrl) ? "match" : "mismatch";
    default:
      return hasDrifted(metadata, environment, field, installed) ? "mismatch" : "match";
  }
}

/**
 * The first eight characters, and never more than half of the marker, so that even a short hand-written
 * marker is not shown whole.
 */
function redactMarker(marker: unknown): string | null {
  if (typeof marker !== "string" || marker === "") return null;
  return `${marker.slice(0, Math.min(MARKER_PREFIX, Math.floor(marker.length / 2)))}…`;
}

export { explainVerdict } from "./explain-verdict.js";
