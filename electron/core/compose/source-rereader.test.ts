import { describe, expect, it } from "vitest";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import { environment, row } from "../../../shared/domain/test-fixtures.js";
import { leaseKey } from "../actions/ports.js";
import type { LeaseSource } from "../leases/source.js";
import { snapshotRead } from "../leases/testing/snapshot-read.js";
import { sourceRereader } from "./source-rereader.js";

const INSTALLED: InstalledPlugin = {
  version: "0.2.0",
  generation: "createos-0.2",
  readFrom: "Paperclip's plugins table",
};

/**
 * A source holding `rows` under one environment; it can tell the installed plugin when given one, and
 * reads whole with `gaps` unread.
 */
function source(
  id: string,
  kind: LeaseSource["kind"],
  rows: LeaseRow[],
  installed?: InstalledPlugin,
  gaps: SourceGap[] = [],
): LeaseSource & { pluginReads: number } {
  const env: Environment = environment();
  const counted: LeaseSource & { pluginReads: number } = {
    id,
    kind,
    pluginReads: 0,
    async load(): Promise<SourceSnapshot> {
      return { sourceId: id, environments: [env], leases: rows, companies: [], problems: [], gaps };
    },
    async read() {
      return snapshotRead(await this.load());
    },
    async readLease(leaseId) {
      return rows.find((candidate) => candidate.id === leaseId) ?? null;
    },
    async readEnvironment(environmentId) {
      return environmentId === env.id ? env : null;
    },
  };
  if (installed !== undefined) {
    counted.readInstalledPlugin = async () => {
      counted.pluginReads += 1;
      return installed;
    };
  }
  return counted;
}

describe("the rereader asks a source that can tell it which plugin is installed", () => {
  it("once per batch, and every row it re-read carries the answer", async () => {
    const database = source(
      "paperclip-db",
      "paperclip-db",
      [row({ id: "a", providerLeaseId: "sbx_a" }), row({ id: "b", providerLeaseId: "sbx_b" })],
      INSTALLED,
    );
    const reads = await sourceRereader([database]).reread([
      { sourceId: "paperclip-db", leaseId: "a", sharedWith: [] },
      { sourceId: "paperclip-db", leaseId: "b", sharedWith: [] },
      { sourceId: "paperclip-db", leaseId: "gone", sharedWith: [] },
    ]);
    expect(database.pluginReads).toBe(1);
    expect(reads.get(leaseKey("paperclip-db", "a"))?.installedPlugin).toEqual(INSTALLED);
    expect(reads.get(leaseKey("paperclip-db", "b"))?.installedPlugin).toEqual(INSTALLED);
    expect(reads.get(leaseKey("paperclip-db", "gone"))).toBeNull();
  });

  it("leaves the plugin out for a source that cannot tell it (a ledger, Paperclip's REST API)", async () => {
    const ledger = source("ledger", "ledger", [row({ id: "l", providerLeaseId: "sbx_l" })]);
    const rest = source("paperclip", "paperclip", [row({ id: "r", providerLeaseId: "sbx_r" })]);
    const reads = await sourceRereader([ledger, rest]).reread([
      { sourceId: "ledger", leaseId: "l", sharedWith: [] },
      { sourceId: "paperclip", leaseId: "r", sharedWith: [] },
    ]);
    const ledgerRead = reads.get(leaseKey("ledger", "l"));
    const restRead = reads.get(leaseKey("paperclip", "r"));
    expect(ledgerRead?.lease.id).toBe("l");
    expect(restRead?.lease.id).toBe("r");
    expect(ledgerRead).not.toHaveProperty("installedPlugin");
    expect(restRead).not.toHaveProperty("installedPlugin");
  });
});

describe("a job's re-read says which parts of the sources it read whole could not be read", () => {
  const ledgerGap: SourceGap = { source: "ledger", origin: null, message: "leases[1] could not be read" };
  const restGap: SourceGap = {
    source: "paperclip",
    origin: null,
    message: 'The leases of environment "Agents" could not be read: HTTP 502',
    environmentId: "env-1",
  };
  const sources = () => [
    source("ledger", "ledger", [row({ id: "l", providerLeaseId: "sbx_l" })], undefined, [ledgerGap]),
    source("paperclip", "paperclip", [row({ id: "r", providerLeaseId: "sbx_r" })], undefined, [restGap]),
  ];

  it("a batch's rows: every ledger's, read whole, and none of a source re-read a row at a time", async () => {
    const batch = await sourceRereader(sources()).rereadBatch([
      { sourceId: "paperclip", leaseId: "r", sharedWith: [] },
    ]);
    expect(batch.rows.get(leaseKey("paperclip", "r"))?.lease.id).toBe("r");
    expect(batch.gaps).toEqual([ledgerGap]);
  });

  it("the names: every source's, each read whole, where the plain question refuses to answer", async () => {
    const rereader = sourceRereader(sources());
    const names = await rereader.namesNow(["sbx_l", "sbx_x"]);
    expect(names.named).toEqual(new Set(["sbx_l"]));
    expect(names.gaps).toEqual([ledgerGap, restGap]);
    await expect(rereader.namedSandboxes(["sbx_l"])).rejects.toThrow("read only in part");
  });
});
