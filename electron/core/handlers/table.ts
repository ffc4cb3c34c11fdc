import {
  type Channel,
  type ChannelResponse,
  contract,
  failure,
  INVOKE_CHANNELS,
  type ParsedRequest,
  type Result,
} from "../../../shared/contract/index.js";
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

/** The core's implementation of every channel; the composition root builds it (electron/core/app). */
export type CoreCalls = { [C in Channel]: CoreCall<C> };

export type Handler<C extends Channel> = (
  raw: unknown,
  context: CallContext,
) => Promise<Result<ChannelResponse<C>>>;
export type HandlerTable = { readonly [C in Channel]: Handler<C> };

export interface HandlerLog {
  error(message: string, detail?: unknown): void;
}

/** Removes known keys from an answer (see electron/core/redaction/redactor.ts); identity when there is none. */
export interface AnswerRedactor {
  redactDeep<T>(value: T): T;
}

/**
 * Answers built from scratch by a typed encoder are not re-parsed: parsing 20,000 inventory tuples would
 * block the main process for ~50 ms on every refresh, and the encoder copies only named fields.
 */
const ENCODER_BUILT: ReadonlySet<Channel> = new Set<Channel>(["inventory:get"]);

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
  for (const channel of INVOKE_CHANNELS) {
    table[channel] = makeHandler(channel, calls[channel] as CoreCall<Channel>, log, redactor);
  }
  return Object.freeze(table) as unknown as HandlerTable;
}

function makeHandler<C extends Channel>(
  channel: C,
  call: CoreCall<C>,
  log: HandlerLog,
  redactor: AnswerRedactor | undefined,
): Handler<C> {
  const { request: requestSchema, response: responseSchema } = contract[channel];
  return async (raw, context) => {
    // A channel without parameters may be invoked without a body.
    const parsedRequest = requestSchema.safeParse(raw === undefined ? {} : raw);
    if (!parsedRequest.success) {
      return failure("invalid-request", invalidRequestMessage(channel, parsedRequest.error));
    }
    let answer: ChannelResponse<C>;
    try {
      answer = await call(parsedRequest.data as ParsedRequest<C>, context);
    } catch (error) {
      const failed = answerFor(error);
      if (!failed.expected) log.error(`${channel} failed`, error);
      return failure(failed.code, redactor ? redactor.redactDeep(failed.message) : failed.message);
    }
    if (ENCODER_BUILT.has(channel))
      return { ok: true, data: redactor ? redactor.redactDeep(answer) : answer };
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
