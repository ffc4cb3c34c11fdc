import type { RedactingLogger } from "../app/log.js";
import { type Core, openCore } from "../compose/index.js";
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
