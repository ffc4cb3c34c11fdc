import { createHash, hash } from "node:crypto";

/**
 * A list page's body as the list-page reader reads it: the digest of its bytes, which names the page
 * from one scan to the next (a page the worker read in the last scan is not parsed again), and its text.
 */
export interface PageBody {
  digest: string;
  text: string;
}

/**
 * A body read as its chunks arrive: each chunk is hashed and decoded at once and let go, so no buffer
 * of the whole page is ever made. A body gathered whole (`arrayBuffer()`) is a buffer outside the
 * heap that stays alive through the page's parse; the reader's young collections during that parse
 * promote it, and a promoted buffer's memory comes back only with a full collection, which V8 starts
 * for memory outside its heap only once that has grown by 64 MB. Decoded as they arrive, the chunks
 * die young, and the text is on the heap, where V8 counts it (decision 312).
 */
export async function readPageBody(body: ReadableStream<Uint8Array> | null): Promise<PageBody> {
  const digest = createHash("sha1");
  const decoder = new TextDecoder();
  let text = "";
  if (body !== null) {
    const chunks = body.getReader();
    for (let chunk = await chunks.read(); !chunk.done; chunk = await chunks.read()) {
      digest.update(chunk.value);
      text += decoder.decode(chunk.value, { stream: true });
    }
  }
  text += decoder.decode();
  return { digest: digest.digest("base64"), text };
}

/** A page whose bytes came whole (a host's own `fetch`, read on main): the same digest and text. */
export function pageBodyOf(bytes: ArrayBuffer): PageBody {
  return { digest: hash("sha1", new Uint8Array(bytes), "base64"), text: new TextDecoder().decode(bytes) };
}
