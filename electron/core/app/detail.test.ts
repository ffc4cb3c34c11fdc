import { describe, expect, it } from "vitest";
import { LeaseDetailSchema } from "../../../shared/contract/index.js";
import type { ClassifiedLease } from "../../../shared/domain/inventory.js";
import { environment, MARKER, meta, NOW, observation, row } from "../../../shared/domain/test-fixtures.js";
import { classifyLease } from "../../../shared/domain/verdict.js";
import { leaseDetail } from "./detail.js";

function classified(metadata: unknown): ClassifiedLease {
  const lease = row({ metadata });
  const env = environment();
  const provider = observation("running");
  return {
    sourceId: "ledger:test",
    lease,
    environment: env,
    provider,
    verdict: classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: [] }),
    sharedWith: [],
  };
}

describe("lease detail", () => {
  it("fits the contract and never carries the full marker", () => {
    const detail = leaseDetail(classified(meta()), new Map());
    expect(LeaseDetailSchema.parse(detail)).toEqual(detail);
    expect(detail.metadata.markerPrefix).toBe(`${MARKER.slice(0, 8)}…`);
    expect(JSON.stringify(detail)).not.toContain(MARKER);
  });

  it("says what Paperclip will do, which config fields changed, and the release effect as recorded and current", () => {
    const lease = row({ companyId: "company-a", metadata: meta({ shape: "s-2vcpu-4gb", reuseLease: true }) });
    const env = environment({ config: { reuseLease: false } });
    const provider = observation("paused");
    const detail = leaseDetail(
      {
        sourceId: "ledger:test",
        lease,
        environment: env,
        provider: { ...provider, actedOnBy: null },
        verdict: classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: [] }),
        sharedWith: [],
      },
      new Map(),
      new Map([["company-a", "Acme Robotics"]]),
    );
    expect(LeaseDetailSchema.parse(detail)).toEqual(detail);
    expect(detail.staleConfigFields).toEqual(["shape", "reuseLease"]);
    expect(detail.paperclipWill).toMatch(
      /^Expires it at the next resume because its recorded config no longer matches \(shape, reuseLease\)/,
    );
    // The host releases with the recorded config: the recorded reuseLease decides, the current one is shown.
    // Which plugin runs the instance is not known here, so the release is the one that destroys least.
    expect(detail.releaseEffect).toMatchObject({
      recordedReuseLease: true,
      recordedReuseLeaseText: "true",
      currentReuseLease: false,
      outcome: "pause",
    });
    expect(detail.releaseEffect.sentence).toMatch(/^pauses the sandbox, as plugin 0\.1 does/);
    expect(detail.judgedBy.wrote.generation).toBe("createos-0.1");
    expect(detail.judgedBy.acts.generation).toBeNull();
    expect(detail.judgedBy.readings).toHaveLength(1);
    expect(detail.company).toEqual({ id: "company-a", name: "Acme Robotics" });
    expect(detail.actedOnBy).toBeNull();
  });

  it("names what holds the row where its source read names, and says why where it gives none", () => {
    const held = (names: Partial<ClassifiedLease["lease"]>) => {
      const base = classified(meta());
      return {
        ...base,
        lease: {
          ...base.lease,
          heartbeatRunId: "run-1",
          issueId: "issue-1",
          executionWorkspaceId: null,
          ...names,
        },
      };
    };
    const named = leaseDetail(
      held({ agentName: "Builder", issueTitle: "Fix the login page", issueIdentifier: "ACME-12" }),
      new Map(),
      new Map(),
      undefined,
      "paperclip-db",
    );
    expect(LeaseDetailSchema.parse(named)).toEqual(named);
    expect(named.row).toMatchObject({ agentName: "Builder", issueIdentifier: "ACME-12" });
    expect(named.holderNamesNote).toBeNull();
    expect(leaseDetail(held({}), new Map(), new Map(), undefined, "paperclip").holderNamesNote).toBe(
      "Paperclip's REST API does not give run, issue or workspace names.",
    );
    expect(leaseDetail(held({}), new Map(), new Map(), undefined, "ledger").holderNamesNote).toBe(
      "This source does not give run, issue or workspace names.",
    );
    expect(
      leaseDetail(held({ issueTitle: "Fix it" }), new Map(), new Map(), undefined, "paperclip-db")
        .holderNamesNote,
    ).toBe("This Paperclip database gives no run names: it lacks the table, or the role may not read it.");
    // Nothing holds it: nothing to name, nothing to say.
    expect(
      leaseDetail(held({ heartbeatRunId: null, issueId: null }), new Map(), new Map(), undefined, "paperclip")
        .holderNamesNote,
    ).toBeNull();
  });

  it("withholds values under secret-looking keys, at any depth, and cuts URLs to their origin", () => {
    const detail = leaseDetail(
      classified(
        meta({
          apiKey: "cos_live_should_not_show",
          authToken: "tok_should_not_show",
          pluginKey: "createos",
          callbackUrl: "https://user:pw@hooks.example/path?key=cos_query_secret#frag",
          reusableSandboxLease: {
            version: 1,
            workspaceSentinel: "sentinel-full-value-1234",
            password: "pw_nested",
          },
          providerMetadata: { marker: MARKER },
        }),
      ),
      new Map(),
    );
    const json = JSON.stringify(detail);
    for (const secret of [
      "cos_live_should_not_show",
      "tok_should_not_show",
      "cos_query_secret",
      "pw_nested",
      "sentinel-full-value-1234",
      MARKER,
      "user:pw",
    ]) {
      expect(json).not.toContain(secret);
    }
    const entries = Object.fromEntries(detail.metadata.entries.map((entry) => [entry.key, entry]));
    expect(entries.apiKey).toEqual({ key: "apiKey", value: "(withheld)", redacted: true });
    expect(entries.pluginKey).toMatchObject({ value: "createos", redacted: false });
    expect(entries.callbackUrl?.value).not.toContain("?");
  });

  it("says what shape unusable metadata has", () => {
    expect(leaseDetail(classified(null), new Map()).metadata.shape).toBe("null");
    expect(leaseDetail(classified("a string"), new Map()).metadata.shape).toBe("other");
    expect(
      leaseDetail(classified({ providerMetadata: { provider: "createos" } }), new Map()).metadata.shape,
    ).toBe("nested");
  });

  it("survives hostile metadata: prototype keys, huge values, many keys", () => {
    const hostile = JSON.parse(
      `{"__proto__": {"polluted": true}, "constructor": "x", "big": "${"x".repeat(100_000)}"}`,
    );
    for (let at = 0; at < 500; at++) hostile[`k${at}`] = at;
    const detail = leaseDetail(classified(hostile), new Map());
    expect(LeaseDetailSchema.safeParse(detail).success).toBe(true);
    expect(detail.metadata.entries.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(detail).length).toBeLessThan(30_000);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
