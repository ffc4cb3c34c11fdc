import { describe, expect, it } from "vitest";
import type { PlanRequest } from "../../../../shared/domain/actions.js";
import { REFUSAL_MESSAGES } from "../../../../shared/domain/allowed-actions.js";
import { PLUGIN_MESSAGES } from "../../../../shared/domain/codes.js";
import type { SandboxListing } from "../../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceGap } from "../../../../shared/domain/paperclip.js";
import { reconcile } from "../../../../shared/domain/reconcile.js";
import {
  COMPANY,
  ENV_ID,
  environment,
  failedListing,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  OTHER_ENV_ID,
  okListing,
  row,
  sandbox,
} from "../../../../shared/domain/test-fixtures.js";
import { gateItem } from "../jobs/item-gate.js";
import { buildPlan } from "./build-plan.js";
import { leaseFingerprint } from "./fingerprint.js";

// The plan rules as a table: one lease (or untracked sandbox) in a small inventory, one action, and
// what the plan says about it. Inventories are built by the real reconcile(), so the verdicts are the
// ones the product shows.

function inventoryOf(options: {
  leases: LeaseRow[];
  environments?: Environment[];
  listings?: SandboxListing[];
  companies?: { id: string; name: string }[];
  gaps?: SourceGap[];
}) {
  return reconcile({
    snapshots: [
      {
        sourceId: "ledger",
        environments: options.environments ?? [environment()],
        leases: options.leases,
        companies: options.companies ?? [],
        problems: [],
        gaps: options.gaps ?? [],
      },
    ],
    listings: options.listings ?? [okListing(ORIGIN, "key-a", [sandbox("sbx_1", "running")])],
    now: NOW,
    requests: 1,
  });
}

function planFor(request: PlanRequest, inventory: ReturnType<typeof inventoryOf>) {
  return buildPlan({ planId: "plan-1", request, inventory, now: NOW, ttlMs: 900_000, operator: "ops" }).plan;
}

const release = (leaseIds: string[]): PlanRequest => ({
  action: "release",
  selection: { kind: "leases", leaseIds },
});
const destroy = (leaseIds: string[]): PlanRequest => ({
  action: "destroy",
  selection: { kind: "leases", leaseIds },
});

describe("release", () => {
  it.each([
    // The host releases with the config recorded in the lease, so the current environment's does not count.
    ["recorded reuseLease true pauses", { reuseLease: true }, "pause"],
    ["recorded reuseLease false deletes", { reuseLease: false }, "delete"],
    ["recorded reuseLease unset deletes", { reuseLease: undefined }, "delete"],
  ])("%s", (_, recordedConfig, effect) => {
    const lease = row({ id: "l1", metadata: meta(recordedConfig) });
    const current = { reuseLease: recordedConfig.reuseLease !== true };
    const plan = planFor(
      release(["l1"]),
      inventoryOf({ leases: [lease], environments: [environment({ config: current })] }),
    );
    expect(plan.items).toMatchObject([
      { decision: "do", effect, confirmation: null, requiresOverride: false },
    ]);
  });

  it.each([
    ["another company's lease", { metadata: meta({ companyId: OTHER_COMPANY }) }, "foreign-company"],
    ["another environment's lease", { metadata: meta({ environmentId: "env-x" }) }, "foreign-environment"],
    ["another provider's lease", { metadata: meta({ provider: "e2b" }) }, "foreign-provider"],
    ["a lease with nested metadata", { metadata: { providerMetadata: meta() } }, "metadata-missing"],
  ])("refuses %s with the plugin's own message", (_, overrides, reason) => {
    const plan = planFor(release(["l1"]), inventoryOf({ leases: [row({ id: "l1", ...overrides })] }));
    expect(plan.items).toMatchObject([
      { decision: "skip", skipReason: reason, skipMessage: PLUGIN_MESSAGES.foreignLease, effect: null },
    ]);
  });

  it("releases a lease from before an apiUrl edit at its recorded URL, as the host does", () => {
    const lease = row({ id: "l1", metadata: meta({ apiUrl: OLD_ORIGIN }) });
    const listings = [okListing(OLD_ORIGIN, "key-old", [sandbox("sbx_1", "paused")])];
    const plan = planFor(release(["l1"]), inventoryOf({ leases: [lease], listings }));
    expect(plan.items).toMatchObject([
      { decision: "do", effect: "pause", origin: OLD_ORIGIN, credential: "key-old" },
    ]);
  });

  it("refuses a lease that names no sandbox", () => {
    const plan = planFor(
      release(["l1"]),
      inventoryOf({ leases: [row({ id: "l1", providerLeaseId: null })] }),
    );
    expect(plan.items).toMatchObject([{ decision: "skip", skipReason: "no-sandbox-id" }]);
  });
});

describe("destroy", () => {
  it.each([
    ["an owned lease: a click", {}, "click"],
    ["a foreign lease: the id typed back", { metadata: meta({ companyId: OTHER_COMPANY }) }, "typed-id"],
    ["an api-url-changed lease: typed", { metadata: meta({ apiUrl: OLD_ORIGIN }) }, "typed-id"],
  ])("confirms %s", (_, overrides, confirmation) => {
    const listings = [
      okListing(ORIGIN, "key-a", [sandbox("sbx_1", "running")]),
      okListing(OLD_ORIGIN, "key-old", [sandbox("sbx_1", "running")]),
    ];
    const plan = planFor(
      destroy(["l1"]),
      inventoryOf({ leases: [row({ id: "l1", ...overrides })], listings }),
    );
    expect(plan.items).toMatchObject([{ decision: "do", effect: "delete", confirmation }]);
  });

  it("uses the recorded origin and the credential whose listing showed the sandbox", () => {
    const listings = [
      okListing(ORIGIN, "key-a", []),
      okListing(OLD_ORIGIN, "key-old", [sandbox("sbx_1", "running")]),
    ];
    const lease = row({ id: "l1", metadata: meta({ apiUrl: OLD_ORIGIN }) });
    const plan = planFor(destroy(["l1"]), inventoryOf({ leases: [lease], listings }));
    expect(plan.items[0]).toMatchObject({ origin: OLD_ORIGIN, credential: "key-old" });
    expect(plan.origins).toEqual([
      { origin: OLD_ORIGIN, credential: "key-old", items: 1, listedSandboxes: 1 },
    ]);
  });

  it.each([
    [
      "unknown (listing failed)",
      [failedListing(ORIGIN, "key-a", "server-error")],
      "unknown",
      REFUSAL_MESSAGES.unknown,
    ],
    [
      "not visible to any credential",
      [okListing(ORIGIN, "key-a", [])],
      "not-visible",
      REFUSAL_MESSAGES.notVisible,
    ],
  ])("refuses a sandbox whose state is %s", (_, listings, reason, message) => {
    const plan = planFor(destroy(["l1"]), inventoryOf({ leases: [row({ id: "l1" })], listings }));
    expect(plan.items).toMatchObject([{ decision: "skip", skipReason: reason, skipMessage: message }]);
  });

  it("refuses a gone sandbox: there is nothing to delete", () => {
    const listings = [okListing(ORIGIN, "key-a", [sandbox("sbx_1", "destroyed")])];
    const plan = planFor(destroy(["l1"]), inventoryOf({ leases: [row({ id: "l1" })], listings }));
    expect(plan.items).toMatchObject([{ decision: "skip", skipReason: "gone" }]);
  });

  it("refuses a row Paperclip's sweep holds, and allows it once the claim has lapsed", () => {
    const held = row({
      id: "l1",
      status: "pending_cleanup",
      metadata: meta({
        pendingCleanupInFlight: true,
        pendingCleanupLeaseExpiresAtMs: NOW.getTime() + 60_000,
      }),
    });
    const lapsed = row({
      id: "l2",
      providerLeaseId: "sbx_2",
      status: "pending_cleanup",
      metadata: meta({
        pendingCleanupInFlight: true,
        pendingCleanupLeaseExpiresAtMs: NOW.getTime() - 60_000,
      }),
    });
    const listings = [okListing(ORIGIN, "key-a", [sandbox("sbx_1", "running"), sandbox("sbx_2", "running")])];
    const plan = planFor(destroy(["l1", "l2"]), inventoryOf({ leases: [held, lapsed], listings }));
    expect(plan.items.map((item) => [item.leaseId, item.decision, item.skipReason])).toEqual([
      ["l1", "skip", "host-cleanup"],
      ["l2", "do", null],
    ]);
  });

  it.each([
    ["in use by a run", [row({ id: "l1", status: "active", heartbeatRunId: "run-1" })]],
    ["sharing its sandbox with a retained row", [row({ id: "l1" }), row({ id: "l2", status: "retained" })]],
    ["sharing its sandbox with an active row", [row({ id: "l1" }), row({ id: "l2", status: "active" })]],
  ])("needs an override when %s", (_, leases) => {
    const plan = planFor(destroy(["l1"]), inventoryOf({ leases }));
    expect(plan.items).toMatchObject([{ decision: "do", requiresOverride: true }]);
    expect(plan.counts.needsOverride).toBe(1);
  });

  describe("while a part of the sources not read may name its sandbox", () => {
    const unreadable: SourceGap = { source: "ledger", origin: null, message: "leases[1] could not be read" };

    it.each([
      ["destroy", destroy(["l1"])],
      ["release", release(["l1"])],
    ])("a %s needs an override, and the plan says why", (_, request) => {
      const built = buildPlan({
        planId: "plan-1",
        request,
        inventory: inventoryOf({ leases: [row({ id: "l1" })], gaps: [unreadable] }),
        now: NOW,
        ttlMs: 900_000,
        operator: "ops",
      });
      expect(built.plan.items).toMatchObject([{ decision: "do", requiresOverride: true }]);
      expect(built.plan.items[0]!.caution).toBe(
        `${REFUSAL_MESSAGES.unreadPart} (ledger: leases[1] could not be read)`,
      );
      expect(built.plan.counts.needsOverride).toBe(1);
      expect(built.frozen[0]!.overrideReason).toBe("unread-part");
      // The reason and the part as the scan's gap gives them, for whoever acts on the item rather than reads it.
      expect(built.plan.items[0]).toMatchObject({
        overrideReason: "unread-part",
        unreadPart: { source: "ledger", message: "leases[1] could not be read" },
      });
      // Run without the override, the item is skipped with the sentence.
      expect(
        gateItem(built.plan.items[0]!, {
          override: false,
          typedIdConfirmed: true,
          overrideReason: "unread-part",
        }),
      ).toMatchObject({ state: "skipped", reason: "unread-part", message: REFUSAL_MESSAGES.unreadPart });
    });

    it("a part at another origin, naming no environment, needs nothing and says nothing", () => {
      const elsewhere = { ...unreadable, origin: OLD_ORIGIN };
      const plan = planFor(destroy(["l1"]), inventoryOf({ leases: [row({ id: "l1" })], gaps: [elsewhere] }));
      expect(plan.items).toMatchObject([{ decision: "do", requiresOverride: false }]);
      expect(plan.items[0]!.caution).toBeUndefined();
    });

    it("an override the row needs already keeps its reason, and the plan still says the caution", () => {
      const leases = [row({ id: "l1", status: "active", heartbeatRunId: "run-1" })];
      const built = buildPlan({
        planId: "plan-1",
        request: destroy(["l1"]),
        inventory: inventoryOf({ leases, gaps: [unreadable] }),
        now: NOW,
        ttlMs: 900_000,
        operator: "ops",
      });
      expect(built.frozen[0]!.overrideReason).toBe("in-use");
      expect(built.plan.items[0]!.overrideReason).toBe("in-use");
      expect(built.plan.items[0]!.caution).toContain(REFUSAL_MESSAGES.unreadPart);
    });
  });

  it("needs no override when the other row on the sandbox is released", () => {
    const plan = planFor(destroy(["l1"]), inventoryOf({ leases: [row({ id: "l1" }), row({ id: "l2" })] }));
    expect(plan.items).toMatchObject([{ decision: "do", requiresOverride: false }]);
  });
});

describe("selection", () => {
  it("acts once per sandbox: a second row naming it is skipped", () => {
    const plan = planFor(
      destroy(["l1", "l2"]),
      inventoryOf({ leases: [row({ id: "l1" }), row({ id: "l2" })] }),
    );
    expect(plan.items.map((item) => [item.leaseId, item.decision, item.skipReason])).toEqual([
      ["l1", "do", null],
      ["l2", "skip", "duplicate-sandbox"],
    ]);
  });

  it("reports a lease id the inventory does not know as skipped, not an error", () => {
    const plan = planFor(destroy(["nope"]), inventoryOf({ leases: [] }));
    expect(plan.items).toMatchObject([{ leaseId: "nope", decision: "skip", skipReason: "not-found" }]);
  });

  it("selects by headline within the given environments only", () => {
    const staging = environment({ id: "env-staging", name: "Staging" });
    const leases = [
      row({ id: "l1", metadata: meta({ companyId: OTHER_COMPANY }) }),
      row({
        id: "l2",
        providerLeaseId: "sbx_2",
        environmentId: "env-staging",
        metadata: meta({ companyId: OTHER_COMPANY, environmentId: "env-staging" }),
      }),
      row({ id: "l3", providerLeaseId: "sbx_3" }),
    ];
    const listings = [
      okListing(
        ORIGIN,
        "key-a",
        ["sbx_1", "sbx_2", "sbx_3"].map((id) => sandbox(id, "paused")),
      ),
    ];
    const inventory = inventoryOf({ leases, environments: [environment(), staging], listings });
    const plan = planFor(
      {
        action: "destroy",
        selection: { kind: "headline", headlines: ["foreign"], environmentIds: ["env-staging"] },
      },
      inventory,
    );
    expect(plan.items.map((item) => item.leaseId)).toEqual(["l2"]);
    expect(plan.confirmationPhrase).toBe("destroy 1 forced");
  });

  it("selects a credential's untracked sandboxes, typed-id each, and never releases them", () => {
    const listings = [
      okListing(ORIGIN, "key-a", [sandbox("sbx_orphan", "running"), sandbox("sbx_dead", "destroyed")]),
      okListing(ORIGIN, "key-b", [sandbox("sbx_other", "running")]),
    ];
    const inventory = inventoryOf({ leases: [], listings });
    const destroyPlan = planFor(
      { action: "destroy", selection: { kind: "untracked", credential: "key-a" } },
      inventory,
    );
    expect(destroyPlan.items).toMatchObject([
      {
        sandboxId: "sbx_orphan",
        leaseId: null,
        decision: "do",
        confirmation: "typed-id",
        credential: "key-a",
      },
    ]);
    expect(destroyPlan.confirmationPhrase).toBe("destroy 1 forced");
    const releasePlan = planFor(
      { action: "release", selection: { kind: "untracked", credential: "key-a" } },
      inventory,
    );
    expect(releasePlan.items).toMatchObject([{ decision: "skip", skipReason: "no-lease-row" }]);
  });

  it("never plans a destroy of a sandbox no row names while a source is incomplete at its origin", () => {
    const inventory = reconcile({
      snapshots: [
        {
          sourceId: "paperclip",
          environments: [environment()],
          leases: [],
          companies: [],
          problems: [],
          gaps: [{ source: "paperclip", origin: ORIGIN, message: "environment env-2 could not be parsed" }],
        },
      ],
      listings: [okListing(ORIGIN, "key-a", [sandbox("sbx_maybe", "running")])],
      now: NOW,
      requests: 1,
    });
    expect(inventory.untracked).toEqual([]);
    for (const selection of [
      { kind: "untracked", credential: "key-a" },
      { kind: "untracked", credential: "key-a", sandboxIds: ["sbx_maybe"] },
    ] satisfies PlanRequest["selection"][]) {
      const plan = planFor({ action: "destroy", selection }, inventory);
      expect(plan.items).toMatchObject([
        {
          sandboxId: "sbx_maybe",
          decision: "skip",
          skipReason: "sources-incomplete",
          skipMessage: "cannot tell: sources incomplete — paperclip: environment env-2 could not be parsed",
        },
      ]);
      expect(plan.counts.do).toBe(0);
    }
  });

  it("counts what will be done and what is skipped, by reason", () => {
    const leases = [
      row({ id: "l1" }),
      row({ id: "l2", providerLeaseId: "sbx_2", metadata: meta({ companyId: OTHER_COMPANY }) }),
      row({ id: "l3", providerLeaseId: null }),
    ];
    const listings = [okListing(ORIGIN, "key-a", [sandbox("sbx_1", "running"), sandbox("sbx_2", "running")])];
    const plan = planFor(destroy(["l1", "l2", "l3", "l4"]), inventoryOf({ leases, listings }));
    expect(plan.counts).toEqual({
      do: 2,
      skip: 2,
      pause: 0,
      delete: 2,
      typedId: 1,
      needsOverride: 0,
      skippedByReason: { "no-sandbox-id": 1, "not-found": 1 },
    });
    expect(plan.expiresAt).toBe(new Date(NOW.getTime() + 900_000).toISOString());
    expect(plan.operator).toBe("ops");
  });

  it("freezes each row with a fingerprint of what it was judged on", () => {
    const lease = row({ id: "l1" });
    const plan = planFor(destroy(["l1"]), inventoryOf({ leases: [lease] }));
    expect(plan.items[0]?.fingerprint).toBe(leaseFingerprint(lease, "running"));
    expect(plan.items[0]?.companyId).toBe(COMPANY);
  });
});

describe("why a destroy is forced", () => {
  const companies = [
    { id: COMPANY, name: "Acme" },
    { id: OTHER_COMPANY, name: "Globex" },
  ];
  const staging = environment({ id: OTHER_ENV_ID, name: "Staging" });
  const at = (origin: string) => [okListing(origin, "key-a", [sandbox("sbx_1", "running")])];
  const forced = (code: string, fields: Record<string, string | null> = {}) => ({
    code,
    recorded: null,
    recordedName: null,
    expected: null,
    expectedName: null,
    ...fields,
  });

  it.each([
    [
      "another company recorded: both companies, by id and name",
      meta({ companyId: OTHER_COMPANY }),
      ORIGIN,
      [
        forced("foreign-company", {
          recorded: OTHER_COMPANY,
          recordedName: "Globex",
          expected: COMPANY,
          expectedName: "Acme",
        }),
      ],
    ],
    [
      "another environment recorded: the recorded one and the one it is listed under",
      meta({ environmentId: OTHER_ENV_ID }),
      ORIGIN,
      [
        forced("foreign-environment", {
          recorded: OTHER_ENV_ID,
          recordedName: "Staging",
          expected: ENV_ID,
          expectedName: "Production",
        }),
      ],
    ],
    [
      "another provider recorded",
      meta({ provider: "e2b" }),
      ORIGIN,
      [forced("foreign-provider", { recorded: "e2b", expected: "createos" })],
    ],
    [
      "the environment's API URL was edited since",
      meta({ apiUrl: OLD_ORIGIN }),
      OLD_ORIGIN,
      [forced("api-url-changed", { recorded: OLD_ORIGIN, expected: ORIGIN })],
    ],
    [
      "the lease recorded its API URL with /v1, which the plugin never takes for its origin",
      meta({ apiUrl: `${ORIGIN}/v1` }),
      ORIGIN,
      [forced("api-url-not-origin", { recorded: `${ORIGIN}/v1`, expected: ORIGIN })],
    ],
    [
      "the plugin's own parse rejects the recorded config",
      meta({ timeoutMs: 0 }),
      ORIGIN,
      [
        forced("config-rejected", {
          recorded: "0",
          recordedName: "timeoutMs",
          expected: "timeoutMs must be an integer between 1 and 86400000.",
        }),
      ],
    ],
    ["no metadata at all", null, ORIGIN, [forced("metadata-missing")]],
    [
      "metadata of another schema, named by its keys",
      { providerMetadata: { sandboxId: "sbx_1" } },
      ORIGIN,
      [forced("metadata-missing", { recorded: "an object with providerMetadata" })],
    ],
  ])("%s", (_, metadata, origin, expected) => {
    const lease = row({ id: "l1", status: "released", metadata });
    const plan = planFor(
      destroy(["l1"]),
      inventoryOf({
        leases: [lease],
        environments: [environment(), staging],
        listings: at(origin),
        companies,
      }),
    );
    expect(plan.items).toMatchObject([{ decision: "do", confirmation: "typed-id", companyName: "Acme" }]);
    expect(plan.items[0]?.forcedBecause).toEqual(expected);
  });

  it("an owned row is not forced and carries no reasons; an untracked sandbox is forced as untracked", () => {
    const owned = row({ id: "l1", status: "released", metadata: meta() });
    const inventory = inventoryOf({
      leases: [owned],
      listings: [okListing(ORIGIN, "key-a", [sandbox("sbx_1", "running"), sandbox("sbx_orphan", "running")])],
      companies,
    });
    const ownedPlan = planFor(destroy(["l1"]), inventory);
    expect(ownedPlan.items[0]).toMatchObject({ confirmation: "click", companyName: "Acme" });
    expect(ownedPlan.items[0]).not.toHaveProperty("forcedBecause");
    const orphans = planFor(
      { action: "destroy", selection: { kind: "untracked", credential: "key-a" } },
      inventory,
    );
    expect(orphans.items.map((item) => item.forcedBecause)).toEqual([[forced("untracked")]]);
  });

  it("a key pasted into a recorded value never reaches the plan", () => {
    const key = "sk-live-pasted-into-metadata-0123";
    const lease = row({ id: "l1", status: "released", metadata: meta({ companyId: key }) });
    const plan = buildPlan({
      planId: "plan-1",
      request: destroy(["l1"]),
      inventory: inventoryOf({ leases: [lease], companies }),
      now: NOW,
      ttlMs: 900_000,
      operator: "ops",
      knownSecrets: new Set([key]),
    }).plan;
    expect(plan.items[0]?.forcedBecause?.[0]).toMatchObject({
      code: "foreign-company",
      recorded: "[redacted]",
    });
    expect(JSON.stringify(plan)).not.toContain(key);
  });

  it("a row whose environment its source could not read: a destroy forced for that, no release", () => {
    // Listed under ENV_ID, which the source holds but could not parse: no environment of that id is read.
    const lease = row({ id: "l1", status: "released", metadata: meta(), environmentUnread: true });
    const inventory = inventoryOf({
      leases: [lease],
      environments: [staging],
      listings: at(ORIGIN),
      companies,
    });
    const destroyed = planFor(destroy(["l1"]), inventory);
    expect(destroyed.items).toMatchObject([{ decision: "do", confirmation: "typed-id" }]);
    expect(destroyed.items[0]?.forcedBecause).toEqual([
      forced("environment-unread", { recorded: ENV_ID, expected: ENV_ID }),
    ]);
    const released = planFor(release(["l1"]), inventory);
    expect(released.items).toMatchObject([
      { decision: "skip", skipReason: "environment-unread", skipMessage: REFUSAL_MESSAGES.environmentUnread },
    ]);
  });
});
