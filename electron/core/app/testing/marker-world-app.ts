import path from "node:path";
import { type Core, openCore } from "../../compose/index.js";
import { CONFIG_FILE_NAME } from "../../config/load.js";
import type { MarkerWorld } from "../../markers/testing/marker-world.js";
import { memoryLogger } from "../log.js";

/** The app over a marker world's config and keys, as the browser host opens it; it refreshes only when asked. */
export function openMarkerWorldApp(world: MarkerWorld): Promise<Core> {
  return openCore({
    configPath: path.join(world.dir, CONFIG_FILE_NAME),
    mode: "browser",
    version: "test",
    env: world.env,
    log: memoryLogger(),
    autoRefresh: false,
  });
}
