import { describe, expect, it } from "vitest";
import { LIVE_PROVIDER_STATES } from "./codes.js";
import type { SandboxListing } from "./inventory.js";
import { indexListings, observeProvider } from "./provider-state.js";
import {
  environment,
  failedListing,
  meta,
  NOW,
  OLD_ORIGIN,
  ORIGIN,
  okListing,
  row,
  SANDBOX,
  sandbox,
} from "./test-fixtures.js";

const observe = (listings: SandboxListing[], lease = row(), env = environment()) =>
  observeProvider(lease, env, indexListings(listings));

describe("observeProvider: what CreateOS says of a lease's sandbox", () => {
  it.each(LIVE_PROVIDER_STATES)("a sandbox listed %s has that code", (status) => {
    const seen = observe([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, status)])]);
    expect(seen).toMatchObject({ code: status, rawStatus: status, credential: "key-a", unknownReason: null });
  });

  it.each(["destroyed", "failed"])("a sandbox listed %s is gone", (status) => {
    const seen = observe([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, status)])]);
    expect(seen).toMatchObject({ code: "gone", rawStatus: status, observedAt: NOW.toISOString() });
  });

  it("an unrecognized status string is unknown, with the raw status kept", () => {
    const seen = observe([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "hibernating")])]);
    expect(seen).toMatchObject({
      code: "unknown",
      unknownReason: "unrecognized-status",
      rawStatus: "hibernating",
    });
    expect(seen.sandbox).toEqual(sandbox(SANDBOX, "hibernating"));
  });

  it("absent from every OK listing at the origin is not-visible, never gone", () => {
    const seen = observe([
      okListing(ORIGIN, "key-a", []),
      okListing(ORIGIN, "key-b", [sandbox("other", "running")]),
    ]);
    expect(seen).toMatchObject({ code: "not-visible", credential: null, unknownReason: null });
  });

  it("absent, with one listing for the origin failed, is unknown with that failure's reason", () => {
    const seen = observe([okListing(ORIGIN, "key-a", []), failedListing(ORIGIN, "key-b", "unauthorized")]);
    expect(seen).toMatchObject({ code: "unknown", unknownReason: "unauthorized" });
  });

  it("a failing credential and an OK credential at one origin: the OK listing that shows it wins", () => {
    const seen = observe([
      failedListing(ORIGIN, "key-a", "server-error"),
      okListing(ORIGIN, "key-b", [sandbox(SANDBOX, "paused")]),
    ]);
    expect(seen).toMatchObject({ code: "paused", credential: "key-b", unknownReason: null });
  });

  it.each(["network", "timeout", "rate-limited", "server-error", "forbidden", "invalid-response"] as const)(
    "a listing that failed with %s proves nothing: unknown",
    (reason) => {
      expect(observe([failedListing(ORIGIN, "key-a", reason)])).toMatchObject({
        code: "unknown",
        unknownReason: reason,
      });
    },
  );

  it("no listing (credential) for the recorded origin is unknown/no-credential", () => {
    const seen = observe(
      [okListing(OLD_ORIGIN, "key-old", [sandbox(SANDBOX, "running")])],
      row(),
      environment(),
    );
    expect(seen).toMatchObject({ code: "unknown", unknownReason: "no-credential", origin: ORIGIN });
  });

  it("reads the sandbox at the lease's recorded origin, not the environment's current one", () => {
    const lease = row({ metadata: meta({ apiUrl: OLD_ORIGIN }) });
    const seen = observe(
      [
        okListing(ORIGIN, "key-new", [sandbox(SANDBOX, "destroyed")]),
        okListing(OLD_ORIGIN, "key-old", [sandbox(SANDBOX, "running")]),
      ],
      lease,
    );
    expect(seen).toMatchObject({
      code: "running",
      origin: OLD_ORIGIN,
      originFrom: "lease-metadata",
      credential: "key-old",
    });
  });

  it("treats a recorded https://host/v1 and a listing for https://host as one origin", () => {
    const lease = row({ metadata: meta({ apiUrl: `${ORIGIN}/v1` }) });
    expect(observe([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "running")])], lease)).toMatchObject({
      code: "running",
      origin: ORIGIN,
    });
    expect(observe([okListing(`${ORIGIN}/v1/`, "key-a", [sandbox(SANDBOX, "running")])])).toMatchObject({
      code: "running",
    });
  });

  it("falls back to the environment's apiUrl only when metadata is missing, and says so", () => {
    const lease = row({ metadata: { providerMetadata: meta({ apiUrl: OLD_ORIGIN }) } });
    expect(observe([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "running")])], lease)).toMatchObject({
      code: "running",
      origin: ORIGIN,
      originFrom: "environment",
    });
  });

  it("does not fall back when metadata exists but its apiUrl is missing", () => {
    const lease = row({ metadata: meta({ apiUrl: undefined }) });
    expect(observe([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "running")])], lease)).toMatchObject({
      code: "unknown",
      unknownReason: "invalid-url",
      origin: null,
      originFrom: "lease-metadata",
    });
  });

  it.each([
    ["plain http to a remote host", "http://remote.test"],
    ["a URL with credentials", "https://user:secret@host.test"],
    ["a URL with a query", "https://host.test/?key=secret"],
    ["another path", "https://host.test/other"],
  ])("a recorded apiUrl that breaks the URL rule (%s) is unknown/invalid-url", (_, apiUrl) => {
    const seen = observe(
      [okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "running")])],
      row({ metadata: meta({ apiUrl }) }),
    );
    expect(seen).toMatchObject({ code: "unknown", unknownReason: "invalid-url", origin: null });
  });

  it("no sandbox id is unknown/no-sandbox-id", () => {
    const seen = observe(
      [okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "running")])],
      row({ providerLeaseId: null }),
    );
    expect(seen).toMatchObject({ code: "unknown", unknownReason: "no-sandbox-id", origin: ORIGIN });
  });

  it("an orphan row with missing metadata has nowhere to ask", () => {
    const seen = observeProvider(row({ environmentId: null, metadata: null }), null, indexListings([]));
    expect(seen).toMatchObject({
      code: "unknown",
      unknownReason: "invalid-url",
      origin: null,
      originFrom: "none",
    });
  });

  it("an orphan row with metadata is read at its recorded origin", () => {
    const index = indexListings([okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "paused")])]);
    expect(observeProvider(row({ environmentId: null }), null, index)).toMatchObject({ code: "paused" });
  });
});

describe("indexListings", () => {
  it("keeps the first listing's view when two keys of one account list the same sandbox", () => {
    const index = indexListings([
      okListing(ORIGIN, "key-a", [sandbox(SANDBOX, "running")]),
      okListing(ORIGIN, "key-b", [sandbox(SANDBOX, "running")]),
    ]);
    expect(index.get(ORIGIN)?.sandboxes.get(SANDBOX)?.credential).toBe("key-a");
  });

  it("records the first failure and the first observation per origin", () => {
    const index = indexListings([
      failedListing(ORIGIN, "key-a", "timeout"),
      failedListing(ORIGIN, "key-b", "network"),
    ]);
    expect(index.get(ORIGIN)).toMatchObject({ failure: "timeout", firstObservedAt: null });
  });
});
