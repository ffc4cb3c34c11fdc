import { z } from "zod";
import { DEFAULT_BANDWIDTH_QUOTA_BYTES, DEFAULT_ROOTFS, findShape, isCatalogRootfs } from "../catalog.js";
import { parseJsonObject, readBody } from "../http/body.js";
import { fail, success } from "../http/reply.js";
import { uniqueName } from "../state/names.js";
import { toView } from "../state/view.js";
import { accountRoute } from "./context.js";

// `POST /v1/sandboxes`. Only `shape` is required. Fields the simulator does not
// model (networks, disks, egress, ssh keys, node_selector, host_id) are accepted and ignored.

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CreateRequestSchema = z.looseObject({
  shape: z.string({ error: "shape is required" }).refine((id) => findShape(id) !== undefined, {
    error: (issue) => `unknown shape: ${String(issue.input)}`,
  }),
  rootfs: z
    .string({ error: "rootfs must be a string" })
    .refine((name) => name === "" || isCatalogRootfs(name), {
      error: (issue) => `unknown rootfs: ${String(issue.input)}`,
    })
    .optional(),
  name: z
    .string({ error: "name must be a string" })
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, { error: "name must be a hostname label (letters, digits, -)" })
    .optional(),
  region: z.string({ error: "region must be a string" }).optional(),
  disk_mib: z
    .int({ error: "disk_mib must be an integer" })
    .min(0, { error: "disk_mib must be ≥ 0" })
    .optional(),
  ingress_enabled: z.boolean({ error: "ingress_enabled must be a boolean" }).optional(),
  auto_pause_after_seconds: z
    .int({ error: "auto_pause_after_seconds must be an integer" })
    .min(60, { error: "auto_pause_after_seconds must be between 60 and 86400" })
    .max(86_400, { error: "auto_pause_after_seconds must be between 60 and 86400" })
    .optional(),
  envs: z
    .record(z.string(), z.string().max(4096, { error: "an env value may be at most 4 KiB" }), {
      error: "envs must map names to strings",
    })
    .refine((envs) => Object.keys(envs).every((key) => ENV_KEY.test(key)), {
      error: "env names must match ^[A-Za-z_][A-Za-z0-9_]*$",
    })
    .refine((envs) => Object.keys(envs).length <= 64, { error: "at most 64 envs" })
    .optional(),
  bandwidth_quota_bytes: z
    .number()
    .refine((bytes) => bytes === 0, { error: "bandwidth_quota_bytes cannot be set on create" })
    .optional(),
});

export const createSandbox = accountRoute("POST", "/v1/sandboxes", async (ctx) => {
  const body = parseJsonObject(await readBody(ctx.req, 1024 * 1024));
  if (!body.ok) return fail(400, { body: body.problem });
  const parsed = CreateRequestSchema.safeParse(body.value);
  if (!parsed.success) {
    const problems: Record<string, string> = {};
    for (const issue of parsed.error.issues) problems[String(issue.path[0] ?? "body")] ??= issue.message;
    return fail(400, problems);
  }
  const request = parsed.data;
  // One control plane serves one region; there is no cross-region routing.
  if (request.region && request.region !== ctx.world.region) {
    return fail(400, { region: `region mismatch: this control plane serves ${ctx.world.region}` });
  }
  if (request.name && ctx.world.isNameInUse(ctx.account, request.name)) {
    return fail(409, { name: `name already in use: ${request.name}` });
  }
  let id = ctx.newSandboxId();
  while (ctx.world.isIdTaken(id)) id = ctx.newSandboxId();
  const sandbox = ctx.world.create(ctx.account, {
    id,
    shape: request.shape,
    rootfs: request.rootfs || DEFAULT_ROOTFS,
    name: request.name ?? uniqueName(id, (name) => ctx.world.isNameInUse(ctx.account, name)),
    disk_mib: request.disk_mib || undefined,
    ingress_enabled: request.ingress_enabled ?? false,
    auto_pause_after_seconds: request.auto_pause_after_seconds,
    envs: request.envs ? Object.keys(request.envs).sort() : undefined,
  });
  // The create response is a superset of the View: it also carries the resolved egress and quota.
  return success({ ...toView(sandbox), egress: [], bandwidth_quota_bytes: DEFAULT_BANDWIDTH_QUOTA_BYTES });
});
