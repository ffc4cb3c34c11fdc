import { DEFAULT_ROOTFS, ROOTFS_IMAGES, SHAPES } from "../catalog.js";
import { page, readPageRequest } from "../http/pagination.js";
import { fail, success } from "../http/reply.js";
import { accountRoute, publicRoute, type Route } from "./context.js";

// Health probes and the catalog need no key; whoami is the cheapest way to check one.

const healthz = publicRoute("GET", "/healthz", () => success({ up: true }));

const readyz = publicRoute("GET", "/readyz", () => success({ ready: true }));

const listShapes = publicRoute("GET", "/v1/shapes", (ctx) => {
  const paging = readPageRequest(ctx.url.searchParams);
  if (!paging.ok) return fail(400, { [paging.field]: paging.message });
  return success(page(SHAPES, paging.limit, paging.offset));
});

// The one unpaginated list.
const listRootfs = publicRoute("GET", "/v1/rootfs", () =>
  success({ rootfs: [...ROOTFS_IMAGES], default: DEFAULT_ROOTFS }),
);

/** `total` leaves destroyed rows out; failed ones count as "other". */
const whoami = accountRoute("GET", "/v1/whoami", (ctx) => {
  const stats = { running: 0, paused: 0, other: 0, total: 0 };
  for (const sandbox of ctx.world.list(ctx.account)) {
    if (sandbox.status === "destroyed") continue;
    stats.total += 1;
    if (sandbox.status === "running") stats.running += 1;
    else if (sandbox.status === "paused") stats.paused += 1;
    else stats.other += 1;
  }
  return success({ user_id: ctx.account.userId, stats });
});

export const catalogRoutes: Route[] = [healthz, readyz, listShapes, listRootfs, whoami];
