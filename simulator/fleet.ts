import { readFile } from "node:fs/promises";
import { z } from "zod";
import { DEFAULT_REGION, findShape, SANDBOX_STATUSES } from "./catalog.js";
import { SANDBOX_ID_PATTERN } from "./ids.js";

// The seed world a simulator starts from (and returns to on reset). Strict objects, so a typo
// such as "satus" is refused instead of silently seeding a default.

const timestamp = z.iso.datetime({ offset: true, error: "expected an RFC 3339 timestamp" });

const FleetSandboxSchema = z.strictObject({
  id: z.string().regex(SANDBOX_ID_PATTERN, { error: "expected an id matching ^[A-Za-z0-9_-]{1,200}$" }),
  status: z.enum(SANDBOX_STATUSES, { error: `expected one of ${SANDBOX_STATUSES.join("|")}` }),
  shape: z.string().refine((id) => findShape(id) !== undefined, {
    error: (issue) => `unknown shape: ${String(issue.input)}`,
  }),
  rootfs: z.string().min(1).optional(),
  created_at: timestamp.optional(),
  name: z.string().min(1).max(63).optional(),
  ip: z.ipv4().optional(),
  disk_mib: z.int().positive().optional(),
  ingress_enabled: z.boolean().optional(),
  running_at: timestamp.optional(),
  paused_at: timestamp.optional(),
  last_resumed_at: timestamp.optional(),
  destroyed_at: timestamp.optional(),
  auto_pause_after_seconds: z.int().min(60).max(86_400).optional(),
  files: z
    .record(z.string(), z.string())
    .check((ctx) => {
      for (const path of Object.keys(ctx.value)) {
        if (!path.startsWith("/")) {
          ctx.issues.push({ code: "custom", input: path, path: [path], message: "path must be absolute" });
        }
      }
    })
    .optional(),
});

const FleetAccountSchema = z.strictObject({
  apiKey: z.string().min(1, { error: "expected a non-empty API key" }),
  userId: z.string().min(1).optional(),
  sandboxes: z.array(FleetSandboxSchema).default([]),
});

const FleetSchema = z
  .strictObject({
    region: z.string().min(1).default(DEFAULT_REGION),
    accounts: z.array(FleetAccountSchema),
  })
  .check((ctx) => {
    const keys = new Map<string, number>();
    const ids = new Map<string, string>();
    ctx.value.accounts.forEach((account, a) => {
      const firstWithKey = keys.get(account.apiKey);
      if (firstWithKey !== undefined) {
        ctx.issues.push({
          code: "custom",
          input: account.apiKey,
          path: ["accounts", a, "apiKey"],
          message: `the same API key as accounts[${firstWithKey}]`,
        });
      }
      keys.set(account.apiKey, a);
      account.sandboxes.forEach((sandbox, s) => {
        const where = `accounts[${a}].sandboxes[${s}]`;
        const first = ids.get(sandbox.id);
        if (first !== undefined) {
          ctx.issues.push({
            code: "custom",
            input: sandbox.id,
            path: ["accounts", a, "sandboxes", s, "id"],
            message: `duplicate sandbox id ${sandbox.id} (first at ${first})`,
          });
        } else {
          ids.set(sandbox.id, where);
        }
      });
    });
  });

export type Fleet = z.output<typeof FleetSchema>;
export type FleetInput = z.input<typeof FleetSchema>;
export type FleetAccount = Fleet["accounts"][number];
export type FleetSandbox = FleetAccount["sandboxes"][number];

/** A fleet that cannot be served. The message names the source and the first bad field. */
export class FleetError extends Error {
  override readonly name = "FleetError";
  constructor(
    message: string,
    readonly problems: string[],
  ) {
    super(message);
  }
}

/** Validates a fleet object. `source` names it in errors (a file path, or "fleet"). */
export function parseFleet(input: unknown, source = "fleet"): Fleet {
  const result = FleetSchema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  throw new FleetError(`${source}: ${problems[0]}${more}`, problems);
}

export async function loadFleetFile(path: string): Promise<Fleet> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : String(cause);
    throw new FleetError(`${path}: ${reason}`, [reason]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    const reason = `not valid JSON (${(cause as Error).message})`;
    throw new FleetError(`${path}: ${reason}`, [reason]);
  }
  return parseFleet(json, path);
}

/** `accounts[0].sandboxes[3].status`, or `(root)` for the fleet itself. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (typeof part === "string" && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out || "(root)";
}
