import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import { type Channel, READ_CHANNELS } from "../../../shared/contract/index.js";
import {
  generateDemoWorld,
  type Simulator,
  startSimulator,
  writeDemoWorld,
} from "../../../simulator/index.js";
import { type Core, openCore } from "../compose/index.js";
import { type HttpHost, startHttpHost } from "../http-host/host.js";
import { memoryLogger } from "./log.js";

/**
 * Issue 5's promise: no channel, response, event, log line or error ever carries an API key. Every
 * credential gets a recognizable key; one lease row is hand-built to carry a key in innocent-looking
 * fields; a real destroy job runs so the job and audit channels have something to say. Then every read
 * channel is driven through the handler table and through the browser host, and everything that came
 * back (and everything logged or printed) is searched for each key in every encoding.
 */

const CANARY = "lk_SECRET_canary_7f3a";
const VAULT_CANARY = `${CANARY}_vault`;

function formsOf(secret: string): string[] {
  const bytes = Buffer.from(secret);
  return [
    secret,
    bytes.toString("base64"),
    bytes.toString("base64url"),
    bytes.toString("hex"),
    encodeURIComponent(secret),
  ];
}

let simulator: Simulator;
let app: Core;
let host: HttpHost;
let dir: string;
const keys: string[] = [];
const log = memoryLogger();
const seen: string[] = [];
const printed: string[] = [];
const restoreOutput: Array<() => void> = [];
let hostileLeaseId = "";

function capture(stream: NodeJS.WriteStream) {
  const original = stream.write.bind(stream);
  stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    printed.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return original(chunk, ...rest);
  }) as typeof stream.write;
  restoreOutput.push(() => {
    stream.write = original;
  });
}

beforeAll(async () => {
  capture(process.stdout);
  capture(process.stderr);
  const draft = generateDemoWorld({ size: 120, seed: "secret-canary" });
  // Every account's key becomes a recognizable canary.
  const canaryFor = new Map<string, string>();
  draft.fleet.accounts.forEach((account, at) => {
    const key = `${CANARY}_${at}`;
    canaryFor.set(account.apiKey, key);
    account.apiKey = key;
    keys.push(key);
  });
  simulator = await startSimulator({ fleet: draft.fleet, aliasPorts: [0], transitionMs: 20 });
  const world = generateDemoWorld({
    size: 120,
    seed: "secret-canary",
    apiUrl: simulator.url,
    legacyApiUrl: simulator.aliasUrls[0]!,
  });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, key] of Object.entries(world.keys)) env[name] = canaryFor.get(key) ?? key;
  // A hand-built row that carries a key where no key belongs.
  const hostile = world.ledger.leases[0]!;
  hostileLeaseId = hostile.id;
  hostile.metadata = {
    ...(hostile.metadata as Record<string, unknown>),
    note: `copied from a shell: ${keys[0]}`,
    apiKey: keys[0],
    nested: { token: keys[0], deeper: [keys[0]] },
  } as never;
  (hostile as { failureReason: string | null }).failureReason = `request failed with X-Api-Key ${keys[0]}`;
  world.ledger.environments[0]!.name = `prod ${keys[1] ?? keys[0]}`;
  dir = mkdtempSync(path.join(tmpdir(), "lk-canary-"));
  await writeDemoWorld(dir, world);
  app = await openCore({
    configPath: path.join(dir, "leasekeeper.config.json"),
    mode: "browser",
    version: "canary",
    demo: true,
    env,
    log,
    autoRefresh: false,
  });
  app.events.subscribe((channel, payload) => seen.push(`${channel} ${JSON.stringify(payload)}`));
  host = await startHttpHost({ handlers: app.handlers, events: app.events, log: app.log, rendererDir: null });
  keys.push(VAULT_CANARY);
}, 60_000);

afterAll(async () => {
  for (const restore of restoreOutput) restore();
  await host?.close();
  await app?.close();
  await simulator?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function overHttp(channel: string, request: unknown): Promise<string> {
  const response = await fetch(`${host.origin}/api/${channel}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", [TOKEN_HEADER]: host.token },
    body: JSON.stringify(request),
  });
  return response.text();
}

async function drive(channel: Channel, request: unknown): Promise<unknown> {
  const direct = await app.handlers[channel](request, { host: "test" });
  seen.push(`${channel} ${JSON.stringify(direct)}`);
  seen.push(`${channel} (http) ${await overHttp(channel, request)}`);
  return direct;
}

describe("no key ever leaves the main side", () => {
  it("drives every read channel (and a real destroy job) and finds no key anywhere", async () => {
    // A key written from the UI, into the vault.
    const credential = app.settings.config.credentials[0]!;
    const set = await app.handlers["credentials:set"](
      { name: credential.name, origin: credential.origin, apiKey: VAULT_CANARY, saveUnverified: true },
      { host: "test" },
    );
    seen.push(JSON.stringify(set));
    // Put the account's own canary back for scanning (the vault entry would otherwise shadow it).
    const cleared = await app.handlers["credentials:clear"]({ name: credential.name }, { host: "test" });
    seen.push(JSON.stringify(cleared));

    const inventory = (await drive("inventory:get", { refresh: true })) as {
      ok: true;
      data: { leases: { leaseId: string[] } };
    };
    expect(inventory.ok).toBe(true);

    // A real job, so that jobs and audit have entries (and job events flow).
    const planned = (await app.handlers["actions:plan"](
      {
        action: "destroy",
        selection: { kind: "headline", headlines: ["ok", "leaking", "stale", "foreign"] },
      },
      { host: "test" },
    )) as {
      ok: boolean;
      data?: {
        planId: string;
        items: Array<{
          itemId: string;
          sandboxId: string | null;
          confirmation: string | null;
          decision: string;
        }>;
      };
    };
    seen.push(JSON.stringify(planned));
    // The plan and its job are part of what is searched: a run without them would search less and pass.
    expect(planned.ok, JSON.stringify(planned).slice(0, 300)).toBe(true);
    const plan = planned.data!;
    expect(plan.items.filter((item) => item.decision === "do").length).toBeGreaterThan(0);
    // Three of its items, confirmed as an operator would: ids typed back where asked, and the count.
    const kept = plan.items.filter((item) => item.decision === "do").slice(0, 3);
    const executed = (await app.handlers["actions:execute"](
      {
        planId: plan.planId,
        keepItemIds: kept.map((item) => item.itemId),
        confirmSandboxIds: kept
          .filter((item) => item.confirmation === "typed-id")
          .map((item) => item.sandboxId!),
        typedCount: `destroy ${kept.length}`,
      },
      { host: "test" },
    )) as { ok: boolean; data?: { jobId: string } };
    seen.push(JSON.stringify(executed));
    expect(executed.ok, JSON.stringify(executed).slice(0, 300)).toBe(true);
    const jobId = executed.data!.jobId;
    // Until the job has ended; a job not completed when the time is up fails the test.
    await expect
      .poll(
        async () => {
          const job = (await app.handlers["jobs:get"]({ jobId }, { host: "test" })) as {
            ok: boolean;
            data?: { state: string };
          };
          return job.ok ? job.data?.state : "unreadable";
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBe("completed");

    const requests: Record<(typeof READ_CHANNELS)[number], unknown[]> = {
      "app:info": [{}],
      "inventory:get": [{}, { refresh: true }],
      "inventory:history": [
        { environmentId: null, offset: 0, limit: 500 },
        { environmentId: null, offset: 0, limit: 50, search: hostileLeaseId },
      ],
      "leases:detail": [
        { leaseId: hostileLeaseId },
        ...inventory.data.leases.leaseId.slice(0, 40).map((leaseId) => ({ leaseId })),
      ],
      "untracked:list": [{}],
      "quarantine:list": [{}, { open: true }],
      "markers:prove": [
        { leases: inventory.data.leases.leaseId.slice(0, 20).map((leaseId) => ({ leaseId })) },
        { untracked: [{ sandboxId: hostileLeaseId }] },
      ],
      "jobs:list": [{}],
      "jobs:get": [{ jobId }],
      "audit:query": [{}],
      "audit:export": [{ format: "csv" }, { format: "json" }],
      "settings:get": [{}],
      "status:get": [{}],
      "janitor:status": [{}],
      "janitor:plan": [{}],
    };
    for (const channel of READ_CHANNELS) {
      for (const request of requests[channel]) await drive(channel, request);
    }
    for (const credentialEntry of app.settings.config.credentials) {
      await drive("credentials:test", { name: credentialEntry.name });
    }

    // The run did what it says: the hostile row was shown, and job and audit channels had content.
    const everything = [...seen, ...log.lines, ...printed].join("\n");
    expect(everything).toContain(hostileLeaseId);
    expect(everything).toContain("[redacted]");
    expect(everything).toContain(jobId);

    for (const key of keys) {
      for (const form of formsOf(key)) {
        const where = [
          ...seen.map((text) => ["response/event", text] as const),
          ...log.lines.map((text) => ["log", text] as const),
          ...printed.map((text) => ["stdout/stderr", text] as const),
        ].find(([, text]) => text.includes(form));
        expect(
          where,
          `key form ${form.slice(0, 6)}… found in ${where?.[0]}: ${where?.[1].slice(0, 200)}`,
        ).toBeUndefined();
      }
    }
  }, 60_000);

  it("keeps no key in clear (or base64) in any file of the data directory, SQLite's -wal and -shm included", () => {
    const files: string[] = [];
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const full = path.join(folder, name);
        if (statSync(full).isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(app.settings.config.dataDir);
    // The write-ahead log holds the newest pages until a checkpoint: it is where a key would be found.
    expect(
      files.some((file) => file.endsWith("-wal")),
      `the data directory holds ${files.join(", ")}`,
    ).toBe(true);
    // Every key: the accounts' (one sits in a hostile row's metadata and an environment's name) and the vault's.
    expect(keys.length).toBeGreaterThan(1);
    for (const file of files) {
      const content = readFileSync(file).toString("latin1");
      for (const key of keys) {
        for (const form of formsOf(key)) expect(content.includes(form), `${form} in ${file}`).toBe(false);
      }
    }
  });
});
