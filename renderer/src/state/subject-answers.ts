import { create } from "zustand";

/**
 * Answers main gave about one subject (a marker proof, a quarantine refusal, an action's failure), kept
 * under that subject and the time they came, so a drawer or a detail shows only its own subject's
 * answers: switching from sandbox A to sandbox B never leaves A's answer on screen under B's name.
 */

/** What an answer is about: a lease row (by source), or a sandbox no row names (by origin). */
export type Subject =
  | { kind: "lease"; leaseId: string; sourceId: string }
  | { kind: "untracked"; sandboxId: string; origin: string };

export type AnswerKind = "proof" | "quarantine";

export interface SubjectAnswer<T> {
  subject: string;
  /** When main's answer arrived (the renderer's clock). */
  at: number;
  value: T;
}

/** One string per subject: the kind, then its ids, each whole (ids may hold spaces). */
export function subjectKey(subject: Subject): string {
  return subject.kind === "lease"
    ? JSON.stringify(["lease", subject.sourceId, subject.leaseId])
    : JSON.stringify(["untracked", subject.origin, subject.sandboxId]);
}

/** Kept for this session only, and at most this many, the oldest dropped first. */
const KEPT = 500;

interface AnswersState {
  answers: ReadonlyMap<string, SubjectAnswer<unknown>>;
  put(kind: AnswerKind, subject: Subject, value: unknown, at?: number): void;
  drop(kind: AnswerKind, subject: Subject): void;
}

const slot = (kind: AnswerKind, subject: Subject) => `${kind} ${subjectKey(subject)}`;

export const useSubjectAnswers = create<AnswersState>()((set) => ({
  answers: new Map(),
  put: (kind, subject, value, at = Date.now()) =>
    set((state) => {
      const answers = new Map(state.answers);
      const key = slot(kind, subject);
      answers.delete(key);
      answers.set(key, { subject: subjectKey(subject), at, value });
      while (answers.size > KEPT) answers.delete(answers.keys().next().value as string);
      return { answers };
    }),
  drop: (kind, subject) =>
    set((state) => {
      const key = slot(kind, subject);
      if (!state.answers.has(key)) return state;
      const answers = new Map(state.answers);
      answers.delete(key);
      return { answers };
    }),
}));

/** The latest answer of a kind about exactly this subject, or null. */
export function useSubjectAnswer<T>(kind: AnswerKind, subject: Subject): SubjectAnswer<T> | null {
  const key = slot(kind, subject);
  return useSubjectAnswers((state) => (state.answers.get(key) as SubjectAnswer<T> | undefined) ?? null);
}
