import type { RedactingLogger } from "../app/log.js";
import { type Core, openCore } from "../compose/index.js";
import { CoreError } from "../errors/core-error.js";
import { type HttpHost, startHttpHost } from "./host.js";

export interface BrowserHostLaunch {
  configPath: string;
  version: string;
  rendererDir: string;
  demo?: boolean;
  port?: number;
  env?: NodeJS.ProcessEnv;
  log?: RedactingLogger;
  /** Where the one "serving on" line goes (stdout by default). */
  print?: (line: string) => void;
}

/**
 * A token of its own for `GET /metrics` (at least 32 characters), so a Prometheus scrape config can
 * keep it across launches; without it, /metrics takes the per-launch token.
 */
export const METRICS_TOKEN_ENV = "LEASEKEEPER_METRICS_TOKEN";
const METRICS_TOKEN_MIN_LENGTH = 32;

/** The metrics token the environment sets, or undefined; one shorter than 32 characters stops the start. */
export function metricsTokenFrom(env: NodeJS.ProcessEnv): string | undefined {
  const metricsToken = env[METRICS_TOKEN_ENV]?.trim();
  if (metricsToken === undefined || metricsToken === "") return undefined;
  if (metricsToken.length < METRICS_TOKEN_MIN_LENGTH) {
    throw new CoreError(
      "config",
      "invalid",
      `${METRICS_TOKEN_ENV} must be at least ${METRICS_TOKEN_MIN_LENGTH} characters long.`,
    );
  }
  return metricsToken;
}

export interface RunningBrowserHost {
  app: Core;
  host: HttpHost;
  close(): Promise<void>;
}

/** The serving line, exactly: scripts and the end-to-end tests read the URL from it. */
function servingLine(url: string): string {
  return `Leasekeeper is serving on ${url}`;
}

/** The core from a config, behind the browser host; prints the one line with the URL to open. */
export async function launchBrowserHost(options: BrowserHostLaunch): Promise<RunningBrowserHost> {
  const metricsToken = metricsTokenFrom(options.env ?? process.env);
  const app = await openCore({
    configPath: options.configPath,
    mode: "browser",
    version: options.version,
    demo: options.demo ?? false,
    ...(options.env ? { env: options.env } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  // Start the first scan now, so rows are ready by the time the page asks for them.
  void app.inventory.ensure().catch(() => undefined);
  let host: HttpHost;
  try {
    host = await startHttpHost({
      handlers: app.handlers,
      events: app.events,
      log: app.log,
      rendererDir: options.rendererDir,
      metrics: app.metrics,
      ...(metricsToken ? { metricsToken } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  (options.print ?? ((line: string) => process.stdout.write(`${line}\n`)))(servingLine(host.url));
  return {
    app,
    host,
    async close() {
      await host.close();
      await app.close();
    },
  };
}
