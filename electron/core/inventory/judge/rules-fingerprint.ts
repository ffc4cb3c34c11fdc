// Written by `npm run rules:fingerprint` (scripts/rules-fingerprint.ts); not edited by hand.

/** The digest of the code that judges rows and decides what the store keeps of them (decision 224). */
export const RULES_FINGERPRINT = "ab4a8e496e0fc7935e476ff63df6f30a";
