import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { authenticate, type PaperclipAuth } from "./auth.js";
import {
  type Answer,
  getEnvironment,
  getLease,
  listCompanies,
  listEnvironments,
  listLeases,
  type ReadContext,
  routeNotFound,
} from "./routes.js";
import { isObject, type JsonObject, type PaperclipWorld, PaperclipWorldError, parseWorld } from "./world.js";

/**
 * A stand-in for a Paperclip instance's read-only REST API, over real HTTP on loopback, for tests and
 * the demo. A test changes the world between requests through the methods below, or through
 * `/_paperclip/*` (loopback only, never authenticated, never recorded).
 */
export interface PaperclipStandInOptions {
  world?: unknown;
  /** Default `local_trusted` (no auth), as a single-user instance on a workstation runs. */
  auth?: PaperclipAuth;
  /**
   * Default true: a lease row or an environment with a value outside Paperclip's enums fails its read
   * with 500, as every Paperclip version read does (`enums.ts`). False serves such rows as given, as a
   * Paperclip build whose enums hold those values would (a fork that writes them).
   */
  strictEnums?: boolean;
  port?: number;
  host?: string;
}

/** Answers requests whose path matches `path` (a regex on the pathname) with `status`, `count` times or always. */
export interface PaperclipFault {
  path: string;
  method?: string;
  status: number;
  count?: number;
  /** Sent as `Location`, as a proxy in front of an instance redirects to its login page. */
  location?: string;
}

export interface RecordedRequest {
  method: string;
  /** Pathname and query. */
  path: string;
  status: number;
  /** Whether the request carried an `Authorization` header (its value is never recorded). */
  bearer: boolean;
}

export interface PaperclipStandIn {
  url: string;
  /** Every `/api` request answered, oldest first. */
  readonly requests: readonly RecordedRequest[];
  clearRequests(): void;
  load(world: unknown): void;
  world(): Required<PaperclipWorld>;
  updateLease(id: string, patch: JsonObject): void;
  updateEnvironment(id: string, patch: JsonObject): void;
  /** Serves this environment broken (a name that is not a string, a config that is not an object). */
  malformEnvironment(id: string): void;
  setFaults(faults: PaperclipFault[]): void;
  stop(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

export async function startPaperclip(options: PaperclipStandInOptions = {}): Promise<PaperclipStandIn> {
  const auth: PaperclipAuth = options.auth ?? { mode: "local_trusted" };
  const strictEnums = options.strictEnums ?? true;
  let world = parseWorld(options.world ?? { companies: [], environments: [], leases: [] });
  const malformed = new Set<string>();
  let faults: PaperclipFault[] = [];
  const requests: RecordedRequest[] = [];

  const rowById = (list: "leases" | "environments", id: string) => {
    const row = (world[list] as JsonObject[]).find((candidate) => candidate.id === id);
    if (!row) throw new PaperclipWorldError(`no ${list === "leases" ? "lease" : "environment"} ${id}`);
    return row;
  };
  const panel = {
    load(input: unknown) {
      world = parseWorld(input);
      malformed.clear();
    },
    world: () => structuredClone(world),
    updateLease(id: string, patch: JsonObject) {
      Object.assign(rowById("leases", id), structuredClone(patch), { id });
    },
    updateEnvironment(id: string, patch: JsonObject) {
      Object.assign(rowById("environments", id), structuredClone(patch), { id });
    },
    malformEnvironment(id: string) {
      rowById("environments", id);
      malformed.add(id);
    },
    setFaults(next: PaperclipFault[]) {
      for (const fault of next) new RegExp(fault.path);
      faults = next.map((fault) => ({ ...fault }));
    },
  };

  const answerApi = (req: IncomingMessage, url: URL): Answer => {
    const method = req.method ?? "GET";
    for (const fault of faults) {
      if ((fault.method ?? method) !== method || !new RegExp(fault.path).test(url.pathname)) continue;
      if (fault.count !== undefined) {
        if (fault.count <= 0) continue;
        fault.count -= 1;
      }
      return {
        status: fault.status,
        body: { error: "Internal server error" },
        ...(fault.location ? { headers: { location: fault.location } } : {}),
      };
    }
    // The actor middleware runs before any route, so a refused token is 401 whatever the path.
    const actor = authenticate(req, auth);
    if (actor.type === "rejected") return { status: 401, body: { error: actor.message } };
    if (method !== "GET") return routeNotFound();
    const ctx: ReadContext = { actor, world, malformed, strictEnums, query: url.searchParams };
    const parts = url.pathname.split("/").slice(2).map(decodeSegment);
    const [first, id, last] = parts;
    if (parts.length === 1 && first === "companies") return listCompanies(ctx);
    if (parts.length === 3 && first === "companies" && last === "environments")
      return listEnvironments(ctx, id ?? "");
    if (parts.length === 2 && first === "environments") return getEnvironment(ctx, id ?? "");
    if (parts.length === 3 && first === "environments" && last === "leases") return listLeases(ctx, id ?? "");
    if (parts.length === 2 && first === "environment-leases") return getLease(ctx, id ?? "");
    return routeNotFound();
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://paperclip.invalid");
    if (url.pathname.startsWith("/_paperclip/")) {
      void control(req, url.pathname, panel).then((answer) => reply(res, answer));
      return;
    }
    if (url.pathname !== "/api" && !url.pathname.startsWith("/api/")) {
      return reply(res, { status: 404, body: { error: "Not found" } });
    }
    const answer = answerApi(req, url);
    requests.push({
      method: req.method ?? "GET",
      path: `${url.pathname}${url.search}`,
      status: answer.status,
      bearer: req.headers.authorization !== undefined,
    });
    reply(res, answer);
  });

  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    requests,
    clearRequests: () => {
      requests.length = 0;
    },
    ...panel,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface ControlPanel {
  load(world: unknown): void;
  world(): Required<PaperclipWorld>;
  updateLease(id: string, patch: JsonObject): void;
  updateEnvironment(id: string, patch: JsonObject): void;
  malformEnvironment(id: string): void;
  setFaults(faults: PaperclipFault[]): void;
}

/** `/_paperclip/*`: the same methods for a test or a script in another process. */
async function control(req: IncomingMessage, pathname: string, panel: ControlPanel): Promise<Answer> {
  if (!LOOPBACK.has(req.socket.remoteAddress ?? ""))
    return { status: 403, body: { error: "control routes answer loopback only" } };
  try {
    const route = `${req.method} ${pathname}`;
    if (route === "GET /_paperclip/world") return { status: 200, body: panel.world() };
    const body = await readJson(req);
    if (route === "PUT /_paperclip/world") panel.load(body);
    else if (route === "PUT /_paperclip/faults") panel.setFaults(faultsFrom(body));
    else {
      const match = /^(PATCH|POST) \/_paperclip\/(leases|environments)\/([^/]+)(\/malformed)?$/.exec(route);
      const id = match?.[3] ? decodeSegment(match[3]) : undefined;
      if (!match || id === undefined) return { status: 404, body: { error: "Not found" } };
      if (match[1] === "POST" && match[2] === "environments" && match[4]) panel.malformEnvironment(id);
      else if (match[1] === "PATCH" && !match[4] && isObject(body)) {
        if (match[2] === "leases") panel.updateLease(id, body);
        else panel.updateEnvironment(id, body);
      } else return { status: 400, body: { error: "expected a JSON object" } };
    }
    return { status: 200, body: { ok: true } };
  } catch (cause) {
    const status = cause instanceof PaperclipWorldError ? 422 : 400;
    return { status, body: { error: (cause as Error).message } };
  }
}

function faultsFrom(body: unknown): PaperclipFault[] {
  const rules = isObject(body) ? body.faults : undefined;
  if (!Array.isArray(rules)) throw new PaperclipWorldError("expected { faults: [...] }");
  return rules.map((rule, index) => {
    if (!isObject(rule) || typeof rule.path !== "string" || !Number.isInteger(rule.status)) {
      throw new PaperclipWorldError(`faults[${index}] needs a path and a status`);
    }
    return rule as unknown as PaperclipFault;
  });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error("the body is not JSON");
  }
}

function reply(res: ServerResponse, answer: Answer): void {
  if (res.headersSent || res.destroyed) return;
  const body = Buffer.from(JSON.stringify(answer.body));
  res.writeHead(answer.status, {
    ...answer.headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(body.length),
  });
  res.end(body);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
