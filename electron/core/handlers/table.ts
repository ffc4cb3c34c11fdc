import { ENCODED_CHANNELS, type EncodedChannel } from "../../../shared/contract/channels.js";
import {
  type Channel,
  type ChannelResponse,
  contract,
  failure,
  INVOKE_CHANNELS,
  type ParsedRequest,
  type Result,
} from "../../../shared/contract/index.js";
import { decodeJson } from "../../../shared/contract/json-bytes.js";
import { answerFor, FIXED_MESSAGES } from "../errors/host-answers.js";
import { invalidRequestMessage } from "./validation.js";

/** Who is calling: recorded in the audit log, never trusted for anything else. */
export interface CallContext {
  host: "electron" | "browser" | "cli" | "test";
}

export type CoreCall<C extends Channel> = (
  request: ParsedRequest<C>,
  context: CallContext,
) => Promise<ChannelResponse<C>> | ChannelResponse<C>;

/**
 * Channels whose core call answers with the UTF-8 JSON of its answer, as a host writes it out: the
 * inventory view, which main holds as those bytes (a parsed 100,000-row view is a string per id, and
 * main's young collections copied every one of them). They are not re-parsed against the response schema:
 * the worker's typed encoder built them, copying only named fields.
 */
const ENCODED: ReadonlySet<Channel> = new Set<Channel>(ENCODED_CHANNELS);

/** The JSON of a channel's answer, as bytes; decoded only where an object is needed (`decodeJson`). */
export type EncodedAnswer<C extends Channel> = Uint8Array & { readonly __answerOf?: C };

/** The core's implementation of every channel; the composition root builds it (electron/core/app). */
export type CoreCalls = {
  [C in Channel]: C extends EncodedChannel
    ? (request: ParsedRequest<C>, context: CallContext) => Promise<EncodedAnswer<C>> | EncodedAnswer<C>
    : CoreCall<C>;
};

export type Handler<C extends Channel> = (
  raw: unknown,
  context: CallContext,
) => Promise<Result<ChannelResponse<C>>>;
export type HandlerTable = { readonly [C in Channel]: Handler<C> };

/** A host's handler of an encoded channel: the answer's JSON as bytes, redacted, for the host to write out. */
export type EncodedHandler = (raw: unknown, context: CallContext) => Promise<Result<Uint8Array>>;

export interface HandlerLog {
  error(message: string, detail?: unknown): void;
}

/** Removes known keys from an answer (see electron/core/redaction/redactor.ts); identity when there is none. */
export interface AnswerRedactor {
  redactDeep<T>(value: T): T;
  /** The same for an answer's JSON bytes: the same bytes when they hold no key. */
  redactJson(bytes: Uint8Array): Uint8Array;
}

/** Each table's handlers of the encoded channels, for the hosts that write the bytes out (`encodedHandlerFor`). */
const encodedHandlers = new WeakMap<HandlerTable, ReadonlyMap<Channel, EncodedHandler>>();

/**
 * The one table from channel to core call, used unchanged by every host (Electron IPC, the browser
 * host, tests). Each request is parsed with its schema before anything runs; an invalid one gets
 * `invalid-request` naming the channel, field and issue. Anything thrown is answered as every host
 * answers it (`answerFor`): a CoreError's code and sentence, or a fixed one. Answers are parsed with the response schema, which also drops any field the contract
 * does not name, so nothing unplanned (a marker, a key) can ride along.
 */
export function createHandlerTable(
  calls: CoreCalls,
  log: HandlerLog,
  redactor?: AnswerRedactor,
): HandlerTable {
  const table = {} as Record<Channel, Handler<Channel>>;
  const encoded = new Map<Channel, EncodedHandler>();
  for (const channel of INVOKE_CHANNELS) {
    if (ENCODED.has(channel)) {
      const answer = makeEncodedHandler(channel, calls[channel] as EncodedCall, log, redactor);
      encoded.set(channel, answer);
      // In-process callers (the CLI's dispatch, tests) get the object, as every other channel answers.
      table[channel] = async (raw, context) => {
        const result = await answer(raw, context);
        return result.ok ? { ok: true, data: decodeJson<ChannelResponse<Channel>>(result.data) } : result;
      };
      continue;
    }
    table[channel] = makeHandler(channel, calls[channel] as CoreCall<Channel>, log, redactor);
  }
  const frozen = Object.freeze(table) as unknown as HandlerTable;
  encodedHandlers.set(frozen, encoded);
  return frozen;
}

/**
 * For a host that writes answers out: the handler giving `channel`'s answer as its JSON bytes, or null
 * for a channel answered as an object (then `handlerFor`'s answer is serialised as usual).
 */
export function encodedHandlerFor(table: HandlerTable, channel: string): EncodedHandler | null {
  return encodedHandlers.get(table)?.get(channel as Channel) ?? null;
}

type EncodedCall = (request: unknown, context: CallContext) => Promise<Uint8Array> | Uint8Array;

function makeEncodedHandler(
  channel: Channel,
  call: EncodedCall,
  log: HandlerLog,
  redactor: AnswerRedactor | undefined,
): EncodedHandler {
  return async (raw, context) => {
    const parsed = parseRequest(channel, raw);
    if (!parsed.ok) return parsed;
    let bytes: Uint8Array;
    try {
      bytes = await call(parsed.data, context);
    } catch (error) {
      return thrown(channel, error, log, redactor);
    }
    return { ok: true, data: redactor ? redactor.redactJson(bytes) : bytes };
  };
}

/** A channel without parameters may be invoked without a body. */
function parseRequest(channel: Channel, raw: unknown): Result<unknown> {
  const parsed = contract[channel].request.safeParse(raw === undefined ? {} : raw);
  if (!parsed.success) return failure("invalid-request", invalidRequestMessage(channel, parsed.error));
  return { ok: true, data: parsed.data };
}

/** What anything thrown is answered as: a CoreError's code and sentence, or a fixed one. */
function thrown(
  channel: Channel,
  error: unknown,
  log: HandlerLog,
  redactor: AnswerRedactor | undefined,
): Result<never> {
  const failed = answerFor(error);
  if (!failed.expected) log.error(`${channel} failed`, error);
  return failure(failed.code, redactor ? redactor.redactDeep(failed.message) : failed.message);
}

function makeHandler<C extends Channel>(
  channel: C,
  call: CoreCall<C>,
  log: HandlerLog,
  redactor: AnswerRedactor | undefined,
): Handler<C> {
  const responseSchema = contract[channel].response;
  return async (raw, context) => {
    const parsed = parseRequest(channel, raw);
    if (!parsed.ok) return parsed;
    let answer: ChannelResponse<C>;
    try {
      answer = await call(parsed.data as ParsedRequest<C>, context);
    } catch (error) {
      return thrown(channel, error, log, redactor);
    }
    const checked = responseSchema.safeParse(answer);
    if (!checked.success) {
      log.error(`${channel} answered outside its contract`, checked.error.issues.slice(0, 5));
      return failure("internal", FIXED_MESSAGES.contract);
    }
    const data = checked.data as ChannelResponse<C>;
    return { ok: true, data: redactor ? redactor.redactDeep(data) : data };
  };
}

/** For hosts that receive a channel name from outside: the handler, or null for a name not in the contract. */
export function handlerFor(table: HandlerTable, channel: string): Handler<Channel> | null {
  return Object.hasOwn(table, channel) ? (table[channel as Channel] as Handler<Channel>) : null;
}

/** Dispatches by name; an unknown name is an invalid request, answered like any other. */
export async function dispatch(
  table: HandlerTable,
  channel: string,
  raw: unknown,
  context: CallContext,
): Promise<Result<unknown>> {
  const handler = handlerFor(table, channel);
  if (!handler) return failure("invalid-request", "Unknown channel.");
  return handler(raw, context);
}
