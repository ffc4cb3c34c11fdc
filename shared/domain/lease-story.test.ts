import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  KNOWN_LEASE_POLICIES,
  KNOWN_LEASE_STATUSES,
  LIVE_PROVIDER_STATES,
  PLUGIN_GENERATIONS,
} from "./codes.js";
import type { ClassifiedLease, SandboxListing } from "./inventory.js";
import { UNKNOWN_REASONS } from "./inventory.js";
import { leaseStory, storyText } from "./lease-story.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { indexListings, observeProvider } from "./provider-state.js";
import { grammarProblems } from "./sentence-checks.js";
import {
  COMPANY,
  ENV_ID,
  environment,
  failedListing,
  MARKER,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  OTHER_ENV_ID,
  okListing,
  row,
  SANDBOX,
  sandbox,
} from "./test-fixtures.js";
import { classifyLease } from "./verdict.js";

/**
 * The red box, "What to do", "Paperclip will" and every surface that renders them come from one story
 * of the verdict. Over generated rows, hostile statuses and metadata included, they agree on what
 * Paperclip refuses and on what Leasekeeper offers, and every sentence reads as a sentence.
 */

const HOSTILE = ["pending", "paused", "", "RELEASED", "<b>x</b>", "null", " active ", "pending_cleanup\n"];
const status = fc.oneof(fc.constantFrom(...KNOWN_LEASE_STATUSES), fc.constantFrom(...HOSTILE));
const policy = fc.oneof(fc.constantFrom(...KNOWN_LEASE_POLICIES), fc.constantFrom("sticky", ""));
const uuidish = fc.constantFrom(MARKER, "not-a-uuid", "", null, 42);

const metadataOverrides = fc.record(
  {
    provider: fc.constantFrom("createos", "e2b", "CreateOS", null, 7),
    companyId: fc.constantFrom(COMPANY, OTHER_COMPANY, null),
    environmentId: fc.constantFrom(ENV_ID, OTHER_ENV_ID, null),
    apiUrl: fc.constantFrom(ORIGIN, OLD_ORIGIN, `${ORIGIN}/v1`, `${ORIGIN}/x?y`, "http://remote.example", 3),
    marker: uuidish,
    shape: fc.constantFrom("s-1vcpu-1gb", "s-2vcpu-4gb", 9),
    reuseLease: fc.constantFrom(true, false, "yes"),
    autoPauseSeconds: fc.constantFrom(60, 0, -1, "x"),
    pendingCleanupRetryAttempts: fc.constantFrom(0, 2, 5, 99, "x"),
    pendingCleanupRetryCapWarned: fc.boolean(),
    pendingCleanupLeaseExpiresAtMs: fc.constantFrom(NOW.getTime() + 60_000, 9e20),
  },
  { requiredKeys: [] },
);

const metadata = fc.oneof(
  { weight: 6, arbitrary: metadataOverrides.map((overrides) => meta(overrides)) },
  fc.constant(null),
  fc.constant("a string"),
  fc.constant([1, 2]),
  fc.constant({}),
  fc.constant({ providerMetadata: meta() }),
);

const leaseRow: fc.Arbitrary<LeaseRow> = fc
  .record({
    status,
    leasePolicy: policy,
    provider: fc.constantFrom("createos", "e2b", null),
    providerLeaseId: fc.constantFrom(SANDBOX, SANDBOX, null, ""),
    heartbeatRunId: fc.constantFrom(null, "run-1"),
    issueId: fc.constantFrom(null, "issue-1"),
    executionWorkspaceId: fc.constantFrom(null, "ws-1"),
    environmentId: fc.constantFrom(ENV_ID, OTHER_ENV_ID, null),
    cleanupStatus: fc.constantFrom(null, "success", "failed", "pending"),
    expiresAt: fc.constantFrom(null, "2026-09-10T13:00:00.000Z"),
    metadata,
  })
  .map((fields) => row(fields as Partial<LeaseRow>));

const env: fc.Arbitrary<Environment | null> = fc.oneof(
  fc.constant(environment()),
  fc.constant(environment({ config: { apiUrl: OLD_ORIGIN } })),
  fc.constant(environment({ config: { shape: "s-2vcpu-4gb" } })),
  fc.constant(environment({ config: { reuseLease: false } })),
  fc.constant(environment({ companyId: OTHER_COMPANY })),
  fc.constant(null),
);

const listings: fc.Arbitrary<SandboxListing[]> = fc.oneof(
  fc
    .constantFrom(...LIVE_PROVIDER_STATES, "destroyed", "failed", "hibernating")
    .map((state) => [okListing(ORIGIN, "k", [sandbox(SANDBOX, state)])]),
  fc.constant<SandboxListing[]>([okListing(ORIGIN, "k", [])]),
  fc.constantFrom(...UNKNOWN_REASONS).map((reason) => [failedListing(ORIGIN, "k", reason)]),
  fc.constant<SandboxListing[]>([]),
);

const installed = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(...PLUGIN_GENERATIONS).map((generation) => ({
    version: generation.replace("createos-", ""),
    generation,
    readFrom: "the plugins table",
  })),
  fc.constant({ version: "9.9.9", generation: null, readFrom: "the plugins table" }),
);

const classifiedLease: fc.Arbitrary<ClassifiedLease> = fc
  .record({ lease: leaseRow, env, listings, installed, shared: fc.boolean() })
  .map(({ lease, env, listings, installed, shared }) => {
    const provider = observeProvider(lease, env, indexListings(listings));
    const other = shared ? [row({ status: "active", heartbeatRunId: "run-2" })] : [];
    const verdict = classifyLease(lease, env, provider, {
      now: NOW,
      otherRowsOnSandbox: other,
      ...(installed === undefined ? {} : { installedPlugin: installed }),
    });
    return {
      sourceId: "s",
      lease,
      environment: env,
      verdict,
      provider,
      sharedWith: other.map((other) => other.id),
      ...(installed === undefined ? {} : { installedPlugin: installed }),
    };
  });

const REFUSAL = /refuse|reject|fails every call|fail for ever|fails for ever/i;
const WILL_REFUSE = /Paperclip will refuse|^Refuses it|whenever it releases/;

describe("leaseStory: one explanation of the verdict", () => {
  it("the red box, What to do and Paperclip will agree on what Paperclip refuses and what Leasekeeper offers", () => {
    fc.assert(
      fc.property(classifiedLease, (classified) => {
        const story = leaseStory(classified);
        const wrong = storyText(story.whatIsWrong);
        const todo = story.whatToDo ?? "";
        const will = story.paperclipWill;
        const context = { headline: classified.verdict.headline, wrong, todo, will };

        // Refusal: said by both or by neither, and never beside a "Nothing".
        if (story.refusesRelease) {
          expect(wrong, JSON.stringify(context)).toMatch(REFUSAL);
          expect(will, JSON.stringify(context)).toMatch(REFUSAL);
          expect(will, JSON.stringify(context)).not.toMatch(/^Nothing/);
        } else {
          expect(wrong, JSON.stringify(context)).not.toMatch(WILL_REFUSE);
          expect(will, JSON.stringify(context)).not.toMatch(WILL_REFUSE);
        }
        if (story.pluginRefuses && ["yes", "unknown-status"].includes(story.paperclipCallsAgain)) {
          expect(wrong, JSON.stringify(context)).toMatch(REFUSAL);
        }

        // Offers: only "What to do" offers, and only what the verdict allows.
        const { allowed, withOverride } = story.offers;
        expect(wrong + will, JSON.stringify(context)).not.toMatch(/\b(Release|Destroy) (it|the sandbox)\b/);
        if (/\bRelease it\b/.test(todo)) expect(allowed).toContain("release");
        if (/\b[Dd]estroy (it|the sandbox)\b/.test(todo)) {
          expect([...allowed, ...withOverride], JSON.stringify(context)).toContain("destroy");
        }
        // A row that needs an operator names the step its verdict allows (an ok row may say nothing needs doing).
        const quiet =
          ["ok", "closed"].includes(classified.verdict.headline) || classified.verdict.provider === "gone";
        if (!quiet && allowed.includes("release")) {
          expect(todo, JSON.stringify(context)).toMatch(/\bRelease it\b/);
        } else if (!quiet && allowed.includes("destroy")) {
          expect(todo, JSON.stringify(context)).toMatch(/\bdestroy\b/i);
        }
        // "Nothing will be done" only where nothing is allowed.
        if (/Nothing will be done|nothing will be done/.test(todo)) expect(allowed).toEqual([]);

        // Every sentence reads as one.
        for (const text of [wrong, todo, will]) expect(grammarProblems(text), text).toEqual([]);
      }),
      { numRuns: 4000 },
    );
  });

  it("an e2b lease that is released says neither 'will refuse' nor 'Nothing' alone", () => {
    const lease = row({ leasePolicy: "ephemeral", metadata: meta({ provider: "e2b" }) });
    const provider = observeProvider(
      lease,
      environment(),
      indexListings([okListing(ORIGIN, "k", [sandbox(SANDBOX, "running")])]),
    );
    const verdict = classifyLease(lease, environment(), provider, { now: NOW, otherRowsOnSandbox: [] });
    const story = leaseStory({
      sourceId: "s",
      lease,
      environment: environment(),
      verdict,
      provider,
      sharedWith: [],
    });
    expect(storyText(story.whatIsWrong)).not.toContain("will refuse");
    expect(storyText(story.whatIsWrong)).toContain("never calls CreateOS");
    expect(story.paperclipWill).toMatch(/^Nothing: the lease is released/);
  });

  it("a lease of a status Paperclip does not define says what the plugin would do, in both places", () => {
    const lease = row({ status: "pending", metadata: meta({ environmentId: OTHER_ENV_ID }) });
    const provider = observeProvider(
      lease,
      environment(),
      indexListings([okListing(ORIGIN, "k", [sandbox(SANDBOX, "running")])]),
    );
    const verdict = classifyLease(lease, environment(), provider, { now: NOW, otherRowsOnSandbox: [] });
    const story = leaseStory({
      sourceId: "s",
      lease,
      environment: environment(),
      verdict,
      provider,
      sharedWith: [],
    });
    expect(storyText(story.whatIsWrong)).toContain("would refuse");
    expect(story.paperclipWill).toContain("refuses it");
    expect(story.refusesRelease).toBe(false);
  });
});
