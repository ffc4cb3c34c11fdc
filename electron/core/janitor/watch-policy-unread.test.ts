import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { runCli } from "../cli/run.js";
import { METRICS_TOKEN_ENV } from "../http-host/launch.js";
import { readScrape, type Scrape } from "../metrics/testing/scrape.js";
import { readLastPass } from "./pass-state.js";

// `leasekeeper watch` left running while its policy file stops reading as a policy: the pass it cannot
// run is a failed pass like any other, kept as the last pass, told to the webhook the last policy that
// read named (once for the run), and counted in the metrics, with no webhook URL in anything it says.
// The watcher's wait is measured with Date.now, which the test moves past it, so the next pass comes in
// the time of one poll.

let world: World | null = null;
const servers: Server[] = [];
let clockAhead = 0;

afterEach(async () => {
  vi.restoreAllMocks();
  clockAhead = 0;
  await world?.close();
  world = null;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true };
const DESTROY_LEASES = [{ name: "destroy-leases", select: { kind: "lease" }, action: "destroy" }];
const TOKEN = "t".repeat(40);
const NEXT_WAIT = 61_000;

async function receiver(secret: string): Promise<{ url: string; bodies: { text: string }[] }> {
  const bodies: { text: string }[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      bodies.push(JSON.parse(text));
      response.end("ok");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${secret}`, bodies };
}

function writePolicy(w: World, policy: Record<string, unknown>): void {
  writeFileSync(
    path.join(w.dir, "policy.json"),
    JSON.stringify({ version: 1, operator: "night-janitor", rules: DESTROY_LEASES, ...policy }),
  );
}

async function scrape(url: string): Promise<Scrape> {
  const response = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return readScrape(await response.text());
}

describe("leasekeeper watch, its policy file no longer reading", { timeout: 90_000 }, () => {
  it("keeps the pass that did not run as a failed one, tells the last webhook once, and counts it", async () => {
    const w = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    world = w;
    const first = await receiver("T0-secret");
    const later = await receiver("T1-secret");
    writePolicy(w, { webhook: { url: first.url } });
    const dataDir = path.join(w.dir, "data");
    const stopFile = path.join(w.dir, "stop");
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + clockAhead);
    const nextPass = () => setTimeout(() => (clockAhead += NEXT_WAIT), 50);

    let metricsUrl = "";
    const kept: Promise<PassReport | null>[] = [];
    let scraped: Promise<Scrape> | null = null;
    let passes = 0;
    let stdout = "";
    let stderr = "";
    const code = await runCli(
      [
        "watch",
        "--policy",
        "policy.json",
        "--act",
        "--json",
        "--interval",
        "1m",
        "--metrics-port",
        "0",
        "--stop-file",
        stopFile,
      ],
      {
        stdout: {
          write: (text: string) => {
            stdout += text;
            if (!text.includes('"type":"pass"')) return;
            passes += 1;
            if (passes === 1) {
              // The webhook moves to another receiver; this reading reads, so the next pass runs it.
              writePolicy(w, { webhook: { url: later.url } });
            } else if (passes === 2) {
              // Valid JSON, but each URL is a field no policy has: its problems quote both.
              writeFileSync(
                path.join(w.dir, "policy.json"),
                JSON.stringify({
                  version: 1,
                  operator: "night-janitor",
                  rules: DESTROY_LEASES,
                  webhook: { url: later.url },
                  [first.url]: true,
                  [later.url]: true,
                }),
              );
            } else {
              writeFileSync(stopFile, "");
              return;
            }
            nextPass();
          },
        },
        stderr: {
          write: (text: string) => {
            stderr += text;
            const metrics = /metrics on (http:\/\/\S+\/metrics)/.exec(text);
            if (metrics) metricsUrl = metrics[1]!;
            if (!text.includes("no pass ran")) return;
            kept.push(readLastPass(dataDir));
            if (kept.length < 2) {
              nextPass();
              return;
            }
            scraped = scrape(metricsUrl);
            void scraped.finally(() => writeFileSync(stopFile, ""));
          },
        },
        env: { ...w.env, [METRICS_TOKEN_ENV]: TOKEN },
        cwd: w.dir,
      },
    );
    const [once, twice] = await Promise.all(kept);
    const metrics = await scraped!;

    expect(passes).toBe(2);
    expect(await w.statusOf("sb-a")).toBe("destroyed");
    expect(code).toBe(1);

    // The first pass that did not run: kept as the last pass, a failure that says why, and told.
    expect(once).toMatchObject({ operator: "night-janitor", mode: "act", counts: null, plan: null });
    expect(once!.error).toContain("policy.json no longer reads as a policy, so no pass ran");
    expect(once!.error).toContain("unknown field");
    expect(once!.error).toContain("[redacted]");
    expect(once!.failing).toMatchObject({ passes: 1, told: { at: once!.startedAt } });
    expect(once!.webhook).toMatchObject({ sent: true, status: 200 });

    // The second, the same failure: the run goes on and the webhook, told already, is not told again.
    expect(twice!.error).toBe(once!.error);
    expect(twice!.failing).toMatchObject({
      passes: 2,
      since: once!.startedAt,
      told: { at: once!.startedAt },
    });
    expect(twice!.webhook?.skipped).toContain("the same failure as the pass at");

    // Told to the webhook the last policy that read named, once.
    expect(first.bodies).toHaveLength(1);
    expect(later.bodies).toHaveLength(1);
    expect(later.bodies[0]!.text).toContain("no pass ran");
    expect(metrics.value("leasekeeper_policy_passes_total", { outcome: "failed" })).toBe(2);

    // Neither URL's token in the report, the webhook's body, stdout or stderr.
    const said = [JSON.stringify(once), JSON.stringify(twice), JSON.stringify(later.bodies), stdout, stderr];
    for (const text of said) {
      expect(text).not.toContain("T0-secret");
      expect(text).not.toContain("T1-secret");
    }
    expect(stderr).toContain("[redacted]");
  });
});
