import { createHash } from "node:crypto";
import type { ProviderCode } from "../../../../shared/domain/codes.js";
import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import { HOST_BOOKKEEPING_KEYS, scannedMetadata } from "../../../../shared/domain/scanned-metadata.js";

/**
 * A plan freezes each item with a fingerprint; execution re-reads the row and the sandbox and acts only
 * when the fingerprint is unchanged. It covers what an operator judged the row on: its metadata (all of
 * it but the host's bookkeeping, which a scan may leave out and nothing judges by; so a re-owned or
 * re-pointed row differs), status, policy, run, use and cleanup fields, and what CreateOS said of the
 * sandbox. `updatedAt` is left out: Paperclip's sweep bumps it without changing
 * anything an operator decided on.
 */
export function leaseFingerprint(row: LeaseRow, provider: ProviderCode): string {
  return digest({
    v: 2,
    kind: "lease",
    leaseId: row.id,
    companyId: row.companyId,
    environmentId: row.environmentId,
    status: row.status,
    leasePolicy: row.leasePolicy,
    provider: row.provider,
    providerLeaseId: row.providerLeaseId,
    heartbeatRunId: row.heartbeatRunId,
    lastUsedAt: row.lastUsedAt,
    releasedAt: row.releasedAt,
    cleanupStatus: row.cleanupStatus,
    failureReason: row.failureReason,
    metadata: scannedMetadata(row.metadata, HOST_BOOKKEEPING_KEYS),
    providerState: provider,
  });
}

/** An untracked sandbox has no row: its identity, where it is, who sees it and its state. */
export function untrackedFingerprint(sandbox: {
  sandboxId: string;
  origin: string;
  credential: string;
  status: string;
}): string {
  return digest({ v: 1, kind: "untracked", ...sandbox });
}

function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 32);
}

/**
 * JSON with object keys sorted at every depth, so two reads of the same row hash alike whatever order
 * the source wrote its keys in. Only own enumerable data reaches here (rows come from JSON.parse).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.keys(value)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(ownValue(value, key))}`);
  return `{${entries.join(",")}}`;
}

/** Read through the descriptor: a parsed `"__proto__"` key is an own property that `value[key]` misses. */
function ownValue(value: object, key: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  return descriptor !== undefined && "value" in descriptor ? descriptor.value : undefined;
}
