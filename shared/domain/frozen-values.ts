/**
 * Values that many rows hold alike, kept once: `of` hands back the first value seen with the same JSON,
 * frozen, so every row holding it shares one object and a change meant for one row throws instead of
 * reaching them all. One instance per judgement: what it holds is bounded by that scan's distinct values.
 * Used for verdicts (decision 219) and for what CreateOS said of rows no listing shows (decision 220).
 */
export class FrozenValues<T extends object> {
  readonly #byContent = new Map<string, T>();
  readonly #freeze: (value: T) => T;

  /** `freeze` freezes a value the first time it is seen, with whatever it holds that could be changed. */
  constructor(freeze: (value: T) => T = Object.freeze) {
    this.#freeze = freeze;
  }

  of(value: T): T {
    const content = JSON.stringify(value);
    const known = this.#byContent.get(content);
    if (known !== undefined) return known;
    this.#byContent.set(content, this.#freeze(value));
    return value;
  }
}
