import type { ProviderObservation } from "./inventory.js";

/**
 * What CreateOS said of a row whose sandbox no listing shows depends only on where the row points and
 * why it was not seen: the origin and how it was found, the code and its reason, and the time of the
 * origin's listing. In a long-lived instance that is most rows (their sandboxes were destroyed long
 * ago), and they fall into a handful of observations: each is kept once, frozen, for every row that
 * has it. One instance per judgement; a row whose sandbox was listed keeps its own.
 */
export class UnlistedObservations {
  readonly #byContent = new Map<string, ProviderObservation>();

  /** The shared copy of an observation without a listed sandbox; any other is handed back as it is. */
  of(observation: ProviderObservation): ProviderObservation {
    if (observation.sandbox !== null || observation.actedOnBy != null) return observation;
    const content = JSON.stringify(observation);
    const known = this.#byContent.get(content);
    if (known !== undefined) return known;
    this.#byContent.set(content, Object.freeze(observation));
    return observation;
  }
}
