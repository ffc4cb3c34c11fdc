import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { presentedKey } from "./auth.js";
import { type FaultInjector, type FaultRule, faultReply } from "./faults.js";
import { BodyTooLarge } from "./http/body.js";
import { error, fail, type Reply, send, tooManyRequests } from "./http/reply.js";
import { isValidSandboxId } from "./ids.js";
import type { RateLimiter } from "./rate-limit.js";
import type { RouteMatch, Router } from "./router.js";
import { type ControlPanel, control } from "./routes/control.js";
import type { World } from "./state/world.js";
import type { Outcome, StatsRecorder } from "./stats.js";

// One request, start to finish: control endpoints step aside first; then faults (they stand in
// for the network and the proxy in front of the API, so they come before everything), the rate
// limit, routing, authentication and the handler. Every API request is counted once.

export interface ServerParts {
  world: World;
  router: Router;
  limiter: RateLimiter;
  faults: FaultInjector;
  stats: StatsRecorder;
  panel: ControlPanel;
  transitionMs: number;
  newSandboxId: () => string;
  now: () => number;
}

export function requestListener(parts: ServerParts): RequestListener {
  return (req, res) => {
    handle(req, res, parts).catch(() => send(res, error(500, "internal error")));
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, parts: ServerParts): Promise<void> {
  const method = (req.method ?? "GET").toUpperCase();
  const url = new URL(req.url ?? "/", "http://simulator.invalid");
  if (url.pathname.startsWith("/_sim/")) {
    send(res, await control(req, url.pathname, parts.panel));
    return;
  }
  const match = parts.router.match(method, url.pathname);
  const apiKey = presentedKey(req.headers);
  const record = (outcome: Outcome, rateLimited = false) =>
    parts.stats.record({
      route: routeKey(method, match),
      outcome,
      sandboxId: sandboxIdOf(match),
      rateLimited,
    });
  const answer = (reply: Reply, rateLimited = false) => {
    record(reply.status, rateLimited);
    send(res, reply);
  };

  const fault = parts.faults.pick({ method, pathname: url.pathname, apiKey });
  if (fault) parts.stats.fault(fault);
  if (fault && (await injected(fault, req, record, answer))) return;

  const admission = parts.limiter.admit(req.socket.remoteAddress ?? "unknown");
  if (!admission.admitted) return answer(tooManyRequests(admission.retryAfterSeconds), true);

  try {
    answer(await dispatch(req, method, url, match, apiKey, parts));
  } catch (cause) {
    answer(cause instanceof BodyTooLarge ? fail(413, { body: cause.message }) : error(500, "internal error"));
  }
}

/** Applies a fault; true when it answered (or refused to), false when the request goes on. */
async function injected(
  fault: FaultRule,
  req: IncomingMessage,
  record: (outcome: Outcome) => void,
  answer: (reply: Reply) => void,
): Promise<boolean> {
  if (fault.latencyMs) await delay(fault.latencyMs, req);
  if (fault.drop) {
    record("dropped");
    req.socket.destroy();
    return true;
  }
  if (fault.hang) {
    // No answer, ever: the socket closes when the client gives up or the simulator stops.
    record("hung");
    return true;
  }
  if (fault.status !== undefined) {
    answer(faultReply(fault.status, fault.retryAfterSeconds));
    return true;
  }
  return false;
}

async function dispatch(
  req: IncomingMessage,
  method: string,
  url: URL,
  match: RouteMatch,
  apiKey: string | undefined,
  parts: ServerParts,
): Promise<Reply> {
  if (match.kind === "none") return fail(404, { route: `no route for ${method} ${url.pathname}` });
  if (match.kind === "wrong-method") {
    return fail(405, { method: `${method} is not allowed here` }, { allow: match.allowed.join(", ") });
  }
  const ctx = {
    req,
    method,
    url,
    params: match.params,
    world: parts.world,
    transitionMs: parts.transitionMs,
    newSandboxId: parts.newSandboxId,
    now: parts.now,
  };
  const { route } = match;
  if (!route.auth) return route.handle(ctx);
  if (!apiKey) return fail(401, "missing api key");
  const account = parts.world.accountForKey(apiKey);
  if (!account) return fail(401, "invalid api key");
  return route.handle({ ...ctx, account });
}

/** Counted under the route's template, so stats stay bounded whatever ids and paths arrive. */
function routeKey(method: string, match: RouteMatch): string {
  if (match.kind === "found") return `${method} ${match.route.template}`;
  if (match.kind === "wrong-method") return `${method} ${match.template}`;
  return `${method} *`;
}

function sandboxIdOf(match: RouteMatch): string | undefined {
  const id = match.kind === "found" ? match.params.id : undefined;
  return id !== undefined && isValidSandboxId(id) ? id : undefined;
}

/** Waits, but stops waiting if the client hangs up or the simulator closes the socket. */
function delay(ms: number, req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.socket.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    req.socket.once("close", done);
  });
}
