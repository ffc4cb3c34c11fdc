import { run } from "../exec/commands.js";
import { parseJsonObject, readBody } from "../http/body.js";
import { bytes, fail, ndjson, type Reply, success } from "../http/reply.js";
import type { SandboxRecord } from "../state/sandbox.js";
import { type Route, sandboxRoute } from "./context.js";

// Exec and file transfer reach into the guest, so they need a running VM. The code for "not
// running" is undocumented; 409 is what clients already treat as "re-read the state" [I].

const MAX_UPLOAD_BYTES = 32 * 1024 * 1024;

const notRunning = (sandbox: SandboxRecord): Reply | undefined =>
  sandbox.status === "running" ? undefined : fail(409, "sandbox is not running");

const execInSandbox = sandboxRoute("POST", "/v1/sandboxes/:id/exec", async (ctx, sandbox) => {
  const body = parseJsonObject(await readBody(ctx.req, 1024 * 1024));
  if (!body.ok) return fail(400, { body: body.problem });
  const { cmd, args = [], stream } = body.value;
  if (typeof cmd !== "string" || cmd === "") return fail(400, { cmd: "cmd is required" });
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    return fail(400, { args: "args must be an array of strings" });
  }
  const refusal = notRunning(sandbox);
  if (refusal) return refusal;
  const started = performance.now();
  const result = run(cmd, args, sandbox.workspace);
  const execMs = Math.max(1, Math.round(performance.now() - started));
  if (stream === true || ctx.url.searchParams.get("stream") === "true") {
    const frames: unknown[] = [];
    if (result.stdout) frames.push({ stdout: result.stdout });
    if (result.stderr) frames.push({ stderr: result.stderr });
    if (result.error) frames.push({ error: result.error });
    frames.push({ exit_code: result.exit_code });
    return ndjson(frames);
  }
  return success({ result, exec_ms: execMs });
});

function absolutePath(query: URLSearchParams): string | undefined {
  const path = query.get("path");
  return path?.startsWith("/") && !path.includes("\0") ? path : undefined;
}

const uploadFile = sandboxRoute("PUT", "/v1/sandboxes/:id/files", async (ctx, sandbox) => {
  const path = absolutePath(ctx.url.searchParams);
  if (!path) return fail(400, { path: "path must be absolute" });
  const content = await readBody(ctx.req, MAX_UPLOAD_BYTES);
  const refusal = notRunning(sandbox);
  if (refusal) return refusal;
  if (sandbox.workspace.isDirectory(path)) return fail(400, { path: `is a directory: ${path}` });
  sandbox.workspace.write(path, content);
  return success({});
});

const downloadFile = sandboxRoute("GET", "/v1/sandboxes/:id/files", (ctx, sandbox) => {
  const path = absolutePath(ctx.url.searchParams);
  if (!path) return fail(400, { path: "path must be absolute" });
  const refusal = notRunning(sandbox);
  if (refusal) return refusal;
  const content = sandbox.workspace.read(path);
  return content ? bytes(content) : fail(404, { path: `no such file: ${path}` });
});

export const workspaceRoutes: Route[] = [execInSandbox, uploadFile, downloadFile];
