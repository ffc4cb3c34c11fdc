import type { ClassifiedLease } from "./inventory.js";

/**
 * The environment a row is listed under: the one its source matched it to, else the id the row itself
 * names (an orphan's, or null). Tables, counts, history pages and the store all group rows by it.
 */
export function listedEnvironmentId(classified: ClassifiedLease): string | null {
  return classified.environment?.id ?? classified.lease.environmentId;
}
