// Written by `npm run rules:fingerprint` (scripts/rules-fingerprint.ts); not edited by hand.

/** The digest of the code that judges rows and decides what the store keeps of them (decision 224). */
export const RULES_FINGERPRINT = "1d8dd1ea8273b0c56d744fc30c3a8d62";
