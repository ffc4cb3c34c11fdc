import { rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { chromium, expect, test } from "@playwright/test";
import { createLogger } from "../../electron/core/app/log.js";
import { launchBrowserHost, type RunningBrowserHost } from "../../electron/core/http-host/launch.js";
import { ensureRenderer, RENDERER_DIR } from "../../scripts/build-support.js";
import { CHROMIUM_ARGS, findChromium } from "../../scripts/chromium.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import type { SimStats } from "../../simulator/index.js";

// The browser host is a loopback server that destroys sandboxes on request, so everything else running on
// the operator's machine is a potential caller. These tests attack it the ways a local page or process
// can: no token, a wrong token, a rebinding Host, a foreign Origin, and a page served from another local
// port (in Chromium) that tries fetch, XHR, a form POST, a beacon, EventSource, an image and an iframe,
// even holding the real token and a real plan id. Nothing may run: the simulator sees no write, no job
// or plan appears, and the host logs each refusal (without the token).

let demo: Demo;
let running: RunningBrowserHost;
const logLines: string[] = [];
let planId = "";
let targetSandbox = "";

const sim = async <T>(what: string): Promise<T> =>
  ((await (await fetch(`${demo.simulator.url}/_sim/${what}`)).json()) as { data: T }).data;
const writes = (stats: SimStats) =>
  Object.entries(stats.byRoute)
    .filter(([route]) => !route.startsWith("GET "))
    .reduce((sum, [, outcomes]) => sum + Object.values(outcomes).reduce((a, b) => a + b, 0), 0);

/** A raw request, so that Host, Origin and the token can be anything. */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: running.host.port,
        path,
        method: options.method ?? "POST",
        headers: options.headers ?? {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", reject);
    req.end(options.body ?? "");
  });
}

const legit = (channel: string, body: unknown) =>
  raw(`/api/${channel}`, {
    headers: {
      host: `127.0.0.1:${running.host.port}`,
      "content-type": "application/json",
      "x-leasekeeper-token": running.host.token,
    },
    body: JSON.stringify(body),
  }).then((answer) => JSON.parse(answer.body) as { ok: boolean; data: Record<string, unknown> });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  await ensureRenderer(() => undefined);
  demo = await startDemo({ size: 60, rateLimitPerMinute: 0 });
  running = await launchBrowserHost({
    configPath: demo.configPath,
    version: "e2e",
    rendererDir: RENDERER_DIR,
    demo: true,
    env: { ...process.env, ...demo.keys },
    log: createLogger((line) => logLines.push(line)),
    print: () => undefined,
  });
  // A real plan the attacker would love to execute: destroy a leaking sandbox.
  const leaseId = demo.world.planted.leaking[0] as string;
  targetSandbox = demo.world.ledger.leases.find((lease) => lease.id === leaseId)?.providerLeaseId as string;
  const plan = await legit("actions:plan", {
    action: "destroy",
    selection: { kind: "leases", leaseIds: [leaseId] },
  });
  expect(plan.ok).toBe(true);
  planId = plan.data.planId as string;
});

test.afterAll(async () => {
  await running?.close();
  await demo?.stop();
  if (demo) rmSync(demo.dir, { recursive: true, force: true });
});

test("refuses a request without the token, with a wrong one, with a rebinding Host, or from a foreign Origin", async () => {
  const port = running.host.port;
  const json = { "content-type": "application/json" };
  const host = { host: `127.0.0.1:${port}` };
  const token = { "x-leasekeeper-token": running.host.token };
  const cases: [string, Parameters<typeof raw>[1], number][] = [
    ["no token", { headers: { ...host, ...json } }, 401],
    [
      "a wrong token",
      { headers: { ...host, ...json, "x-leasekeeper-token": `${running.host.token.slice(0, -1)}x` } },
      401,
    ],
    ["an empty token", { headers: { ...host, ...json, "x-leasekeeper-token": "" } }, 401],
    [
      "a rebinding Host, with the token",
      { headers: { host: `rebind.test:${port}`, ...json, ...token } },
      403,
    ],
    [
      "a Host on another port, with the token",
      { headers: { host: `127.0.0.1:${port + 1}`, ...json, ...token } },
      403,
    ],
    [
      "a foreign Origin, with the token",
      { headers: { ...host, ...json, ...token, origin: "https://evil.example" } },
      403,
    ],
    [
      "another local port's Origin, with the token",
      { headers: { ...host, ...json, ...token, origin: `http://127.0.0.1:${port + 1}` } },
      403,
    ],
    ["Origin null, with the token", { headers: { ...host, ...json, ...token, origin: "null" } }, 403],
    [
      "Sec-Fetch-Site cross-site, with the token",
      { headers: { ...host, ...json, ...token, "sec-fetch-site": "cross-site" } },
      403,
    ],
  ];
  const before = logLines.length;
  for (const [what, options, status] of cases) {
    for (const channel of ["app:info", "actions:execute"]) {
      const answer = await raw(`/api/${channel}`, { ...options, body: JSON.stringify({ planId }) });
      expect(answer.status, `${what} on ${channel}`).toBe(status);
    }
  }
  // The events stream: no ticket, a made-up ticket, or the token in the query (never accepted there).
  for (const query of ["", "?ticket=made-up", `?token=${running.host.token}`]) {
    const answer = await raw(`/api/events${query}`, { method: "GET", headers: host });
    expect(answer.status, `events${query.replace(running.host.token, "<token>")}`).toBe(401);
  }
  const refusals = logLines.slice(before).filter((line) => line.includes("browser host refused"));
  expect(refusals.length).toBeGreaterThanOrEqual(cases.length * 2 + 3);
  for (const line of logLines) expect(line).not.toContain(running.host.token);
});

/** The page another local server serves: it tries every way a page has to reach the host. */
function attackPage(hostOrigin: string, token: string, plan: string): string {
  const body = JSON.stringify({ planId: plan, confirmSandboxIds: [], override: true });
  return `<!doctype html><html><body><iframe name="sink"></iframe><script>
const host = ${JSON.stringify(hostOrigin)}, token = ${JSON.stringify(token)}, body = ${JSON.stringify(body)};
const results = {};
const note = (name, outcome) => { results[name] = String(outcome); };
const attempt = async (name, run) => { try { note(name, await run()); } catch (error) { note(name, "blocked: " + error.name); } };
(async () => {
  await attempt("fetch cors json + token", async () => (await fetch(host + "/api/actions:execute", { method: "POST", headers: { "content-type": "application/json", "x-leasekeeper-token": token }, body })).status);
  await attempt("fetch cors plan + token", async () => (await fetch(host + "/api/actions:plan", { method: "POST", headers: { "content-type": "application/json", "x-leasekeeper-token": token }, body: JSON.stringify({ action: "destroy", selection: { kind: "headline", headlines: ["leaking"] } }) })).status);
  await attempt("fetch no-cors text/plain", async () => { const r = await fetch(host + "/api/actions:execute", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body }); return "opaque " + r.type; });
  await attempt("fetch cors read of settings + token", async () => (await (await fetch(host + "/api/settings:get", { method: "POST", headers: { "content-type": "application/json", "x-leasekeeper-token": token }, body: "{}" })).text()));
  await attempt("xhr json + token", () => new Promise((resolve, reject) => { const x = new XMLHttpRequest(); x.open("POST", host + "/api/actions:execute"); x.setRequestHeader("content-type", "application/json"); x.setRequestHeader("x-leasekeeper-token", token); x.onload = () => resolve(x.status); x.onerror = () => reject(new Error("xhr")); x.send(body); }));
  await attempt("beacon", async () => navigator.sendBeacon(host + "/api/actions:execute", new Blob([body], { type: "text/plain" })) ? "queued" : "refused");
  await attempt("form post", () => new Promise((resolve) => { const f = document.createElement("form"); f.method = "POST"; f.enctype = "text/plain"; f.target = "sink"; f.action = host + "/api/actions:execute"; const i = document.createElement("input"); i.name = body.slice(0, -1) + ',"x":"'; i.value = '"}'; f.appendChild(i); document.body.appendChild(f); f.submit(); setTimeout(() => resolve("submitted"), 800); }));
  await attempt("event source", () => new Promise((resolve) => { const s = new EventSource(host + "/api/events"); s.onopen = () => { s.close(); resolve("open"); }; s.onerror = () => { s.close(); resolve("error"); }; }));
  await attempt("ticket via no-cors", async () => { await fetch(host + "/api/events/ticket", { method: "POST", mode: "no-cors", body: "{}" }); return "opaque"; });
  await attempt("image", () => new Promise((resolve) => { const img = new Image(); img.onload = () => resolve("loaded"); img.onerror = () => resolve("error"); img.src = host + "/api/app:info"; }));
  await attempt("iframe of the console", () => new Promise((resolve) => { const f = document.createElement("iframe"); f.src = host + "/#token=" + token; f.onload = () => { try { resolve("readable: " + f.contentWindow.document.body.innerHTML.length); } catch (e) { resolve("unreadable"); } }; document.body.appendChild(f); setTimeout(() => resolve("no load"), 3000); }));
  window.__results = results;
  window.__done = true;
})();
</script></body></html>`;
}

test("a page served from another local port cannot drive the host, even holding the token and a plan id", async ({
  page,
}) => {
  test.setTimeout(90_000);
  const html = attackPage(running.host.origin, running.host.token, planId);
  const attacker: Server = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
  const attackerPort = (attacker.address() as { port: number }).port;
  const statsBefore = await sim<SimStats>("stats");
  const jobsBefore = (await legit("jobs:list", {})).data.jobs as unknown[];
  const plansBefore = (
    (await legit("audit:query", { limit: 10_000 })).data.entries as { kind: string }[]
  ).filter((entry) => entry.kind === "plan").length;
  const logBefore = logLines.length;
  try {
    await page.goto(`http://127.0.0.1:${attackerPort}/`);
    await page.waitForFunction(() => (window as unknown as { __done?: boolean }).__done === true, null, {
      timeout: 60_000,
    });
    const results = await page.evaluate(
      () => (window as unknown as { __results: Record<string, string> }).__results,
    );
    test.info().annotations.push({ type: "attack results", description: JSON.stringify(results) });

    // What the page could see: nothing but refusals, blocked reads and opaque answers.
    expect(results["fetch cors json + token"]).toMatch(/^blocked|^40[13]$/);
    expect(results["fetch cors plan + token"]).toMatch(/^blocked|^40[13]$/);
    expect(results["fetch cors read of settings + token"]).toMatch(/^blocked|^40[13]$/);
    expect(results["xhr json + token"]).toMatch(/^blocked|^40[13]$/);
    expect(results["event source"]).toBe("error");
    expect(results.image).toBe("error");
    expect(results["iframe of the console"]).not.toMatch(/^readable/);
    for (const outcome of Object.values(results)) expect(outcome).not.toMatch(/^200$|"ok":true/);

    // What the host and the simulator saw: no plan, no job, no write; refusals logged.
    await page.waitForTimeout(500);
    const statsAfter = await sim<SimStats>("stats");
    expect(writes(statsAfter)).toBe(writes(statsBefore));
    expect(statsAfter.perSandbox[targetSandbox]?.["DELETE /v1/sandboxes/:id"] ?? 0).toBe(0);
    expect((await legit("jobs:list", {})).data.jobs).toHaveLength(jobsBefore.length);
    const plansAfter = (
      (await legit("audit:query", { limit: 10_000 })).data.entries as { kind: string }[]
    ).filter((entry) => entry.kind === "plan").length;
    expect(plansAfter).toBe(plansBefore);
    const refusals = logLines.slice(logBefore).filter((line) => line.includes("browser host refused"));
    expect(refusals.some((line) => line.includes("foreign origin"))).toBe(true);
    expect(refusals.length).toBeGreaterThanOrEqual(5);
    for (const line of logLines) expect(line).not.toContain(running.host.token);
  } finally {
    await new Promise<void>((resolve) => attacker.close(() => resolve()));
  }
});

test("a rebinding name pointed at 127.0.0.1 gets neither the console nor the API", async () => {
  // Chromium resolves rebind.test to 127.0.0.1, as a DNS-rebinding attacker's name would after the flip.
  const browser = await chromium.launch({
    executablePath: findChromium() ?? undefined,
    args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP rebind.test 127.0.0.1"],
  });
  try {
    const page = await browser.newPage();
    const response = await page.goto(`http://rebind.test:${running.host.port}/#token=${running.host.token}`);
    expect(response?.status()).toBe(403);
    const status = await page.evaluate(async (token) => {
      try {
        const answer = await fetch("/api/app:info", {
          method: "POST",
          headers: { "content-type": "application/json", "x-leasekeeper-token": token },
          body: "{}",
        });
        return answer.status;
      } catch {
        return -1;
      }
    }, running.host.token);
    expect(status).toBe(403);
    expect(logLines.some((line) => line.includes("wrong Host header"))).toBe(true);
  } finally {
    await browser.close();
  }
});
