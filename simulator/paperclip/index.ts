// A stand-in for a Paperclip instance's read-only REST API. It depends on nothing else in this project.

export type { BoardKey, PaperclipAuth } from "./auth.js";
export type { PaperclipFault, PaperclipStandIn, PaperclipStandInOptions, RecordedRequest } from "./server.js";
export { startPaperclip } from "./server.js";
export type {
  EnvironmentShape,
  PaperclipCompany,
  PaperclipEnvironment,
  PaperclipLease,
  PaperclipWorld,
} from "./world.js";
export { PaperclipWorldError, parseWorld } from "./world.js";
