import { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "./channels.js";

/** Every answer crosses the boundary as a value: data, or a coded error with a fixed, secret-free message. */
export const ErrorCodeSchema = z.enum(ERROR_CODES);

/** Messages are capped so that no answer can carry a large echo of its input. */
export const MAX_ERROR_MESSAGE = 300;

export const ApiErrorSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string().max(MAX_ERROR_MESSAGE),
});
export type ApiErrorBody = z.infer<typeof ApiErrorSchema>;

export const FailureSchema = z.object({ ok: z.literal(false), error: ApiErrorSchema });
export type Failure = z.infer<typeof FailureSchema>;

export function ResultSchema<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion("ok", [z.object({ ok: z.literal(true), data }), FailureSchema]);
}
export type Result<T> = { ok: true; data: T } | Failure;

export function success<T>(data: T): Result<T> {
  return { ok: true, data };
}

export function failure(code: ErrorCode, message: string): Failure {
  const capped = message.length > MAX_ERROR_MESSAGE ? `${message.slice(0, MAX_ERROR_MESSAGE - 1)}…` : message;
  return { ok: false, error: { code, message: capped } };
}

export type { ErrorCode };
