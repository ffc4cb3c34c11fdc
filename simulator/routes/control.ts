import type { IncomingMessage } from "node:http";
import { z } from "zod";
import type { FaultRule } from "../faults.js";
import { parseJsonObject, readBody } from "../http/body.js";
import { fail, type Reply, success } from "../http/reply.js";
import type { AccountSandboxes } from "../state/snapshot.js";
import type { SimStats } from "../stats.js";

// `/_sim/*`: the test harness's side door. No key, no rate limit, not counted in stats, and only
// from loopback, so a simulator bound elsewhere by mistake cannot be reset from the network.

export interface ControlPanel {
  stats(): SimStats;
  faults(): FaultRule[];
  setFaults(rules: unknown): void;
  reset(): void;
  sandboxes(): AccountSandboxes[];
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export async function control(req: IncomingMessage, pathname: string, panel: ControlPanel): Promise<Reply> {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? ""))
    return fail(403, "control endpoints answer loopback only");
  const route = `${req.method} ${pathname}`;
  switch (route) {
    case "GET /_sim/stats":
      return success(panel.stats());
    case "GET /_sim/sandboxes":
      return success(panel.sandboxes());
    case "GET /_sim/faults":
      return success({ rules: panel.faults() });
    case "POST /_sim/faults":
      return replaceFaults(req, panel);
    case "POST /_sim/reset":
      panel.reset();
      return success({ reset: true });
    default:
      return fail(404, { route: `no control endpoint ${route}` });
  }
}

async function replaceFaults(req: IncomingMessage, panel: ControlPanel): Promise<Reply> {
  const body = parseJsonObject(await readBody(req, 1024 * 1024));
  if (!body.ok) return fail(400, { body: body.problem });
  if (!Array.isArray(body.value.rules)) return fail(400, { rules: "expected { rules: [...] }" });
  try {
    panel.setFaults(body.value.rules);
  } catch (cause) {
    if (cause instanceof z.ZodError) {
      const issue = cause.issues[0];
      return fail(400, { [`rules.${issue?.path.join(".") ?? ""}`]: issue?.message ?? "invalid rule" });
    }
    throw cause;
  }
  return success({ rules: panel.faults() });
}
