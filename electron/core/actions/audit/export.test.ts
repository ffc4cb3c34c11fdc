import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../shared/domain/actions.js";
import { csvCell, exportAudit } from "./export.js";

describe("CSV cells", () => {
  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ['=HYPERLINK("x")', '"\'=HYPERLINK(""x"")"'],
    ["+1", "'+1"],
    ["-2", "'-2"],
    ["@SUM(A1)", "'@SUM(A1)"],
    [null, ""],
    [42, "42"],
    [true, "true"],
  ])("%s → %s", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it.each([
    ["a line feed alone", "a\nb", '"a\nb"'],
    ["a carriage return alone", "a\rb", '"a\rb"'],
    ["a CRLF", "a\r\nb", '"a\r\nb"'],
    ["a leading carriage return, guarded and quoted", "\r=1", '"\'\r=1"'],
    ["a leading tab", "\t=1", "'\t=1"],
    ["a full-width equals sign", "\uFF1DSUM(A1)", "'\uFF1DSUM(A1)"],
    ["a full-width at sign", "\uFF20SUM(A1)", "'\uFF20SUM(A1)"],
    ["a formula that also needs quotes", '=A1,"x"', '"\'=A1,""x"""'],
    ["an empty string", "", ""],
    ["false", false, "false"],
    ["a negative number, which stays a number", -5, "-5"],
  ])("writes %s as %j", (_, value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });
});

describe("audit export", () => {
  const entry: AuditEntry = {
    id: 1,
    at: "2026-11-30T12:00:00.000Z",
    kind: "item",
    operator: "ops",
    host: "box",
    action: "destroy",
    planId: "p1",
    jobId: "j1",
    leaseId: "l1",
    sandboxId: "sbx_1",
    origin: "https://api.sb.createos.sh",
    environmentId: "env-1",
    environmentName: "=cmd|' /C calc'!A0",
    companyId: "c1",
    verdict: { headline: "foreign", ownership: ["foreign-company"], provider: "running", flags: ["leaking"] },
    evidence: { marker: "0f8fad5b…", companyId: "c2" },
    confirmation: "typed-id",
    override: false,
    outcome: "confirmed",
    reason: null,
    httpStatus: 200,
    durationMs: 812,
    message: "CreateOS lists the sandbox as destroyed.",
  };

  it("writes one header and one CRLF-terminated row per entry, with the verdict and evidence", () => {
    const csv = exportAudit([entry], "csv");
    const lines = csv.split("\r\n");
    expect(lines[0]?.startsWith("id,at,kind,operator,host,action,planId,jobId,leaseId,sandboxId")).toBe(true);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("foreign-company");
    expect(lines[1]).toContain('"{""marker"":""0f8fad5b…"",""companyId"":""c2""}"');
    expect(lines[1]).toContain("'=cmd|' /C calc'!A0");
  });

  it("keeps a line break inside its cell, so every entry stays one record", () => {
    const csv = exportAudit([{ ...entry, message: "first\nsecond\rthird" }], "csv");
    expect(csv).toContain('"first\nsecond\rthird"');
    expect(csv.split("\r\n")).toHaveLength(3);
  });

  it("writes the header alone when there are no entries", () => {
    expect(exportAudit([], "csv")).toMatch(/^id,at,kind,[^\r\n]*,evidence\r\n$/);
  });

  it("writes JSON that parses back to the entries", () => {
    expect(JSON.parse(exportAudit([entry], "json"))).toEqual([entry]);
  });
});
