import type { Policy } from "../../../shared/domain/janitor/index.js";
import { SecretRedactor } from "../redaction/redactor.js";
import { readPolicyFile } from "./policy-file.js";
import type { PolicyProblem } from "./policy-text.js";

/** The policy file read again before a pass: the policy to run, or why no pass may run on it. */
export type PolicyRereading =
  | { state: "read"; policy: Policy }
  | { state: "unreadable"; problems: PolicyProblem[] }
  | { state: "other-operator"; operator: string };

/**
 * The policy a watcher runs, read from its file before every pass after the first: an operator who narrows
 * or empties the file to stop the janitor is heeded at the next pass, as the app's janitor heeds it (it
 * reads the file each time too). Two things a new reading cannot change under a running watcher:
 *
 * - A file that no longer reads runs no pass. The rules read before are never run in its place: they are
 *   what the operator was changing, perhaps to stop them.
 * - The operator: the core was opened as the first one, and every plan, claim and audit entry it makes
 *   names it. A reading that names another is answered, and the watcher stops rather than act as one
 *   operator under another's name.
 *
 * A webhook URL is a secret (a Slack URL carries its token), and the core's redactor is given the first
 * one when it opens and cannot be told another. So every URL read is kept here: the watcher hands `redact`
 * to the CLI's io beside the core's redactor, so every line it writes passes both, and passes both itself
 * what goes through no io (a pass's report, the webhook's body).
 */
export class WatchedPolicy {
  readonly #urls = new Set<string>();
  readonly #redactor = new SecretRedactor();

  constructor(
    readonly file: string,
    readonly operator: string,
    first: Policy,
  ) {
    this.#note(first);
  }

  async reread(): Promise<PolicyRereading> {
    const reading = await readPolicyFile(this.file);
    if (!reading.ok) return { state: "unreadable", problems: reading.problems };
    // Noted before anything else is decided: a reading that is refused may still be said.
    this.#note(reading.policy);
    if (reading.policy.operator !== this.operator)
      return { state: "other-operator", operator: reading.policy.operator };
    return { state: "read", policy: reading.policy };
  }

  /** `text` without any webhook URL this watcher has read. */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  #note(policy: Policy): void {
    const url = policy.webhook?.url;
    if (url === undefined || this.#urls.has(url)) return;
    this.#urls.add(url);
    this.#redactor.set([...this.#urls]);
  }
}
