export { formatPath, type JsonPositions, jsonPositions, type Position } from "./json-positions.js";
export { POLICY_FILE_LIMIT, readPolicyFile } from "./policy-file.js";
export { type PolicyProblem, type PolicyReading, parsePolicyText } from "./policy-text.js";
