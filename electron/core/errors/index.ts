export type { FailureArea, FailureCode, FailureCodes } from "./codes.js";
export { CoreError, isCoreError } from "./core-error.js";
export { answerFor, EXIT, FIXED_MESSAGES, type HostAnswer, HTTP_STATUS } from "./host-answers.js";
