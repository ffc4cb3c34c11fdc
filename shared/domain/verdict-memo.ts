import type { ProviderCode } from "./codes.js";
import { warmUntil } from "./flags.js";
import type { LeaseVerdict } from "./inventory.js";
import { metadataObject, recordedNumber } from "./lease-metadata.js";
import { ObjectVersions } from "./object-versions.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import type { InstalledPlugin } from "./plugin-generations.js";

/**
 * A verdict is a function of the row, its environment, the provider code of its sandbox, the other rows
 * on that sandbox, the installed plugin and the time. The memo keeps, for every row judged by the last
 * scan, what it was judged from and until when the time could not change it, so the next scan judges
 * again only the rows where one of those changed: at a fleet's steady state that is the few rows
 * Paperclip or CreateOS touched since, out of a history that only grows.
 *
 * Versions are digests of each input's JSON, cached per object: a source that hands back the very row
 * object it read last time (the database source's read of changed rows) costs no digest at all.
 */
export class VerdictMemo {
  readonly #versions: ObjectVersions;
  #entries = new Map<string, JudgedFrom>();
  #next = new Map<string, JudgedFrom>();
  /** Rows the last `reconcile` judged afresh, and rows whose verdict it took from the memo. */
  judged = 0;
  reused = 0;

  /** `digest` turns a JSON text into a short fingerprint (a host passes a cryptographic hash). */
  constructor(digest: (text: string) => string) {
    this.#versions = new ObjectVersions(digest);
  }

  /** How many rows the memo holds a verdict for. */
  get size(): number {
    return this.#entries.size;
  }

  /** Starts a scan: what the previous scan judged is looked up, what this one judges is kept for the next. */
  begin(): void {
    this.#next = new Map();
    this.judged = 0;
    this.reused = 0;
  }

  /** Ends a scan: rows that no longer exist are forgotten with the rest of the previous scan's entries. */
  commit(): void {
    this.#entries = this.#next;
    this.#next = new Map();
  }

  /** Forgets everything: the next scan judges every row (after a failed scan, or new rules). */
  clear(): void {
    this.#entries = new Map();
    this.#next = new Map();
  }

  versionOf(value: object | null | undefined): string {
    return this.#versions.of(value);
  }

  /**
   * The verdict judged last time from exactly these inputs, if the time since cannot have changed it;
   * otherwise `judge` runs and its verdict is kept. Either way the verdict is what judging now gives.
   */
  verdict(key: string, inputs: VerdictInputs, now: number, judge: () => LeaseVerdict): LeaseVerdict {
    const rowVersion = this.versionOf(inputs.row);
    const environmentVersion = this.versionOf(inputs.environment);
    const othersVersion = othersVersionOf(this, inputs.otherRows);
    const pluginVersion = this.versionOf(inputs.installedPlugin);
    const previous = this.#entries.get(key);
    if (
      previous !== undefined &&
      previous.rowVersion === rowVersion &&
      previous.environmentVersion === environmentVersion &&
      previous.provider === inputs.provider &&
      previous.othersVersion === othersVersion &&
      previous.pluginVersion === pluginVersion &&
      previous.judgedAt <= now &&
      now < previous.validUntil
    ) {
      this.reused += 1;
      this.#next.set(key, previous);
      return previous.verdict;
    }
    this.judged += 1;
    const verdict = judge();
    this.#next.set(key, {
      rowVersion,
      environmentVersion,
      provider: inputs.provider,
      othersVersion,
      pluginVersion,
      judgedAt: now,
      validUntil: verdictChangesAt(inputs.row, inputs.provider, now),
      verdict,
    });
    return verdict;
  }
}

export interface VerdictInputs {
  row: LeaseRow;
  environment: Environment | null;
  provider: ProviderCode;
  otherRows: readonly LeaseRow[];
  installedPlugin: InstalledPlugin | undefined;
}

interface JudgedFrom {
  rowVersion: string;
  environmentVersion: string;
  provider: ProviderCode;
  othersVersion: string;
  pluginVersion: string;
  /** Epoch ms of the scan that judged it: a clock that went back since may cross a threshold again. */
  judgedAt: number;
  /** Epoch ms from which the time alone may change the verdict. */
  validUntil: number;
  verdict: LeaseVerdict;
}

function othersVersionOf(memo: VerdictMemo, others: readonly LeaseRow[]): string {
  if (others.length === 0) return "";
  let version = "";
  for (const other of others) version += `${memo.versionOf(other)},`;
  return version;
}

/**
 * The first instant after `now` at which the time alone may change this row's verdict. Every rule that
 * reads the clock compares it with a moment the row records and asks whether that moment is still ahead
 * (`warmUntil`, `isLoginSession`'s expiry, `isHostCleanup`'s claim): such an answer can only flip when
 * the clock passes the moment, so the soonest moment still ahead bounds them all. Moments already past
 * stay past. Every such moment the row records is taken, whether or not a rule reads it for this row:
 * judging again too soon costs a judgement, judging too late would be wrong.
 */
export function verdictChangesAt(row: LeaseRow, provider: ProviderCode, now: number): number {
  let soonest = Number.POSITIVE_INFINITY;
  const consider = (moment: number) => {
    if (moment > now && moment < soonest) soonest = moment;
  };
  consider(warmUntil(row, provider));
  if (row.expiresAt !== null) consider(Date.parse(row.expiresAt));
  const metadata = metadataObject(row.metadata);
  if (metadata !== null) consider(recordedNumber(metadata, "pendingCleanupLeaseExpiresAtMs"));
  return soonest;
}
