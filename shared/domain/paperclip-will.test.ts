import { describe, expect, it } from "vitest";
import { PLUGIN_MESSAGES } from "./codes.js";
import type { ClassifiedLease, SandboxListing } from "./inventory.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import {
  paperclipCallsAgain,
  paperclipWill,
  recordedReuseLease,
  recordedReuseLeaseText,
} from "./paperclip-will.js";
import { indexListings, observeProvider } from "./provider-state.js";
import {
  environment,
  failedListing,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  OTHER_COMPANY,
  okListing,
  row,
  SANDBOX,
  sandbox,
} from "./test-fixtures.js";
import { classifyLease } from "./verdict.js";

function classified(
  lease: LeaseRow,
  listings: SandboxListing[] = [okListing(ORIGIN, "k", [sandbox(SANDBOX, "paused")])],
  env: Environment | null = environment(),
): ClassifiedLease {
  const provider = observeProvider(lease, env, indexListings(listings));
  const verdict = classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: [] });
  return { sourceId: "s", lease, environment: env, verdict, provider, sharedWith: [] };
}

const at = (origin: string, status: string) => [okListing(origin, "k", [sandbox(SANDBOX, status)])];

describe("paperclipWill: what Paperclip itself will do with the lease", () => {
  it.each<[string, ClassifiedLease, string | RegExp]>([
    [
      "a reusable released lease, as recorded",
      classified(row()),
      "Resumes it for the next run of the same agent in the same workspace; until then the sandbox stays as it is.",
    ],
    [
      "a foreign row it would still call about",
      classified(row({ metadata: meta({ companyId: OTHER_COMPANY }) })),
      `Refuses it with "${PLUGIN_MESSAGES.foreignLease}" whenever it releases, resumes or cleans it up.`,
    ],
    [
      "a lease whose config fingerprint changed",
      classified(
        row({ metadata: meta({ shape: "s-2vcpu-4gb", reuseLease: true, timeoutMs: 300_000 }) }),
        undefined,
        environment({ config: { timeoutMs: 1000 } }),
      ),
      "Expires it at the next resume because its recorded config no longer matches (shape, timeoutMs): Paperclip destroys the sandbox instead of resuming it.",
    ],
    [
      "a lease whose environment's API URL was edited",
      classified(row({ metadata: meta({ apiUrl: OLD_ORIGIN }) }), at(OLD_ORIGIN, "paused")),
      /^Expires it at the next resume: the environment's API URL changed/,
    ],
    [
      "pending cleanup against an unreachable recorded URL",
      classified(row({ status: "pending_cleanup", metadata: meta({ apiUrl: OLD_ORIGIN }) }), [
        failedListing(OLD_ORIGIN, "k", "network"),
      ]),
      "Keeps retrying cleanup against an unreachable recorded URL (https://old.example).",
    ],
    [
      "pending cleanup it can reach",
      classified(row({ status: "pending_cleanup" }), at(ORIGIN, "running")),
      /^Retries its cleanup at the next sweep: destroys the sandbox at the recorded URL \(https:\/\/api\.sb\.createos\.sh\)/,
    ],
    [
      "pending cleanup under its sweep's claim",
      classified(
        row({
          status: "pending_cleanup",
          metadata: meta({
            pendingCleanupInFlight: true,
            pendingCleanupLeaseExpiresAtMs: NOW.getTime() + 1000,
          }),
        }),
      ),
      "Is cleaning it up now: its sweep holds a claim on the lease.",
    ],
    [
      "a run holds it; release pauses because the lease recorded reuseLease",
      classified(
        row({ status: "active", heartbeatRunId: "run-1" }),
        at(ORIGIN, "running"),
        environment({ config: { reuseLease: false } }),
      ),
      /^Releases it when the run ends, which pauses the sandbox at https:\/\/api\.sb\.createos\.sh, as plugin 0\.1 does \(plugins 0\.2 and 0\.3 would delete it instead; which plugin the instance runs is not known here/,
    ],
    [
      "a run holds it; release deletes because the lease recorded no reuse",
      classified(
        row({ status: "active", heartbeatRunId: "run-1", metadata: meta({ reuseLease: false }) }),
        at(ORIGIN, "running"),
        environment({ config: { reuseLease: false } }),
      ),
      "Releases it when the run ends, which deletes the sandbox at https://api.sb.createos.sh.",
    ],
    [
      "active with no run, its workspace left behind",
      classified(row({ status: "active", executionWorkspaceId: "ws-1" }), at(ORIGIN, "running")),
      /^Moves it to pending_cleanup/,
    ],
    [
      "a login session",
      classified(row({ status: "active" }), at(ORIGIN, "running")),
      /^Keeps it while the login session lasts; the login service then releases it, which pauses the sandbox/,
    ],
    [
      "retained",
      classified(row({ status: "retained" })),
      "Keeps it: a retained lease waits until someone releases it.",
    ],
    [
      "an ephemeral released lease whose sandbox still runs",
      classified(row({ leasePolicy: "ephemeral" }), at(ORIGIN, "running")),
      "Nothing: the lease is released, and Paperclip never calls CreateOS about it again.",
    ],
    [
      "an expired lease whose sandbox still runs",
      classified(row({ status: "expired" }), at(ORIGIN, "running")),
      "Nothing: the lease is expired, and Paperclip never calls CreateOS about it again.",
    ],
    [
      "history",
      classified(row(), at(ORIGIN, "destroyed")),
      "Nothing: the lease is over and nothing of it is left at CreateOS; it is history.",
    ],
    [
      "the environment stopped reusing leases",
      classified(row(), undefined, environment({ config: { reuseLease: false } })),
      /^Expires it at the next resume because its recorded config no longer matches \(reuseLease\)/,
    ],
    [
      "an orphan row",
      classified(row({ status: "pending_cleanup", environmentId: null }), at(ORIGIN, "running"), null),
      /environment is gone/,
    ],
    [
      "a row whose environment could not be read",
      classified(row({ status: "pending_cleanup", environmentUnread: true }), at(ORIGIN, "running"), null),
      "Nothing Leasekeeper can predict: the lease's environment could not be read from its source, so whether Paperclip can release, resume or clean it up cannot be told, nor whether its plugin would accept the lease.",
    ],
    [
      "a row whose environment could not be read, with another provider's metadata",
      classified(
        row({ status: "retained", environmentUnread: true, metadata: meta({ provider: "ssh" }) }),
        at(ORIGIN, "running"),
        null,
      ),
      `Nothing Leasekeeper can predict: the lease's environment could not be read from its source, so whether Paperclip can release, resume or clean it up cannot be told; if it does, the plugin refuses it with "${PLUGIN_MESSAGES.foreignLease}"`,
    ],
    [
      "a status Paperclip does not define",
      classified(row({ status: "archived" })),
      'Nothing Leasekeeper can predict: Paperclip defines no lease status "archived".',
    ],
  ])("%s", (_, lease, expected) => {
    if (typeof expected === "string") expect(paperclipWill(lease)).toBe(expected);
    else expect(paperclipWill(lease)).toMatch(expected);
  });

  it("says whether Paperclip calls again cannot be told of a row whose environment could not be read", () => {
    const unread = (status: string) =>
      paperclipCallsAgain(classified(row({ status, environmentUnread: true }), undefined, null));
    expect(["active", "pending_cleanup", "released", "archived"].map(unread)).toEqual([
      "environment-unread",
      "environment-unread",
      "environment-unread",
      "environment-unread",
    ]);
    // Its status alone says Paperclip never calls again; a row whose environment is gone is said so.
    expect(unread("expired")).toBe("ended");
    expect(paperclipCallsAgain(classified(row({ environmentId: null }), undefined, null))).toBe(
      "no-environment",
    );
  });

  it("reads reuseLease as the host rebuilds it from the metadata: only true is on", () => {
    expect(recordedReuseLease(meta())).toBe(true);
    expect(recordedReuseLease(meta({ reuseLease: "true" }))).toBe(false);
    expect(recordedReuseLease(meta({ reuseLease: undefined }))).toBe(false);
    expect(recordedReuseLease(null)).toBeNull();
  });

  it("shows reuseLease as recorded: a boolean as written, a string quoted, nothing as null", () => {
    expect(recordedReuseLeaseText(meta())).toBe("true");
    expect(recordedReuseLeaseText(meta({ reuseLease: false }))).toBe("false");
    expect(recordedReuseLeaseText(meta({ reuseLease: "true" }))).toBe('"true"');
    expect(recordedReuseLeaseText(meta({ reuseLease: { on: true } }))).toBe("(an object)");
    expect(recordedReuseLeaseText(meta({ reuseLease: undefined }))).toBeNull();
    expect(recordedReuseLeaseText(meta({ reuseLease: null }))).toBeNull();
    expect(recordedReuseLeaseText(null)).toBeNull();
  });
});
