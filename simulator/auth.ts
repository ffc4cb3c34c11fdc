import type { IncomingHttpHeaders } from "node:http";

// The control plane reads session and OAuth tokens before the API key. The
// simulator treats all three headers as the same kind of key, so a console can be pointed at it
// with whichever header its client sends.
const KEY_HEADERS = ["x-auth-token", "x-access-token", "x-api-key"] as const;

export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  for (const name of KEY_HEADERS) {
    const value = headers[name];
    const key = Array.isArray(value) ? value[0] : value;
    if (key?.trim()) return key.trim();
  }
  return undefined;
}
