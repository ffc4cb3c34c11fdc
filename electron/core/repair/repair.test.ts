import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseRepair, RepairRefusal } from "../../../shared/domain/lease-repair.js";
import { ownership } from "../../../shared/domain/ownership.js";
import { COMPANY, ENVIRONMENT } from "../../../test/fixtures/leasekeeper.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import {
  holding,
  type MarkerWorld,
  markedRow,
  marker,
  markerWorld,
  running,
} from "../markers/testing/marker-world.js";

// `leasekeeper repair`, in-process: every sandbox is proven against the simulator over real HTTP before
// a repair is computed, and the exported metadata is checked with the project's own ownership rule.

const OTHER_ENVIRONMENT = "55555555-5555-4555-8555-555555555555";
const OTHER_COMPANY = "66666666-6666-4666-8666-666666666666";

const lostMetadata = markedRow("sb-lost", 11, { metadata: { marker: marker(11) } });
const nested = markedRow("sb-nested", 12, {
  metadata: {
    providerMetadata: {
      provider: "createos",
      companyId: COMPANY,
      environmentId: ENVIRONMENT,
      marker: marker(12),
      shape: "s-2vcpu-4gb",
    },
  },
});
const patched = (lease: ReturnType<typeof markedRow>, patch: Record<string, unknown>) => ({
  ...lease,
  metadata: { ...(lease.metadata as Record<string, unknown>), ...patch },
});
const wrongEnvironment = patched(markedRow("sb-wrong-env", 13), { environmentId: OTHER_ENVIRONMENT });
const napping = markedRow("sb-nap", 14, { metadata: { marker: marker(14) } });
const foreignCompany = patched(markedRow("sb-foreign", 15), {
  companyId: OTHER_COMPANY,
  environmentId: OTHER_ENVIRONMENT,
});

// A row a trimming scan handed over, exported as it was read: a read by id gives only those keys too.
const partial = {
  ...patched(markedRow("sb-partial", 16), { environmentId: OTHER_ENVIRONMENT }),
  partialMetadata: true,
};

let w: MarkerWorld;
beforeAll(async () => {
  w = await markerWorld(
    [
      running("sb-lost", holding(11)),
      running("sb-nested", holding(12)),
      running("sb-wrong-env", holding(13)),
      { ...running("sb-nap", holding(14)), status: "paused" },
      running("sb-foreign", holding(15)),
      running("sb-partial", holding(16)),
    ],
    [lostMetadata, nested, wrongEnvironment, napping, foreignCompany, partial],
  );
});
afterAll(() => w?.stop());

function cli(args: string[]) {
  return runCliCaptured(args, w);
}

const everyLease = [lostMetadata, nested, wrongEnvironment, napping, foreignCompany].flatMap((lease) => [
  "--lease",
  lease.id,
]);

describe("leasekeeper repair", () => {
  it("exports metadata the plugin's ownership rule accepts for each proven, repairable row", async () => {
    const { code, stdout } = await cli(["repair", ...everyLease, "--format", "json"]);
    expect(code).toBe(1);
    const exported = JSON.parse(stdout) as { repairs: LeaseRepair[]; refused: RepairRefusal[] };
    expect(exported.repairs.map((repair) => repair.leaseId)).toEqual([
      lostMetadata.id,
      nested.id,
      wrongEnvironment.id,
    ]);
    for (const repair of exported.repairs) {
      const classified = w.inventory.leases.find((entry) => entry.lease.id === repair.leaseId)!;
      expect(ownership(classified.lease, classified.environment)).not.toEqual(["owned"]);
      const reread = { ...classified.lease, metadata: repair.metadata };
      expect(ownership(reread, classified.environment)).toEqual(["owned"]);
      expect(repair.metadata.apiUrl).toBe(w.sim.url);
    }
    expect(exported.repairs[1]!.metadata.shape).toBe("s-2vcpu-4gb");
  });

  it("refuses a sandbox it cannot read and a row that names another company, with the reason", async () => {
    const { stdout, stderr } = await cli(["repair", ...everyLease, "--format", "json"]);
    const { refused } = JSON.parse(stdout) as { refused: RepairRefusal[] };
    expect(refused.map((refusal) => [refusal.leaseId, refusal.reason])).toEqual([
      [napping.id, "not-proven"],
      [foreignCompany.id, "foreign-company"],
    ]);
    expect(stderr).toContain(
      `lease ${napping.id} not repaired: Metadata is only rewritten for a sandbox proven`,
    );
    expect(w.sim.sandboxes()[0]!.sandboxes.find((sandbox) => sandbox.id === "sb-nap")?.status).toBe("paused");
  });

  it("prints one transaction of compare-and-set UPDATEs, and the hand-back on request", async () => {
    const { code, stdout } = await cli([
      "repair",
      "--lease",
      lostMetadata.id,
      "--format",
      "sql",
      "--hand-back",
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain("BEGIN;");
    expect(stdout).toContain(`WHERE id = '${lostMetadata.id}'`);
    expect(stdout).toContain(
      `AND date_trunc('milliseconds', updated_at) = '${lostMetadata.updatedAt}'::timestamptz`,
    );
    expect(stdout).toContain("status = 'pending_cleanup'");
    expect(stdout.trimEnd().endsWith("COMMIT;")).toBe(true);
  });

  it("refuses a row whose whole metadata cannot be read, and writes no UPDATE for it", async () => {
    const { code, stdout, stderr } = await cli(["repair", "--lease", partial.id, "--format", "sql"]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      `lease ${partial.id} not repaired: The scan read this row without Paperclip's own bookkeeping keys, and a repair writes the whole metadata back; the whole row could not be read (its source gives only those keys when the row is read by id too)`,
    );
    expect(stdout.split("\n").filter((line) => line !== "" && !line.startsWith("--"))).toEqual([]);
    const json = JSON.parse((await cli(["repair", "--lease", partial.id, "--format", "json"])).stdout) as {
      repairs: LeaseRepair[];
      refused: RepairRefusal[];
    };
    expect(json.repairs).toEqual([]);
    expect(json.refused.map((refusal) => refusal.reason)).toEqual(["partial-metadata"]);
  });

  it("asks for a lease and a format", async () => {
    expect((await cli(["repair", "--format", "sql"])).code).toBe(2);
    expect((await cli(["repair", "--lease", lostMetadata.id, "--format", "yaml"])).code).toBe(2);
  });
});
