import { describe, expect, it } from "vitest";
import { computeLeaseRepair, type LeaseRepair, type RepairInput } from "./lease-repair.js";
import type { MarkerProof } from "./marker-proof.js";
import { ownership } from "./ownership.js";
import {
  COMPANY,
  ENV_ID,
  environment,
  MARKER,
  meta,
  NOW,
  ORIGIN,
  OTHER_COMPANY,
  OTHER_ENV_ID,
  row,
} from "./test-fixtures.js";

const LEASE_ID = "44444444-4444-4444-8444-000000000001";
const SEEN = "2026-09-10T11:00:00.123Z";

function provenFor(leaseId = LEASE_ID, overrides: Partial<MarkerProof> = {}): MarkerProof {
  return {
    subject: { kind: "lease", sourceId: "paperclip", leaseId },
    sandboxId: "sbx_1",
    origin: ORIGIN,
    sandboxStatus: "running",
    answer: "proven",
    reason: null,
    owners: [],
    markerPrefix: MARKER.slice(0, 8),
    message: "The sandbox holds this lease's workspace marker: it is this lease's sandbox.",
    readAt: NOW.toISOString(),
    ...overrides,
  };
}

function input(metadata: unknown, overrides: Partial<RepairInput> = {}, rowOverrides = {}): RepairInput {
  return {
    sourceId: "paperclip",
    lease: row({ id: LEASE_ID, metadata, updatedAt: SEEN, ...rowOverrides }),
    environment: environment(),
    proof: provenFor(),
    now: NOW,
    ...overrides,
  };
}

const { marker: _marker, ...withoutMarker } = meta();
const pluginOnly = {
  provider: "createos",
  apiUrl: ORIGIN,
  companyId: COMPANY,
  environmentId: ENV_ID,
  marker: MARKER,
};

describe("what a repair fixes, and what it refuses", () => {
  it.each<[string, RepairInput, string]>([
    ["metadata lost but for the marker", input({ marker: MARKER }), "metadata-missing"],
    ["the old nested schema", input({ providerMetadata: pluginOnly }), "nested-schema"],
    ["the wrong environment", input(meta({ environmentId: OTHER_ENV_ID })), "wrong-environment"],
    ["ownership fields missing", input({ provider: "createos", marker: MARKER }), "fields-missing"],
  ])("repairs %s", (_, given, problem) => {
    const repair = computeLeaseRepair(given);
    expect(repair.ok).toBe(true);
    expect((repair as LeaseRepair).problems).toContain(problem);
  });

  it.each<[string, RepairInput, string]>([
    ["a sandbox that is not proven", input({ marker: MARKER }, { proof: null }), "not-proven"],
    [
      "a sandbox holding another lease's marker",
      input({ marker: MARKER }, { proof: provenFor(LEASE_ID, { answer: "another-lease" }) }),
      "not-proven",
    ],
    [
      "a sandbox whose marker could not be read",
      input({ marker: MARKER }, { proof: provenFor(LEASE_ID, { answer: "cannot-read" }) }),
      "not-proven",
    ],
    [
      "a proof of another row",
      input({ marker: MARKER }, { proof: provenFor("44444444-4444-4444-8444-000000000099") }),
      "not-proven",
    ],
    [
      "another company's metadata",
      input(meta({ companyId: OTHER_COMPANY, environmentId: OTHER_ENV_ID })),
      "foreign-company",
    ],
    ["another provider's metadata", input({ provider: "e2b", marker: MARKER }), "foreign-provider"],
    [
      "metadata naming another API",
      input(meta({ apiUrl: "https://elsewhere.example", environmentId: OTHER_ENV_ID })),
      "recorded-elsewhere",
    ],
    ["a row the plugin already accepts", input(meta()), "nothing-to-repair"],
    ["an orphan row", input({ marker: MARKER }, {}, { environmentId: null }), "orphan-row"],
    ["a row without an update time", input({ marker: MARKER }, {}, { updatedAt: null }), "no-updated-at"],
    [
      "a row that is not Paperclip's",
      input(
        { marker: MARKER },
        { lease: row({ id: "lease-x", metadata: { marker: MARKER }, updatedAt: SEEN }) },
      ),
      "not-a-paperclip-row",
    ],
    [
      "a row the sweep is cleaning up right now",
      input({
        marker: MARKER,
        pendingCleanupInFlight: true,
        pendingCleanupLeaseExpiresAtMs: NOW.getTime() + 60_000,
      }),
      "cleanup-in-flight",
    ],
    [
      "a row whose scan left the host's bookkeeping out",
      input(meta({ environmentId: OTHER_ENV_ID }), {}, { partialMetadata: true }),
      "partial-metadata",
    ],
    [
      "a row whose environment its source could not read",
      input({ marker: MARKER }, { environment: null }, { environmentUnread: true }),
      "environment-unread",
    ],
  ])("refuses %s", (_, given, reason) => {
    const repair = computeLeaseRepair(given);
    expect(repair.ok).toBe(false);
    expect(repair.ok ? null : repair.reason).toBe(reason);
  });
});

describe("the repaired metadata", () => {
  it.each<[string, unknown]>([
    ["lost metadata", { marker: MARKER }],
    ["nested metadata", { providerMetadata: pluginOnly }],
    ["the wrong environment", meta({ environmentId: OTHER_ENV_ID })],
  ])("from %s, is accepted by the plugin's ownership rule", (_, metadata) => {
    const given = input(metadata);
    expect(ownership(given.lease, given.environment)).not.toEqual(["owned"]);
    const repair = computeLeaseRepair(given) as LeaseRepair;
    expect(ownership({ ...given.lease, metadata: repair.metadata }, given.environment)).toEqual(["owned"]);
  });

  it("takes the company and environment from the row, the API from the proof, and keeps the marker", () => {
    const repair = computeLeaseRepair(input({ marker: MARKER }, {}, { companyId: COMPANY })) as LeaseRepair;
    expect(repair.metadata).toMatchObject({
      provider: "createos",
      companyId: COMPANY,
      environmentId: ENV_ID,
      apiUrl: ORIGIN,
      marker: MARKER,
      remoteCwd: "/paperclip-workspace",
      shellCommand: "bash",
    });
    expect(repair.seenUpdatedAt).toBe(SEEN);
  });

  it("takes shape, rootfs, region and reuseLease from the old metadata first, then the environment", () => {
    const fromOld = computeLeaseRepair(
      input({ providerMetadata: { ...pluginOnly, shape: "s-2vcpu-4gb", reuseLease: false } }),
    ) as LeaseRepair;
    expect(fromOld.metadata).toMatchObject({
      shape: "s-2vcpu-4gb",
      reuseLease: false,
      rootfs: null,
      region: null,
    });
    expect(fromOld.fields.find((field) => field.field === "shape")?.from).toBe("old-metadata");
    expect(fromOld.fields.find((field) => field.field === "rootfs")?.from).toBe("environment");

    const bare = computeLeaseRepair(
      input({ marker: MARKER }, { environment: environment({ config: { shape: undefined as never } }) }),
    ) as LeaseRepair;
    expect(bare.unrestorable.map((field) => field.field)).toContain("shape");
  });

  it("says the reuse fingerprint cannot be restored, and what that means", () => {
    const repair = computeLeaseRepair(input({ marker: MARKER })) as LeaseRepair;
    const fingerprint = repair.unrestorable.find((field) => field.field === "reusableSandboxLease");
    expect(fingerprint?.consequence).toMatch(/will not resume .* can release and clean it up/);
    const kept = computeLeaseRepair(
      input(meta({ environmentId: OTHER_ENV_ID, reusableSandboxLease: { version: 1 } })),
    ) as LeaseRepair;
    expect(kept.unrestorable.map((field) => field.field)).not.toContain("reusableSandboxLease");
    expect(kept.metadata.reusableSandboxLease).toEqual({ version: 1 });
  });

  it("loses nothing that was recorded: other keys and the nested object stay", () => {
    const repair = computeLeaseRepair(
      input({ providerMetadata: pluginOnly, agentId: "agent-7" }),
    ) as LeaseRepair;
    expect(repair.metadata.agentId).toBe("agent-7");
    expect(repair.metadata.providerMetadata).toEqual(pluginOnly);
  });

  it("keeps a recorded __proto__ key as data and never as a prototype", () => {
    const hostile = JSON.parse(`{"marker":"${MARKER}","__proto__":{"polluted":true}}`);
    const repair = computeLeaseRepair(input(hostile)) as LeaseRepair;
    expect(Object.getPrototypeOf(repair.metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(repair.metadata)).toContain('"__proto__":{"polluted":true}');
  });

  it("shows the marker only as a prefix in the field list", () => {
    const repair = computeLeaseRepair(input({ marker: MARKER })) as LeaseRepair;
    expect(JSON.stringify(repair.fields)).not.toContain(MARKER);
    expect(JSON.stringify(repair.unrestorable)).not.toContain(MARKER);
  });

  it.each<[string, string, boolean]>([
    ["released", "released", true],
    ["expired", "expired", true],
    ["active: a run may hold it", "active", false],
    ["already pending cleanup", "pending_cleanup", false],
  ])("may be handed back to Paperclip's sweep when %s", (_, status, handBack) => {
    const repair = computeLeaseRepair(input({ marker: MARKER }, {}, { status })) as LeaseRepair;
    expect(repair.handBack.ok).toBe(handBack);
  });

  it("never repairs a row that records no marker, whatever a proof claims", () => {
    const repair = computeLeaseRepair(input({ ...withoutMarker, environmentId: OTHER_ENV_ID }));
    expect(repair.ok ? null : repair.reason).toBe("not-proven");
  });
});
