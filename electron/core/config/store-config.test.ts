import { describe, expect, it } from "vitest";
import { sourceSecrets } from "../app/source-secrets.js";
import { parseConfig } from "./load.js";

const FILE = "/srv/leasekeeper/leasekeeper.config.json";
const STORE_URL = "postgres://team:t3am%2Fcanary@team-db.internal:5432/leasekeeper";

function configWith(extra: Record<string, unknown>) {
  return parseConfig({ sources: [{ kind: "ledger", path: "ledger.json" }], dataDir: "data", ...extra }, FILE);
}

describe("the store and operator in the config", () => {
  it("keeps the SQLite store when none is named, and names the shared store's variable otherwise", () => {
    expect(configWith({}).store).toEqual({ kind: "sqlite" });
    expect(configWith({}).operator).toBeUndefined();
    const shared = configWith({
      store: { kind: "postgres", urlEnv: "LEASEKEEPER_STORE_URL" },
      operator: "Ada",
    });
    expect(shared.store).toEqual({ kind: "postgres", urlEnv: "LEASEKEEPER_STORE_URL" });
    expect(shared.operator).toBe("Ada");
  });

  it("refuses a connection string written into the file, without echoing it", () => {
    const attempt = () => configWith({ store: { kind: "postgres", url: STORE_URL } });
    expect(attempt).toThrow(expect.objectContaining({ area: "config", code: "invalid" }));
    expect(() => attempt()).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("canary") }),
    );
    expect(() => configWith({ store: { kind: "mysql" } })).toThrow(
      expect.objectContaining({ area: "config", code: "invalid" }),
    );
  });

  it("hands the shared store's connection string and its password to the redactor", () => {
    const config = configWith({ store: { kind: "postgres", urlEnv: "LEASEKEEPER_STORE_URL" } });
    expect(sourceSecrets(config, { LEASEKEEPER_STORE_URL: STORE_URL })).toEqual([STORE_URL, "t3am/canary"]);
    expect(sourceSecrets(config, {})).toEqual([]);
  });
});
