import { createReadStream } from "node:fs";
import { JSONParser, type ParsedElementInfo } from "@streamparser/json";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow } from "../../../shared/domain/paperclip.js";
import {
  gapsOf,
  LeaseRowCollector,
  parseCompanies,
  parseEnvironment,
  parseEnvironments,
  parseLeaseRow,
} from "./rows.js";
import { type LeaseSource, SourceError } from "./source.js";

/** The parser's buffer for one string's bytes (a longer string is flushed in pieces of this size). */
const STRING_BUFFER_BYTES = 64 * 1024;
/** The parser's buffer for one number's characters. */
const NUMBER_BUFFER_BYTES = 64;

/**
 * A ledger file: `{ "environments": [...], "leases": [...] }` in Paperclip's own JSON shapes, with an
 * optional `"companies": [{ "id", "name" }]` beside them so the UI can name companies. It is how
 * the demo and the tests feed the program, and how an operator without REST access can export rows.
 * Read afresh on every call, so a re-read before an action sees the file as it is now.
 *
 * The file is read as a stream (decision 208): each lease row is parsed and checked as it arrives and
 * only the rows kept stay alive, so a ledger of a million rows never sits in memory as one text or as
 * one parsed tree. The environments and companies lists are small and are collected whole.
 */
export class LedgerSource implements LeaseSource {
  readonly kind = "ledger" as const;
  readonly id: string;
  readonly path: string;

  constructor(options: { id: string; path: string }) {
    this.id = options.id;
    this.path = options.path;
  }

  async load(options: { signal?: AbortSignal } = {}): Promise<SourceSnapshot> {
    const ledger = await this.#read(() => new LeaseRowCollector(this.id, "leases"), options.signal);
    const environments = parseEnvironments(ledger.environments, this.id, "environments");
    const leases = ledger.leases.finish();
    const companies = parseCompanies(ledger.companies, this.id, "companies");
    return {
      sourceId: this.id,
      environments: environments.rows,
      leases: leases.rows,
      companies: companies.rows,
      problems: [...environments.problems, ...leases.problems, ...companies.problems],
      gaps: [...gapsOf(environments, ledger.environments, "environments"), ...ledger.leases.gaps()],
    };
  }

  async readLease(leaseId: string, options: { signal?: AbortSignal } = {}): Promise<LeaseRow | null> {
    // The whole file is still read: a file that is broken further on, or not a ledger, fails the re-read
    // before an action as it fails a scan, rather than handing back a row from it.
    const { leases } = await this.#read(() => new FirstWithId(leaseId), options.signal);
    if (leases.found === null) return null;
    const { index, item } = leases.found;
    const parsed = parseLeaseRow(item);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `leases[${index}] is malformed (${parsed.message})`);
    return parsed.row;
  }

  async readEnvironment(
    environmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Environment | null> {
    const { environments } = await this.#read(() => SKIP_LEASES, options.signal);
    const index = environments.findIndex((item) => idOf(item) === environmentId);
    if (index < 0) return null;
    const parsed = parseEnvironment(environments[index]);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `environments[${index}] is malformed (${parsed.message})`);
    return parsed.environment;
  }

  /**
   * One pass over the file. Each item of the top-level `leases` array goes to a sink as soon as it is
   * parsed and is then dropped from the parser's tree; `environments` and `companies` are collected
   * whole, and any other top-level value is dropped once parsed.
   * A key given twice counts as JSON.parse counts it, the last one: each `leases` array gets a sink of
   * its own and the last array's is the answer.
   */
  async #read<S extends LeaseSink>(
    newSink: () => S,
    signal: AbortSignal | undefined,
  ): Promise<{ environments: unknown[]; leases: S; companies: unknown[] }> {
    signal?.throwIfAborted();
    const read: ReadState<S> = {
      sink: newSink(),
      leases: null,
      environments: undefined,
      companies: undefined,
      root: null,
      bytes: 0,
      ownError: null,
    };
    // `$.*` drops every top-level value from the parser's root once it is handed over, and `$.leases.*`
    // every lease item, so nothing but what is kept here stays alive; `$` tells what the root was.
    // With buffers, the tokenizer gathers a string's or a number's bytes in place instead of growing a
    // string a piece at a time: 10–15% less CPU on a 100,000-row ledger (decision 208).
    const parser = new JSONParser({
      paths: ["$", "$.*", "$.leases.*"],
      keepStack: false,
      stringBufferSize: STRING_BUFFER_BYTES,
      numberBufferSize: NUMBER_BUFFER_BYTES,
    });
    parser.onValue = (info: ParsedElementInfo) => {
      try {
        take(read, info, newSink);
      } catch (error) {
        // An error of our own thrown from inside the parser's callback comes out of write() as it is.
        read.ownError = error;
        throw error;
      }
    };

    const stream = createReadStream(this.path, signal ? { signal } : {});
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        signal?.throwIfAborted();
        read.bytes += chunk.length;
        this.#write(parser, chunk, read);
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof SourceError || (read.ownError !== null && error === read.ownError)) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new SourceError(this.id, "unreadable", `cannot read ledger file ${this.path} (${code}).`);
    } finally {
      stream.destroy();
    }
    this.#end(parser, read);

    if (read.root === null) throw this.#notJson(read.bytes === 0 ? "is empty" : "holds no JSON value");
    if (read.root !== "object" || !Array.isArray(read.environments) || read.leases === null) {
      throw new SourceError(
        this.id,
        "malformed",
        `ledger file ${this.path} must hold { "environments": [...], "leases": [...] }.`,
      );
    }
    // Names are a convenience: a companies entry that is not a list is read as none (each bad entry of a
    // list is reported on its own), never a reason to refuse the ledger.
    const companies = Array.isArray(read.companies) ? read.companies : [];
    return { environments: read.environments, leases: read.leases, companies };
  }

  #write(parser: JSONParser, chunk: Buffer, read: ReadState<LeaseSink>): void {
    try {
      parser.write(chunk);
    } catch (error) {
      if (read.ownError !== null) throw read.ownError;
      throw this.#notJson(breaksAt(error, read.bytes - chunk.length));
    }
  }

  #end(parser: JSONParser, read: ReadState<LeaseSink>): void {
    // The parser ends by itself once the root value closes (whitespace may follow; anything else has
    // already failed a write). A file that stops inside a value is ended here, and fails.
    if (parser.isEnded) return;
    try {
      parser.end();
    } catch {
      if (read.ownError !== null) throw read.ownError;
      throw this.#notJson(`stops at byte ${read.bytes} in the middle of a value`);
    }
  }

  #notJson(where: string): SourceError {
    return new SourceError(this.id, "malformed", `ledger file ${this.path} ${where}: it is not valid JSON.`);
  }
}

interface ReadState<S extends LeaseSink> {
  /** Where the items of the `leases` array being read go. */
  sink: S;
  /** The sink of the last `leases` array read, or null when there was none, or it was not an array. */
  leases: S | null;
  environments: unknown;
  companies: unknown;
  /** What the root value was, once it has closed. */
  root: "object" | "other" | null;
  bytes: number;
  ownError: unknown;
}

/**
 * One value the parser hands over: a lease item (depth 2, under `leases`), a top-level value (depth 1;
 * only the lists a ledger has are kept) or the root itself, emptied of both (depth 0).
 */
function take<S extends LeaseSink>(read: ReadState<S>, info: ParsedElementInfo, newSink: () => S): void {
  const depth = info.stack.length;
  if (depth === 0) {
    read.root = isObject(info.value) ? "object" : "other";
  } else if (typeof info.key === "number") {
    // An item of `leases`; at depth 1, an item of a root that is an array (refused at the end).
    if (depth === 2) read.sink.add(info.value, info.key);
  } else if (depth === 1) {
    if (info.key === "leases") {
      read.leases = Array.isArray(info.value) ? read.sink : null;
      read.sink = newSink();
    } else if (info.key === "environments") {
      read.environments = info.value;
    } else if (info.key === "companies") {
      read.companies = info.value;
    }
  }
}

/** Where the lease items of a ledger go as they are parsed. */
interface LeaseSink {
  add(item: unknown, index: number): void;
}

/** The first lease item with the id, kept raw (it is checked once found, as before). */
class FirstWithId implements LeaseSink {
  found: { index: number; item: unknown } | null = null;
  readonly #id: string;

  constructor(id: string) {
    this.#id = id;
  }

  add(item: unknown, index: number): void {
    if (this.found === null && idOf(item) === this.#id) this.found = { index, item };
  }
}

const SKIP_LEASES: LeaseSink = { add: () => undefined };

/**
 * The byte the JSON broke at, from the parser's message ("… at chunk position "3" (absolute position
 * "20") …"); never the text there, which could be a row's content.
 */
function breaksAt(error: unknown, chunkStart: number): string {
  const message = error instanceof Error ? error.message : "";
  const absolute = /absolute position "(\d+)"/.exec(message);
  if (absolute) return `breaks at byte ${absolute[1]}`;
  const inChunk = /chunk position "(\d+)"/.exec(message);
  if (inChunk) return `breaks at byte ${chunkStart + Number(inChunk[1])}`;
  return `breaks after byte ${chunkStart}`;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function idOf(item: unknown): unknown {
  return typeof item === "object" && item !== null ? (item as { id?: unknown }).id : undefined;
}
