import { fail, type Reply, success } from "../http/reply.js";
import { pause, resume } from "../state/lifecycle.js";
import type { SandboxRecord } from "../state/sandbox.js";
import { toView } from "../state/view.js";
import { type Route, sandboxRoute } from "./context.js";

// Pause and resume answer 202 with the transitional View once accepted, 200 when the sandbox is
// already where the caller wants it, 409 otherwise. Both return the full
// View: a superset of the `{id, status}` the docs show, which satisfies every known client.

/** X-Poll-After in seconds; fractional so a fast simulator is not polled once a second [I]. */
function accepted(sandbox: SandboxRecord, transitionMs: number): Reply {
  const pollAfter = String(Math.max(0.001, transitionMs / 1000));
  return success(toView(sandbox), 202, { "x-poll-after": pollAfter });
}

const pauseSandbox = sandboxRoute("POST", "/v1/sandboxes/:id/pause", (ctx, sandbox) => {
  switch (pause(sandbox, ctx.now(), ctx.transitionMs)) {
    case "accepted":
      return accepted(sandbox, ctx.transitionMs);
    case "already-paused":
      return success(toView(sandbox));
    case "not-running":
      return fail(409, "sandbox is not running");
  }
});

const resumeSandbox = sandboxRoute("POST", "/v1/sandboxes/:id/resume", (ctx, sandbox) => {
  switch (resume(sandbox, ctx.now(), ctx.transitionMs)) {
    case "accepted":
      return accepted(sandbox, ctx.transitionMs);
    case "already-running":
      return success(toView(sandbox));
    case "not-resumable":
      return fail(409, `sandbox cannot be resumed from ${sandbox.status}`);
  }
});

export const lifecycleRoutes: Route[] = [pauseSandbox, resumeSandbox];
