import type { IncomingMessage } from "node:http";

// Who is asking, as Paperclip's actor middleware decides it (`server/src/middleware/auth.ts`, read at
// 1c366a9059b7ecb7ba1d8f70902704c766776d8c, PR #11589, and unchanged in that respect through
// de47c58c87611764d2c3b481fe1d537e182ed2b1). Without a Bearer header, `local_trusted` makes everyone
// the local board (an instance admin) and `authenticated` leaves no actor, so the routes refuse with
// 403 (`assertBoard`). A Bearer header is judged in every mode: a board API key makes its user the
// actor; an empty token, or one that is neither a board key nor an agent credential, is refused with
// 401 before any route runs. The stand-in knows no agent keys or agent JWTs, so every token that is not
// one of its board keys takes that last path.

export interface BoardKey {
  token: string;
  /** An instance admin reads every company and every environment's full config. */
  instanceAdmin: boolean;
  /** Companies the key's user is a member of (what a non-admin may see). */
  companyIds: string[];
}

/** `local_trusted` may hold board keys too: Paperclip looks a Bearer token up in either mode. */
export type PaperclipAuth =
  | { mode: "local_trusted"; boardKeys?: BoardKey[] }
  | { mode: "authenticated"; boardKeys: BoardKey[] };

export type Actor =
  | { type: "none" }
  | { type: "board"; source: "local_implicit" | "board_key"; instanceAdmin: boolean; companyIds: string[] };

/** The middleware's `next(unauthorized(message))`: the request ends as 401 `{ error: message }`. */
export interface Rejection {
  type: "rejected";
  message: string;
}

export const EMPTY_BEARER_MESSAGE = "Empty bearer token; provide valid agent credentials and retry";
export const UNVERIFIED_TOKEN_MESSAGE = "Agent token did not verify; obtain fresh credentials and retry";
export const EXPIRED_TOKEN_MESSAGE = "Expired agent token; obtain fresh credentials and retry";

export function authenticate(req: IncomingMessage, auth: PaperclipAuth): Actor | Rejection {
  const header = req.headers.authorization ?? "";
  // `/^bearer(?:\s|$)/i`: a bare "Bearer" (Node drops the trailing space of "Bearer ") is a Bearer
  // header with an empty token, not a missing header.
  if (!/^bearer(?:\s|$)/i.test(header)) {
    return auth.mode === "local_trusted"
      ? { type: "board", source: "local_implicit", instanceAdmin: true, companyIds: [] }
      : { type: "none" };
  }
  const token = header.slice("bearer".length).trim();
  if (token === "") return { type: "rejected", message: EMPTY_BEARER_MESSAGE };
  const key = (auth.boardKeys ?? []).find((candidate) => candidate.token === token);
  if (!key) return { type: "rejected", message: invalidTokenMessage(token) };
  return {
    type: "board",
    source: "board_key",
    instanceAdmin: key.instanceAdmin,
    companyIds: [...key.companyIds],
  };
}

/** `invalidAgentTokenMessage`: a JWT-shaped token whose `exp` has passed is called expired. */
function invalidTokenMessage(token: string): string {
  try {
    const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as {
      exp?: unknown;
    };
    if (typeof payload?.exp === "number" && payload.exp <= Math.floor(Date.now() / 1000)) {
      return EXPIRED_TOKEN_MESSAGE;
    }
  } catch {
    // Not a JWT: the generic message below, as Paperclip gives it.
  }
  return UNVERIFIED_TOKEN_MESSAGE;
}

/** Full reads: the local board or an instance admin (`canReadFullInstanceEnvironment`). */
export function readsEverything(actor: Actor): boolean {
  return actor.type === "board" && (actor.source === "local_implicit" || actor.instanceAdmin);
}
