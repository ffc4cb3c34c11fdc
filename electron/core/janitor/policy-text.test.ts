import { describe, expect, it } from "vitest";
import { parsePolicyText } from "./policy-text.js";

/** A policy file as an operator writes one, one rule per line so a test can say where each line is. */
function file(rules: string[], head = `"version": 1,\n  "operator": "Ada (ada)",`): string {
  return `{\n  ${head}\n  "rules": [\n${rules.map((rule) => `    ${rule}`).join(",\n")}\n  ]\n}\n`;
}

const LEAKING = `{ "name": "leaking", "select": { "headline": ["leaking"], "age": { "released": "24h" } }, "action": "destroy" }`;

function problems(text: string): string[] {
  const reading = parsePolicyText(text);
  return reading.ok ? [] : reading.problems.map((problem) => problem.text);
}

describe("reading a policy file's text", () => {
  it("reads the issue's own examples as a policy", () => {
    const reading = parsePolicyText(
      file([
        `{ "name": "orphans", "select": { "kind": "untracked", "proof": ["ended-lease"], "age": { "created": "2h" } }, "action": "quarantine", "quarantineHours": 24 }`,
        LEAKING,
        `{ "name": "stale", "select": { "flags": { "allOf": ["stale-config"] }, "status": ["released"], "leasePolicy": ["reuse_by_environment"] }, "action": "release", "maxPerHour": 20 }`,
      ]).replace(
        `"rules"`,
        `"caps": { "perPass": 10 },\n  "webhook": { "url": "https://hooks.example/T1/B2" },\n  "rules"`,
      ),
    );
    expect(reading.ok).toBe(true);
    if (!reading.ok) return;
    expect(reading.policy.rules.map((rule) => [rule.name, rule.action])).toEqual([
      ["orphans", "quarantine"],
      ["leaking", "destroy"],
      ["stale", "release"],
    ]);
    expect(reading.policy.caps).toEqual({ perPass: 10 });
  });

  it.each<[string, string, string[]]>([
    [
      "a misspelt key in a rule",
      file([`{ "name": "leaking", "selct": { "headline": ["leaking"] }, "action": "destroy" }`]),
      [
        "line 5, column 5: rules[0].select: missing; this field is required",
        "line 5, column 26: rules[0].selct: unknown field; a misspelt field would select more, so none is ignored",
      ],
    ],
    [
      "a misspelt key in a selector",
      file([`{ "name": "old", "select": { "age": { "relesed": "24h" } }, "action": "destroy" }`]),
      [
        "line 5, column 41: rules[0].select.age: must name acquired, released, lastUsed or created",
        "line 5, column 43: rules[0].select.age.relesed: unknown field; a misspelt field would select more, so none is ignored",
      ],
    ],
    [
      "a misspelt key at the top",
      file([LEAKING], `"version": 1,\n  "operator": "Ada (ada)",\n  "cap": { "perPass": 3 },`),
      ["line 4, column 3: cap: unknown field; a misspelt field would select more, so none is ignored"],
    ],
    [
      "a bad duration",
      file([`{ "name": "old", "select": { "age": { "released": "2 hours" } }, "action": "destroy" }`]),
      ["line 5, column 55: rules[0].select.age.released: must be a duration like 30m, 2h or 7d"],
    ],
    [
      "a duration in seconds",
      file([LEAKING, `{ "name": "old", "select": { "age": { "created": "90s" } }, "action": "destroy" }`]),
      ["line 6, column 54: rules[1].select.age.created: must be a duration like 30m, 2h or 7d"],
    ],
    [
      "a bad action",
      file([`{ "name": "old", "select": { "headline": ["leaking"] }, "action": "nuke" }`]),
      ["line 5, column 71: rules[0].action: must be one of quarantine, destroy, release"],
    ],
    [
      "a missing operator",
      file([LEAKING], `"version": 1,`),
      ["line 1, column 1: operator: missing; must name the operator the janitor acts as"],
    ],
    [
      "a blank operator",
      file([LEAKING], `"version": 1,\n  "operator": "  ",`),
      ["line 3, column 15: operator: must name the operator the janitor acts as"],
    ],
    [
      "another version",
      file([LEAKING], `"version": 2,\n  "operator": "Ada (ada)",`),
      ["line 2, column 14: version: must be 1"],
    ],
    [
      "a code that is not in the vocabulary",
      file([
        `{ "name": "x", "select": { "flags": { "allOf": ["stale-config", "leakin"] } }, "action": "destroy" }`,
      ]),
      [
        "line 5, column 69: rules[0].select.flags.allOf[1]: must be one of stale-config, leaking, in-use, host-cleanup, shared, login-session, warm, run-failing",
      ],
    ],
    [
      "a selector with no clause",
      file([`{ "name": "everything", "select": {}, "action": "destroy" }`]),
      [
        "line 5, column 39: rules[0].select: must name at least one clause: a rule never selects every sandbox",
      ],
    ],
    [
      "an empty list",
      file([`{ "name": "x", "select": { "headline": [] }, "action": "destroy" }`]),
      [
        "line 5, column 44: rules[0].select.headline: must name at least one value (leave the clause out to match any)",
      ],
    ],
    [
      "a rule for history alone",
      file([`{ "name": "x", "select": { "headline": ["closed"] }, "action": "destroy" }`]),
      [
        "line 5, column 44: rules[0].select.headline: closed is history, which no rule selects (the lease is over and nothing of it lives at CreateOS): this rule would select nothing",
      ],
    ],
    [
      "a lease clause on untracked sandboxes",
      file([
        `{ "name": "x", "select": { "kind": "untracked", "headline": ["leaking"] }, "action": "destroy" }`,
      ]),
      [
        "line 5, column 65: rules[0].select.headline: an untracked sandbox has no lease row, so no headline: this rule would select nothing",
      ],
    ],
    [
      "a release of untracked sandboxes",
      file([`{ "name": "x", "select": { "kind": "untracked" }, "action": "release" }`]),
      [
        "line 5, column 65: rules[0].action: an untracked sandbox has no lease to release: quarantine or destroy it",
      ],
    ],
    [
      "a quarantine with no hours",
      file([`{ "name": "x", "select": { "headline": ["leaking"] }, "action": "quarantine" }`]),
      [
        "line 5, column 5: rules[0].quarantineHours: missing; a quarantine rule must say how many hours the sandbox waits before its destroy",
      ],
    ],
    [
      "hours on a destroy",
      file([
        `{ "name": "x", "select": { "headline": ["leaking"] }, "action": "destroy", "quarantineHours": 4 }`,
      ]),
      [
        "line 5, column 99: rules[0].quarantineHours: only a quarantine rule waits; a destroy rule acts at once",
      ],
    ],
    [
      "two rules of one name",
      file([LEAKING, LEAKING]),
      [
        "line 6, column 15: rules[1].name: rules[0] has this name already; each rule needs its own, the audit log counts by it",
      ],
    ],
    [
      "a cap that is not a whole number",
      file([
        `{ "name": "x", "select": { "headline": ["leaking"] }, "action": "destroy", "maxPerHour": 2.5 }`,
      ]),
      ["line 5, column 94: rules[0].maxPerHour: must be a whole number"],
    ],
    [
      "a webhook over plain HTTP to another host",
      file(
        [LEAKING],
        `"version": 1,\n  "operator": "Ada (ada)",\n  "webhook": { "url": "http://hooks.example/x" },`,
      ),
      ["line 4, column 23: webhook.url: must be an https URL (http only on localhost, 127.0.0.1 or ::1)"],
    ],
    [
      "a key named twice",
      file([
        `{ "name": "x", "select": { "headline": ["ok"] }, "select": { "headline": ["leaking"] }, "action": "destroy" }`,
      ]),
      ["line 5, column 54: rules[0].select: named twice in one object"],
    ],
    [
      "a string where a list belongs",
      file([`{ "name": "x", "select": { "headline": "leaking" }, "action": "destroy" }`]),
      ["line 5, column 44: rules[0].select.headline: must be a list"],
    ],
    [
      "rules that are not a list",
      `{\n  "version": 1,\n  "operator": "Ada",\n  "rules": {}\n}`,
      ["line 4, column 12: rules: must be a list of rules"],
    ],
    ["a file that is not an object", `[1, 2]`, ["line 1, column 1: (the policy): must be an object"]],
  ])("%s: says where, and which field", (_, text, expected) => {
    expect(problems(text)).toEqual(expected);
  });

  it.each<[string, string, string]>([
    [
      "a trailing comma",
      file([`${LEAKING},`]),
      "line 6, column 3: the file is not valid JSON: expected a value",
    ],
    [
      "a comment",
      `{\n  // the team's janitor\n  "version": 1\n}`,
      "line 2, column 3: the file is not valid JSON: comments are not JSON",
    ],
    [
      "a missing comma",
      `{\n  "version": 1\n  "operator": "Ada"\n}`,
      "line 3, column 3: the file is not valid JSON: expected a comma",
    ],
    ["an empty file", "", "line 1, column 1: the file is not valid JSON: expected a value"],
  ])("%s is a syntax error at its place, and only the first is reported", (_, text, expected) => {
    expect(problems(text)).toEqual([expected]);
  });

  it("a byte-order mark is read past, and the columns stay where the editor shows them", () => {
    expect(problems(`\uFEFF{ "version": 3, "operator": "Ada", "rules": [] }`)).toEqual([
      "line 1, column 15: version: must be 1",
    ]);
  });

  it("says every problem at once, in the order of the file", () => {
    const text = file(
      [`{ "name": "a", "select": { "age": { "released": "1y" } }, "action": "zap" }`],
      `"version": 1,\n  "operatr": "Ada",`,
    );
    expect(problems(text).map((line) => line.split(":")[0])).toEqual([
      "line 1, column 1",
      "line 3, column 3",
      "line 5, column 53",
      "line 5, column 73",
    ]);
  });
});
