import type { InventoryView } from "../../../../shared/contract/index.js";
import { encodeJson } from "../../../../shared/contract/json-bytes.js";
import type { EncodedView } from "./protocol.js";

/** The view as it is encoded once a generation holds it: kept for the next start, and taken by main. */
export interface ViewEncodings {
  /** The view without a generation, as the store keeps it: a view read at start belongs to none yet. */
  kept: Uint8Array;
  /** The same view with its generation, as main takes it; its own buffer, transferred when taken. */
  forMain: EncodedView;
  /** The lease columns' JSON, a part of `kept`: a view of the same rows is encoded around them. */
  leases: Uint8Array;
}

const OPEN_OBJECT = 0x7b;
const encoder = new TextEncoder();

/**
 * The view encoded once, as the UTF-8 JSON `JSON.stringify` writes. Main's copy is `kept` with the
 * generation added as its last key, the bytes `JSON.stringify({ ...view, generation })` writes: the
 * closing brace of a JSON object is its last byte, whatever the strings within hold. So a view of
 * 100,000 rows is stringified once and copied, not stringified twice.
 */
export function viewEncodings(view: InventoryView, generation: number): ViewEncodings {
  return viewEncodingsAround(view, encodeJson(view.leases), generation);
}

/**
 * `viewEncodings` of `view` with `leases` as its lease columns' JSON (its own `leases` are not read):
 * the view of a scan that left every row as it stood, around the columns encoded for the scan before.
 */
export function viewEncodingsAround(
  view: InventoryView,
  leases: Uint8Array,
  generation: number,
): ViewEncodings {
  // A view already holding a generation would name the key twice, and a parser keeps the last.
  const { generation: _held, ...plain } = view;
  const { bytes: kept, at } = jsonWithValue(plain, "leases", leases);
  const tail = encoder.encode(
    `${kept[kept.length - 2] === OPEN_OBJECT ? "" : ","}"generation":${JSON.stringify(generation)}}`,
  );
  const bytes = new Uint8Array(kept.length - 1 + tail.length);
  bytes.set(kept.subarray(0, kept.length - 1));
  bytes.set(tail, kept.length - 1);
  const { leases: _leases, ...meta } = plain;
  return {
    kept,
    forMain: { meta: { ...meta, generation }, bytes: bytes.buffer },
    leases: kept.subarray(at, at + leases.length),
  };
}

/**
 * The bytes `JSON.stringify(object)` writes when `key`'s value is the JSON `value`: the keys before it
 * and after it stringified apart, in their order. Where `value` begins in them.
 */
function jsonWithValue(
  object: Record<string, unknown>,
  key: string,
  value: Uint8Array,
): { bytes: Uint8Array; at: number } {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let past = false;
  for (const [name, entry] of Object.entries(object)) {
    if (name === key) past = true;
    else (past ? after : before)[name] = entry;
  }
  const head = JSON.stringify(before);
  const rest = JSON.stringify(after);
  const opening = encoder.encode(`${head.slice(0, -1)}${head === "{}" ? "" : ","}${JSON.stringify(key)}:`);
  const closing = encoder.encode(`${rest === "{}" ? "" : ","}${rest.slice(1)}`);
  const bytes = new Uint8Array(opening.length + value.length + closing.length);
  bytes.set(opening);
  bytes.set(value, opening.length);
  bytes.set(closing, opening.length + value.length);
  return { bytes, at: opening.length };
}

/** A view as main takes it: the bytes it hands on to the hosts, and the rest of the view it reads itself. */
export function encodedView(view: InventoryView): EncodedView {
  const { leases: _leases, ...meta } = view;
  return { meta, bytes: encodeJson(view).buffer as ArrayBuffer };
}
