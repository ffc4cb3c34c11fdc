import { beforeEach, describe, expect, it } from "vitest";
import { type Subject, subjectKey, useSubjectAnswers } from "./subject-answers";

const leaseA: Subject = { kind: "lease", leaseId: "A", sourceId: "s1" };
const leaseB: Subject = { kind: "lease", leaseId: "B", sourceId: "s1" };
const sandbox: Subject = { kind: "untracked", sandboxId: "A", origin: "https://x" };

describe("answers keyed by their subject", () => {
  beforeEach(() => useSubjectAnswers.setState({ answers: new Map() }));

  it("keeps an answer under its own subject only, with its time", () => {
    useSubjectAnswers.getState().put("proof", leaseA, "proven", 1000);
    const { answers } = useSubjectAnswers.getState();
    expect(answers.get(`proof ${subjectKey(leaseA)}`)).toEqual({
      subject: subjectKey(leaseA),
      at: 1000,
      value: "proven",
    });
    expect(answers.get(`proof ${subjectKey(leaseB)}`)).toBeUndefined();
    expect(answers.get(`proof ${subjectKey(sandbox)}`)).toBeUndefined();
    expect(answers.get(`quarantine ${subjectKey(leaseA)}`)).toBeUndefined();
  });

  it("tells a lease from a sandbox of the same id, and the same lease id in two sources apart", () => {
    expect(subjectKey(leaseA)).not.toBe(subjectKey(sandbox));
    expect(subjectKey(leaseA)).not.toBe(subjectKey({ ...leaseA, sourceId: "s2" }));
    expect(subjectKey({ kind: "lease", leaseId: "a b", sourceId: "c" })).not.toBe(
      subjectKey({ kind: "lease", leaseId: "a", sourceId: "b c" }),
    );
  });

  it("drops an answer, and keeps a bounded number", () => {
    const { put, drop } = useSubjectAnswers.getState();
    put("quarantine", leaseA, "refused");
    drop("quarantine", leaseA);
    expect(useSubjectAnswers.getState().answers.size).toBe(0);
    for (let at = 0; at < 600; at += 1) put("proof", { ...leaseA, leaseId: `L${at}` }, at);
    expect(useSubjectAnswers.getState().answers.size).toBe(500);
  });
});
