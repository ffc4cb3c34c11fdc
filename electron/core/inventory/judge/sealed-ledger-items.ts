import { type Cipher, createCipheriv, createDecipheriv, type Decipher, hash, randomBytes } from "node:crypto";
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
  const packed = digests.packed();
  const sealed = new Uint8Array(NONCE_BYTES + TAG_BYTES + packed.length);
  sealed.set(nonce, 0);
  passThrough(cipher, packed, sealed, NONCE_BYTES + TAG_BYTES);
  sealed.set(cipher.getAuthTag(), NONCE_BYTES);
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
    const packed = new Uint8Array(sealed.length - NONCE_BYTES - TAG_BYTES);
    passThrough(decipher, sealed.subarray(NONCE_BYTES + TAG_BYTES), packed, 0);
    return unpackedLedgerItems(packed);
  } catch {
    return null;
  }
}

/** Bytes a cipher takes at a time: its output is a chunk's size, however large the digests are. */
const CHUNK_BYTES = 1 << 20;

/**
 * Runs `input` through a GCM cipher into `output` from `at`, a chunk at a time. At 1,000,000 items the
 * digests are 40 MB; whole, the cipher's output and a concatenation of it would be two more copies of
 * them beside the packed bytes and the sealed ones, at the scan's flip, when the process peaks.
 */
function passThrough(cipher: Cipher | Decipher, input: Uint8Array, output: Uint8Array, at: number): void {
  let written = at;
  for (let from = 0; from < input.length; from += CHUNK_BYTES) {
    const chunk = cipher.update(input.subarray(from, from + CHUNK_BYTES));
    output.set(chunk, written);
    written += chunk.length;
  }
  // GCM is a stream mode: `final` adds no bytes, and checks the tag when deciphering.
  output.set(cipher.final(), written);
}

function keyOf(salt: string): Buffer {
  return hash("sha256", `ledger item digests\u0000${salt}`, "buffer") as unknown as Buffer;
}
