import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../electron/core/cli/run.js";
import type { ScanReport } from "../../electron/core/inventory/report.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { startPaperclip } from "../../simulator/paperclip/index.js";

// Paperclip as it is today, end to end: the Paperclip stand-in over REST, the CreateOS simulator over
// HTTP and `leasekeeper scan --json`, in both environment shapes. The promise under test is the one a
// lease console exists for: a sandbox some row names is never offered as an orphan.

async function scan(configPath: string, env: Record<string, string>): Promise<ScanReport> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(["scan", "--config", configPath, "--json"], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...env },
    cwd: path.dirname(configPath),
  });
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as ScanReport;
}

interface WorldRow {
  id: string;
  companyId: string;
  environmentId: string | null;
  providerLeaseId: string | null;
  metadata: unknown;
}

function recordedCompany(row: WorldRow): unknown {
  const metadata = row.metadata;
  return typeof metadata === "object" && metadata !== null
    ? (metadata as Record<string, unknown>).companyId
    : undefined;
}

describe.each(["instance-scoped", "company-scoped"] as const)("Paperclip with %s environments", (shape) => {
  let demo: Demo | undefined;
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
    await demo?.stop();
    demo = undefined;
  });

  it("reads every lease, judges each by its own row's company, and lists no leased sandbox as untracked", async () => {
    demo = await startDemo({
      size: 160,
      seed: `today-${shape}`,
      rateLimitPerMinute: 0,
      environmentShape: shape,
    });
    const rows = demo.world.ledger.leases as WorldRow[];
    const report = await scan(demo.configPath, demo.keys);

    expect(report.leases.map((lease) => lease.leaseId).sort()).toEqual(rows.map((row) => row.id).sort());
    const leased = new Set(rows.flatMap((row) => (row.providerLeaseId ? [row.providerLeaseId] : [])));
    expect(report.untracked.filter((sandbox) => leased.has(sandbox.sandboxId))).toEqual([]);
    expect(report.untracked.length).toBeGreaterThan(0);

    // A row whose metadata names its own company is never another company's, whichever company it is.
    const byId = new Map(report.leases.map((lease) => [lease.leaseId, lease]));
    const ownCompanyRows = rows.filter((row) => recordedCompany(row) === row.companyId);
    const companiesJudgedOwn = new Set<string>();
    for (const row of ownCompanyRows) {
      const judged = byId.get(row.id)!;
      expect(judged.ownership, row.id).not.toContain("foreign-company");
      if (judged.ownership.includes("owned")) companiesJudgedOwn.add(row.companyId);
    }
    expect(companiesJudgedOwn.size).toBeGreaterThan(1);
  });

  it("calls no sandbox an orphan while an environment cannot be parsed", async () => {
    demo = await startDemo({
      size: 120,
      seed: `gap-${shape}`,
      rateLimitPerMinute: 0,
      environmentShape: shape,
    });
    const complete = await scan(demo.configPath, demo.keys);
    expect(complete.untracked.length).toBeGreaterThan(0);

    const [environment] = demo.paperclip!.world().environments;
    demo.paperclip!.malformEnvironment(environment!.id as string);
    const report = await scan(demo.configPath, demo.keys);

    expect(report.untracked).toEqual([]);
    // Every orphan of the complete read is still reported, as uncertain, beside the sandboxes of the rows
    // the unparsed environment holds: none of them is offered for destroy.
    const uncertain = new Set(report.untrackedUncertain.map((sandbox) => sandbox.sandboxId));
    for (const sandbox of complete.untracked)
      expect(uncertain.has(sandbox.sandboxId), sandbox.sandboxId).toBe(true);
    expect(uncertain.size).toBeGreaterThan(complete.untracked.length);
    for (const sandbox of report.untrackedUncertain) expect(sandbox.reason).toMatch(/incomplete|could not/i);
  });

  it("calls no sandbox an orphan when the board key is shown redacted configs", async () => {
    demo = await startDemo({
      size: 120,
      seed: `hidden-${shape}`,
      rateLimitPerMinute: 0,
      environmentShape: shape,
    });
    const complete = await scan(demo.configPath, demo.keys);
    const world = demo.paperclip!.world();
    // The same instance, read with a member's key instead of an instance admin's: Paperclip shows
    // every environment's config as {}, so nothing says which origin its leases live at.
    const token = "pcp_board_member_key";
    const member = await startPaperclip({
      auth: {
        mode: "authenticated",
        boardKeys: [{ token, instanceAdmin: false, companyIds: world.companies.map((c) => c.id as string) }],
      },
      world,
    });
    stops.push(() => member.stop());
    const config = JSON.parse(await readFile(demo.configPath, "utf8")) as {
      sources: Array<{ url?: string; tokenEnv?: string }>;
    };
    for (const source of config.sources) {
      source.url = member.url;
      source.tokenEnv = "MEMBER_BOARD_KEY";
    }
    const memberConfig = path.join(demo.dir, "member.config.json");
    await writeFile(memberConfig, JSON.stringify(config));

    const report = await scan(memberConfig, { ...demo.keys, MEMBER_BOARD_KEY: token });
    expect(report.untracked).toEqual([]);
    const uncertain = new Set(report.untrackedUncertain.map((sandbox) => sandbox.sandboxId));
    for (const sandbox of complete.untracked)
      expect(uncertain.has(sandbox.sandboxId), sandbox.sandboxId).toBe(true);
    expect(JSON.stringify(report)).not.toContain(token);
  });
});
