import type { InventoryView } from "../../../../shared/contract/index.js";
import { encodeJson } from "../../../../shared/contract/json-bytes.js";
import type { EncodedView } from "./protocol.js";

/** The view as it is encoded once a generation holds it: kept for the next start, and taken by main. */
export interface ViewEncodings {
  /** The view without a generation, as the store keeps it: a view read at start belongs to none yet. */
  kept: Uint8Array;
  /** The same view with its generation, as main takes it; its own buffer, transferred when taken. */
  forMain: EncodedView;
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
  // A view already holding a generation would name the key twice, and a parser keeps the last.
  const { generation: _held, ...plain } = view;
  const kept = encodeJson(plain);
  const tail = encoder.encode(
    `${kept[kept.length - 2] === OPEN_OBJECT ? "" : ","}"generation":${JSON.stringify(generation)}}`,
  );
  const bytes = new Uint8Array(kept.length - 1 + tail.length);
  bytes.set(kept.subarray(0, kept.length - 1));
  bytes.set(tail, kept.length - 1);
  const { leases: _leases, ...meta } = plain;
  return { kept, forMain: { meta: { ...meta, generation }, bytes: bytes.buffer } };
}

/** A view as main takes it: the bytes it hands on to the hosts, and the rest of the view it reads itself. */
export function encodedView(view: InventoryView): EncodedView {
  const { leases: _leases, ...meta } = view;
  return { meta, bytes: encodeJson(view).buffer as ArrayBuffer };
}
