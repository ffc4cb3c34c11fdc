import { describe, expect, it } from "vitest";
import { candidatesOf } from "./candidate.js";
import { indexProofs, leaseStatuses } from "./forced-destroy-proof.js";
import { type Selector, SelectorSchema } from "./policy.js";
import { proofPrefixes, recordersNow } from "./recorders-now.js";
import { matchSelector, type SelectionContext } from "./select.js";
import { hoursAgo, NOW, proofs, world } from "./test-world.js";

const inventory = world();
const candidates = candidatesOf(inventory);
const context = (now: Date): SelectionContext => ({
  now,
  companyNames: new Map(inventory.companies.map((company) => [company.id, company.name])),
  proofs: indexProofs(proofs()),
  statuses: leaseStatuses(inventory),
  recorders: recordersNow(inventory.leases, proofPrefixes(proofs())),
  gaps: inventory.gaps,
});

/** The names (lease ids, untracked sandbox ids) a selector matches in the world, in inventory order. */
function selected(select: unknown, now = NOW): string[] {
  const selector: Selector = SelectorSchema.parse(select);
  return candidates
    .filter((candidate) => matchSelector(selector, candidate, context(now)).matches)
    .map((candidate) =>
      candidate.kind === "lease" ? candidate.lease.lease.id : candidate.sandbox.sandboxId,
    );
}

describe("selectors", () => {
  it.each<[string, unknown, string[]]>([
    [
      "released more than 24 h ago",
      { age: { released: "24h" } },
      ["leaky", "leaky-too", "foreign", "metadata-missing"],
    ],
    [
      "released more than 29 h ago",
      { age: { released: "29h" } },
      ["leaky-too", "foreign", "metadata-missing"],
    ],
    ["released more than 7 d ago", { age: { released: "7d" } }, []],
    ["acquired more than 29 h ago", { age: { acquired: "29h" } }, ["leaky"]],
    ["last used more than 1500 min ago", { age: { lastUsed: "1500m" } }, ["leaky", "leaky-too"]],
    [
      "untracked, created more than 2 h ago",
      { kind: "untracked", age: { created: "2h" } },
      ["sbx_lost", "sbx_stray", "sbx_borrowed", "sbx_maybe"],
    ],
    [
      "untracked, created more than 20 min ago",
      { kind: "untracked", age: { created: "20m" } },
      ["sbx_lost", "sbx_stray", "sbx_borrowed", "sbx_fresh", "sbx_maybe"],
    ],
  ])("%s", (_, select, expected) => {
    expect(selected(select)).toEqual(expected);
  });

  it("an age is measured against the pass's now, and older than is strict", () => {
    // leaky-recent was released 1 h before NOW.
    const released = { headline: ["leaking"], age: { released: "2h" } };
    expect(selected(released)).not.toContain("leaky-recent");
    expect(selected(released, new Date(NOW.getTime() + 3_600_000))).not.toContain("leaky-recent");
    expect(selected(released, new Date(NOW.getTime() + 3_600_001))).toContain("leaky-recent");
  });

  it("a moment never recorded is never old enough", () => {
    // in-use is active: it was never released.
    expect(selected({ status: ["active"], age: { released: "1m" } })).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ["headline", { headline: ["stale"] }, ["gone", "metadata-missing", "stale-config"]],
    [
      "ownership code",
      { ownership: ["metadata-missing", "foreign-company"] },
      ["run-failing", "foreign", "metadata-missing"],
    ],
    ["flags, all of", { flags: { allOf: ["in-use", "login-session"] } }, ["login"]],
    [
      "flags, none of",
      { headline: ["leaking"], flags: { noneOf: ["shared"] } },
      ["leaky", "leaky-too", "leaky-recent"],
    ],
    ["environment by name", { environment: ["Dark"] }, ["unknown"]],
    ["environment by id", { environment: ["env-dark"] }, ["unknown"]],
    ["company by name", { company: ["Acme"], status: ["pending_cleanup"] }, ["host-cleanup"]],
    ["company by id", { company: ["company-a"], status: ["pending_cleanup"] }, ["host-cleanup"]],
    [
      "lease status and policy",
      { status: ["retained"], leasePolicy: ["reuse_by_environment"] },
      ["hidden", "gone"],
    ],
    ["shape as CreateOS lists it", { shape: ["s-2vcpu-4gb"] }, ["stale-config"]],
    ["provider state", { provider: ["paused"] }, ["stale-config"]],
    [
      "kind",
      { kind: "untracked", provider: ["running"] },
      ["sbx_lost", "sbx_stray", "sbx_borrowed", "sbx_fresh", "sbx_maybe"],
    ],
    ["marker proof answer", { proof: ["no-marker"] }, ["sbx_stray"]],
    ["marker proof of an ended lease", { kind: "untracked", proof: ["ended-lease"] }, ["sbx_lost"]],
    ["no marker proof kept", { kind: "untracked", proof: ["none"] }, ["sbx_fresh", "sbx_maybe"]],
  ])("by %s", (_, select, expected) => {
    expect(selected(select)).toEqual(expected);
  });

  it("says which clauses matched, in the operator's words", () => {
    const leaky = candidates.find(
      (candidate) => candidate.kind === "lease" && candidate.lease.lease.id === "leaky",
    )!;
    const selector = SelectorSchema.parse({
      headline: ["leaking"],
      environment: ["Production"],
      age: { released: "24h" },
      flags: { noneOf: ["shared"] },
    });
    expect(matchSelector(selector, leaky, context(NOW))).toEqual({
      matches: true,
      clauses: [
        "headline leaking",
        "not flagged shared",
        "environment Production (env-prod)",
        "released 26 h ago (older than 24h)",
      ],
    });
    expect(hoursAgo(26)).toBe(leaky.kind === "lease" ? leaky.lease.lease.releasedAt : null);
  });
});
