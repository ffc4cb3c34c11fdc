/**
 * Where main's account of a job stands, for the progress panel. The panel's cache merges the job's events
 * into main's last answer, and a read that failed keeps that merged data: a job the events say finished
 * has its summary only once main itself has answered that it finished.
 *
 * - `running`: the job has not ended, by any account.
 * - `read`: main has answered that the job finished; its counts are the summary.
 * - `reading`: the job ended and main is being asked.
 * - `unread`: the job ended and main's account could not be read (the error says why).
 * - `unasked`: the job ended and main has not been asked since (the panel asks).
 */
export type JobAccount =
  | { kind: "running" }
  | { kind: "read" }
  | { kind: "reading" }
  | { kind: "unread"; error: unknown }
  | { kind: "unasked" };

export function jobAccount(input: {
  finished: boolean;
  answeredFinished: boolean;
  fetching: boolean;
  error: unknown;
}): JobAccount {
  if (!input.finished) return { kind: "running" };
  // A job that ended stays ended: once main has said so, a later read (or its failure) changes nothing.
  if (input.answeredFinished) return { kind: "read" };
  if (input.fetching) return { kind: "reading" };
  if (input.error !== null) return { kind: "unread", error: input.error };
  return { kind: "unasked" };
}
