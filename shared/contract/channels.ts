/**
 * The names of every contract channel, as plain string lists with no dependencies, so that the preload
 * (which runs in a sandboxed renderer) can check a channel name without loading zod or any core code.
 * `shared/contract/index.ts` proves at compile time that these lists and the schema map have the same keys.
 */
export const INVOKE_CHANNELS = [
  "app:info",
  "inventory:get",
  "inventory:history",
  "leases:detail",
  "untracked:list",
  "markers:prove",
  "actions:plan",
  "actions:execute",
  "quarantine:create",
  "quarantine:list",
  "quarantine:cancel",
  "quarantine:resume",
  "actions:cancel-plan",
  "jobs:list",
  "jobs:get",
  "jobs:cancel",
  "jobs:retry-failed",
  "jobs:resume",
  "audit:query",
  "audit:export",
  "settings:get",
  "settings:update",
  "credentials:set",
  "credentials:test",
  "credentials:clear",
  "sources:test",
  "vault:accept-weak-store",
  "status:get",
  "janitor:status",
  "janitor:plan",
  "janitor:run",
] as const;
export type InvokeChannel = (typeof INVOKE_CHANNELS)[number];

/**
 * Channels whose answer's data main hands a host as its UTF-8 JSON bytes (the inventory view, which main
 * holds as those bytes): the browser host writes them into its answer, and the preload decodes them, so
 * the page receives the same object as from any other channel.
 */
export const ENCODED_CHANNELS = ["inventory:get"] as const satisfies readonly InvokeChannel[];
export type EncodedChannel = (typeof ENCODED_CHANNELS)[number];

/** What the preload answers when main's answer on an encoded channel is not bytes it can decode. */
export const UNREADABLE_ANSWER = "Leasekeeper's answer could not be read; try again.";

export const EVENT_CHANNELS = ["jobs:event", "inventory:changed", "app:command"] as const;
export type EventChannel = (typeof EVENT_CHANNELS)[number];

/** Channels that only read: the secret-canary test drives every one of them. */
export const READ_CHANNELS = [
  "app:info",
  "inventory:get",
  "inventory:history",
  "leases:detail",
  "untracked:list",
  "markers:prove",
  "quarantine:list",
  "jobs:list",
  "jobs:get",
  "audit:query",
  "audit:export",
  "settings:get",
  "status:get",
  "janitor:status",
  "janitor:plan",
] as const satisfies readonly InvokeChannel[];

/** The error codes a channel can answer with. Messages beside them are fixed and credential-free. */
export const ERROR_CODES = [
  "invalid-request",
  "untrusted-sender",
  "not-found",
  "refused",
  "plan-expired",
  "plan-consumed",
  "conflict",
  "unavailable",
  "internal",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Electron IPC channel names are namespaced so that nothing else on ipcMain can collide with them. */
export const IPC_PREFIX = "leasekeeper:";
