import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A small stand-in for a Paperclip instance's read-only REST routes, with the shapes of
 * `server/src/routes/environments.ts` and `companies.ts`: bare JSON arrays and objects, errors as
 * `{ error: "..." }`, a board API key as `Authorization: Bearer`. For tests and local trials only.
 */
export interface FakePaperclipWorld {
  companies: unknown[];
  /** Instance-scoped: every company's environment list returns all of them, as Paperclip does. */
  environments: unknown[];
  /** Raw lease rows by environment id, served as they are (malformed ones included). */
  leasesByEnvironment: Record<string, unknown[]>;
}

export interface FakePaperclipOptions {
  /** When set, every route requires `Authorization: Bearer <token>` (401 otherwise). */
  token?: string;
  /** Environments hidden from non-admins: served with `config: {}` like Paperclip's restricted view. */
  redactConfigs?: boolean;
  /** Answer this many requests to a path (regex source) with the given status and an error body. */
  failures?: { path: string; status: number; body?: string; location?: string }[];
}

export interface FakePaperclip {
  url: string;
  /** Every request's method and path (with query). */
  requests: { method: string; path: string; authorized: boolean }[];
  stop(): Promise<void>;
}

export async function startFakePaperclip(
  world: FakePaperclipWorld,
  options: FakePaperclipOptions = {},
): Promise<FakePaperclip> {
  const requests: FakePaperclip["requests"] = [];

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://paperclip.invalid");
    const authorized =
      options.token === undefined || request.headers.authorization === `Bearer ${options.token}`;
    requests.push({ method: request.method ?? "GET", path: `${url.pathname}${url.search}`, authorized });
    const send = (status: number, body: unknown, extraHeaders: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...extraHeaders });
      response.end(JSON.stringify(body));
    };

    if (!authorized) return send(401, { error: "Board access required" });
    if (request.method !== "GET") return send(405, { error: "Method not allowed" });
    for (const failure of options.failures ?? []) {
      if (new RegExp(failure.path).test(url.pathname)) {
        const headers: Record<string, string> = failure.location ? { location: failure.location } : {};
        return send(failure.status, { error: failure.body ?? "Internal server error" }, headers);
      }
    }

    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    const present = (environment: unknown) =>
      options.redactConfigs ? { ...(environment as object), config: {}, metadata: null } : environment;
    const environmentById = (id: string | undefined) =>
      world.environments.find((environment) => (environment as { id?: unknown }).id === id);

    // GET /api/companies
    if (parts.length === 2 && parts[0] === "api" && parts[1] === "companies")
      return send(200, world.companies);
    // GET /api/companies/:companyId/environments
    if (parts.length === 4 && parts[1] === "companies" && parts[3] === "environments") {
      return send(200, world.environments.map(present));
    }
    // GET /api/environments/:id and /api/environments/:id/leases
    if (
      parts[1] === "environments" &&
      (parts.length === 3 || (parts.length === 4 && parts[3] === "leases"))
    ) {
      const environment = environmentById(parts[2]);
      if (environment === undefined) return send(404, { error: "Environment not found" });
      if (parts.length === 3) return send(200, present(environment));
      return send(200, world.leasesByEnvironment[parts[2]!] ?? []);
    }
    // GET /api/environment-leases/:leaseId
    if (parts.length === 3 && parts[1] === "environment-leases") {
      const lease = Object.values(world.leasesByEnvironment)
        .flat()
        .find((row) => (row as { id?: unknown } | null)?.id === parts[2]);
      return lease === undefined ? send(404, { error: "Environment lease not found" }) : send(200, lease);
    }
    return send(404, { error: "Not found" });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
