/**
 * JSON.parse for a big ledger file, in steps. `JSON.parse` of a 20,000-lease ledger (≈ 40 MB) holds the
 * event loop for several hundred milliseconds in one piece; a ledger is an object whose big values are
 * arrays, so each top-level array is cut at its own commas and parsed a batch of items at a time, with a
 * pause (a `yield`) between batches. The result is what `JSON.parse(text)` returns. Whatever this reader
 * does not expect (another top-level shape, a syntax error anywhere) makes it hand the whole text to
 * `JSON.parse`, so invalid JSON fails exactly as before.
 */

/** Items parsed between two pauses: some 200 kB of a ledger's lease rows. */
const ITEMS_PER_STEP = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** The characters that matter outside strings; a string is skipped whole once its quote is met. */
const structural = () => /[[\]{}",]/g;

class Unexpected extends Error {}

export function* parseJsonSteps(text: string): Generator<void, unknown, void> {
  try {
    return yield* parseTopLevelObject(text, structural());
  } catch (error) {
    if (!(error instanceof Unexpected) && !(error instanceof SyntaxError)) throw error;
    return JSON.parse(text);
  }
}

function* parseTopLevelObject(text: string, STRUCTURAL: RegExp): Generator<void, unknown, void> {
  let at = skipSpace(text, 0);
  if (text[at] !== "{") throw new Unexpected();
  const result: Record<string, unknown> = {};
  at = skipSpace(text, at + 1);
  if (text[at] === "}") return finish(text, at + 1, result);
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) throw new Unexpected();
    const keyEnd = endOfString(text, at);
    const key = JSON.parse(text.slice(at, keyEnd + 1)) as string;
    at = skipSpace(text, keyEnd + 1);
    if (text[at] !== ":") throw new Unexpected();
    at = skipSpace(text, at + 1);
    let value: unknown;
    if (text[at] === "[") {
      [value, at] = yield* parseArray(text, at, STRUCTURAL);
    } else {
      const end = endOfValue(text, at, STRUCTURAL);
      value = JSON.parse(text.slice(at, end));
      at = end;
    }
    // As JSON.parse does: an own data property even for "__proto__", and the last of repeated keys wins.
    Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
    at = skipSpace(text, at);
    if (text[at] === ",") {
      at = skipSpace(text, at + 1);
      continue;
    }
    if (text[at] === "}") return finish(text, at + 1, result);
    throw new Unexpected();
  }
}

function finish(text: string, at: number, result: unknown): unknown {
  if (skipSpace(text, at) !== text.length) throw new Unexpected();
  return result;
}

/** The array starting at `open` ('['), parsed a batch of items at a time; returns it and the index after ']'. */
function* parseArray(
  text: string,
  open: number,
  STRUCTURAL: RegExp,
): Generator<void, [unknown[], number], void> {
  const items: unknown[] = [];
  let depth = 0;
  let batchStart = open + 1;
  let inBatch = 0;
  const flush = (end: number, last: boolean) => {
    const slice = text.slice(batchStart, end);
    if (slice.trim() === "") {
      // "[]" is an empty array; an empty slot anywhere else ("[1,]", "[,1]") is invalid JSON.
      if (last && items.length === 0 && inBatch === 0) return;
      throw new Unexpected();
    }
    const parsed = JSON.parse(`[${slice}]`) as unknown[];
    if (parsed.length !== inBatch + 1) throw new Unexpected();
    for (const item of parsed) items.push(item);
  };
  STRUCTURAL.lastIndex = open + 1;
  for (;;) {
    const match = STRUCTURAL.exec(text);
    if (match === null) throw new Unexpected();
    const at = match.index;
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      STRUCTURAL.lastIndex = endOfString(text, at) + 1;
      continue;
    }
    const symbol = text[at];
    if (symbol === "[" || symbol === "{") {
      depth += 1;
    } else if (symbol === "]" || symbol === "}") {
      if (depth === 0) {
        if (symbol !== "]") throw new Unexpected();
        flush(at, true);
        return [items, at + 1];
      }
      depth -= 1;
    } else if (depth === 0) {
      // A comma between two items of this array.
      if (inBatch + 1 < ITEMS_PER_STEP) {
        inBatch += 1;
        continue;
      }
      flush(at, false);
      batchStart = at + 1;
      inBatch = 0;
      yield;
      STRUCTURAL.lastIndex = at + 1;
    }
  }
}

/** The index of the quote that closes the string opened at `open`. */
function endOfString(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) throw new Unexpected();
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}

/** The end (exclusive) of a value that is not an array: up to the ',' or '}' that follows it at its level. */
function endOfValue(text: string, start: number, STRUCTURAL: RegExp): number {
  let depth = 0;
  STRUCTURAL.lastIndex = start;
  for (;;) {
    const match = STRUCTURAL.exec(text);
    if (match === null) throw new Unexpected();
    const at = match.index;
    const symbol = text[at];
    if (symbol === '"') {
      STRUCTURAL.lastIndex = endOfString(text, at) + 1;
    } else if (symbol === "[" || symbol === "{") {
      depth += 1;
    } else if (symbol === "]" || symbol === "}") {
      if (depth === 0) return at;
      depth -= 1;
    } else if (depth === 0) {
      return at;
    }
  }
}

function skipSpace(text: string, from: number): number {
  let at = from;
  for (;;) {
    const char = text.charCodeAt(at);
    if (char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09) at += 1;
    else return at;
  }
}
