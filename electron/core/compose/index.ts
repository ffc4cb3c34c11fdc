export { coresOpen, coresOpened } from "./counter.js";
export { type ActionDeps, engineActions } from "./engine.js";
export { type Core, type CoreOptions, openCore } from "./open-core.js";
export { openSecrets } from "./secrets.js";
