import { createHash } from "node:crypto";
import type { Policy } from "../../../shared/domain/janitor/index.js";

/**
 * The digest that ties an acting pass to the plan the operator was shown: sha-256 of the policy as
 * parsed, not of the file's bytes. The parsed policy is the very object a pass is given, so what is
 * compared is what would act, with no second read of the file between digesting and parsing; and the
 * schema gives every object its keys in one order and strips nothing silently (unknown fields are
 * refused), so the same rules in other spacing or key order are the same policy.
 */
export function policyDigest(policy: Policy): string {
  return `sha256:${createHash("sha256").update(JSON.stringify(policy)).digest("hex")}`;
}
