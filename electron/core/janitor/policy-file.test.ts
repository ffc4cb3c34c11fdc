import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { POLICY_FILE_LIMIT, readPolicyFile } from "./policy-file.js";

const dir = mkdtempSync(join(tmpdir(), "janitor-policy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const POLICY = JSON.stringify(
  {
    version: 1,
    operator: "Ada (ada)",
    rules: [
      { name: "leaking", select: { headline: ["leaking"], age: { released: "24h" } }, action: "destroy" },
    ],
  },
  null,
  2,
);

describe("reading the policy file", () => {
  it("reads a policy", async () => {
    const reading = await readPolicyFile(write("ok.json", POLICY));
    expect(reading).toMatchObject({ ok: true, policy: { operator: "Ada (ada)" } });
  });

  it("says the line and field of a problem in the file", async () => {
    const reading = await readPolicyFile(write("typo.json", POLICY.replace('"headline"', '"headlines"')));
    expect(reading.ok ? [] : reading.problems.map((problem) => problem.text)).toContainEqual(
      "line 8, column 9: rules[0].select.headlines: unknown field; a misspelt field would select more, so none is ignored",
    );
  });

  it.each<[string, () => string, string]>([
    [
      "a file that is not there",
      () => join(dir, "absent.json"),
      "no such file; check the path given to --policy",
    ],
    ["a folder", () => dir, "it is a folder, not a file"],
    [
      "bytes that are not UTF-8",
      () => write("latin1.json", Buffer.from([0x7b, 0xff, 0x7d])),
      "it is not UTF-8 text",
    ],
    [
      "a file far larger than a policy",
      () => write("huge.json", " ".repeat(POLICY_FILE_LIMIT + 1)),
      `it is ${POLICY_FILE_LIMIT + 1} bytes; a policy file is at most ${POLICY_FILE_LIMIT}`,
    ],
  ])("%s is one problem, naming the file", async (_, path, message) => {
    const file = path();
    const reading = await readPolicyFile(file);
    expect(reading).toEqual({
      ok: false,
      problems: [{ line: 0, column: 0, field: "(the file)", message, text: `${file}: ${message}` }],
    });
  });
});
