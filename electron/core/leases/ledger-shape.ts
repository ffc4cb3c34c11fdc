import { type ParsedTokenInfo, TokenType } from "@streamparser/json";

/**
 * What a ledger's tokens say of its top level, read without keeping any of its values: whether the root
 * is an object, and how many `leases` keys it holds and whether the last one is a list. The parser is
 * asked for no value above a lease item (`$` or `$.*` would make it keep the whole `leases` list to hand
 * it over at its end: every row of the file in memory at once), so the shape is followed token by token.
 */
export class LedgerShape {
  root: "object" | "other" | null = null;
  leasesKeys = 0;
  leasesIsList = false;
  #depth = 0;
  /** A string at the root's level that may be a key, until a colon says it is one. */
  #candidate: string | null = null;
  /** The key whose value begins with the next token at the root's level. */
  #key: string | null = null;
  readonly #onLeasesKey: () => void;

  /** `onLeasesKey` is told of every `leases` key as soon as its value begins. */
  constructor(onLeasesKey: () => void) {
    this.#onLeasesKey = onLeasesKey;
  }

  see({ token, value }: ParsedTokenInfo): void {
    if (this.root === null) this.root = token === TokenType.LEFT_BRACE ? "object" : "other";
    if (this.#depth === 1 && this.root === "object") this.#atRootLevel(token, value);
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.#depth += 1;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.#depth -= 1;
  }

  #atRootLevel(token: TokenType, value: unknown): void {
    if (this.#key !== null) {
      if (this.#key === "leases") {
        this.leasesKeys += 1;
        this.leasesIsList = token === TokenType.LEFT_BRACKET;
        this.#onLeasesKey();
      }
      this.#key = null;
      return;
    }
    if (token === TokenType.STRING) this.#candidate = value as string;
    else if (token === TokenType.COLON) {
      this.#key = this.#candidate;
      this.#candidate = null;
    }
  }
}
