import { createCipheriv, createDecipheriv, hash, randomBytes } from "node:crypto";
import { type LedgerItemDigests, unpackedLedgerItems } from "../../leases/ledger-item-digests.js";

/** A ledger's item digests as the store keeps them, and the nonce that names this sealing of them. */
export interface SealedLedgerItems {
  token: string;
  sealed: Uint8Array;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals a ledger's item digests to keep them beside their scan (decision 313), with AES-256-GCM under a
 * key drawn from the judging salt. Each digest is the SHA-1 of an item's bytes as the file holds them,
 * a configured key and all where a row holds one, and the rest of the row is in the store: kept in the
 * clear, a digest would be a cheap test of a guessed key. The salt comes through scrypt from the keys
 * themselves and is never stored, so the sealed digests are no such test, and a process judging under
 * other keys opens none of them. Each sealing has a nonce of its own, which also names it: the scan's
 * memory names the sealing that belongs to it.
 */
export function sealLedgerItems(digests: LedgerItemDigests, salt: string): SealedLedgerItems {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyOf(salt), nonce);
  const body = Buffer.concat([cipher.update(digests.packed()), cipher.final()]);
  const sealed = new Uint8Array(NONCE_BYTES + TAG_BYTES + body.length);
  sealed.set(nonce, 0);
  sealed.set(cipher.getAuthTag(), NONCE_BYTES);
  sealed.set(body, NONCE_BYTES + TAG_BYTES);
  return { token: nonce.toString("base64"), sealed };
}

/**
 * The digests `sealLedgerItems` sealed under this salt; null for bytes sealed under another salt, cut
 * or altered: the ledger is then read whole.
 */
export function openLedgerItems(sealed: Uint8Array, salt: string): LedgerItemDigests | null {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", keyOf(salt), sealed.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(sealed.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
    const packed = Buffer.concat([
      decipher.update(sealed.subarray(NONCE_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
    return unpackedLedgerItems(new Uint8Array(packed.buffer, packed.byteOffset, packed.length));
  } catch {
    return null;
  }
}

function keyOf(salt: string): Buffer {
  return hash("sha256", `ledger item digests\u0000${salt}`, "buffer") as unknown as Buffer;
}
