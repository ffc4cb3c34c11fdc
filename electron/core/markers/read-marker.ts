import {
  type CannotReadReason,
  MARKER_READ,
  type MarkerReading,
} from "../../../shared/domain/marker-proof.js";
import type { CreateosClient } from "../createos/client.js";
import { isCreateosError } from "../createos/errors.js";

/**
 * Reads one sandbox's workspace marker the way the plugin does (`/bin/cat` through exec), but only after
 * CreateOS says the sandbox is running *now*: the plugin resumes a sandbox to read it, a console must
 * not (resuming bills compute and wakes someone's workspace). Two requests, both through the origin's
 * queue; each is timed from when it leaves the queue (the client's timeout), so a long queue never
 * turns into a false "timed out". Never throws for what CreateOS answers; only a caller's abort escapes.
 */
export async function readMarker(
  client: CreateosClient,
  sandboxId: string,
  options: { signal?: AbortSignal } = {},
): Promise<MarkerReading> {
  let status: string;
  try {
    status = (await client.getSandbox(sandboxId, options)).sandbox.status;
  } catch (error) {
    return { kind: "not-read", reason: failureReason(error, options.signal), sandboxStatus: null };
  }
  if (status !== "running") return { kind: "not-read", reason: "not-running", sandboxStatus: status };
  try {
    const result = await client.execInSandbox(sandboxId, MARKER_READ.cmd, MARKER_READ.args, options);
    return {
      kind: "read",
      sandboxStatus: status,
      exitCode: result.exitCode,
      stdout: result.stdout,
      stderr: result.stderr,
      error: result.error,
    };
  } catch (error) {
    // 409: it stopped running between the lookup and the read (CreateOS refuses exec then).
    if (isCreateosError(error) && error.code === "conflict") {
      return { kind: "not-read", reason: "not-running", sandboxStatus: null };
    }
    return { kind: "not-read", reason: failureReason(error, options.signal), sandboxStatus: status };
  }
}

function failureReason(error: unknown, signal: AbortSignal | undefined): CannotReadReason {
  if (signal?.aborted) throw error;
  if (!isCreateosError(error)) return "request-failed";
  switch (error.code) {
    case "timeout":
      return "timeout";
    case "not-found":
      return "not-found";
    case "invalid-id":
      return "no-sandbox-id";
    default:
      return "request-failed";
  }
}
