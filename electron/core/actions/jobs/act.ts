import type { ActionEffect } from "../../../../shared/domain/actions.js";
import { providerFailure } from "../errors.js";
import type { AccountReader } from "./account-reader.js";

/**
 * The one request an item makes. Every answer is read back, a 404 too: the plugin counts a 404 as done,
 * but another account's sandbox answers 404 exactly like a purged one, so only a read by the planning
 * account can say it is gone. Pause: 202 is acceptance, not completion; 409 means
 * another transition is under way, so the state is read again and a still-running sandbox gets one
 * more pause. Retries on 429 and 5xx (idempotent calls only) happen in the paced client, within its
 * bounds; a failure after them is the item's outcome, with its HTTP status.
 */

export type ActResult =
  | { kind: "verify"; httpStatus: number }
  | { kind: "failed"; httpStatus: number | null; reason: string; message: string };

export async function act(
  reader: AccountReader,
  effect: ActionEffect,
  sandboxId: string,
): Promise<ActResult> {
  try {
    return effect === "delete" ? await destroy(reader, sandboxId) : await pause(reader, sandboxId);
  } catch (error) {
    const failure = providerFailure(error);
    return { kind: "failed", ...failure };
  }
}

async function destroy(reader: AccountReader, sandboxId: string): Promise<ActResult> {
  const { httpStatus } = await reader.client.deleteSandbox(sandboxId);
  return { kind: "verify", httpStatus };
}

async function pause(reader: AccountReader, sandboxId: string): Promise<ActResult> {
  const first = await reader.client.pauseSandbox(sandboxId);
  if (first.answer === "not-found") return { kind: "verify", httpStatus: 404 };
  if (first.answer !== "conflict") return { kind: "verify", httpStatus: first.httpStatus };
  const read = await reader.readOne(sandboxId);
  if (read.kind !== "listed" || read.sandbox.status !== "running") return { kind: "verify", httpStatus: 409 };
  const second = await reader.client.pauseSandbox(sandboxId);
  return { kind: "verify", httpStatus: second.httpStatus };
}
