import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateDemoWorld } from "../../../simulator/index.js";
import { runToEnd } from "../time-slices.js";
import { parseJsonSteps } from "./json-in-slices.js";

const parse = (text: string) => runToEnd(parseJsonSteps(text));

/** What JSON.parse does with the text: its value, or that it throws a SyntaxError. */
function expectLikeJsonParse(text: string): void {
  let expected: unknown;
  try {
    expected = JSON.parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    expect(() => parse(text), text).toThrow(SyntaxError);
    return;
  }
  expect(parse(text), text).toStrictEqual(expected);
}

describe("parseJsonSteps", () => {
  it("reads a generated ledger exactly as JSON.parse does, pausing between batches of rows", () => {
    const { ledger } = generateDemoWorld({ size: 1000, seed: "json-in-slices" });
    const text = JSON.stringify(ledger, null, 2);
    const steps = parseJsonSteps(text);
    let pauses = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) pauses += 1;
    expect(step.value).toStrictEqual(JSON.parse(text));
    expect(pauses).toBeGreaterThanOrEqual(9);
  });

  it.each([
    ["an empty object", "{}"],
    ["empty arrays", '{ "environments": [], "leases": [ ] }'],
    [
      "strings with brackets, commas, quotes and backslashes",
      String.raw`{"leases":[{"a":"],[{\"}"},"\\",  "x\\\"y,]"],"b":{"c":[1,{"d":"}"}]}}`,
    ],
    ["nested arrays", '{"leases":[[1,[2,3]],[],[[]],{"k":[1,2]}]}'],
    ["repeated keys (the last wins)", '{"leases":[1],"leases":[2,3]}'],
    ["a __proto__ key", '{"__proto__":[1,2],"leases":[{"__proto__":{"x":1}}]}'],
    ["a top-level array", "[1,2,3]"],
    ["a top-level string", '"ledger"'],
    ["a trailing comma in an array", '{"leases":[1,2,]}'],
    ["a leading comma in an array", '{"leases":[,1]}'],
    ["two commas", '{"leases":[1,,2]}'],
    ["a missing comma between keys", '{"a":[1] "b":[2]}'],
    ["garbage after the object", '{"leases":[1]} x'],
    ["an unclosed array", '{"leases":[1,2'],
    ["an unclosed string", '{"leases":["abc]}'],
    ["a bare word", '{"leases":[nope]}'],
    ["a raw newline in a string", '{"leases":["a\nb"]}'],
  ])("%s: the same as JSON.parse", (_, text) => {
    expectLikeJsonParse(text);
  });

  it("agrees with JSON.parse on arbitrary documents with big top-level arrays", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.array(fc.jsonValue(), { maxLength: 250 }), fc.jsonValue())),
        fc.boolean(),
        (document, pretty) => {
          expectLikeJsonParse(JSON.stringify(document, null, pretty ? 2 : undefined));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("agrees with JSON.parse on documents with a character cut out or doubled", () => {
    const base = JSON.stringify({
      environments: [{ id: "e", name: 'a "b" [c]' }],
      leases: [1, "x,y", [2, { z: "}" }], null],
    });
    for (let at = 0; at < base.length; at++) {
      expectLikeJsonParse(base.slice(0, at) + base.slice(at + 1));
      expectLikeJsonParse(base.slice(0, at + 1) + base.slice(at));
    }
  });
});
