import type { z } from "zod";
import { originOf } from "../../../shared/domain/api-url.js";
import {
  type Company,
  CompanySchema,
  type Environment,
  EnvironmentSchema,
  type LeaseRow,
  LeaseRowSchema,
  type SourceGap,
  type SourceProblem,
  StorableIdSchema,
} from "../../../shared/domain/paperclip.js";
import { describeIssue } from "../validation.js";
import { FirstSeenIds } from "./first-seen-ids.js";

/**
 * Turning a source's raw JSON arrays into rows: each item is parsed on its own, a bad one becomes a
 * problem naming its list, index and field (never its content) and the rest carry on.
 */

export interface Parsed<T> {
  rows: T[];
  /** Each row's index in the raw list, for problems found later. */
  indices: number[];
  problems: SourceProblem[];
}

export function parseEnvironments(
  items: readonly unknown[],
  sourceId: string,
  list: string,
): Parsed<Environment> {
  const parsed = parseEach(items, EnvironmentSchema, sourceId, list);
  for (const environment of parsed.rows) environment.config = withoutSecrets(environment.config);
  return parsed;
}

export function parseLeaseRows(items: readonly unknown[], sourceId: string, list: string): Parsed<LeaseRow> {
  return collectEach(items, new LeaseRowCollector(sourceId, list)).finish();
}

/**
 * Lease rows taken one at a time as a stream yields them (the ledger file's read), under the very rules
 * `parseLeaseRows` applies to a whole list (it is built on this): each item parsed on its own, a repeated
 * id refused, secret-named metadata keys dropped. Only what a problem's gap needs is kept of a bad
 * item (its id and the origin it names), never the item itself.
 */
export class LeaseRowCollector {
  readonly #sourceId: string;
  readonly #list: string;
  #rows: LeaseRow[] = [];
  #indices: number[] = [];
  readonly #problems: SourceProblem[] = [];
  readonly #unreadable: UnreadableEntry[] = [];
  readonly #firstSeen = new FirstSeenIds();

  constructor(sourceId: string, list: string) {
    this.#sourceId = sourceId;
    this.#list = list;
  }

  add(item: unknown, index: number): void {
    const list = this.#list;
    const result = LeaseRowSchema.safeParse(item);
    if (!result.success) {
      this.#refuse(item, index, describeIssue(result.error.issues, `${list}[${index}]`));
      return;
    }
    const row = result.data;
    const first = this.#firstSeen.noteFirst(row.id, index);
    if (first !== undefined) {
      this.#refuse(item, index, `${list}[${index}].id: repeats ${list}[${first}].`);
      return;
    }
    row.metadata = withoutSecrets(row.metadata);
    this.#rows.push(row);
    this.#indices.push(index);
  }

  /** Rows added and not yet taken. */
  get pendingRows(): number {
    return this.#rows.length;
  }

  /**
   * The rows added since the last take, handed on and let go (a streamed read's page): only their ids
   * stay, so a later item that repeats one is still refused.
   */
  takeRows(): LeaseRow[] {
    const rows = this.#rows;
    this.#rows = [];
    this.#indices = [];
    return rows;
  }

  /** The rows not taken, with every problem found. */
  finish(): Parsed<LeaseRow> {
    return { rows: this.#rows, indices: this.#indices, problems: this.#problems };
  }

  /** The same gaps `gapsOf` finds for the whole list. */
  gaps(): SourceGap[] {
    return gapsOfEntries(this.#firstSeen, this.#unreadable, this.#sourceId, "leases");
  }

  #refuse(item: unknown, index: number, message: string): void {
    this.#problems.push({ source: this.#sourceId, index, message });
    this.#unreadable.push(unreadableEntry(item, index, "leases"));
  }
}

function collectEach<C extends { add(item: unknown, index: number): void }>(
  items: readonly unknown[],
  collector: C,
): C {
  for (let index = 0; index < items.length; index++) collector.add(items[index], index);
  return collector;
}

/** Companies a source names (for their names); a malformed entry is a problem, never fatal. */
export function parseCompanies(items: readonly unknown[], sourceId: string, list: string): Parsed<Company> {
  const parsed = parseEach(items, CompanySchema, sourceId, list);
  return { ...parsed, rows: parsed.rows.map(({ id, name }) => ({ id, name })) };
}

/**
 * The gaps that unreadable entries leave: an environment or lease entry that could not be parsed may be
 * the one that names a listed sandbox, so no sandbox at its origin may be called an orphan. The origin is
 * read from the entry where it can be (an environment's config.apiUrl, a lease's metadata.apiUrl), else
 * the gap could be anywhere. So is the environment it leaves unread (an environment's own id, a lease's
 * environmentId), so that environment alone is said to be unread; an entry whose environment cannot be
 * read could be any environment's. An entry refused only because its id repeats an earlier one hides
 * nothing.
 */
export function gapsOf(
  parsed: Pick<Parsed<{ id: string }>, "rows" | "problems">,
  items: readonly unknown[],
  list: "environments" | "leases",
): SourceGap[] {
  const read = new Set(parsed.rows.map((row) => row.id));
  const gaps: SourceGap[] = [];
  for (const problem of parsed.problems) {
    const entry = unreadableEntry(items[problem.index], problem.index, list);
    if (typeof entry.id === "string" && read.has(entry.id)) continue;
    gaps.push(gapOf(entry, problem.source, list));
  }
  return gaps;
}

/**
 * What a gap needs of an entry that could not be read: its index, its id, the origin and the environment
 * it names.
 */
interface UnreadableEntry {
  index: number;
  id: unknown;
  origin: string | null;
  environmentId: string | null;
}

function unreadableEntry(item: unknown, index: number, list: "environments" | "leases"): UnreadableEntry {
  const holder = ownValue(item, list === "environments" ? "config" : "metadata");
  return {
    index,
    id: ownValue(item, "id"),
    origin: originOf(ownValue(holder, "apiUrl")),
    environmentId: environmentIdOfEntry(item, list),
  };
}

/**
 * The environment an entry that could not be parsed belongs to, when that much of it can be read: an
 * environment's own id, a lease's environmentId. Held to the rule a row's ids are read by, so a value
 * that could not be an id names no environment.
 */
export function environmentIdOfEntry(item: unknown, list: "environments" | "leases"): string | null {
  const value = ownValue(item, list === "environments" ? "id" : "environmentId");
  return StorableIdSchema.safeParse(value).success ? (value as string) : null;
}

function gapsOfEntries(
  read: { has(id: string): boolean },
  entries: readonly UnreadableEntry[],
  source: string,
  list: "environments" | "leases",
): SourceGap[] {
  return entries
    .filter((entry) => typeof entry.id !== "string" || !read.has(entry.id))
    .map((entry) => gapOf(entry, source, list));
}

function gapOf(entry: UnreadableEntry, source: string, list: "environments" | "leases"): SourceGap {
  const gap: SourceGap = {
    source,
    origin: entry.origin,
    message: `${list}[${entry.index}] could not be read`,
  };
  if (entry.environmentId !== null) gap.environmentId = entry.environmentId;
  // An environment entry whose id cannot be read is an environment not listed: the leases of the listed
  // ones are entries of their own, read or gaps of their own. A lease entry whose environment cannot be
  // read may be any listed environment's.
  else if (list === "environments") gap.unlistedOnly = true;
  return gap;
}

function ownValue(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, key)) return undefined;
  return (value as Record<string, unknown>)[key];
}

/** One row, or why it cannot be used (for the re-read before an action). */
export function parseLeaseRow(item: unknown): { ok: true; row: LeaseRow } | { ok: false; message: string } {
  const result = LeaseRowSchema.safeParse(item);
  if (!result.success) return { ok: false, message: describeIssue(result.error.issues) };
  const row = result.data;
  row.metadata = withoutSecrets(row.metadata);
  return { ok: true, row };
}

export function parseEnvironment(
  item: unknown,
): { ok: true; environment: Environment } | { ok: false; message: string } {
  const result = EnvironmentSchema.safeParse(item);
  if (!result.success) return { ok: false, message: describeIssue(result.error.issues) };
  const environment = result.data;
  environment.config = withoutSecrets(environment.config);
  return { ok: true, environment };
}

function parseEach<S extends z.ZodType>(
  items: readonly unknown[],
  schema: S,
  sourceId: string,
  list: string,
): Parsed<z.output<S>> {
  const rows: z.output<S>[] = [];
  const indices: number[] = [];
  const problems: SourceProblem[] = [];
  const firstIndexById = new Map<string, number>();
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const result = schema.safeParse(item);
    if (!result.success) {
      problems.push({
        source: sourceId,
        index,
        message: describeIssue(result.error.issues, `${list}[${index}]`),
      });
      continue;
    }
    const id = (result.data as { id: string }).id;
    const first = firstIndexById.get(id);
    if (first !== undefined) {
      problems.push({ source: sourceId, index, message: `${list}[${index}].id: repeats ${list}[${first}].` });
      continue;
    }
    firstIndexById.set(id, index);
    rows.push(result.data);
    indices.push(index);
  }
  return { rows, indices, problems };
}

/**
 * Leasekeeper never keeps a credential, even one a hand-made row or a Paperclip config carries: keys
 * that name a secret are dropped (recursively) wherever a row is read. The fields verdicts use
 * (provider, companyId, environmentId, apiUrl, shape, rootfs, region, marker, reuseLease) never match.
 */
const SECRET_KEY = /(api[-_]?key|secret|password|passwd|token|authorization|credential|private[-_]?key)/i;

export function withoutSecrets<T>(value: T): T {
  return redact(value) as T;
}

// Rows repeat the same few keys thousands of times: each key's answer is kept (up to a bound, so hostile
// input with endless distinct keys costs memory no more than time).
const secretKeyAnswers = new Map<string, boolean>();
const MAX_KEPT_ANSWERS = 10_000;

function isSecretKey(key: string): boolean {
  const known = secretKeyAnswers.get(key);
  if (known !== undefined) return known;
  const answer = SECRET_KEY.test(key);
  if (secretKeyAnswers.size < MAX_KEPT_ANSWERS) secretKeyAnswers.set(key, answer);
  return answer;
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

// One walk; a value is copied only from the first change inside it on, so a clean one (nearly all) is
// handed back as it is and nothing is allocated for it.
function redact(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let at = 0; at < value.length; at++) {
      const item: unknown = value[at];
      const redacted = redact(item);
      if (copy === null && redacted !== item) copy = value.slice(0, at);
      copy?.push(redacted);
    }
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let copy: Record<string, unknown> | null = null;
  for (let at = 0; at < keys.length; at++) {
    const key = keys[at]!;
    const secret = isSecretKey(key);
    const child = record[key];
    const redacted = secret ? undefined : redact(child);
    if (copy === null && (secret || redacted !== child)) {
      copy = {};
      for (let before = 0; before < at; before++) defineValue(copy, keys[before]!, record[keys[before]!]);
    }
    if (copy !== null && !secret) defineValue(copy, key, redacted);
  }
  return copy ?? value;
}

// defineProperty, not assignment: a JSON "__proto__" key must stay a plain data property.
function defineValue(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
