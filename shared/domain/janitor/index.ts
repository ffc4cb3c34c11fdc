export { actionRefusal } from "./action-refusal.js";
export {
  type CandidateTarget,
  candidateProofKey,
  candidatesOf,
  type JanitorCandidate,
  proofSubjectOf,
  sandboxKey,
  targetOf,
} from "./candidate.js";
export { DURATION_MESSAGE, DURATION_PATTERN, durationMs, formatAge } from "./duration.js";
export {
  EXCLUSION_MESSAGES,
  EXCLUSION_REASONS,
  type Exclusion,
  type ExclusionReason,
  excluded,
} from "./exclusions.js";
export {
  indexProofs,
  isForcedDestroy,
  type LeaseStatuses,
  leaseStatuses,
  type ProofReading,
  readProof,
  type ScanNow,
} from "./forced-destroy-proof.js";
export {
  CAP_NAMES,
  CandidateTargetSchema,
  type CapName,
  type PassItem,
  PassItemSchema,
  type PassPlan,
  PassPlanSchema,
  type PastAction,
  PastActionSchema,
  ProofReadingSchema,
  type RulePlan,
  RulePlanSchema,
  SKIP_REASONS,
  type Skip,
  type SkipReason,
  SkipSchema,
} from "./pass-plan.js";
export {
  type Failing,
  FailingSchema,
  ITEM_OUTCOMES,
  type ItemOutcome,
  PASS_MODES,
  type PassGap,
  PassGapSchema,
  type PassMode,
  type PassReport,
  PassReportSchema,
  type PassResult,
  PassResultSchema,
  UNREAD_UNKNOWN,
  unreadSentence,
} from "./pass-report.js";
export { type PassInput, planPass, selectionContext } from "./plan-pass.js";
export {
  type AgeSelector,
  AgeSelectorSchema,
  CANDIDATE_KINDS,
  type CandidateKind,
  type Caps,
  CapsSchema,
  DEFAULT_CAPS,
  effectiveCaps,
  type FlagsSelector,
  FlagsSelectorSchema,
  JANITOR_ACTIONS,
  type JanitorAction,
  LEASE_ONLY_CLAUSES,
  type Policy,
  PolicySchema,
  PROOF_SELECTORS,
  type ProofSelector,
  type Rule,
  RuleSchema,
  type Selector,
  SelectorSchema,
  WebhookSchema,
} from "./policy.js";
export {
  type KnownNames,
  policyHeadlines,
  policyRowColumns,
  policyRowPicker,
  proofOwners,
  type RuleColumns,
} from "./policy-rows.js";
export {
  proofPrefixes,
  type RecorderNow,
  type RecordersNow,
  recordersNow,
} from "./recorders-now.js";
export { matchSelector, type Selection, type SelectionContext } from "./select.js";
