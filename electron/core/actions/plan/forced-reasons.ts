import type { ForcedReason, ForcedReasonCode } from "../../../../shared/domain/actions.js";
import { displayApiUrl, displayRecordedApiUrl } from "../../../../shared/domain/api-url.js";
import { CREATEOS_PROVIDER, type OwnershipCode } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { displayValue, metadataObject, recorded } from "../../../../shared/domain/lease-metadata.js";
import { recordedConfigParses } from "../../../../shared/domain/ownership.js";

/** Names the sources give environments and companies, so a reason can name both sides. */
export interface PlanNames {
  environment(id: string | null): string | null;
  company(id: string | null): string | null;
}

export function planNames(inventory: Pick<Inventory, "environments" | "companies">): PlanNames {
  const environments = new Map<string, string>();
  for (const environment of inventory.environments) {
    if (!environments.has(environment.environmentId))
      environments.set(environment.environmentId, environment.name);
  }
  const companies = new Map<string, string>();
  for (const company of inventory.companies)
    if (!companies.has(company.id)) companies.set(company.id, company.name);
  return {
    environment: (id) => (id === null ? null : (environments.get(id) ?? null)),
    company: (id) => (id === null ? null : (companies.get(id) ?? null)),
  };
}

type ForcingCode = Extract<OwnershipCode, ForcedReasonCode>;

const FORCING_CODES: readonly ForcingCode[] = [
  "metadata-missing",
  "foreign-provider",
  "foreign-company",
  "foreign-environment",
  "company-scope-mismatch",
  "api-url-changed",
  "api-url-not-origin",
  "config-rejected",
  "environment-unread",
];

/**
 * Why destroying this lease's sandbox is forced, code by code, each with what the metadata records and
 * what the row or its environment says instead, so the operator sees whose it is before typing its id.
 */
export function forcedReasonsOfLease(classified: ClassifiedLease, names: PlanNames): ForcedReason[] {
  const { lease, environment } = classified;
  const metadata = metadataObject(lease.metadata);
  const text = (key: string) => (metadata === null ? null : displayValue(recorded(metadata, key)));
  const listedUnder = lease.environmentId ?? environment?.id ?? null;
  return classified.verdict.ownership
    .filter((code): code is ForcingCode => (FORCING_CODES as readonly string[]).includes(code))
    .map((code): ForcedReason => {
      switch (code) {
        case "metadata-missing":
          return reason(code, describeMetadata(lease.metadata), null, null, null);
        case "foreign-provider":
          return reason(code, text("provider"), null, CREATEOS_PROVIDER, null);
        case "foreign-company": {
          const id = text("companyId");
          return reason(code, id, names.company(id), lease.companyId, names.company(lease.companyId));
        }
        case "foreign-environment": {
          const id = text("environmentId");
          return reason(
            code,
            id,
            names.environment(id),
            listedUnder,
            environment?.name ?? names.environment(listedUnder),
          );
        }
        case "environment-unread": {
          // What the lease records beside the environment it is listed under, which its source could not read.
          const id = text("environmentId");
          return reason(code, id, names.environment(id), listedUnder, names.environment(listedUnder));
        }
        case "company-scope-mismatch": {
          const scoped = environment?.companyId ?? null;
          return reason(code, lease.companyId, names.company(lease.companyId), scoped, names.company(scoped));
        }
        case "api-url-not-origin": {
          // The plugin compares the recorded text with the origin its parse yields; both are shown whole.
          const recordedUrl = metadata === null ? null : recorded(metadata, "apiUrl");
          return reason(code, displayRecordedApiUrl(recordedUrl), null, displayApiUrl(recordedUrl), null);
        }
        case "config-rejected": {
          const rejection =
            metadata === null
              ? undefined
              : recordedConfigParses(metadata, classified.installedPlugin).find((parsed) => !parsed.ok);
          const why = rejection !== undefined && !rejection.ok ? rejection : null;
          return reason(
            code,
            why === null ? null : text(why.field),
            why?.field ?? null,
            why?.message ?? null,
            null,
          );
        }
        default:
          // api-url-changed: the last forcing code.
          return reason(
            code,
            displayApiUrl(metadata === null ? null : recorded(metadata, "apiUrl")),
            null,
            displayApiUrl(environment?.config.apiUrl),
            null,
          );
      }
    });
}

/** An untracked sandbox is forced because no row of any source names it. */
export function forcedReasonsOfUntracked(): ForcedReason[] {
  return [reason("untracked", null, null, null, null)];
}

function reason(
  code: ForcedReasonCode,
  recordedValue: string | null,
  recordedName: string | null,
  expected: string | null,
  expectedName: string | null,
): ForcedReason {
  return { code, recorded: recordedValue, recordedName, expected, expectedName };
}

/** What was recorded in place of the plugin's metadata, in a few words; null when nothing was. */
function describeMetadata(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const object = metadataObject(value);
  if (object === null) return displayValue(value);
  const keys = Object.keys(object);
  if (keys.length === 0) return "an empty object";
  const shown = keys.slice(0, 6).join(", ");
  return `an object with ${shown}${keys.length > 6 ? ` and ${keys.length - 6} more` : ""}`;
}
