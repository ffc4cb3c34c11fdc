/** The fixed sentences the engine refuses a request or ends an item with; none carries a secret. */
export const ENGINE_MESSAGES = {
  planNotFound: "No plan with this id; make a new plan.",
  planExpired: "This plan has expired; make a new plan so that it reflects what is true now.",
  planCancelled: (operator: string, at: string) =>
    `This plan was cancelled by ${operator} at ${at}; a cancelled plan never runs. Make a new plan to act.`,
  planConsumed: (jobId: string) =>
    `This plan was already run, by job ${jobId}; a plan runs once. Make a new plan to act again.`,
  notInPlan: "The items to keep must come from this plan; make a new plan to act on anything else.",
  nothingKept: "Every item of this plan was removed, so there is nothing to do; nothing was sent.",
  removed: "Removed from the plan before confirming; nothing was sent for it.",
  countNotConfirmed: (expected: string) =>
    `This plan needs its count typed back: type "${expected}" to confirm. Nothing was done.`,
  expiredUnsent:
    "The plan expired before this item was sent, so it was not sent; make a new plan to act on it.",
  jobNotFound: "No job with this id.",
  jobNotInterrupted: "Only an interrupted job can be resumed.",
  jobRunning: "This job is still running.",
  jobAlreadyResumed: "This job was already resumed by another job.",
  nothingToRetry: "This job has no failed items to retry.",
  inventoryUnavailable: "The inventory could not be read, so no plan was made.",
  closed: "The action engine is closed.",
  notConfirmed:
    "This forced destroy needs the sandbox id typed back (or the plan's confirmation phrase); it was not given, so nothing was done.",
} as const;
