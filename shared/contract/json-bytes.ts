/**
 * A value as the UTF-8 JSON a host writes out, and back. The inventory view crosses from the worker to
 * main and on to a host as these bytes: one buffer, where the parsed view is a string per id that main
 * would hold, and copy in each young collection, for as long as the view is shown.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Its own ArrayBuffer, exactly as long as the text: safe to transfer to another thread. */
export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function jsonText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(jsonText(bytes)) as T;
}
