import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { CoreError } from "../errors/core-error.js";
import { loadConfig, parseConfig } from "./load.js";
import { EnvSecretStore, resolveApiKey } from "./secrets.js";

describe("loadConfig", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const valid = {
    sources: [
      { kind: "ledger", path: "data/ledger.json" },
      { kind: "paperclip", url: "http://localhost:3100/api/", tokenEnv: "PAPERCLIP_TOKEN", name: "prod" },
    ],
    credentials: [{ name: "main", origin: "https://api.sb.createos.sh/v1", apiKeyEnv: "CREATEOS_MAIN_KEY" }],
    dataDir: ".leasekeeper",
  };

  it("resolves paths against the file, normalises origins, and applies defaults", async () => {
    const file = await writeJson(path.join(dir, "leasekeeper.config.json"), valid);
    const config = await loadConfig(file);
    expect(config.sources).toEqual([
      { kind: "ledger", id: "ledger:ledger.json", path: path.join(dir, "data/ledger.json") },
      { kind: "paperclip", id: "prod", url: "http://localhost:3100", tokenEnv: "PAPERCLIP_TOKEN" },
    ]);
    expect(config.credentials).toEqual([
      { name: "main", origin: "https://api.sb.createos.sh", apiKeyEnv: "CREATEOS_MAIN_KEY" },
    ]);
    expect(config.dataDir).toBe(path.join(dir, ".leasekeeper"));
    expect(config).toMatchObject({
      rateLimitPerMinute: 300,
      requestTimeoutMs: 30_000,
      refreshIntervalSeconds: 300,
    });
  });

  it.each([
    ["a source of unknown kind", { ...valid, sources: [{ kind: "s3", path: "x" }] }, /: sources\.0\.kind: /],
    ["a ledger without a path", { ...valid, sources: [{ kind: "ledger" }] }, /: sources\.0\.path: /],
    [
      "a plain-HTTP remote Paperclip",
      { ...valid, sources: [{ kind: "paperclip", url: "http://paperclip.example.com" }] },
      /: sources\.0\.url: must be an HTTPS URL/,
    ],
    [
      "a CreateOS origin with a query",
      { ...valid, credentials: [{ name: "m", origin: "https://api.test/?key=1", apiKeyEnv: "K" }] },
      /: credentials\.0\.origin: CreateOS API URL must be an HTTPS origin/,
    ],
    [
      "a key variable that is not a variable name",
      { ...valid, credentials: [{ name: "m", origin: "https://api.test", apiKeyEnv: "my key" }] },
      /: credentials\.0\.apiKeyEnv: must be an environment variable name\.$/,
    ],
    [
      "a credential name used twice",
      {
        ...valid,
        credentials: [
          { name: "m", origin: "https://a.test", apiKeyEnv: "A" },
          { name: "m", origin: "https://b.test", apiKeyEnv: "B" },
        ],
      },
      /: credentials\.1\.name: is used twice\.$/,
    ],
    ["a misspelt field", { ...valid, datadir: "x" }, /: unknown field\(s\) datadir\.$/],
    ["no dataDir", { sources: valid.sources }, /: dataDir: /],
    ["a zero rate limit", { ...valid, rateLimitPerMinute: 0 }, /: rateLimitPerMinute: /],
    ["a claim heartbeat under 100 ms", { ...valid, claimHeartbeatMs: 50 }, /: claimHeartbeatMs: /],
    [
      "an abandonment window shorter than two heartbeats",
      { ...valid, claimHeartbeatMs: 1_000, claimAbandonAfterMs: 1_500 },
      /: claimAbandonAfterMs: must leave at least two heartbeats/,
    ],
  ])("refuses %s with one line naming the file and field", (_, raw, pattern) => {
    const file = path.join(dir, "leasekeeper.config.json");
    let error: unknown;
    try {
      parseConfig(raw, file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CoreError);
    expect(error).toMatchObject({ area: "config", code: "invalid" });
    const message = (error as Error).message;
    expect(message.startsWith(`${file}: `)).toBe(true);
    expect(message).toMatch(pattern);
    expect(message).not.toContain("\n");
  });

  it("keeps a claim heartbeat and abandonment window only when the file sets them", () => {
    const file = path.join(dir, "leasekeeper.config.json");
    const base = { sources: [{ kind: "ledger", path: "ledger.json" }], dataDir: "data" };
    expect(parseConfig(base, file)).not.toHaveProperty("claimHeartbeatMs");
    expect(parseConfig({ ...base, claimHeartbeatMs: 200, claimAbandonAfterMs: 1_000 }, file)).toMatchObject({
      claimHeartbeatMs: 200,
      claimAbandonAfterMs: 1_000,
    });
  });

  it("refuses a missing or non-JSON file with one line", async () => {
    await expect(loadConfig(path.join(dir, "nope.json"))).rejects.toThrow(
      /nope\.json: cannot be read \(ENOENT\)\.$/,
    );
    await writeFile(path.join(dir, "bad.json"), `{"sources": [`);
    await expect(loadConfig(path.join(dir, "bad.json"))).rejects.toThrow(/bad\.json: is not valid JSON\.$/);
  });

  it("never puts a config value it refuses into the message", () => {
    expect(() =>
      parseConfig(
        { ...valid, credentials: [{ name: "m", origin: `https://${SECRET_KEY}@api.test`, apiKeyEnv: "K" }] },
        "c.json",
      ),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining(SECRET_KEY) }));
  });
});

describe("EnvSecretStore", () => {
  const credentials = [
    { name: "main", apiKeyEnv: "LK_MAIN" },
    { name: "spare", apiKeyEnv: "LK_SPARE" },
    { name: "bad", apiKeyEnv: "LK_BAD" },
  ];
  const store = new EnvSecretStore(credentials, {
    LK_MAIN: ` ${SECRET_KEY}\n`,
    LK_SPARE: "  ",
    LK_BAD: "ab\r\ncd",
  });

  it("reads a credential's key from the variable its config entry names", async () => {
    expect(await store.has("main")).toBe(true);
    expect(await resolveApiKey(store, "main")).toEqual({ ok: true, apiKey: SECRET_KEY });
  });

  it("treats an unset or blank variable, or an unknown credential, as missing", async () => {
    expect(await store.has("spare")).toBe(false);
    expect(await resolveApiKey(store, "spare")).toEqual({ ok: false, reason: "missing" });
    expect(await resolveApiKey(store, "nobody")).toEqual({ ok: false, reason: "missing" });
  });

  it("refuses a key with CR, LF or NUL inside it", async () => {
    expect(await resolveApiKey(store, "bad")).toEqual({ ok: false, reason: "invalid" });
    const nul = new EnvSecretStore([{ name: "n", apiKeyEnv: "N" }], { N: "ab\0cd" });
    expect(await resolveApiKey(nul, "n")).toEqual({ ok: false, reason: "invalid" });
  });
});
