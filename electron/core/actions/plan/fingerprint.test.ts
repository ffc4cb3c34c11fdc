import { describe, expect, it } from "vitest";
import { keysLeftOutOfScan, scannedMetadata } from "../../../../shared/domain/scanned-metadata.js";
import { meta, row } from "../../../../shared/domain/test-fixtures.js";
import { canonicalJson, leaseFingerprint, untrackedFingerprint } from "./fingerprint.js";

describe("lease fingerprint", () => {
  const base = row({ id: "l1" });

  it("is the same for the same row read twice, whatever order its keys came in", () => {
    const reordered = JSON.parse(
      JSON.stringify({ ...base, metadata: Object.fromEntries(Object.entries(meta()).reverse()) }),
    );
    expect(leaseFingerprint(reordered, "running")).toBe(leaseFingerprint(base, "running"));
  });

  it.each([
    ["status", { status: "active" }],
    ["run", { heartbeatRunId: "run-2" }],
    ["last use", { lastUsedAt: "2026-09-10T11:30:00.000Z" }],
    ["cleanup status", { cleanupStatus: "failed" }],
    ["failure reason", { failureReason: "teardown_failed" }],
    ["sandbox id", { providerLeaseId: "sbx_2" }],
    ["metadata (re-owned)", { metadata: meta({ companyId: "someone-else" }) }],
    ["metadata (sweep claim)", { metadata: meta({ pendingCleanupInFlight: true }) }],
  ])("changes when the %s changes", (_, change) => {
    expect(leaseFingerprint({ ...base, ...change }, "running")).not.toBe(leaseFingerprint(base, "running"));
  });

  it("is the same whether a scan left the host's bookkeeping out or the row was read whole by id", () => {
    const whole = { ...base, metadata: meta({ pluginId: "p", reusableSandboxLease: { version: 1 } }) };
    const scanned = {
      ...whole,
      metadata: scannedMetadata(whole.metadata, keysLeftOutOfScan([])),
      partialMetadata: true as const,
    };
    expect(scanned.metadata).not.toHaveProperty("reusableSandboxLease");
    expect(leaseFingerprint(scanned, "running")).toBe(leaseFingerprint(whole, "running"));
  });

  it("still changes for any other key, and for metadata that is not the plugin's shape", () => {
    const unknown = { ...base, metadata: meta({ addedByHand: 1 }) };
    expect(leaseFingerprint(unknown, "running")).not.toBe(leaseFingerprint(base, "running"));
    // Another schema's object names no owner: it is fingerprinted whole, bookkeeping keys included.
    const foreign = (pluginId: string) => ({ ...base, metadata: { providerMetadata: { x: 1 }, pluginId } });
    expect(leaseFingerprint(foreign("a"), "running")).not.toBe(leaseFingerprint(foreign("b"), "running"));
  });

  it("changes when CreateOS reports another state", () => {
    expect(leaseFingerprint(base, "paused")).not.toBe(leaseFingerprint(base, "running"));
  });

  it("ignores updatedAt, which Paperclip's sweep bumps without changing anything", () => {
    expect(leaseFingerprint({ ...base, updatedAt: "2026-09-10T11:59:00.000Z" }, "running")).toBe(
      leaseFingerprint(base, "running"),
    );
  });

  it("sees a parsed __proto__ key like any other", () => {
    const hostile = JSON.parse('{"__proto__": {"x": 1}, "a": 1}');
    expect(canonicalJson(hostile)).toBe('{"__proto__":{"x":1},"a":1}');
  });

  it("tells untracked sandboxes apart by state", () => {
    const sandbox = { sandboxId: "sbx", origin: "https://o", credential: "k", status: "running" };
    expect(untrackedFingerprint(sandbox)).toBe(untrackedFingerprint({ ...sandbox }));
    expect(untrackedFingerprint({ ...sandbox, status: "paused" })).not.toBe(untrackedFingerprint(sandbox));
  });
});
