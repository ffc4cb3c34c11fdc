import type { QuarantinePass } from "./quarantine-service.js";

export type Unjudged = NonNullable<QuarantinePass["unjudged"]>;

/**
 * The sentence for a pass that could not judge its waiting quarantines, as the CLI prints it and the app
 * logs it. The reason is the failure as raised, so it passes through the core's redactor first: a source
 * error may echo what it was sent.
 */
export function unjudgedSentence(unjudged: Unjudged, redact: (text: string) => string): string {
  const { count } = unjudged;
  const subject = count === 1 ? "1 waiting quarantine was" : `${count} waiting quarantines were`;
  // The reason is a sentence of its own; inside the brackets its closing stop is the sentence's.
  const because = redact(unjudged.because).replace(/\.$/, "");
  if (unjudged.partUnread) return `${subject} not judged: ${because}.`;
  return `${subject} not judged: the inventory could not be read (${because}).`;
}
