import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import type { ChannelResponse, Result } from "../../../shared/contract/index.js";
import { MARKER_ANSWERS } from "../../../shared/domain/marker-proof.js";
import { openDemoApp } from "../app/testing/demo-app.js";
import type { Core } from "../compose/index.js";

// `markers:prove` through the real handler table of a real core, against the generated demo world (whose
// sandboxes hold the markers their rows record) served by the simulator.

let demo: Demo;
let app: Core;

beforeAll(async () => {
  demo = await startDemo({ size: 60, seed: "marker-channel", transitionMs: 20 });
  app = await openDemoApp(demo, { persist: false, actions: false });
}, 30_000);
afterAll(async () => {
  await app?.close();
  await demo?.stop();
});

const prove = (request: unknown) =>
  app.handlers["markers:prove"](request, { host: "test" }) as Promise<
    Result<ChannelResponse<"markers:prove">>
  >;

describe("markers:prove", () => {
  it("proves the demo's leases, and no answer carries a whole marker", async () => {
    const leases = demo.world.ledger.leases.slice(0, 30);
    const result = await prove({ leases: leases.map((lease) => ({ leaseId: lease.id })) });
    if (!result.ok) throw new Error(result.error.message);
    const { proofs } = result.data;
    expect(proofs).toHaveLength(leases.length);
    for (const proof of proofs) expect(MARKER_ANSWERS).toContain(proof.answer);
    expect(proofs.some((proof) => proof.answer === "proven")).toBe(true);

    const answer = JSON.stringify(result);
    for (const lease of demo.world.ledger.leases) {
      const marker = (lease.metadata as { marker?: unknown } | null)?.marker;
      if (typeof marker === "string" && marker.length > 8) expect(answer).not.toContain(marker);
    }
  });

  it.each([
    ["an empty request", {}],
    ["an empty selection", { leases: [], untracked: [] }],
    ["an unknown field", { leases: [{ leaseId: "x", marker: "y" }] }],
    ["too many", { leases: Array.from({ length: 501 }, (_, index) => ({ leaseId: `l${index}` })) }],
  ])("refuses %s as invalid", async (_, request) => {
    const result = await prove(request);
    expect(result.ok ? null : result.error.code).toBe("invalid-request");
  });

  it("answers not-found for a lease the inventory does not hold", async () => {
    const result = await prove({ leases: [{ leaseId: "no-such-lease" }] });
    expect(result.ok ? null : result.error.code).toBe("not-found");
  });
});
