import { rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../electron/core/app/log.js";
import { type Core, openCore } from "../../electron/core/compose/index.js";
import { dispatch } from "../../electron/core/handlers/table.js";
import { type HttpHost, startHttpHost } from "../../electron/core/http-host/host.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { TOKEN_HEADER } from "../../shared/contract/bridge.js";
import {
  contract,
  INVOKE_CHANNELS,
  type InvokeChannel,
  MAX_ERROR_MESSAGE,
} from "../../shared/contract/index.js";
import { writeFigures } from "../chaos/support/figures.js";
import { CHAOS_SIZE, sized } from "../chaos/support/size.js";
import { HOSTILE_STRINGS, PROTOTYPE_KEYS } from "./corpus.js";
import { ownKeys } from "./support/hostile-world.js";

// Every contract channel, through the real handler table of a real core (demo world, simulator), fed
// malformed and oversized payloads by fast-check: each one the channel's schema refuses is answered
// `invalid-request` with a short message that echoes nothing back; nothing throws, nothing answers
// `internal`; a valid call after each batch still works; nothing reaches Object.prototype. Then a sample
// of the same over the browser host's HTTP: never a 5xx, always a JSON Result, the host keeps serving.

const RUNS = sized(40, 400);
const HTTP_RUNS = sized(120, 1_500);
const context = { host: "test" } as const;

/** A minimal valid request per channel, the seed the mutations start from. */
const VALID: { [C in InvokeChannel]: Record<string, unknown> } = {
  "app:info": {},
  "inventory:get": { environmentId: "env-x", refresh: false },
  "inventory:history": { environmentId: null, offset: 0, limit: 50, search: "x", providers: ["gone"] },
  "leases:detail": { leaseId: "lease-x", sourceId: "ledger" },
  "untracked:list": { credential: "demo account 1", origin: "http://127.0.0.1:1" },
  "markers:prove": {
    leases: [{ leaseId: "lease-x", sourceId: "ledger" }],
    untracked: [{ sandboxId: "sb-x" }],
  },
  "actions:plan": { action: "destroy", selection: { kind: "leases", leaseIds: ["lease-x"] } },
  "actions:execute": { planId: "plan-x", confirmSandboxIds: ["sb-x"], override: false },
  "quarantine:create": { leases: [{ leaseId: "lease-x" }], hours: 24, confirmSandboxIds: [] },
  "quarantine:list": { open: true },
  "quarantine:cancel": { quarantineId: "quarantine-x", resume: false },
  "quarantine:resume": { quarantineId: "quarantine-x" },
  "actions:cancel-plan": { planId: "plan-x" },
  "jobs:list": { state: "completed", action: "destroy", limit: 10 },
  "jobs:get": { jobId: "job-x" },
  "jobs:cancel": { jobId: "job-x" },
  "jobs:retry-failed": { jobId: "job-x" },
  "jobs:resume": { jobId: "job-x" },
  "audit:query": { action: "destroy", limit: 10 },
  "audit:export": { format: "csv", query: { limit: 5 } },
  "settings:get": {},
  "settings:update": { rateLimitPerMinute: 300 },
  "credentials:set": { name: "fuzz", origin: "https://api.example.test", apiKey: "sk-fuzz-0123456789" },
  "credentials:test": { name: "fuzz" },
  "credentials:clear": { name: "fuzz" },
  "sources:test": { source: { kind: "ledger", path: "/nowhere/fuzz.json" } },
  "vault:accept-weak-store": { accept: true },
  "status:get": {},
  "janitor:status": {},
  "janitor:plan": {},
  "janitor:run": { act: false },
};

/** Valid requests of these channels change state (config, vault, a job); the fuzzer never sends one. */
const NEVER_SEND_VALID = new Set<InvokeChannel>([
  "quarantine:create",
  "settings:update",
  "credentials:set",
  "credentials:clear",
  "vault:accept-weak-store",
  "actions:execute",
  "janitor:run",
]);

const hugeString = "h".repeat(1_100_000);
const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom(...HOSTILE_STRINGS.map((entry) => entry.value)),
  fc.string({ minLength: 201, maxLength: 400 }),
  fc.constant(hugeString),
);

function nested(depth: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything({
    maxDepth: 3,
    withBigInt: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withTypedArray: true,
    withSparseArray: true,
    withNullPrototype: true,
    withBoxedValues: true,
    withObjectString: true,
    stringUnit: "binary",
  }),
  hostileString,
  fc.constantFrom(
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1e308,
    -1,
    2 ** 53 + 1,
    0.5,
    true,
    [],
    {},
  ),
  fc
    .tuple(fc.integer({ min: 50, max: 3_000 }), fc.boolean())
    .map(([depth, asArray]) => nested(depth, "deep", asArray)),
  fc.integer({ min: 50_001, max: 60_000 }).map((n) => Array.from({ length: n }, (_, i) => `id-${i}`)),
);

const hostileKey = fc.oneof(
  fc.constantFrom(
    ...PROTOTYPE_KEYS,
    "toString",
    "valueOf",
    "hasOwnProperty",
    "\u202Eevil",
    "k".repeat(10_000),
  ),
  fc.string({ unit: "binary", maxLength: 20 }),
);

/** A valid request with one field (at the top, or one level down) replaced or added. */
function mutations(channel: InvokeChannel): fc.Arbitrary<unknown> {
  const valid = VALID[channel];
  const keys = Object.keys(valid);
  const top = fc
    .tuple(keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), hostileKey) : hostileKey, hostileValue)
    .map(([key, value]) => ownKeys([...Object.entries(valid).filter(([k]) => k !== key), [key, value]]));
  const inner = keys.filter((key) => typeof valid[key] === "object" && valid[key] !== null);
  if (inner.length === 0) return top;
  const deep = fc
    .tuple(fc.constantFrom(...inner), hostileKey, hostileValue)
    .map(([outer, key, value]) =>
      ownKeys([
        ...Object.entries(valid).filter(([k]) => k !== outer),
        [outer, ownKeys([...Object.entries(valid[outer] as Record<string, unknown>), [key, value]])],
      ]),
    );
  return fc.oneof(top, deep);
}

function payloads(channel: InvokeChannel): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 3, arbitrary: mutations(channel) }, { weight: 1, arbitrary: hostileValue });
}

/** The message refuses without repeating the input: short, and free of any long run of it. */
function expectSafeMessage(message: string): void {
  expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE);
  expect(message).not.toMatch(/h{100}|k{100}|W{100}/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  expect(message).not.toMatch(/[\u0000-\u0008\u202E]/);
}

describe(`every contract channel under malformed and oversized payloads (${CHAOS_SIZE})`, () => {
  let demo: Demo;
  let app: Core;
  let host: HttpHost;
  const tried: Record<string, number> = {};
  const refused: Record<string, number> = {};
  let httpTried = 0;
  let crashes = 0;

  beforeAll(async () => {
    demo = await startDemo({ size: 60, rateLimitPerMinute: 0 });
    app = await openCore({
      configPath: demo.configPath,
      mode: "browser",
      version: "fuzz",
      demo: true,
      env: { ...demo.keys },
      autoRefresh: false,
      log: memoryLogger(),
    });
    host = await startHttpHost({
      handlers: app.handlers,
      events: app.events,
      log: app.log,
      rendererDir: null,
    });
  }, 60_000);

  afterAll(async () => {
    await host?.close();
    await app?.close();
    await demo?.stop();
    if (demo) rmSync(demo.dir, { recursive: true, force: true });
    writeFigures("hostile-contract", {
      channels: INVOKE_CHANNELS.length,
      inputsTried: Object.values(tried).reduce((a, b) => a + b, 0) + httpTried,
      inProcess: tried,
      refusedAsInvalid: refused,
      overHttp: httpTried,
      // Handler calls that threw or answered `internal`, and times the core stopped serving: counted.
      crashes,
    });
  });

  const stillServes = async () => {
    const info = await app.handlers["app:info"]({}, context);
    const inventory = await app.handlers["inventory:get"]({}, context);
    if (!info.ok || !inventory.ok) crashes += 1;
    expect(info.ok).toBe(true);
    expect(inventory.ok).toBe(true);
  };

  for (const channel of INVOKE_CHANNELS) {
    it(
      `${channel}: each refused payload gets invalid-request; nothing throws or answers internal`,
      async () => {
        const schema = contract[channel].request;
        await fc.assert(
          fc.asyncProperty(payloads(channel), async (payload) => {
            const accepted = schema.safeParse(payload === undefined ? {} : payload).success;
            if (accepted && NEVER_SEND_VALID.has(channel)) return;
            tried[channel] = (tried[channel] ?? 0) + 1;
            const answer = await app.handlers[channel](payload as never, context).catch((error: unknown) => {
              crashes += 1;
              throw error;
            });
            if (!answer.ok && answer.error.code === "internal") crashes += 1;
            if (!accepted) {
              refused[channel] = (refused[channel] ?? 0) + 1;
              expect(answer.ok).toBe(false);
              if (!answer.ok) {
                expect(answer.error.code).toBe("invalid-request");
                expectSafeMessage(answer.error.message);
              }
            } else if (!answer.ok) {
              expect(answer.error.code, answer.error.message).not.toBe("internal");
              expectSafeMessage(answer.error.message);
            }
          }),
          { numRuns: RUNS, seed: 8_088 },
        );
        await stillServes();
        expect(Object.keys(Object.prototype)).toEqual([]);
      },
      sized(60_000, 600_000),
    );
  }

  it("no oversized value reaches the core: each is refused, or (in a lenient object) stripped", async () => {
    for (const channel of INVOKE_CHANNELS) {
      for (const key of Object.keys(VALID[channel])) {
        for (const value of [
          hugeString,
          Array.from({ length: 60_000 }, () => "x"),
          nested(5_000, "x", false),
        ]) {
          const payload = { ...VALID[channel], [key]: value };
          const parsed = contract[channel].request.safeParse(payload);
          if (parsed.success) {
            // z.object (not strictObject) drops unknown keys: the junk never reaches the call.
            expect(
              JSON.stringify(parsed.data).length,
              `${channel}.${key} let an oversized value through`,
            ).toBeLessThan(10_000);
            continue;
          }
          const answer = await app.handlers[channel](payload as never, context);
          tried[channel] = (tried[channel] ?? 0) + 1;
          expect(answer).toMatchObject({ ok: false, error: { code: "invalid-request" } });
        }
      }
    }
    await stillServes();
  });

  it("a channel name that is not in the contract is refused, whatever it is", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: "binary" }),
          fc.constantFrom(...PROTOTYPE_KEYS, "toString", "hasOwnProperty"),
        ),
        hostileValue,
        async (name, payload) => {
          fc.pre(!(INVOKE_CHANNELS as readonly string[]).includes(name));
          tried["(unknown channel)"] = (tried["(unknown channel)"] ?? 0) + 1;
          expect(await dispatch(app.handlers, name, payload, context)).toMatchObject({
            ok: false,
            error: { code: "invalid-request" },
          });
        },
      ),
      { numRuns: RUNS * 2, seed: 8_089 },
    );
    await stillServes();
  });

  // ── Over HTTP ──────────────────────────────────────────────────────────────────────────────────

  function post(
    pathname: string,
    body: Buffer | string,
    headers: Record<string, string> = {},
    method = "POST",
  ) {
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: host.port,
          path: pathname,
          method,
          headers: { "content-type": "application/json", [TOKEN_HEADER]: host.token, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
          );
        },
      );
      req.on("error", (error: NodeJS.ErrnoException) =>
        // The host may cut an oversized upload short once it has answered 413.
        error.code === "ECONNRESET" || error.code === "EPIPE"
          ? resolve({ status: 413, text: '{"ok":false}' })
          : reject(error),
      );
      req.end(body);
    });
  }

  const expectRefusal = ({ status, text }: { status: number; text: string }, where: string) => {
    expect(status, where).toBeGreaterThanOrEqual(400);
    expect(status, where).toBeLessThan(500);
    const parsed = JSON.parse(text) as { ok: boolean };
    expect(parsed.ok).toBe(false);
  };

  it(
    "over the browser host: malformed bodies are refused with a 4xx JSON Result, never a 5xx",
    async () => {
      const fixed: [string, Buffer | string, Record<string, string>?, string?][] = [
        ["/api/jobs:get", ""],
        ["/api/jobs:get", "null"],
        ["/api/jobs:get", "{"],
        ["/api/jobs:get", Buffer.from([0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28])],
        ["/api/jobs:get", "[".repeat(200_000)],
        ["/api/jobs:get", '{"__proto__":{"polluted":true},"jobId":"j"}'],
        ["/api/actions:plan", '{"constructor":{"prototype":{"polluted":true}}}'],
        ["/api/jobs:get", "x".repeat(1_500_000)],
        ["/api/jobs:get", '{"jobId":"j"}', { "content-type": "text/plain" }],
        ["/api/jobs:get", '{"jobId":"j"}', { "content-type": "application/x-www-form-urlencoded" }],
        ["/api/jobs:get", '{"jobId":"j"}', {}, "PUT"],
        ["/api/__proto__", "{}"],
        ["/api/constructor", "{}"],
        ["/api/..%2f..%2fetc%2fpasswd", "{}"],
        ["/api/jobs:get%00", "{}"],
      ];
      for (const [pathname, body, headers, method] of fixed) {
        expectRefusal(await post(pathname, body, headers, method), `${method ?? "POST"} ${pathname}`);
        httpTried += 1;
      }
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...INVOKE_CHANNELS),
          fc.oneof(
            fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
            fc.string({ unit: "binary", maxLength: 300 }),
            hostileValue.map((value) => {
              try {
                return JSON.stringify(value) ?? "";
              } catch {
                return "{}";
              }
            }),
          ),
          async (channel, body) => {
            httpTried += 1;
            const answer = await post(`/api/${channel}`, body);
            expect(answer.status, `${channel}`).toBeLessThan(500);
            const parsed = JSON.parse(answer.text) as { ok: boolean };
            if (answer.status >= 400) expect(parsed.ok).toBe(false);
          },
        ),
        { numRuns: HTTP_RUNS, seed: 8_090 },
      );
      // Still serving, with the token, and nothing reached Object.prototype.
      const ok = await post("/api/app:info", "{}");
      expect(ok.status).toBe(200);
      expect(Object.keys(Object.prototype)).toEqual([]);
    },
    sized(60_000, 600_000),
  );
});
