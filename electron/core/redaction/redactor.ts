import { encodeJson, jsonText } from "../../../shared/contract/json-bytes.js";

/**
 * Knows the keys currently in use and removes them (and their base64, base64url, hex and URL-encoded
 * forms) from any text. Used on every log line, every answer and every event: defense in depth behind
 * the rule that nothing ever puts a key into one, so that a hand-built ledger row carrying a key in an
 * innocent-looking field, or a library error echoing a header, still cannot carry it out.
 */
export const REDACTED = "[redacted]";
const MIN_SECRET_LENGTH = 6;

function formsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  return [
    secret,
    bytes.toString("base64"),
    bytes.toString("base64url"),
    bytes.toString("hex"),
    encodeURIComponent(secret),
  ];
}

export class SecretRedactor {
  #forms: string[] = [];
  /**
   * Every form in one pattern, and the shortest form's length: an inventory holds millions of strings,
   * and one pattern test (skipped for a string too short to hold any form) costs a fraction of testing
   * each form in turn.
   */
  #pattern: RegExp | null = null;
  #shortest = Number.POSITIVE_INFINITY;
  /** Answers are often the same object again (the cached inventory view): remember what each came to. */
  #checked = new WeakMap<object, unknown>();

  /** Counts the changes of the set of keys, for a writer that must redact again what it kept (a store). */
  #generation = 0;

  /** Replaces the set of values to redact. */
  set(values: readonly string[]): void {
    const forms = [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH).flatMap(formsOf))]
      // Longest first, so a key is replaced whole before any form that is a part of another.
      .sort((a, b) => b.length - a.length);
    if (forms.length !== this.#forms.length || forms.some((form, at) => form !== this.#forms[at]))
      this.#generation += 1;
    this.#forms = forms;
    this.#pattern = this.#forms.length === 0 ? null : new RegExp(this.#forms.map(escapeForPattern).join("|"));
    this.#shortest = this.#forms.at(-1)?.length ?? Number.POSITIVE_INFINITY;
    this.#checked = new WeakMap();
  }

  /** Changes whenever the set of keys does. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Whether `contains` on a JSON text finds every key its parsed strings hold: true unless a key has a
   * character JSON writes escaped (a quote, a backslash, a control character).
   */
  get findableInJson(): boolean {
    return this.#forms.every((form) => JSON.stringify(form) === `"${form}"`);
  }

  get active(): boolean {
    return this.#forms.length > 0;
  }

  contains(text: string): boolean {
    return text.length >= this.#shortest && this.#pattern !== null && this.#pattern.test(text);
  }

  redact(text: string): string {
    if (!this.contains(text)) return text;
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  }

  /**
   * The value with every string redacted. Walks without copying first and copies only when a secret is
   * actually found, so a 20,000-row answer with nothing to hide costs one pass and no allocation.
   */
  redactDeep<T>(value: T): T {
    if (!this.active) return value;
    if (typeof value === "object" && value !== null) {
      if (this.#checked.has(value)) return this.#checked.get(value) as T;
      const result = this.#containsDeep(value) ? (this.#copy(value) as T) : value;
      this.#checked.set(value, result);
      return result;
    }
    return this.#containsDeep(value) ? (this.#copy(value) as T) : value;
  }

  /**
   * JSON bytes (the inventory view, as hosts answer with it) with every string redacted: the same bytes
   * when their text holds no key, or when they were trusted; else parsed, redacted and encoded again
   * (a key that JSON writes escaped cannot be found in the text, so those are always parsed).
   */
  redactJson(bytes: Uint8Array): Uint8Array {
    if (!this.active) return bytes;
    const known = this.#checked.get(bytes);
    if (known !== undefined) return known as Uint8Array;
    const text = jsonText(bytes);
    const result =
      this.findableInJson && !this.contains(text) ? bytes : encodeJson(this.redactDeep(JSON.parse(text)));
    this.#checked.set(bytes, result);
    return result;
  }

  /**
   * Takes `value` as already redacted for the keys set now (the inventory worker redacts each view with
   * the same keys): `redactDeep` then gives it back without walking it. Forgotten when the keys change.
   */
  trust(value: object): void {
    this.#checked.set(value, value);
  }

  #containsDeep(value: unknown): boolean {
    if (typeof value === "string") return this.contains(value);
    if (typeof value !== "object" || value === null) return false;
    if (Array.isArray(value)) {
      // A view's columns are long arrays of numbers: those are passed over without a call each.
      for (const entry of value) {
        if (
          typeof entry === "string"
            ? this.contains(entry)
            : typeof entry === "object" && this.#containsDeep(entry)
        )
          return true;
      }
      return false;
    }
    for (const key of Object.keys(value))
      if (this.contains(key) || this.#containsDeep((value as Record<string, unknown>)[key])) return true;
    return false;
  }

  #copy(value: unknown): unknown {
    if (typeof value === "string") return this.redact(value);
    if (Array.isArray(value)) return value.map((entry) => this.#copy(entry));
    if (value !== null && typeof value === "object") {
      const copy: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(value)) {
        Object.defineProperty(copy, this.redact(key), {
          value: this.#copy(entry),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    return value;
  }
}

function escapeForPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
