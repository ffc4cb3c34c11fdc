import type { ActionEffect } from "../../../../shared/domain/actions.js";
import type { AccountReader, SandboxRead } from "./account-reader.js";

/**
 * After acting, nothing is reported done on faith: the sandbox's state is read back until CreateOS shows
 * it destroyed (or paused), or a deadline passes. Reads ride on the list passes the job makes anyway;
 * once the account's items are all acted on, the verifier polls by itself (a list pass when that is
 * cheaper than a GET per sandbox).
 */

export type ReadBack =
  | { kind: "confirmed"; message: string }
  | { kind: "waiting" }
  | { kind: "failed"; reason: string; message: string }
  | { kind: "unconfirmed"; reason: string; message: string };

export const VERIFY_MESSAGES = {
  destroyed: "CreateOS lists the sandbox as destroyed.",
  vanished:
    "CreateOS no longer lists the sandbox that this account listed live earlier in this job: destroyed and purged.",
  notListed:
    "The planning account does not list this sandbox, and this job never saw it live there; another account's sandbox is not listed either, so this proves nothing. Check it in CreateOS.",
  paused: "CreateOS lists the sandbox as paused.",
  pauseTargetGone: "The sandbox no longer exists, so nothing is left running; the release is done.",
  didNotPause: "CreateOS sandbox did not reach paused.",
  unconfirmedDelete:
    "CreateOS accepted the destroy but did not show the sandbox destroyed before the verification deadline; check it again later.",
  unconfirmedPause:
    "CreateOS accepted the pause but did not show the sandbox paused before the verification deadline; check it again later.",
} as const;

/**
 * What one read says about an action's effect. A failed read says nothing: keep waiting. Absence is
 * evidence only after the same account listed the sandbox live in this job: CreateOS answers 404, and
 * leaves out of its listing, another account's sandbox exactly as it does a purged one.
 */
export function judgeReadBack(effect: ActionEffect, read: SandboxRead, seenLive: boolean): ReadBack {
  if (read.kind === "failed") return { kind: "waiting" };
  if (read.kind === "absent") {
    return seenLive
      ? {
          kind: "confirmed",
          message: effect === "delete" ? VERIFY_MESSAGES.vanished : VERIFY_MESSAGES.pauseTargetGone,
        }
      : { kind: "unconfirmed", reason: "not-listed", message: VERIFY_MESSAGES.notListed };
  }
  const status = read.sandbox.status;
  const gone = status === "destroyed" || status === "failed";
  if (effect === "delete") {
    return gone ? { kind: "confirmed", message: VERIFY_MESSAGES.destroyed } : { kind: "waiting" };
  }
  if (status === "paused") return { kind: "confirmed", message: VERIFY_MESSAGES.paused };
  // The plugin counts a 404 on pause as done: a release only has to stop the sandbox billing.
  if (gone) return { kind: "confirmed", message: VERIFY_MESSAGES.pauseTargetGone };
  if (status === "error")
    return { kind: "failed", reason: "did-not-reach-paused", message: VERIFY_MESSAGES.didNotPause };
  return { kind: "waiting" };
}

/** A sandbox already on its way to the effect's end state (an earlier run's request got through). */
export function isTransitioningTo(effect: ActionEffect, read: SandboxRead): boolean {
  return read.kind === "listed" && read.sandbox.status === (effect === "delete" ? "destroying" : "pausing");
}

export type VerifyOutcome =
  | { state: "confirmed"; message: string }
  | { state: "failed"; reason: string; message: string }
  | { state: "unconfirmed"; reason: string; message: string }
  /** The engine shut down before the outcome was known; nothing is recorded. */
  | { state: "abandoned" };

interface Watch {
  effect: ActionEffect;
  deadline: number;
  resolve: (outcome: VerifyOutcome) => void;
}

export class Verifier {
  readonly #reader: AccountReader;
  readonly #pollMs: number;
  readonly #timeoutMs: number;
  readonly #watches = new Map<string, Watch>();
  /** While the account still acts: how often its watches are read when no list pass read them. */
  readonly #actingPollMs: number | null;
  #lastRead = performance.now();
  #acting: Promise<void> | null = null;
  #draining = false;
  /** Ends the acting reads' wait early: once the account is done acting, the verifier's own polls take over. */
  #wakeActing: (() => void) | null = null;

  constructor(
    reader: AccountReader,
    options: { pollMs: number; timeoutMs: number; actingPollMs?: number | null },
  ) {
    this.#reader = reader;
    this.#pollMs = options.pollMs;
    this.#timeoutMs = options.timeoutMs;
    this.#actingPollMs = options.actingPollMs ?? null;
    reader.onListing((snapshot) => {
      this.#lastRead = performance.now();
      for (const [sandboxId, watch] of this.#watches) {
        const sandbox = snapshot.sandboxes.get(sandboxId);
        const read: SandboxRead =
          sandbox === undefined
            ? { kind: "absent", observedAt: snapshot.observedAt }
            : { kind: "listed", sandbox, observedAt: snapshot.observedAt };
        this.#settle(sandboxId, watch, read, false);
      }
    });
  }

  /** Resolves once the sandbox shows the effect's end state, a failure, or the deadline passes. */
  watch(sandboxId: string, effect: ActionEffect): Promise<VerifyOutcome> {
    const outcome = new Promise<VerifyOutcome>((resolve) => {
      this.#watches.set(sandboxId, { effect, deadline: Date.now() + this.#timeoutMs, resolve });
    });
    this.#acting ??= this.#actingPolls();
    return outcome;
  }

  /**
   * While the account is still acting, its watches are read now and then (at a pace that keeps reading a
   * bounded share of its requests), so each item ends, and is journalled and reported, as its own
   * effect shows, not once the whole batch has been sent and read back.
   */
  async #actingPolls(): Promise<void> {
    const every = this.#actingPollMs;
    if (every === null) return;
    while (!this.#draining && this.#watches.size > 0) {
      await this.#actingWait(Math.max(this.#pollMs, every - (performance.now() - this.#lastRead)));
      if (this.#draining || this.#watches.size === 0) break;
      // A list pass made meanwhile (the next batch's re-read) already read them.
      if (performance.now() - this.#lastRead < every) continue;
      await this.#readWatched(false);
    }
    this.#acting = null;
  }

  /** Sleeps `ms`, or until `drain` wakes it. */
  async #actingWait(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wakeActing = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.#wakeActing = null;
  }

  async #readWatched(expire: boolean): Promise<void> {
    this.#lastRead = performance.now();
    await this.#reader.readEach([...this.#watches.keys()], (sandboxId, read) => {
      const watch = this.#watches.get(sandboxId);
      if (watch !== undefined) this.#settle(sandboxId, watch, read, expire);
    });
  }

  /**
   * Polls until every watch has settled. Call once the account has nothing left to act on. When
   * `abandon` says so, the remaining watches settle as `abandoned` at once.
   */
  async drain(abandon: () => boolean = () => false): Promise<void> {
    this.#draining = true;
    // The acting reads may be spaced far wider than a poll (seconds, on a large account at 300/min):
    // what was sent last is read one poll from now, not after that wait runs out.
    this.#wakeActing?.();
    await this.#acting;
    while (this.#watches.size > 0) {
      if (abandon()) {
        for (const watch of this.#watches.values()) watch.resolve({ state: "abandoned" });
        this.#watches.clear();
        return;
      }
      await sleep(this.#pollMs);
      if (abandon()) continue;
      await this.#readWatched(true);
    }
  }

  #settle(sandboxId: string, watch: Watch, read: SandboxRead, expire: boolean): void {
    const judged = judgeReadBack(watch.effect, read, this.#reader.hasSeenLive(sandboxId));
    let outcome: VerifyOutcome | null = null;
    if (judged.kind === "confirmed") outcome = { state: "confirmed", message: judged.message };
    else if (judged.kind === "failed" || judged.kind === "unconfirmed")
      outcome = { state: judged.kind, reason: judged.reason, message: judged.message };
    else if (expire && Date.now() >= watch.deadline) {
      outcome = {
        state: "unconfirmed",
        reason: "verify-deadline",
        message:
          watch.effect === "delete" ? VERIFY_MESSAGES.unconfirmedDelete : VERIFY_MESSAGES.unconfirmedPause,
      };
    }
    if (outcome === null) return;
    this.#watches.delete(sandboxId);
    watch.resolve(outcome);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
