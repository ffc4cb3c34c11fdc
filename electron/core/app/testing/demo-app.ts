import type { Demo } from "../../../../scripts/demo.js";
import { type Core, type CoreOptions, openCore } from "../../compose/index.js";
import { memoryLogger } from "../log.js";

/**
 * The app over a started demo's config and keys, as the browser host opens it; it refreshes only when
 * asked and logs to memory. `options` adds to or replaces any of these.
 */
export function openDemoApp(demo: Demo, options: Partial<CoreOptions> = {}): Promise<Core> {
  return openCore({
    configPath: demo.configPath,
    mode: "browser",
    version: "test",
    env: { ...process.env, ...demo.keys },
    log: memoryLogger(),
    autoRefresh: false,
    ...options,
  });
}
