// Written by `npm run rules:fingerprint` (scripts/rules-fingerprint.ts); not edited by hand.

/** The digest of the code that judges rows and decides what the store keeps of them (decision 224). */
export const RULES_FINGERPRINT = "fd41117f2fb3078f686c2e8eb4e764c0";
