/**
 * A version of an object: a digest of its JSON, taken once per object and remembered while the object
 * lives (a WeakMap). Two equal objects have the same version; an object handed back unchanged (a row the
 * database source kept from its last read) costs a look-up, not a digest. The digest is injected, so the
 * domain needs no crypto: a host passes a cryptographic hash.
 */
export class ObjectVersions {
  readonly #digest: (text: string) => string;
  readonly #versions = new WeakMap<object, string>();

  constructor(digest: (text: string) => string) {
    this.#digest = digest;
  }

  /** The object's version; "" for null or undefined. */
  readonly of = (value: object | null | undefined): string => {
    if (value === null || value === undefined) return "";
    let version = this.#versions.get(value);
    if (version === undefined) {
      version = this.#digest(JSON.stringify(value));
      this.#versions.set(value, version);
    }
    return version;
  };
}
