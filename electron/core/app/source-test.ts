import path from "node:path";
import type { SourceConfig, SourceTestResult } from "../../../shared/contract/index.js";
import { LedgerSource, PaperclipSource, SourceError } from "../leases/index.js";

/** The id a source being tried goes by; nothing is stored under it. */
const TRIAL_ID = "source under test";

/**
 * Reads a source once, as a scan would, before the settings form saves it (a key is tested the same
 * way). The answer is one sentence naming where it read, by host or file, and why it failed: the source's
 * own reason, which names no token, query string or response body.
 */
export async function readSourceOnce(
  source: SourceConfig,
  options: { token: string | null; timeoutMs: number; fetch?: typeof fetch },
): Promise<SourceTestResult> {
  const where =
    source.kind === "ledger"
      ? `the ledger ${path.basename(source.path)}`
      : `Paperclip at ${hostOf(source.url)}`;
  try {
    const reader =
      source.kind === "ledger"
        ? new LedgerSource({ id: TRIAL_ID, path: source.path })
        : new PaperclipSource({
            id: TRIAL_ID,
            url: source.url,
            token: options.token,
            timeoutMs: options.timeoutMs,
            ...(options.fetch ? { fetch: options.fetch } : {}),
          });
    const snapshot = await reader.load();
    const gaps = snapshot.gaps.length;
    const leases = snapshot.leases.length;
    return {
      ok: true,
      message:
        gaps === 0
          ? `Read ${where}: ${count(leases, "lease row")} in ${count(snapshot.environments.length, "environment")}.`
          : `Read ${where}, but not completely: ${count(leases, "lease row")}, ${count(gaps, "part")} could not be read.`,
    };
  } catch (error) {
    const reason = error instanceof SourceError ? sentence(error.reason) : "it could not be read.";
    return { ok: false, message: `Cannot read ${where}: ${reason}` };
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "its URL";
  }
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}

/** A source's reason, clipped, starting low ("Paperclip connection failed…" reads on after a colon). */
function sentence(reason: string): string {
  const clipped = reason.length > 240 ? `${reason.slice(0, 240)}…` : reason;
  return /[.…]$/.test(clipped) ? clipped : `${clipped}.`;
}
