import type { JobRow } from "../journal/journal.js";

/**
 * Whether a job the journal says is `running` is really being run. Jobs run by any engine of this process
 * are known here; for a job of another process on this host the owner's pid is asked; for another host,
 * or in a journal other machines share (where a host name and a pid may be another container's), only a
 * heartbeat that stopped (for the abandonment window, as long as a claim lives) says the job was abandoned.
 */

const liveJobs = new Set<string>();

export function markLive(jobId: string): void {
  liveJobs.add(jobId);
}

export function markNotLive(jobId: string): void {
  liveJobs.delete(jobId);
}

export function isJobAbandoned(
  row: JobRow,
  context: { host: string; abandonAfterMs: number; now: Date; heartbeatOnly?: boolean },
): boolean {
  if (liveJobs.has(row.jobId)) return false;
  const heartbeatStopped = context.now.getTime() - Date.parse(row.heartbeatAt) > context.abandonAfterMs;
  if (context.heartbeatOnly === true || row.ownerHost !== context.host) return heartbeatStopped;
  if (row.ownerPid === process.pid) return true;
  return heartbeatStopped || !processExists(row.ownerPid);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is just not ours to signal.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
