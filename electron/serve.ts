import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { ensureRenderer, RENDERER_DIR, ROOT } from "../scripts/build-support.js";
import { closeWithin } from "./core/app/closing.js";
import { resolveConfigPath } from "./core/app/config-path.js";
import { answerFor } from "./core/errors/host-answers.js";
import { launchBrowserHost } from "./core/http-host/launch.js";

/**
 * `npm run serve -- [--config FILE] [--port N] [--no-build]`: the browser host alone, for a real
 * configuration (`npm start` runs the demo when nothing is configured). Thin: all logic is in
 * electron/core/http-host.
 */
const { values } = parseArgs({
  options: {
    config: { type: "string" },
    port: { type: "string" },
    "no-build": { type: "boolean", default: false },
  },
  allowPositionals: false,
});

const configPath = resolveConfigPath(
  values.config ? ["--config", values.config] : [],
  process.env,
  process.cwd(),
);
if (configPath === null) {
  process.stderr.write(
    "leasekeeper serve: no configuration. Pass --config FILE, set LEASEKEEPER_CONFIG, or run `npm start` for the demo.\n",
  );
  process.exit(2);
}
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write("leasekeeper serve: --port must be a number from 0 to 65535.\n");
  process.exit(2);
}

try {
  if (!values["no-build"]) await ensureRenderer((line) => process.stderr.write(`${line}\n`));
  const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
    .version;
  const running = await launchBrowserHost({
    configPath,
    version,
    rendererDir: RENDERER_DIR,
    port,
    demo: process.env.LEASEKEEPER_DEMO === "1",
  });
  let stopping = false;
  // `on`, not `once`: under npm and tsx, Ctrl-C reaches this process twice (from the terminal and relayed).
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void closeWithin(() => running.close()).finally(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  const answer = answerFor(error);
  process.stderr.write(`leasekeeper serve: ${answer.message.split("\n", 1)[0]}\n`);
  process.exit(answer.exitCode);
}
