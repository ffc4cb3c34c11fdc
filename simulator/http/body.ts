import type { IncomingMessage } from "node:http";

export class BodyTooLarge extends Error {
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`);
  }
}

export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) throw new BodyTooLarge(limitBytes);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export type JsonBody =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; problem: "malformed JSON" | "expected a JSON object" };

/** An empty body counts as `{}`: pause, resume and exec callers often send none. */
export function parseJsonObject(raw: Buffer): JsonBody {
  const text = raw.toString("utf8").trim();
  if (text === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "malformed JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problem: "expected a JSON object" };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
