import type { ActionKind } from "./codes.js";
import { type ExplanationPart, verdictMeaning } from "./explain-verdict.js";
import type { ClassifiedLease } from "./inventory.js";
import {
  type PaperclipCallsAgain,
  paperclipCallsAgain,
  paperclipWill,
  pluginRefusesRelease,
} from "./paperclip-will.js";

/**
 * Everything the console, the plan and the CLI say about one lease, from its verdict alone: the red box
 * ("What is wrong"), the next step ("What to do"), what Paperclip will do by itself, and the two facts
 * they all rest on, so no surface can say "refuse" where another says "nothing", or offer what the guard
 * refuses.
 */
export interface LeaseStory {
  /** Why the row has its headline, with the run failing now first; environments and companies as refs. */
  whatIsWrong: ExplanationPart[];
  /** The next step the verdict allows, or why it allows none; null when there is nothing to say. */
  whatToDo: string | null;
  /** What Paperclip itself will do with the lease. */
  paperclipWill: string;
  /** Whether Paperclip will call CreateOS about the lease again, and if not, why. */
  paperclipCallsAgain: PaperclipCallsAgain;
  /** The plugin refuses (or fails) a release of the lease as the host makes it. */
  pluginRefuses: boolean;
  /** Paperclip will refuse to release it: the plugin refuses, and Paperclip will still ask. */
  refusesRelease: boolean;
  /** What Leasekeeper offers: the actions allowed now, then those an explicit override allows. */
  offers: { allowed: ActionKind[]; withOverride: ActionKind[] };
}

export function leaseStory(classified: ClassifiedLease): LeaseStory {
  const { meaning, next } = verdictMeaning(classified);
  const calls = paperclipCallsAgain(classified);
  const pluginRefuses = pluginRefusesRelease(classified);
  return {
    whatIsWrong: meaning,
    whatToDo: next,
    paperclipWill: paperclipWill(classified),
    paperclipCallsAgain: calls,
    pluginRefuses,
    refusesRelease: pluginRefuses && calls === "yes",
    offers: {
      allowed: [...classified.verdict.allowedActions],
      withOverride: [...classified.verdict.overridableActions],
    },
  };
}

/** A story's parts as plain text: references by the text the sentence quotes. */
export function storyText(parts: readonly ExplanationPart[]): string {
  return parts.map((part) => (typeof part === "string" ? part : `"${part.text}"`)).join("");
}
