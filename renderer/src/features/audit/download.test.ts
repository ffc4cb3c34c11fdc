import { describe, expect, it } from "vitest";
import { auditQuery } from "./AuditView";
import { safeFilename } from "./download";

describe("safeFilename", () => {
  it.each([
    ["leasekeeper-audit-2025-06-01.csv", "leasekeeper-audit-2025-06-01.csv"],
    ["../../etc/passwd", "passwd"],
    ["C:\\\\Windows\\\\evil.csv", "evil.csv"],
    ["name with spaces\u202e.csv", "name-with-spaces-.csv"],
    ["...", "leasekeeper-audit"],
    ["", "leasekeeper-audit"],
  ])("%s", (input, expected) => {
    expect(safeFilename(input)).toBe(expected);
  });
});

describe("auditQuery", () => {
  const now = Date.parse("2025-06-10T12:34:56Z");
  it("sends only the filters that are set", () => {
    expect(auditQuery({ action: "", outcome: "", environmentId: "", period: 3 }, now)).toEqual({
      limit: 1000,
    });
  });
  it("rounds `since` to the minute so the query key is stable while typing", () => {
    expect(auditQuery({ action: "destroy", outcome: "failed", environmentId: "e", period: 0 }, now)).toEqual({
      limit: 1000,
      action: "destroy",
      outcome: "failed",
      environmentId: "e",
      since: "2025-06-10T11:34:00.000Z",
    });
  });
});
