import { describe, expect, it } from "vitest";
import { sourceSecrets } from "../app/source-secrets.js";
import { parseConfig } from "../config/load.js";
import { createSources, PaperclipDbSource, SourceError } from "./index.js";

const FILE = "/srv/leasekeeper/leasekeeper.config.json";
const URL_WITH_PASSWORD = "postgres://reader:s3cr%40t-canary@db.internal:5432/paperclip";

function configWith(source: Record<string, unknown>) {
  return parseConfig({ sources: [source], dataDir: "data" }, FILE);
}

describe("a paperclip-db source in the config", () => {
  it("names the variable that holds the connection string, and takes its id from it", () => {
    const config = configWith({ kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL" });
    expect(config.sources).toEqual([
      {
        kind: "paperclip-db",
        id: "paperclip-db:PAPERCLIP_DATABASE_URL",
        urlEnv: "PAPERCLIP_DATABASE_URL",
        writeUrlEnv: null,
      },
    ]);
    expect(
      configWith({ kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL", name: "paperclip" }).sources[0]!
        .id,
    ).toBe("paperclip");
  });

  it("refuses a connection string written into the file, without echoing it", () => {
    const attempt = () => configWith({ kind: "paperclip-db", url: URL_WITH_PASSWORD });
    expect(attempt).toThrow(expect.objectContaining({ area: "config", code: "invalid" }));
    try {
      attempt();
    } catch (error) {
      expect((error as Error).message).not.toContain("s3cr");
    }
    expect(() => configWith({ kind: "paperclip-db", urlEnv: "not a variable" })).toThrow(
      expect.objectContaining({ area: "config", code: "invalid" }),
    );
  });

  it("is built from the variable; an unset one is named, and nothing connects until a read", () => {
    const config = configWith({ kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL" });
    expect(() => createSources(config, { env: {} })).toThrow(
      new SourceError(
        "paperclip-db:PAPERCLIP_DATABASE_URL",
        "not-configured",
        "the Paperclip database variable PAPERCLIP_DATABASE_URL is not set.",
      ),
    );
    const [source] = createSources(config, { env: { PAPERCLIP_DATABASE_URL: URL_WITH_PASSWORD } });
    expect(source).toBeInstanceOf(PaperclipDbSource);
    expect(source!.kind).toBe("paperclip-db");
    void (source as PaperclipDbSource).close();
  });

  it("names a second variable for applying repairs, and hands both URLs and passwords to the redactor", () => {
    const config = configWith({
      kind: "paperclip-db",
      urlEnv: "PAPERCLIP_DATABASE_URL",
      writeUrlEnv: "PAPERCLIP_REPAIR_URL",
    });
    expect(config.sources[0]).toMatchObject({ writeUrlEnv: "PAPERCLIP_REPAIR_URL" });
    expect(() =>
      configWith({ kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL", writeUrlEnv: "not a variable" }),
    ).toThrow(expect.objectContaining({ area: "config", code: "invalid" }));
    const writer = "postgres://repairer:wr1te-canary@db.internal:5432/paperclip";
    expect(
      sourceSecrets(config, { PAPERCLIP_DATABASE_URL: URL_WITH_PASSWORD, PAPERCLIP_REPAIR_URL: writer }),
    ).toEqual([URL_WITH_PASSWORD, "s3cr@t-canary", writer, "wr1te-canary"]);
  });

  it("hands the connection string and its password to the redactor", () => {
    const config = configWith({ kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL" });
    expect(sourceSecrets(config, { PAPERCLIP_DATABASE_URL: URL_WITH_PASSWORD })).toEqual([
      URL_WITH_PASSWORD,
      "s3cr@t-canary",
    ]);
  });
});
