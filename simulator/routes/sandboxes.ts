import { isSandboxStatus } from "../catalog.js";
import { page, readPageRequest } from "../http/pagination.js";
import { fail, sandboxNotFound, success } from "../http/reply.js";
import { destroy, settle } from "../state/lifecycle.js";
import { toView } from "../state/view.js";
import { accountRoute, type Route, sandboxRoute } from "./context.js";
import { createSandbox } from "./create-sandbox.js";

/** `GET /v1/sandboxes`: creation order; the status filter applies before paging; destroyed rows stay. */
const listSandboxes = accountRoute("GET", "/v1/sandboxes", (ctx) => {
  const paging = readPageRequest(ctx.url.searchParams);
  if (!paging.ok) return fail(400, { [paging.field]: paging.message });
  const status = ctx.url.searchParams.get("status");
  if (status !== null && status !== "" && !isSandboxStatus(status)) {
    return fail(400, { status: `unknown status: ${status}` });
  }
  const all = ctx.world.list(ctx.account);
  const matching = status ? all.filter((sandbox) => sandbox.status === status) : all;
  // Paged first, then turned into views: a page costs its own rows, not the whole account's.
  const listed = page(matching, paging.limit, paging.offset);
  return success({ ...listed, data: listed.data.map(toView) });
});

const getSandbox = sandboxRoute("GET", "/v1/sandboxes/:id", (_ctx, sandbox) => success(toView(sandbox)));

const getSandboxByIp = accountRoute("GET", "/v1/sandboxes/by-ip/:ip", (ctx) => {
  const nowMs = ctx.now();
  const sandbox = ctx.account.sandboxes.find(
    (candidate) => candidate.ip === ctx.params.ip && settle(candidate, nowMs).status !== "destroyed",
  );
  return sandbox ? success(toView(sandbox)) : sandboxNotFound();
});

/** Idempotent: a second DELETE of a destroyed row is a 200, never a 404 or 409. */
const deleteSandbox = sandboxRoute("DELETE", "/v1/sandboxes/:id", (ctx, sandbox) => {
  const status = destroy(sandbox, ctx.now(), ctx.transitionMs);
  return success({ id: sandbox.id, status });
});

export const sandboxRoutes: Route[] = [
  listSandboxes,
  createSandbox,
  getSandboxByIp,
  getSandbox,
  deleteSandbox,
];
