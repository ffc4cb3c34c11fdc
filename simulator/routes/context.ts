import type { IncomingMessage } from "node:http";
import { fail, type Reply, sandboxNotFound } from "../http/reply.js";
import { isValidSandboxId } from "../ids.js";
import type { SandboxRecord } from "../state/sandbox.js";
import type { Account, World } from "../state/world.js";

export interface RequestContext {
  req: IncomingMessage;
  method: string;
  url: URL;
  params: Record<string, string>;
  world: World;
  transitionMs: number;
  newSandboxId: () => string;
  now: () => number;
}

export interface AccountContext extends RequestContext {
  account: Account;
}

type Handler<C> = (ctx: C) => Reply | Promise<Reply>;

interface RouteBase {
  method: string;
  /** Path with `:name` segments, e.g. `/v1/sandboxes/:id/pause`; also the key stats count under. */
  template: string;
}

export type Route =
  | (RouteBase & { auth: false; handle: Handler<RequestContext> })
  | (RouteBase & { auth: true; handle: Handler<AccountContext> });

export const publicRoute = (method: string, template: string, handle: Handler<RequestContext>): Route => ({
  method,
  template,
  auth: false,
  handle,
});

export const accountRoute = (method: string, template: string, handle: Handler<AccountContext>): Route => ({
  method,
  template,
  auth: true,
  handle,
});

/**
 * A route about one of the caller's sandboxes. Another account's sandbox answers exactly like a
 * missing one, so a 404 never tells a caller that an id exists elsewhere.
 */
export function sandboxRoute(
  method: string,
  template: string,
  handle: (ctx: AccountContext, sandbox: SandboxRecord) => Reply | Promise<Reply>,
): Route {
  return accountRoute(method, template, (ctx) => {
    const id = ctx.params.id ?? "";
    if (!isValidSandboxId(id)) return fail(400, { id: "invalid sandbox id" });
    const sandbox = ctx.world.find(ctx.account, id);
    return sandbox ? handle(ctx, sandbox) : sandboxNotFound();
  });
}
