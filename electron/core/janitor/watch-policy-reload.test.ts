import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { runCli } from "../cli/run.js";

// `leasekeeper watch` left running, as a unit runs it, while its policy file changes under it: every pass
// acts on the file as it is then. The wait between passes is a minute at least; the watcher measures it
// with Date.now, which these tests move past it, so a second pass comes in the time of one poll.

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
const MINUTE = 60_000;

function writePolicy(w: World, policy: Record<string, unknown>): void {
  writeFileSync(
    path.join(w.dir, "policy.json"),
    JSON.stringify({ version: 1, operator: "night-janitor", rules: DESTROY_LEASES, ...policy }),
  );
}

/** sb-a and sb-b, each a released lease's; lease-b is written to the ledger only when `addLeaseB` is called. */
async function twoLeaseWorld(): Promise<{ w: World; addLeaseB: () => void }> {
  const w = await buildWorld({
    sandboxes: [{ id: "sb-a" }, { id: "sb-b" }],
    environments: [ENV],
    leases: [
      { id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" },
      { id: "lease-b", environmentId: "env-1", sandboxId: "sb-b" },
    ],
  });
  const leaseB = w.ledger.leases.pop()!;
  w.writeLedger();
  return {
    w,
    addLeaseB: () => {
      w.ledger.leases.push(leaseB);
      w.writeLedger();
    },
  };
}

type PassLine = PassReport & { type: "pass" };
/** What the test does when the watcher has said something: wait out the next interval, or stop it. */
type Next = { wait: number } | "stop" | "nothing";

interface Watched {
  code: number;
  passes: PassLine[];
  stdout: string;
  stderr: string;
}

/**
 * `leasekeeper watch --act --json --stop-file stop` in this process, left to loop. After each pass line
 * (`onPass`, counted from 1) and each line on stderr (`onStderr`), the test may move the clock `wait`
 * past the watcher's wait, or write the stop file, which the watcher finds within its poll. A pass the
 * test did not expect stops it too, so a watcher that does something else ends instead of hanging.
 */
async function watchLoop(
  w: World,
  args: string[],
  onPass: (n: number, pass: PassLine) => Next,
  onStderr: (text: string) => Next = () => "nothing",
): Promise<Watched> {
  const realNow = Date.now.bind(Date);
  vi.spyOn(Date, "now").mockImplementation(() => realNow() + clockAhead);
  const stopFile = path.join(w.dir, "stop");
  const follow = (next: Next) => {
    if (next === "stop") writeFileSync(stopFile, "");
    // Moved once the watcher has begun to wait: the line is written just before the wait starts.
    else if (next !== "nothing") setTimeout(() => (clockAhead += next.wait), 50);
  };
  const passes: PassLine[] = [];
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    ["watch", "--policy", "policy.json", "--act", "--json", "--stop-file", stopFile, ...args],
    {
      stdout: {
        write: (text: string) => {
          stdout += text;
          for (const line of text.split("\n").filter((part) => part.length > 0)) {
            const said = JSON.parse(line) as { type: string };
            if (said.type !== "pass") continue;
            passes.push(said as PassLine);
            follow(onPass(passes.length, said as PassLine));
          }
        },
      },
      stderr: {
        write: (text: string) => {
          stderr += text;
          follow(onStderr(text));
        },
      },
      env: w.env,
      cwd: w.dir,
    },
  );
  return { code, passes, stdout, stderr };
}

async function receiver(secret: string): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
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

// Two or three passes each, a few seconds apiece on a loaded machine: more than the default 30 s allows.
describe("leasekeeper watch, its policy file changed while it runs", { timeout: 90_000 }, () => {
  it("a policy narrowed to select nothing stops the next pass acting", async () => {
    const { w, addLeaseB } = await twoLeaseWorld();
    world = w;
    writePolicy(w, {});
    const run = await watchLoop(w, ["--interval", "1m"], (n) => {
      if (n > 1) return "stop";
      writePolicy(w, { rules: [] });
      addLeaseB();
      return { wait: MINUTE + 1_000 };
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.passes).toHaveLength(2);
    expect(run.passes[0]!.counts).toMatchObject({ selected: 1, done: 1 });
    expect(run.passes[1]!.counts).toMatchObject({ selected: 0, done: 0 });
    expect(await w.statusOf("sb-a")).toBe("destroyed");
    expect(await w.statusOf("sb-b")).toBe("running");
  });

  it("a policy file that no longer reads runs no pass, says why, and the next good one runs", async () => {
    const { w, addLeaseB } = await twoLeaseWorld();
    world = w;
    writePolicy(w, {});
    const whileBroken: Promise<string | null>[] = [];
    const run = await watchLoop(
      w,
      ["--interval", "1m"],
      (n) => {
        if (n > 1) return "stop";
        writeFileSync(path.join(w.dir, "policy.json"), '{ "version": 1, "operator": ');
        addLeaseB();
        return { wait: MINUTE + 1_000 };
      },
      (text) => {
        if (!text.includes("no pass ran")) return "nothing";
        whileBroken.push(w.statusOf("sb-b"));
        // Twice unreadable, then readable again: the watcher goes on from interval to interval.
        if (whileBroken.length === 2) writePolicy(w, {});
        return { wait: MINUTE + 1_000 };
      },
    );
    expect(await Promise.all(whileBroken)).toEqual(["running", "running"]);
    expect(run.stderr.match(/policy\.json no longer reads as a policy, so no pass ran/g)).toHaveLength(2);
    expect(run.stderr).toContain("line 1, column 29: the file is not valid JSON: expected a value");
    expect(run.passes).toHaveLength(2);
    expect(run.passes[1]!.counts).toMatchObject({ selected: 1, done: 1 });
    expect(await w.statusOf("sb-b")).toBe("destroyed");
    // Passes that did not run are failures: the exit code says so.
    expect(run.code).toBe(1);
  });

  it("stops, saying why, when the policy names another operator", async () => {
    const { w, addLeaseB } = await twoLeaseWorld();
    world = w;
    writePolicy(w, {});
    const run = await watchLoop(w, ["--interval", "1m"], (n) => {
      if (n > 1) return "stop";
      writePolicy(w, { operator: "day-janitor" });
      addLeaseB();
      return { wait: MINUTE + 1_000 };
    });
    expect(run.passes).toHaveLength(1);
    expect(run.stderr).toContain('"day-janitor"');
    expect(run.stderr).toContain('"night-janitor"');
    expect(run.code).toBe(2);
    expect(await w.statusOf("sb-b")).toBe("running");
  });

  it("tells a webhook named later, and never says its URL", async () => {
    const { w, addLeaseB } = await twoLeaseWorld();
    world = w;
    const first = await receiver("T0-secret");
    const later = await receiver("T1-secret");
    writePolicy(w, { webhook: { url: first.url } });
    const run = await watchLoop(w, ["--interval", "1m"], (n) => {
      if (n > 1) return "stop";
      // A rule named with the URL: the pass's lines name their rule, so only the redactor keeps it out.
      writePolicy(w, {
        rules: [{ name: `to ${later.url}`, select: { kind: "lease" }, action: "destroy" }],
        webhook: { url: later.url },
      });
      addLeaseB();
      return { wait: MINUTE + 1_000 };
    });
    expect(run.code).toBe(0);
    expect(run.passes).toHaveLength(2);
    expect(await w.statusOf("sb-b")).toBe("destroyed");
    expect(first.bodies).toHaveLength(1);
    expect(later.bodies).toHaveLength(1);
    expect(run.passes[1]!.webhook).toMatchObject({ sent: true, status: 200 });
    expect(run.stdout).toContain("[redacted]");
    expect(run.stdout + run.stderr).not.toContain("T1-secret");
    expect(run.stdout + run.stderr).not.toContain("T0-secret");
  });

  it("waits the interval the policy says now, from the wait after the pass that read it", async () => {
    const { w } = await twoLeaseWorld();
    world = w;
    writePolicy(w, { rules: [], interval: "1m" });
    let passes = 0;
    let passesAMinuteAfterTheSecond = -1;
    const run = await watchLoop(w, [], (n) => {
      passes = n;
      if (n === 1) {
        writePolicy(w, { rules: [], interval: "1d" });
        return { wait: MINUTE + 1_000 };
      }
      if (n > 2) return "stop";
      // A minute past the wait that began now, and two polls more: a one-minute wait would be over.
      setTimeout(() => {
        passesAMinuteAfterTheSecond = passes;
        clockAhead += 24 * 60 * MINUTE;
      }, 2_500);
      return { wait: MINUTE + 1_000 };
    });
    expect(run.code).toBe(0);
    expect(passesAMinuteAfterTheSecond).toBe(2);
    expect(run.passes).toHaveLength(3);
  });
});
