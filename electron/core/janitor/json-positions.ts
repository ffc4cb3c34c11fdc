import { type JSONPath, printParseErrorCode, visit } from "jsonc-parser";

/**
 * Where everything in a JSON text is, as jsonc-parser's visitor reports it: the line and column of every
 * value and of every property name, by JSON path, the syntax errors, and any key an object names twice
 * (JSON.parse keeps the last silently, so a second `select` would quietly replace the first). Comments
 * and trailing commas are refused: the policy file is JSON, which other tools must read too.
 */

export interface Position {
  /** 1-based, as editors count. */
  line: number;
  column: number;
}

export interface JsonProblemAt extends Position {
  path: JSONPath;
  message: string;
}

export interface JsonPositions {
  /** The position of the value at a path, or of the nearest enclosing value present. */
  valueAt(path: JSONPath): { position: Position; present: boolean };
  /** The position of the property name at the end of a path, or of its value's object. */
  keyAt(path: JSONPath): Position;
  syntaxErrors: JsonProblemAt[];
  duplicateKeys: JsonProblemAt[];
}

const SYNTAX_SENTENCES: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "not a number JSON can read",
  PropertyNameExpected: "expected a field name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected a colon after the field name",
  CommaExpected: "expected a comma",
  CloseBraceExpected: "expected } to close the object",
  CloseBracketExpected: "expected ] to close the list",
  EndOfFileExpected: "unexpected text after the end of the policy",
  InvalidCommentToken: "comments are not JSON",
  UnexpectedEndOfComment: "comments are not JSON",
  UnexpectedEndOfString: "the string is not closed",
  UnexpectedEndOfNumber: "the number is cut short",
  InvalidUnicode: "an invalid \\u escape",
  InvalidEscapeCharacter: "an invalid escape in a string",
  InvalidCharacter: "a control character inside a string",
};

const at = (line: number, character: number): Position => ({ line: line + 1, column: character + 1 });
const keyOf = (path: JSONPath) => JSON.stringify(path);

export function jsonPositions(text: string): JsonPositions {
  const values = new Map<string, Position>();
  const keys = new Map<string, Position>();
  const seen = new Map<string, Set<string>>();
  const syntaxErrors: JsonProblemAt[] = [];
  const duplicateKeys: JsonProblemAt[] = [];
  const value = (_offset: number, _length: number, line: number, character: number, path: () => JSONPath) => {
    values.set(keyOf(path()), at(line, character));
  };

  visit(
    text,
    {
      onObjectBegin: (offset, length, line, character, path) => {
        value(offset, length, line, character, path);
        seen.set(keyOf(path()), new Set());
      },
      onArrayBegin: value,
      onLiteralValue: (_value, offset, length, line, character, path) =>
        value(offset, length, line, character, path),
      onObjectProperty: (property, _offset, _length, line, character, path) => {
        const parent = path();
        const names = seen.get(keyOf(parent));
        const full = [...parent, property];
        if (names?.has(property)) {
          duplicateKeys.push({ path: full, ...at(line, character), message: "named twice in one object" });
          return;
        }
        names?.add(property);
        keys.set(keyOf(full), at(line, character));
      },
      onError: (error, _offset, _length, line, character) => {
        const name = printParseErrorCode(error);
        syntaxErrors.push({ path: [], ...at(line, character), message: SYNTAX_SENTENCES[name] ?? name });
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );

  const start: Position = { line: 1, column: 1 };
  return {
    valueAt(path) {
      for (let length = path.length; length >= 0; length -= 1) {
        const found = values.get(keyOf(path.slice(0, length)));
        if (found !== undefined) return { position: found, present: length === path.length };
      }
      return { position: start, present: false };
    },
    keyAt(path) {
      return keys.get(keyOf(path)) ?? this.valueAt(path.slice(0, -1)).position;
    },
    syntaxErrors,
    duplicateKeys,
  };
}

/** `rules[2].select.age`: a path as the operator would write it to find the field. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(the policy)";
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_$][\w$]*$/.test(segment))
      out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
