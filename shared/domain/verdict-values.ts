import type { LeaseVerdict } from "./inventory.js";

/**
 * Verdicts are values: every row judged alike gets the very same frozen verdict object. A fleet's rows
 * fall into a few dozen verdicts (28 over the bench's 100,000 rows), so sharing them saves the ≈ 300 bytes
 * of object and arrays each row's own copy held, and every digest taken of a verdict afterwards (the
 * store's row version) is taken once per value, not once per row. One instance per judgement: what it
 * holds is bounded by that scan's distinct verdicts.
 */
export class VerdictValues {
  readonly #byText = new Map<string, LeaseVerdict>();

  /** The shared copy of this verdict: the first one seen with the same content, frozen. */
  of(verdict: LeaseVerdict): LeaseVerdict {
    const text = JSON.stringify(verdict);
    const known = this.#byText.get(text);
    if (known !== undefined) return known;
    this.#byText.set(text, freezeVerdict(verdict));
    return verdict;
  }

  /** How many distinct verdicts have been seen. */
  get size(): number {
    return this.#byText.size;
  }
}

/** Frozen with its arrays, so a caller that meant to change one row's verdict cannot change them all. */
function freezeVerdict(verdict: LeaseVerdict): LeaseVerdict {
  Object.freeze(verdict.ownership);
  Object.freeze(verdict.flags);
  Object.freeze(verdict.allowedActions);
  Object.freeze(verdict.overridableActions);
  Object.freeze(verdict.refusals);
  return Object.freeze(verdict);
}
