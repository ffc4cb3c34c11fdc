export { formatPath, type JsonPositions, jsonPositions, type Position } from "./json-positions.js";
export { type JanitorDeps, type PassOptions, planPolicy, runPass, type StopReason } from "./pass.js";
export { defaultStopFile, janitorDir, readLastPass } from "./pass-state.js";
export { POLICY_FILE_LIMIT, readPolicyFile } from "./policy-file.js";
export { type PolicyProblem, type PolicyReading, parsePolicyText } from "./policy-text.js";
export { sendWebhook, shouldNotify, WEBHOOK_TIMEOUT_MS, webhookBody, webhookNotice } from "./webhook.js";
