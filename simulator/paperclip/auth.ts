import type { IncomingMessage } from "node:http";

// Who is asking, as Paperclip's actor middleware decides it (`server/src/middleware/auth.ts`): in
// `local_trusted` mode everyone is the local board, an instance admin; in `authenticated` mode a
// Bearer board API key makes its user the actor, and anything else (no header, an unknown key) leaves
// no actor at all. The routes then refuse with 403, not 401: `assertBoard` is what fails.

export interface BoardKey {
  token: string;
  /** An instance admin reads every company and every environment's full config. */
  instanceAdmin: boolean;
  /** Companies the key's user is a member of (what a non-admin may see). */
  companyIds: string[];
}

export type PaperclipAuth = { mode: "local_trusted" } | { mode: "authenticated"; boardKeys: BoardKey[] };

export type Actor =
  | { type: "none" }
  | { type: "board"; source: "local_implicit" | "board_key"; instanceAdmin: boolean; companyIds: string[] };

export function actorOf(req: IncomingMessage, auth: PaperclipAuth): Actor {
  if (auth.mode === "local_trusted") {
    return { type: "board", source: "local_implicit", instanceAdmin: true, companyIds: [] };
  }
  const header = req.headers.authorization;
  if (!header?.toLowerCase().startsWith("bearer ")) return { type: "none" };
  const token = header.slice("bearer ".length).trim();
  const key = auth.boardKeys.find((candidate) => candidate.token === token);
  if (!key || token === "") return { type: "none" };
  return {
    type: "board",
    source: "board_key",
    instanceAdmin: key.instanceAdmin,
    companyIds: [...key.companyIds],
  };
}

/** Full reads: the local board or an instance admin (`canReadFullInstanceEnvironment`). */
export function readsEverything(actor: Actor): boolean {
  return actor.type === "board" && (actor.source === "local_implicit" || actor.instanceAdmin);
}
