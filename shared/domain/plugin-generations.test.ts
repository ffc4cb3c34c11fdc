import { describe, expect, it } from "vitest";
import { decideActions } from "./allowed-actions.js";
import { PLUGIN_GENERATIONS, type PluginGeneration } from "./codes.js";
import { driftedFields, PLUGIN_VERSION_FIELD, resumeDrift } from "./config-drift.js";
import type { ClassifiedLease, SandboxListing } from "./inventory.js";
import { judgedBy } from "./judged-by.js";
import { metadataObject } from "./lease-metadata.js";
import { ownership } from "./ownership.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { CONFIG_MESSAGES, parseRecordedConfig } from "./paperclip-config.js";
import { paperclipWill, RUN_FAILURE_MESSAGES, runFailureOf } from "./paperclip-will.js";
import {
  generationOfVersion,
  type InstalledPlugin,
  predictRelease,
  type ReleaseOutcome,
  releaseBy,
  writerGeneration,
} from "./plugin-generations.js";
import { indexListings, observeProvider } from "./provider-state.js";
import {
  environment,
  meta,
  NOW,
  ORIGIN,
  OTHER_COMPANY,
  okListing,
  row,
  SANDBOX,
  sandbox,
} from "./test-fixtures.js";
import { classifyLease } from "./verdict.js";

/**
 * Every rule of every plugin generation over the same rows, as decision 199 reads each generation's
 * source. A later generation is one more column of each table.
 */

const URL_RULE =
  "CreateOS API URL must be an HTTPS origin (optionally ending in /v1); HTTP is allowed on loopback only.";

const installed = (generation: PluginGeneration): InstalledPlugin => ({
  version: `${generation.slice("createos-".length)}.0`,
  generation,
  readFrom: "Paperclip's plugins table",
});

/** A lease plugin 0.2 wrote for a reusable workspace lease: it records its adapter, egress and window. */
const warmCapable = (overrides: Record<string, unknown> = {}) =>
  meta({
    adapterType: "codex",
    baseEgressAllowlist: [],
    effectiveEgressAllowlist: [],
    autoPauseAfterSeconds: 600,
    ...overrides,
  });

function judge(
  lease: LeaseRow,
  {
    env = environment(),
    status = "running",
    plugin,
  }: { env?: Environment | null; status?: string; plugin?: InstalledPlugin } = {},
): ClassifiedLease {
  const listings: SandboxListing[] = [okListing(ORIGIN, "key-a", [sandbox(SANDBOX, status)])];
  const provider = observeProvider(lease, env, indexListings(listings));
  const verdict = classifyLease(lease, env, provider, {
    now: NOW,
    otherRowsOnSandbox: [],
    ...(plugin === undefined ? {} : { installedPlugin: plugin }),
  });
  return {
    sourceId: "s",
    lease,
    environment: env,
    verdict,
    provider,
    sharedWith: [],
    ...(plugin === undefined ? {} : { installedPlugin: plugin }),
  };
}

type ParseExpectation = "ok" | string;

describe("Paperclip's own config parse, value by value, per generation", () => {
  // [case, recorded overrides, 0.1, 0.2, 0.3]: "ok" or the exact message the plugin throws.
  const cases: [string, Record<string, unknown>, ParseExpectation, ParseExpectation, ParseExpectation][] = [
    ["the bare origin", {}, "ok", "ok", "ok"],
    ["…/v1 (parses to the origin)", { apiUrl: `${ORIGIN}/v1` }, "ok", "ok", "ok"],
    ["loopback HTTP", { apiUrl: "http://127.0.0.1:8080" }, "ok", "ok", "ok"],
    ["IPv6 loopback HTTP", { apiUrl: "http://[::1]:8080" }, "ok", "ok", "ok"],
    ["HTTP off loopback", { apiUrl: "http://remote.test" }, URL_RULE, URL_RULE, URL_RULE],
    ["credentials in the URL", { apiUrl: "https://user:secret@host.test" }, URL_RULE, URL_RULE, URL_RULE],
    ["a query", { apiUrl: "https://host.test/?key=secret" }, URL_RULE, URL_RULE, URL_RULE],
    ["a hash", { apiUrl: "https://host.test/#top" }, URL_RULE, URL_RULE, URL_RULE],
    ["another path", { apiUrl: "https://host.test/other" }, URL_RULE, URL_RULE, URL_RULE],
    ["a file URL", { apiUrl: "file:///tmp/socket" }, URL_RULE, URL_RULE, URL_RULE],
    ["no API URL", { apiUrl: undefined }, ...same(CONFIG_MESSAGES.apiUrlMissing)],
    ["an API URL that is no URL", { apiUrl: "not a url" }, ...same("CreateOS API URL is invalid.")],
    ["an API URL that is a number", { apiUrl: 443 }, ...same(CONFIG_MESSAGES.nonEmptyString("apiUrl"))],
    ["no shape", { shape: undefined }, ...same(CONFIG_MESSAGES.shape)],
    ["an empty shape", { shape: " " }, ...same(CONFIG_MESSAGES.nonEmptyString("shape"))],
    ["timeoutMs 0", { timeoutMs: 0 }, ...same(CONFIG_MESSAGES.timeoutMs)],
    ["timeoutMs 1", { timeoutMs: 1 }, "ok", "ok", "ok"],
    ["timeoutMs 86,400,000", { timeoutMs: 86_400_000 }, "ok", "ok", "ok"],
    ["timeoutMs 86,400,001", { timeoutMs: 86_400_001 }, ...same(CONFIG_MESSAGES.timeoutMs)],
    ["timeoutMs a fraction", { timeoutMs: 1.5 }, ...same(CONFIG_MESSAGES.timeoutMs)],
    ["timeoutMs a string", { timeoutMs: "300000" }, ...same(CONFIG_MESSAGES.timeoutMs)],
    ["reuseLease a string", { reuseLease: "true" }, ...same(CONFIG_MESSAGES.reuseLease)],
    ["reuseLease null", { reuseLease: null }, "ok", "ok", "ok"],
    ["an empty rootfs", { rootfs: "" }, ...same(CONFIG_MESSAGES.nonEmptyString("rootfs"))],
    ["a region that is a number", { region: 5 }, ...same(CONFIG_MESSAGES.nonEmptyString("region"))],
    [
      "autoPauseAfterSeconds 59",
      { autoPauseAfterSeconds: 59 },
      "ok",
      ...twice(CONFIG_MESSAGES.autoPauseAfterSeconds),
    ],
    ["autoPauseAfterSeconds 60", { autoPauseAfterSeconds: 60 }, "ok", "ok", "ok"],
    ["autoPauseAfterSeconds 86,400", { autoPauseAfterSeconds: 86_400 }, "ok", "ok", "ok"],
    [
      "autoPauseAfterSeconds 86,401",
      { autoPauseAfterSeconds: 86_401 },
      "ok",
      ...twice(CONFIG_MESSAGES.autoPauseAfterSeconds),
    ],
    ["autoPauseAfterSeconds null (reads as 600)", { autoPauseAfterSeconds: null }, "ok", "ok", "ok"],
    [
      "an egress allowlist that is a string",
      { egressAllowlist: "a.test" },
      "ok",
      ...twice(CONFIG_MESSAGES.egressAllowlist),
    ],
    [
      "an egress entry that is empty",
      { egressAllowlist: [" "] },
      "ok",
      ...twice(CONFIG_MESSAGES.egressAllowlist),
    ],
    [
      "an egress entry with a line break",
      { egressAllowlist: ["a\nb"] },
      "ok",
      ...twice(CONFIG_MESSAGES.egressAllowlist),
    ],
    ["an egress allowlist of hosts", { egressAllowlist: ["a.test", "10.0.0.0/8"] }, "ok", "ok", "ok"],
    [
      "rootfsByAdapter a list",
      { rootfsByAdapter: ["x"] },
      "ok",
      ...twice(CONFIG_MESSAGES.rootfsByAdapterShape),
    ],
    [
      "rootfsByAdapter an empty value",
      { rootfsByAdapter: { codex: "" } },
      "ok",
      ...twice(CONFIG_MESSAGES.rootfsByAdapterEntries),
    ],
    [
      "rootfsByAdapter an empty key",
      { rootfsByAdapter: { " ": "img" } },
      "ok",
      ...twice(CONFIG_MESSAGES.rootfsByAdapterEntries),
    ],
    ["rootfsByAdapter by adapter", { rootfsByAdapter: { codex: "img" } }, "ok", "ok", "ok"],
  ];

  it.each(cases)("%s", (_, overrides, ...expected) => {
    const metadata = metadataObject(meta(overrides))!;
    const answers = PLUGIN_GENERATIONS.map((generation) => {
      const parsed = parseRecordedConfig(metadata, generation);
      return parsed.ok ? "ok" : parsed.message;
    });
    expect(answers).toEqual(expected);
  });

  it("gives the origin as the apiUrl, whatever path the URL carried", () => {
    const parsed = parseRecordedConfig(metadataObject(meta({ apiUrl: `${ORIGIN}/v1/` }))!, "createos-0.1");
    expect(parsed).toMatchObject({ ok: true, apiUrl: ORIGIN });
  });

  const rejectedEverywhere = cases.filter(([, , a, b, c]) => a !== "ok" && b !== "ok" && c !== "ok");
  it.each(rejectedEverywhere)("a row recording %s refuses release with config-rejected", (_, overrides) => {
    const lease = row({ metadata: meta(overrides) });
    const codes = ownership(lease, environment());
    expect(codes).toEqual(["config-rejected"]);
    const decision = decideActions({
      ownership: codes,
      provider: "paused",
      flags: [],
      otherRowsOnSandbox: [],
    });
    expect(decision.refusals.release?.reason).toBe("config-rejected");
    expect(decision.allowedActions).toEqual(["destroy"]);
    expect(decision.destroyConfirmation).toBe("typed-id");
  });

  it.each([`${ORIGIN}/v1`, `${ORIGIN}/v1/`, `${ORIGIN}/`])(
    "a row recording %s fails the plugin's own URL test and refuses release with api-url-not-origin",
    (apiUrl) => {
      const codes = ownership(row({ metadata: meta({ apiUrl }) }), environment());
      expect(codes).toEqual(["api-url-not-origin"]);
      const decision = decideActions({
        ownership: codes,
        provider: "paused",
        flags: [],
        otherRowsOnSandbox: [],
      });
      expect(decision.refusals.release).toEqual({
        reason: "api-url-not-origin",
        message: "CreateOS lease does not belong to this environment.",
      });
    },
  );

  it("a rule only newer plugins have rejects the config only where a newer plugin is installed", () => {
    const lease = row({ metadata: meta({ autoPauseAfterSeconds: 30 }) });
    expect(ownership(lease, environment(), installed("createos-0.2"))).toEqual(["config-rejected"]);
    expect(ownership(lease, environment(), installed("createos-0.1"))).toEqual(["owned"]);
    // Not known: rejected only where every generation rejects it, the reading that destroys least.
    expect(ownership(lease, environment())).toEqual(["owned"]);
  });
});

describe("what each generation does with the same rows", () => {
  interface Expectation {
    release: ReleaseOutcome;
    /** The resume compares recorded fields with the environment's config and expires the lease. */
    resumeExpires: boolean;
  }
  const rows: [string, LeaseRow, Record<PluginGeneration, Expectation>][] = [
    [
      "a reusable lease plugin 0.1 wrote",
      row({ metadata: meta() }),
      {
        "createos-0.1": { release: "pause", resumeExpires: false },
        // It recorded no window: `undefined` is never the parse's 600, so 0.2 deletes and expires it.
        "createos-0.2": { release: "delete", resumeExpires: true },
        "createos-0.3": { release: "delete", resumeExpires: true },
      },
    ],
    [
      "a reusable lease plugin 0.2 wrote with a 600 s window",
      row({ metadata: warmCapable() }),
      {
        "createos-0.1": { release: "pause", resumeExpires: false },
        "createos-0.2": { release: "keep-warm", resumeExpires: false },
        // 0.3 compares requestedRootfs and snapshot, which 0.2 never recorded.
        "createos-0.3": { release: "keep-warm", resumeExpires: true },
      },
    ],
    [
      "a lease plugin 0.2 wrote with no window (a login or non-workspace lease)",
      row({ metadata: warmCapable({ autoPauseAfterSeconds: null }) }),
      {
        "createos-0.1": { release: "pause", resumeExpires: false },
        "createos-0.2": { release: "delete", resumeExpires: true },
        "createos-0.3": { release: "delete", resumeExpires: true },
      },
    ],
    [
      "a reusable lease plugin 0.3 wrote",
      row({ metadata: warmCapable({ requestedRootfs: null, snapshot: null }) }),
      {
        "createos-0.1": { release: "pause", resumeExpires: false },
        "createos-0.2": { release: "keep-warm", resumeExpires: false },
        "createos-0.3": { release: "keep-warm", resumeExpires: false },
      },
    ],
    [
      "a lease that recorded reuseLease false",
      row({ metadata: warmCapable({ reuseLease: false, autoPauseAfterSeconds: null }) }),
      {
        "createos-0.1": { release: "delete", resumeExpires: false },
        // The environment reuses leases now, so 0.2 expects the 600 s window where the lease recorded none.
        "createos-0.2": { release: "delete", resumeExpires: true },
        "createos-0.3": { release: "delete", resumeExpires: true },
      },
    ],
    [
      "a lease with no sandbox id: the release returns at once",
      row({ providerLeaseId: null }),
      {
        "createos-0.1": { release: "nothing", resumeExpires: false },
        "createos-0.2": { release: "nothing", resumeExpires: true },
        "createos-0.3": { release: "nothing", resumeExpires: true },
      },
    ],
  ];

  const config = metadataObject(environment().config)!;
  it.each(rows)("%s", (_, lease, expected) => {
    const metadata = metadataObject(lease.metadata)!;
    const observed = Object.fromEntries(
      PLUGIN_GENERATIONS.map((generation) => [
        generation,
        {
          release: releaseBy(generation, lease.providerLeaseId, lease.metadata),
          resumeExpires: resumeDrift(metadata, config, generation).length > 0,
        },
      ]),
    );
    expect(observed).toEqual(expected);
  });

  it("tells the writer from the keys only a plugin records", () => {
    expect(writerGeneration(meta()).generation).toBe("createos-0.1");
    expect(writerGeneration(warmCapable()).generation).toBe("createos-0.2");
    expect(writerGeneration(warmCapable({ requestedRootfs: null })).generation).toBe("createos-0.3");
    // The host spreads the environment's config into the metadata, so a window alone tells nothing.
    expect(writerGeneration(meta({ autoPauseAfterSeconds: 600 })).generation).toBe("createos-0.1");
  });

  it("maps an installed version to its generation, and says nothing of one it does not know", () => {
    expect(generationOfVersion("0.2.0")).toBe("createos-0.2");
    expect(generationOfVersion("0.3.7")).toBe("createos-0.3");
    expect(generationOfVersion("v0.1.2")).toBe("createos-0.1");
    expect(generationOfVersion("1.0.0")).toBeNull();
    expect(generationOfVersion(null)).toBeNull();
  });

  it("where the installed plugin is not known, takes the release that destroys least and names the others", () => {
    const prediction = predictRelease(undefined, SANDBOX, meta());
    expect(prediction).toEqual({
      outcome: "pause",
      by: "createos-0.1",
      told: false,
      otherwise: [
        { by: "createos-0.2", outcome: "delete" },
        { by: "createos-0.3", outcome: "delete" },
      ],
    });
    expect(predictRelease(installed("createos-0.2"), SANDBOX, meta())).toMatchObject({
      outcome: "delete",
      told: true,
    });
  });
});

describe("the verdict as the acting generation gives it", () => {
  const released = (minutesAgo: number, metadata = warmCapable()) =>
    row({ releasedAt: new Date(NOW.getTime() - minutesAgo * 60_000).toISOString(), metadata });

  it("a warm sandbox inside its auto-pause window is not leaking; past it, it is", () => {
    const inside = judge(released(5));
    expect(inside.verdict.flags).toEqual(["warm"]);
    expect(inside.verdict.headline).toBe("ok");
    expect(paperclipWill(inside)).toMatch(/^Keeps it warm .*by 2026-09-10T12:05:00\.000Z at the latest/);

    const past = judge(released(11));
    expect(past.verdict.flags).toEqual(["leaking"]);
    expect(past.verdict.headline).toBe("leaking");
  });

  it("a running sandbox behind a released 0.1 lease is leaking: that plugin pauses at release", () => {
    expect(judge(released(5, meta())).verdict.flags).toEqual(["leaking"]);
  });

  it.each<[string, Record<string, unknown>, Partial<Environment["config"]>, string]>([
    ["the auto-pause window", { autoPauseAfterSeconds: 900 }, {}, "autoPauseAfterSeconds"],
    ["the base egress allowlist", {}, { egressAllowlist: ["api.example.test"] }, "baseEgressAllowlist"],
    [
      "the effective egress allowlist's form",
      { effectiveEgressAllowlist: "x" },
      {},
      "effectiveEgressAllowlist",
    ],
    ["the adapter's rootfs", { rootfs: "img-1" }, { rootfsByAdapter: { codex: "img-2" } }, "rootfs"],
  ])(
    "under plugin 0.2, a change of %s expires the lease at its next resume",
    (_, recorded, config, field) => {
      const lease = row({ metadata: warmCapable(recorded) });
      const env = environment({ config });
      const judged = judge(lease, { env, status: "paused", plugin: installed("createos-0.2") });
      expect(judged.verdict.flags).toContain("stale-config");
      expect(driftedFields(metadataObject(lease.metadata)!, env, installed("createos-0.2"))).toContain(field);
      // Plugin 0.1 compares none of these fields (its rootfs is the config's own, unchanged here).
      const under01 = driftedFields(metadataObject(lease.metadata)!, env, installed("createos-0.1"));
      expect(under01.filter((name) => name !== PLUGIN_VERSION_FIELD && name !== "rootfs")).toEqual([]);
    },
  );

  it("the rootfs an adapter resolves to is no drift when it is what the lease recorded", () => {
    const lease = row({ metadata: warmCapable({ rootfs: "img-2" }) });
    const env = environment({ config: { rootfsByAdapter: { codex: "img-2" } } });
    expect(driftedFields(metadataObject(lease.metadata)!, env, installed("createos-0.2"))).toEqual([]);
  });

  it("a plugin of another generation than the lease's writer changes the reuse fingerprint", () => {
    const lease = row({ metadata: meta() });
    expect(
      driftedFields(metadataObject(lease.metadata)!, environment(), installed("createos-0.2")),
    ).toContain(PLUGIN_VERSION_FIELD);
    expect(driftedFields(metadataObject(lease.metadata)!, environment(), installed("createos-0.1"))).toEqual(
      [],
    );
  });

  it("an in-use lease whose metadata names another company: its run fails now, with both of the plugin's messages", () => {
    const judged = judge(
      row({
        status: "active",
        heartbeatRunId: "run-1",
        releasedAt: null,
        metadata: meta({ companyId: OTHER_COMPANY }),
      }),
    );
    expect(judged.verdict.flags).toEqual(["in-use", "run-failing"]);
    expect(runFailureOf(judged)?.messages).toEqual([
      RUN_FAILURE_MESSAGES.workspace,
      RUN_FAILURE_MESSAGES.execution,
    ]);
    const will = paperclipWill(judged);
    expect(will).toContain("CreateOS workspace requires a lease from this environment.");
    expect(will).toContain("CreateOS execution requires a lease from this environment.");
    expect(will).toMatch(/^The run holding it is failing now/);
  });

  it("an in-use lease with no sandbox id: its run fails, and its release makes no call to CreateOS", () => {
    const judged = judge(
      row({ status: "active", heartbeatRunId: "run-1", releasedAt: null, providerLeaseId: null }),
    );
    expect(judged.verdict.flags).toEqual(["in-use", "run-failing"]);
    expect(paperclipWill(judged)).toMatch(/makes no call to CreateOS, since the lease names no sandbox\.$/);
    for (const generation of PLUGIN_GENERATIONS) expect(releaseBy(generation, null, meta())).toBe("nothing");
  });

  it("an edited API URL breaks no run: its commands still go to the recorded URL", () => {
    const judged = judge(
      row({
        status: "active",
        heartbeatRunId: "run-1",
        releasedAt: null,
        metadata: meta({ apiUrl: "https://old.example" }),
      }),
    );
    expect(judged.verdict.flags).not.toContain("run-failing");
  });

  it("a pending cleanup shows its attempts, and says when Paperclip escalated it", () => {
    const tried = judge(
      row({ status: "pending_cleanup", metadata: meta({ pendingCleanupRetryAttempts: 2 }) }),
    );
    expect(paperclipWill(tried)).toMatch(
      /It has tried 2 times\. It escalates to an operator after 3 more failed attempts\.$/,
    );
    const capped = judge(
      row({
        status: "pending_cleanup",
        metadata: meta({ pendingCleanupRetryAttempts: 5, pendingCleanupRetryCapWarned: true }),
      }),
    );
    expect(paperclipWill(capped)).toMatch(/^Has escalated it to an operator after 5 failed cleanup attempts/);
  });

  it("says which generations judged the lease and which reading was taken", () => {
    const unknown = judgedBy(judge(row({ metadata: warmCapable() })));
    expect(unknown.wrote.generation).toBe("createos-0.2");
    expect(unknown.acts.generation).toBeNull();
    expect(unknown.readings).toHaveLength(1);
    const known = judgedBy(judge(row(), { plugin: installed("createos-0.2") }));
    expect(known.acts).toEqual({
      generation: "createos-0.2",
      installedVersion: "0.2.0",
      readFrom: "Paperclip's plugins table",
    });
    expect(known.readings).toEqual([]);
  });
});

function same(message: string): [string, string, string] {
  return [message, message, message];
}

function twice(message: string): [string, string] {
  return [message, message];
}
