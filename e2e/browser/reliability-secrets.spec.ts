import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, type Page, test } from "@playwright/test";
import { type FakePaperclip, startFakePaperclip } from "../../electron/core/leases/testing/fake-paperclip.js";
import { ensureRenderer } from "../../scripts/build-support.js";
import { generateDemoWorld, type Simulator, startSimulator, writeDemoWorld } from "../../simulator/index.js";
import { LEASE_ROW } from "../support/leasekeeper.js";
import { typeCountIfAsked } from "./operator.js";

// A recognizable key for every credential Leasekeeper handles: each CreateOS account's API key, a key the
// provider refuses (to provoke 401s), a Paperclip board token, the vault passphrase, and a key typed into
// the settings form. The real browser host runs as its own process (`electron/serve.ts`) so its stdout and
// stderr are captured whole. An end-to-end run records every contract response, every server-sent event,
// the DOM and local/session storage after each view, the console, the host's output, the audit export
// (CSV and JSON, downloaded from the page) and the error messages of 401s and 5xx — and finds no key, in
// any of its encodings, anywhere. The vault file holds the typed key only sealed.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const canary = (credential: string) => `lk_CANARY_${credential}_9f2c`;

interface Canaries {
  [name: string]: string;
}

let simulator: Simulator;
let paperclip: FakePaperclip;
let host: ChildProcess;
let hostOutput = "";
let hostUrl = "";
let dir = "";
let dataDir = "";
const keys: Canaries = {};
let plantedLeaseId = "";

function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  return [
    secret,
    bytes.toString("base64"),
    bytes.toString("base64").replace(/=+$/, ""),
    bytes.toString("base64url"),
    bytes.toString("hex"),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    // The distinctive middle of the key, in case something cut it up.
    secret.slice(3, -5),
  ];
}

/** Every place a key was found, as "where: which key (which form)". */
function leaks(where: string, text: string): string[] {
  const found: string[] = [];
  for (const [name, secret] of Object.entries(keys)) {
    for (const form of encodings(secret)) if (text.includes(form)) found.push(`${where}: ${name} (${form})`);
  }
  return found;
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  await ensureRenderer(() => undefined);
  dir = mkdtempSync(path.join(tmpdir(), "leasekeeper-secrets-"));

  // The demo world with every account's key replaced by a canary.
  const draft = generateDemoWorld({ size: 80, seed: "secrets" });
  const keyFor = new Map<string, string>();
  for (const [env, key] of Object.entries(draft.keys)) {
    keys[env] = canary(env.toLowerCase());
    keyFor.set(key, keys[env] as string);
  }
  const fleet = {
    ...draft.fleet,
    accounts: draft.fleet.accounts.map((account) => ({
      ...account,
      apiKey: keyFor.get(account.apiKey) ?? account.apiKey,
    })),
  };
  simulator = await startSimulator({ fleet, aliasPorts: [0], rateLimitPerMinute: 0, transitionMs: 30 });
  const world = generateDemoWorld({
    size: 80,
    seed: "secrets",
    apiUrl: simulator.url,
    legacyApiUrl: simulator.aliasUrls[0] as string,
  });
  await writeDemoWorld(dir, world);

  // A Paperclip instance with a board token, serving the first environment's rows.
  keys.PAPERCLIP_TOKEN = canary("paperclip");
  const environment = world.ledger.environments[0] as { id: string; companyId: string };
  paperclip = await startFakePaperclip(
    {
      companies: [{ id: environment.companyId, name: "Canary company" }],
      environments: [environment],
      leasesByEnvironment: {
        [environment.id]: world.ledger.leases.filter((lease) => lease.environmentId === environment.id),
      },
    },
    { token: keys.PAPERCLIP_TOKEN },
  );
  keys.LK_REVOKED_KEY = canary("revoked");
  keys.LEASEKEEPER_VAULT_PASSPHRASE = canary("passphrase");
  keys.TYPED = canary("typed-in-settings");

  // A key planted where an operator's data could carry one: a failure reason and a metadata field, on a
  // healthy warm row (so only the second test, which opens and destroys it, goes near it).
  const ledgerFile = path.join(dir, "ledger.json");
  const ledger = JSON.parse(readFileSync(ledgerFile, "utf8")) as { leases: Record<string, unknown>[] };
  plantedLeaseId = world.planted["owned-paused-warm"][0] as string;
  const planted = ledger.leases.find((lease) => lease.id === plantedLeaseId) as Record<string, unknown>;
  planted.failureReason = `worker said: bad key ${keys[Object.keys(draft.keys)[0] as string]}`;
  planted.metadata = { ...(planted.metadata as object), note: `copied ${keys.PAPERCLIP_TOKEN} here` };
  writeFileSync(ledgerFile, JSON.stringify(ledger));

  const configFile = path.join(dir, "leasekeeper.config.json");
  const config = JSON.parse(readFileSync(configFile, "utf8")) as {
    sources: unknown[];
    credentials: unknown[];
    dataDir: string;
  };
  config.sources.push({ kind: "paperclip", url: paperclip.url, tokenEnv: "PAPERCLIP_TOKEN" });
  config.credentials.push({ name: "revoked account", origin: simulator.url, apiKeyEnv: "LK_REVOKED_KEY" });
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  dataDir = path.resolve(dir, config.dataDir);

  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(keys)) if (name !== "TYPED") env[name] = value;
  host = spawn(
    path.join(ROOT, "node_modules", ".bin", "tsx"),
    [path.join(ROOT, "electron", "serve.ts"), "--config", configFile, "--no-build"],
    {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  host.stdout?.on("data", (chunk: Buffer) => {
    hostOutput += chunk.toString("utf8");
  });
  host.stderr?.on("data", (chunk: Buffer) => {
    hostOutput += chunk.toString("utf8");
  });
  const deadline = Date.now() + 60_000;
  while (!/serving on (http:\S+)/.test(hostOutput)) {
    if (Date.now() > deadline || host.exitCode !== null)
      throw new Error(`the host did not start:\n${hostOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  hostUrl = /serving on (http:\S+)/.exec(hostOutput)?.[1] as string;
});

test.afterAll(async () => {
  if (host && host.exitCode === null) {
    const exited = new Promise((resolve) => host.once("exit", resolve));
    host.kill("SIGTERM");
    await exited;
  }
  await paperclip?.stop();
  await simulator?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every server-sent event the page receives, recorded before the app's own listener sees it. */
async function recordEvents(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __events: string[] }).__events = seen;
    const Original = window.EventSource;
    window.EventSource = class extends Original {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        for (const type of ["message", "jobs:event", "inventory:changed", "app:command"]) {
          this.addEventListener(type, (event) => seen.push(`${type} ${(event as MessageEvent).data}`));
        }
      }
    } as typeof EventSource;
  });
}

/** The raw event stream as a second subscriber sees it, bought with the token like the page does. */
function tapEvents(): { text: () => string; stop: () => void } {
  const origin = new URL(hostUrl).origin;
  const token = new URL(hostUrl).hash.replace("#token=", "");
  let text = "";
  let stop = () => {};
  void (async () => {
    const ticket = (await (
      await fetch(`${origin}/api/events/ticket`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-leasekeeper-token": token },
        body: "{}",
      })
    ).json()) as { data: { ticket: string } };
    const req = httpRequest(
      `${origin}/api/events?ticket=${encodeURIComponent(ticket.data.ticket)}`,
      (res) => {
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
      },
    );
    req.on("error", () => undefined);
    req.end();
    stop = () => req.destroy();
  })();
  return { text: () => text, stop: () => stop() };
}

test("no key, in any encoding, appears in responses, events, the DOM, storage, logs, exports or errors", async ({
  page,
}) => {
  test.setTimeout(240_000);
  const found: string[] = [];
  const responses: string[] = [];
  const consoleLines: string[] = [];
  const snapshots: string[] = [];
  page.on("console", (message) => consoleLines.push(message.text()));
  page.on("response", async (response) => {
    if (!response.url().includes("/api/") || response.url().includes("/api/events?")) return;
    try {
      responses.push(`${response.url()} ${response.status()} ${await response.text()}`);
    } catch {
      // a body gone with a navigation held nothing either
    }
  });
  await recordEvents(page);
  const stream = tapEvents();

  const snapshot = async (view: string) => {
    const html = await page.content();
    const storage = await page.evaluate(() =>
      JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }),
    );
    snapshots.push(view);
    found.push(...leaks(`DOM (${view})`, html), ...leaks(`storage (${view})`, storage));
  };

  await page.goto(hostUrl);
  await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 30_000 });
  await snapshot("leases");

  // A lease's detail (not the row with planted keys: the next test is about that one).
  const rows = page.locator(LEASE_ROW);
  const other = await rows.evaluateAll(
    (all, planted) => all.findIndex((row) => row.getAttribute("data-lease-id") !== planted),
    plantedLeaseId,
  );
  await rows.nth(other).click();
  await expect(page.getByTestId("lease-drawer")).toBeVisible();
  await snapshot("lease detail");
  await page.keyboard.press("Escape");

  for (const view of ["pictures", "audit", "settings"]) {
    const before = await page.getByTestId("view-title").textContent();
    await page.getByTestId(`nav-${view}`).click();
    // The view is shown and its data loaded: the title changed and no placeholder is left.
    await expect(page.getByTestId("view-title")).not.toHaveText(before ?? "");
    await expect(page.getByTestId("skeleton")).toHaveCount(0);
    await snapshot(view);
  }

  // Settings: a key typed in (stored in the vault), then tested: the provider refuses it (401).
  await page.getByTestId("credential-name").fill("typed account");
  await page.getByTestId("credential-origin").fill(simulator.url);
  await page.getByTestId("credential-key").fill(keys.TYPED as string);
  await page.getByTestId("credential-save").click();
  // The provider refuses the key, so it is kept only by choosing "Save anyway"; that puts it in the vault.
  await expect(page.getByTestId("credential-result")).toHaveAttribute("data-outcome", "refused", {
    timeout: 15_000,
  });
  await snapshot("settings after a refused key");
  await page.getByTestId("credential-save-anyway").click();
  await expect(page.getByTestId("credential-result")).toHaveAttribute("data-outcome", "saved-unverified");
  await snapshot("settings after saving a key");
  for (const name of ["typed account", "revoked account"]) {
    const row = page.locator(`[data-testid="credential-row"][data-name="${name}"]`);
    if ((await row.count()) === 0) continue;
    await row.getByTestId("credential-test").click();
    await expect(row.getByTestId("credential-test-result")).toBeVisible({ timeout: 15_000 });
    await snapshot(`settings after testing ${name}`);
  }

  // CreateOS failing: 503s on every call, a refresh, the error states.
  simulator.setFaults([{ path: "^/v1/", status: 503, retryAfterSeconds: 0 }]);
  await page.getByTestId("sidebar-all").click();
  await page.getByTestId("refresh").click();
  await expect(page.locator(`${LEASE_ROW}[data-provider="unknown"]`).first()).toBeVisible({
    timeout: 20_000,
  });
  await snapshot("leases while CreateOS answers 503");
  simulator.setFaults([]);
  // The footer's title carries the scan's sentence (the same while an account stays refused), so the
  // time of the refresh is what shows that a new inventory arrived.
  const refreshedBefore = await page.getByTestId("last-refresh").getAttribute("data-refreshed-at");
  await page.getByTestId("refresh").click();
  // A new inventory has arrived: the last refresh moved on, and nothing is refreshing.
  await expect(page.getByTestId("last-refresh")).not.toHaveAttribute(
    "data-refreshed-at",
    refreshedBefore ?? "",
    {
      timeout: 20_000,
    },
  );
  await expect(page.getByTestId("refresh")).toHaveText("Refresh");

  // A destroy job over the leaking rows, one DELETE failing with 500: progress events, the failure message.
  await page.getByTestId("filter-headline-leaking").click();
  await page.getByTestId("select-all-matching").click();
  await page.getByTestId("bulk-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 15_000 });
  await snapshot("plan dialog");
  simulator.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", status: 500, count: 3 }]);
  await typeCountIfAsked(dialog);
  await dialog.getByTestId("confirm-button").click();
  const panel = page.getByTestId("progress-panel").last();
  await expect(panel).toHaveAttribute("data-state", /completed|cancelled/, { timeout: 60_000 });
  simulator.setFaults([]);
  await snapshot("progress after the job");

  // The audit, exported from the page as CSV and JSON.
  await page.getByTestId("nav-audit").click();
  await expect(page.getByTestId("audit-row").first()).toBeVisible({ timeout: 15_000 });
  await snapshot("audit with entries");
  for (const format of ["csv", "json"]) {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByTestId(`audit-export-${format}`).click(),
    ]);
    const file = await download.path();
    const content = file ? readFileSync(file, "utf8") : "";
    expect(content.length, `the ${format} export`).toBeGreaterThan(100);
    found.push(...leaks(`audit export (${format})`, content));
  }

  await page.waitForTimeout(500);
  stream.stop();
  const pageEvents = await page.evaluate(() =>
    (window as unknown as { __events: string[] }).__events.join("\n"),
  );
  expect(pageEvents.length, "the page received events").toBeGreaterThan(0);
  expect(stream.text()).toContain("event: jobs:event");
  found.push(...leaks("server-sent events (page)", pageEvents));
  found.push(...leaks("server-sent events (stream)", stream.text()));
  for (const response of responses) found.push(...leaks(`response ${response.slice(0, 80)}`, response));
  found.push(...leaks("browser console", consoleLines.join("\n")));
  found.push(...leaks("host stdout/stderr", hostOutput));

  // The vault on disk holds the typed key only sealed (its key file is random bytes, not a secret of ours).
  const files = existsSync(dataDir) ? readdirSync(dataDir) : [];
  for (const name of files.filter((file) => file.startsWith("vault"))) {
    const content = readFileSync(path.join(dataDir, name)).toString("latin1");
    found.push(...leaks(`file ${name}`, content));
  }
  const vault = files.find((name) => name === "vault.json");
  test.info().annotations.push({
    type: "recorded",
    description: `${responses.length} responses, ${pageEvents.split("\n").length} events, ${snapshots.length} views, ${files.length} files (${vault ? "vault written" : "no vault"}), ${hostOutput.length} bytes of host output`,
  });

  expect(vault, "the key typed into settings was stored in the vault file").toBeDefined();
  expect(responses.length).toBeGreaterThan(20);
  expect(responses.some((line) => /" 401 | 401 /.test(line) || line.includes("unauthorized"))).toBe(true);
  expect(found).toEqual([]);
});

// BUG (found here): the redactor knows the CreateOS keys but not the Paperclip board token, so a token that
// a row's data happens to carry (here a metadata note) is shown in the lease detail, kept in the DOM and
// written into the audit evidence; docs/security.md promises no key "even planted in lease metadata".
test("a key planted in a row's data is withheld from the detail, the DOM and the audit export", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const found: string[] = [];
  await page.goto(hostUrl);
  await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 30_000 });
  await page.getByTestId("search").fill(plantedLeaseId);
  const row = page.locator(`${LEASE_ROW}[data-lease-id="${plantedLeaseId}"]`);
  await expect(row).toBeVisible();
  await row.click();
  await expect(page.getByTestId("lease-drawer")).toBeVisible();
  // The detail has loaded: the drawer shows no placeholder.
  await expect(page.getByTestId("lease-drawer").getByTestId("skeleton")).toHaveCount(0);
  found.push(...leaks("DOM (planted row's detail)", await page.content()));

  // Destroy it, then read the audit export: the item's evidence is the row's metadata.
  const exported = await page.evaluate(async (leaseId) => {
    const token = sessionStorage.getItem("leasekeeper.token") ?? "";
    const call = async (channel: string, body: unknown) =>
      (await (
        await fetch(`/api/${channel}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-leasekeeper-token": token },
          body: JSON.stringify(body),
        })
      ).json()) as {
        ok: boolean;
        data: Record<string, unknown>;
      };
    const detail = JSON.stringify(await call("leases:detail", { leaseId }));
    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [leaseId] },
    });
    const job = await call("actions:execute", { planId: plan.data.planId });
    let ended = false;
    for (let i = 0; i < 100 && !ended; i++) {
      const current = await call("jobs:get", { jobId: job.data.jobId });
      ended = current.data.state !== "running";
      if (!ended) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A job still running after ten seconds fails the test rather than searching an export without it.
    if (!ended) throw new Error(`job ${job.data.jobId} was still running`);
    const json = await call("audit:export", { format: "json" });
    const csv = await call("audit:export", { format: "csv" });
    return { detail, json: String(json.data.content), csv: String(csv.data.content) };
  }, plantedLeaseId);
  found.push(...leaks("leases:detail of the planted row", exported.detail));
  found.push(...leaks("audit export (json)", exported.json), ...leaks("audit export (csv)", exported.csv));
  expect(exported.json).toContain(plantedLeaseId);
  expect(found).toEqual([]);
});
