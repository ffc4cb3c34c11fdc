import type { Job } from "../../../../shared/domain/actions";
import type { JobAccount } from "./job-account";
import { emptyCounts, retryableCount } from "./job-summary";

/**
 * How many items "Retry N failed" would run again, or null while that is not known. A retry runs what
 * main's account of the finished job says failed or was not confirmed, so it is counted from that account
 * alone: the counts merged from the job's events are not it, and while main is asked (or could not
 * answer) nothing is offered.
 */
export function retryOffer(account: JobAccount, answered: Pick<Job, "counts"> | null): number | null {
  if (account.kind !== "read" || answered === null) return null;
  return retryableCount({ ...emptyCounts(), ...answered.counts });
}
