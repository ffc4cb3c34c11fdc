import {
  CreateosSandboxApiError,
  CreateosSandboxClient,
  CreateosSandboxConnectionError,
  CreateosSandboxError,
} from "@nodeops-createos/sandbox";
import { normalizeApiUrl } from "../../../shared/domain/api-url.js";
import type { ProviderSandbox } from "../../../shared/domain/inventory.js";
import { isValidSandboxId } from "../../../shared/domain/sandbox-id.js";
import { CoreError } from "../errors/core-error.js";
import { API_KEY_MESSAGES, checkApiKey } from "./api-key.js";
import { CREATEOS_OPERATIONS, CreateosError, type CreateosOperation, kindForStatus } from "./errors.js";
import { hasNextPage } from "./list-page.js";
import {
  type CallRecord,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  pacedFetch,
  type RetryPolicy,
  type TransportOptions,
} from "./transport.js";
import { readSandboxView, readSandboxViews } from "./views.js";

/** The most sandboxes CreateOS sends in one list page (it clamps a larger `limit` to this). */
const LIST_PAGE_SIZE = 500;
const SANDBOXES_PATH = "/v1/sandboxes";

export interface CreateosClientOptions {
  /** Any spelling the plugin accepts (`https://host`, `https://host/v1`); normalised to the origin. */
  apiUrl: string;
  apiKey: string;
  /** The credential's name, carried for diagnostics; never the key. */
  credential?: string;
  /** Per-attempt timeout, counted from when the request leaves the queue. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** The real fetch underneath the pacer; globalThis.fetch by default. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** What every call reports besides its value: the raw HTTP status (for the audit log) and its cost. */
export interface CallOutcome {
  httpStatus: number;
  /** Requests this call made, retries included. */
  requests: number;
}

export interface SandboxList extends CallOutcome {
  sandboxes: ProviderSandbox[];
  /** Listed rows without a readable id or status, left out rather than guessed at. */
  skipped: number;
}

export interface SandboxViews extends CallOutcome {
  views: unknown[];
}

export interface SandboxLookup extends CallOutcome {
  sandbox: ProviderSandbox;
}

export interface DeleteResult extends CallOutcome {
  /** `already-gone`: CreateOS answered 404, which the plugin (and we) count as done. */
  outcome: "destroying" | "destroyed" | "already-gone";
  sandboxStatus: string | null;
}

export interface PauseResult extends CallOutcome {
  /** 202 → `accepted` (now pausing: poll until paused); 200 → `already-paused`. A 409 throws `conflict`. */
  outcome: "accepted" | "already-paused";
  sandboxStatus: string | null;
}

export interface ResumeResult extends CallOutcome {
  /** 202 → `accepted` (now resuming); 200 → `already-running`. A 409 throws `conflict`. */
  outcome: "accepted" | "already-running";
  sandboxStatus: string | null;
}

/** What one command run through `POST /v1/sandboxes/{id}/exec` answered. */
export interface ExecResult extends CallOutcome {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Set when the agent could not start the process at all (no such program), which is not an exit code. */
  error: string | null;
}

export interface WhoamiResult extends CallOutcome {
  userId: string;
  stats: { running: number; paused: number; other: number; total: number } | null;
}

/**
 * One CreateOS account at one origin, over the official SDK. Every request goes through the origin's
 * process-wide pacer (see pacer.ts); failures surface as `CreateosError` with fixed messages. A client
 * is cheap: make one per credential and drop it when done.
 */
export class CreateosClient {
  readonly origin: string;
  readonly credential: string | null;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #fetch: typeof fetch;

  constructor(options: CreateosClientOptions) {
    const url = normalizeApiUrl(options.apiUrl);
    // The plugin's own fixed sentences: they name the rule broken, never the URL or the key.
    if (!url.ok) throw new CoreError("config", "invalid", url.message);
    const key = checkApiKey(options.apiKey);
    if (!key.ok) throw new CoreError("config", "invalid", API_KEY_MESSAGES[key.reason]);
    this.origin = url.origin;
    this.credential = options.credential ?? null;
    this.#apiKey = key.apiKey;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * Every sandbox of this account, destroyed ones included (CreateOS keeps them listed): pages of 500,
   * `offset += count` until `offset >= total` or an empty page. ceil(n / 500) requests, at least one.
   */
  async listAllSandboxes(options: CallOptions = {}): Promise<SandboxList> {
    const { views, ...rest } = await this.listSandboxViews(options);
    return { ...readSandboxViews(views), ...rest };
  }

  /**
   * Every listed sandbox as CreateOS sent it, unread (`readSandboxViews` reads them), gathered into one
   * array. A large listing is better taken page by page (`forEachSandboxPage`).
   */
  async listSandboxViews(options: CallOptions = {}): Promise<SandboxViews> {
    const views: unknown[] = [];
    const done = await this.forEachSandboxPage((page) => {
      for (const view of page) views.push(view);
    }, options);
    return { views, ...done };
  }

  /**
   * Every listed sandbox as CreateOS sent it, unread, handed to `onPage` one page at a time as each
   * arrives, so a caller can pass a page on (the inventory has its worker read them) and keep none of
   * it. A listing that fails part-way throws after some pages were handed over: those are not the
   * whole listing, and the caller must not take them for it.
   */
  async forEachSandboxPage(
    onPage: (views: unknown[]) => void,
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    const { record } = await this.#call(
      CREATEOS_OPERATIONS.list,
      { bodyOnItsOwnTurn: true },
      async (sdk, record) => {
        let page: unknown[] = [];
        // The SDK yields the sandboxes one by one: a full page is handed over at once, a shorter one when
        // the next page's first sandbox shows that another request was made.
        let pageRequest = -1;
        for await (const handle of sdk.iterateSandboxes({ ...signalOf(options) })) {
          if (page.length > 0 && record.requests !== pageRequest) {
            onPage(page);
            page = [];
          }
          pageRequest = record.requests;
          page.push(handle.data as unknown);
          if (page.length >= LIST_PAGE_SIZE) {
            onPage(page);
            page = [];
          }
        }
        if (page.length > 0) onPage(page);
      },
    );
    return outcome(record);
  }

  /**
   * Every listed sandbox, each successful page's response handed to `readPage` unread: a host has
   * another thread read its body (parse, check, keep), or had it read there as it arrived (its `fetch`
   * answers with a response whose body it kept), and answers how many views the page held and the
   * listing's total for the paging. A page `readPage` cannot read (null) fails the listing as
   * `invalid-response`; as with `forEachSandboxPage`, the pages read before a failure are not a listing.
   */
  async forEachSandboxPageResponse(
    readPage: (response: Response) => Promise<{ count: number; total: number | null } | null>,
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    const operation = CREATEOS_OPERATIONS.list;
    const { record } = await this.#call(operation, {}, async (sdk, record) => {
      for (let offset = 0; ; ) {
        const response = await sdk.http.requestRaw("GET", SANDBOXES_PATH, {
          ...signalOf(options),
          query: { limit: LIST_PAGE_SIZE, offset },
        });
        if (!response.ok) await sdk.http.throwForResponse(response, "GET", SANDBOXES_PATH);
        const page = await readPage(response);
        if (page === null)
          throw new CreateosError("invalid-response", operation, record.httpStatus, record.requests);
        if (!hasNextPage(offset, page.count, page.total)) return;
        offset += page.count;
      }
    });
    return outcome(record);
  }

  /** One sandbox. 404 throws `not-found`: the sandbox is purged *or another account's*; never proof of deletion. */
  async getSandbox(id: string, options: CallOptions = {}): Promise<SandboxLookup> {
    const operation = CREATEOS_OPERATIONS.get;
    assertSandboxId(id, operation);
    const { value: handle, record } = await this.#call(operation, {}, (sdk) =>
      sdk.getSandbox(id, { ...signalOf(options) }),
    );
    const sandbox = readSandboxView(handle.data);
    if (sandbox === null || sandbox.id !== id) {
      throw new CreateosError("invalid-response", operation, record.httpStatus, record.requests);
    }
    return { sandbox, ...outcome(record) };
  }

  /** DELETE /v1/sandboxes/{id}. A 404 is reported as `already-gone`, not thrown. */
  async deleteSandbox(id: string, options: CallOptions = {}): Promise<DeleteResult> {
    const operation = CREATEOS_OPERATIONS.delete;
    assertSandboxId(id, operation);
    try {
      const { value, record } = await this.#call(operation, {}, (sdk) =>
        sdk.http.request<unknown>("DELETE", `/v1/sandboxes/${encodeURIComponent(id)}`, signalOf(options)),
      );
      const sandboxStatus = statusOf(value);
      return {
        outcome: sandboxStatus === "destroyed" ? "destroyed" : "destroying",
        sandboxStatus,
        ...outcome(record),
      };
    } catch (error) {
      if (error instanceof CreateosError && error.code === "not-found") {
        return { outcome: "already-gone", sandboxStatus: null, httpStatus: 404, requests: error.requests };
      }
      throw error;
    }
  }

  /** POST /v1/sandboxes/{id}/pause. 202 is acceptance, not completion: poll until `paused`. */
  async pauseSandbox(id: string, options: CallOptions = {}): Promise<PauseResult> {
    const operation = CREATEOS_OPERATIONS.pause;
    assertSandboxId(id, operation);
    const { value, record } = await this.#call(operation, {}, (sdk) =>
      sdk.http.request<unknown>("POST", `/v1/sandboxes/${encodeURIComponent(id)}/pause`, signalOf(options)),
    );
    return {
      outcome: record.httpStatus === 202 ? "accepted" : "already-paused",
      sandboxStatus: statusOf(value),
      ...outcome(record),
    };
  }

  /** POST /v1/sandboxes/{id}/resume. 202 is acceptance (now resuming); 200 when it is running already. */
  async resumeSandbox(id: string, options: CallOptions = {}): Promise<ResumeResult> {
    const operation = CREATEOS_OPERATIONS.resume;
    assertSandboxId(id, operation);
    const { value, record } = await this.#call(operation, {}, (sdk) =>
      sdk.http.request<unknown>("POST", `/v1/sandboxes/${encodeURIComponent(id)}/resume`, signalOf(options)),
    );
    return {
      outcome: record.httpStatus === 202 ? "accepted" : "already-running",
      sandboxStatus: statusOf(value),
      ...outcome(record),
    };
  }

  /**
   * POST /v1/sandboxes/{id}/exec `{cmd, args}`: one command, no shell unless `cmd` is one. Never
   * retried after a lost answer (a POST may have run), and never resumes the sandbox: CreateOS refuses
   * exec on a sandbox that is not running, which surfaces as `conflict`.
   */
  async execInSandbox(
    id: string,
    cmd: string,
    args: readonly string[],
    options: CallOptions = {},
  ): Promise<ExecResult> {
    const operation = CREATEOS_OPERATIONS.exec;
    assertSandboxId(id, operation);
    const { value, record } = await this.#call(operation, {}, (sdk) =>
      sdk.http.request<unknown>("POST", `/v1/sandboxes/${encodeURIComponent(id)}/exec`, {
        ...signalOf(options),
        body: { cmd, args: [...args] },
      }),
    );
    const result = execResultOf(value);
    if (result === null) {
      throw new CreateosError("invalid-response", operation, record.httpStatus, record.requests);
    }
    return { ...result, ...outcome(record) };
  }

  /** GET /v1/whoami: the cheapest authenticated call, for checking a key. */
  async whoami(options: CallOptions = {}): Promise<WhoamiResult> {
    const operation = CREATEOS_OPERATIONS.whoami;
    const { value, record } = await this.#call(operation, {}, (sdk) => sdk.whoami({ ...signalOf(options) }));
    if (typeof value?.user_id !== "string") {
      throw new CreateosError("invalid-response", operation, record.httpStatus, record.requests);
    }
    const stats = value.stats;
    return {
      userId: value.user_id,
      stats:
        stats && typeof stats.total === "number"
          ? { running: stats.running, paused: stats.paused, other: stats.other, total: stats.total }
          : null,
      ...outcome(record),
    };
  }

  /**
   * Runs one SDK call on a fresh SDK client whose fetch is bound to this call's record, so the raw
   * status and request count of *this* call are known even when many calls run at once.
   */
  async #call<T>(
    operation: CreateosOperation,
    transport: Pick<TransportOptions, "bodyOnItsOwnTurn">,
    run: (sdk: CreateosSandboxClient, record: Readonly<CallRecord>) => Promise<T>,
  ): Promise<{ value: T; record: CallRecord }> {
    const record: CallRecord = { requests: 0, httpStatus: null, failure: null };
    const sdk = new CreateosSandboxClient({
      apiKey: this.#apiKey,
      baseUrl: this.origin,
      fetch: pacedFetch({
        origin: this.origin,
        operation,
        timeoutMs: this.#timeoutMs,
        retry: this.#retry,
        fetch: this.#fetch,
        record,
        ...transport,
      }),
      // The transport owns retries and timeouts; the SDK's would run outside the pacer.
      retry: false,
      timeoutMs: 0,
    });
    try {
      return { value: await run(sdk, record), record };
    } catch (error) {
      throw typedFailure(error, operation, record);
    }
  }
}

function typedFailure(error: unknown, operation: CreateosOperation, record: CallRecord): unknown {
  if (error instanceof CreateosError) return error.withRequests(record.requests);
  if (record.failure !== null) return record.failure.withRequests(record.requests);
  if (error instanceof CreateosSandboxApiError) {
    return new CreateosError(kindForStatus(error.statusCode), operation, error.statusCode, record.requests);
  }
  // The SDK's own errors (non-JSON body, a non-success envelope, an unrecognised list shape) carry a
  // slice of the body in their message; only the kind survives.
  if (error instanceof CreateosSandboxError) {
    const kind = error instanceof CreateosSandboxConnectionError ? "network" : "invalid-response";
    return new CreateosError(kind, operation, record.httpStatus, record.requests);
  }
  // A caller's abort reason passes through untouched.
  return error;
}

function assertSandboxId(id: string, operation: CreateosOperation): void {
  if (!isValidSandboxId(id)) throw new CreateosError("invalid-id", operation, null, 0);
}

function signalOf(options: CallOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

function outcome(record: CallRecord): CallOutcome {
  return { httpStatus: record.httpStatus ?? 0, requests: record.requests };
}

function execResultOf(value: unknown): Omit<ExecResult, keyof CallOutcome> | null {
  if (typeof value !== "object" || value === null) return null;
  const result = (value as { result?: unknown }).result;
  if (typeof result !== "object" || result === null) return null;
  const { exit_code: exitCode, stdout, stderr, error } = result as Record<string, unknown>;
  if (exitCode !== undefined && exitCode !== null && !Number.isInteger(exitCode)) return null;
  return {
    exitCode: typeof exitCode === "number" ? exitCode : null,
    stdout: typeof stdout === "string" ? stdout : "",
    stderr: typeof stderr === "string" ? stderr : "",
    error: typeof error === "string" && error !== "" ? error : null,
  };
}

function statusOf(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return null;
  const status = (value as { status?: unknown }).status;
  return typeof status === "string" ? status : null;
}
