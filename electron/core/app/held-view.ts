import type { InventoryView } from "../../../shared/contract/index.js";
import { encodeJson } from "../../../shared/contract/json-bytes.js";
import type { EncodedView, ViewMeta } from "../inventory/worker/protocol.js";

/**
 * The inventory view as main holds it: everything but the lease columns, which is all main reads of it
 * (its age, gaps, environments, what is unread), and `bytes`, the whole view as the UTF-8 JSON hosts
 * answer `inventory:get` with. Main hands the bytes on and never parses them, so it never holds a string
 * per lease id.
 */
export type HeldView = ViewMeta & { readonly bytes: Uint8Array };

/** A view the worker encoded, its bytes moved to main. */
export function heldFromWorker({ meta, bytes }: EncodedView): HeldView {
  return { ...meta, bytes: new Uint8Array(bytes) };
}

/** A view main was given whole (read from a store at start): held as bytes, and the parsed view let go. */
export function heldView(view: InventoryView): HeldView {
  const { leases: _leases, ...meta } = view;
  return { ...meta, bytes: encodeJson(view) };
}
