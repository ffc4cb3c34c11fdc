import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { loadConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { LayeredSecretStore } from "../vault/index.js";
import { memoryLogger } from "./log.js";
import { SettingsService } from "./settings-service.js";

describe("settings and a source set in the config file only", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("keeps a paperclip-db source when the UI saves its list, and never shows its variable's value", async () => {
    const file = path.join(dir, "leasekeeper.config.json");
    const ledger = path.join(dir, "ledger.json");
    await writeFile(
      file,
      JSON.stringify({
        sources: [
          { kind: "ledger", path: ledger },
          { kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL", name: "paperclip" },
        ],
        dataDir: "data",
      }),
    );
    const config = await loadConfig(file);
    const env = { PAPERCLIP_DATABASE_URL: "postgres://reader:canary-pw@db.internal/paperclip" };
    const service = new SettingsService({
      config,
      secrets: new LayeredSecretStore(null, new EnvSecretStore(config.credentials, env)),
      env,
      log: memoryLogger(),
      onConfigChanged: () => undefined,
      onSecretsChanged: () => undefined,
    });

    const view = await service.view();
    expect(view.sources.map((source) => source.kind)).toEqual(["ledger"]);
    expect(JSON.stringify(view)).not.toContain("canary-pw");

    const other = path.join(dir, "other.json");
    await service.update({ sources: [{ kind: "ledger", path: other }] });
    const raw = JSON.parse(await readFile(file, "utf8")) as { sources: unknown[] };
    expect(raw.sources).toEqual([
      { kind: "ledger", path: other },
      { kind: "paperclip-db", urlEnv: "PAPERCLIP_DATABASE_URL", name: "paperclip" },
    ]);
    expect(service.config.sources.map((source) => source.id)).toEqual(["ledger:other.json", "paperclip"]);
  });
});
