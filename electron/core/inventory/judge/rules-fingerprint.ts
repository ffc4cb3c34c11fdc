// Written by `npm run rules:fingerprint` (scripts/rules-fingerprint.ts); not edited by hand.

/** The digest of the code that judges rows and decides what the store keeps of them (decision 224). */
export const RULES_FINGERPRINT = "fb50d5e1a4fdbc15ae4a2797b2b6c2bc";
