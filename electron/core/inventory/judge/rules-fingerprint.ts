// Written by `npm run rules:fingerprint` (scripts/rules-fingerprint.ts); not edited by hand.

/** The digest of the code that judges rows and decides what the store keeps of them (decision 224). */
export const RULES_FINGERPRINT = "819913f770b3b93f21e0d148608aa4e9";
