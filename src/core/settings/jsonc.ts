/**
 * The one parser of every settings file Yoke reads (its own, Claude Code's, `.mcp.json`,
 * `.vscode/mcp.json`, the trusted-folder list): JSON with comments and trailing commas, parsed by
 * Microsoft's `jsonc-parser` (the parser VS Code reads its own settings with). A text with any
 * syntax error is not read at all (never a partial value): the caller fails closed and reports the
 * line and column of the first error.
 *
 * (Imported from its ESM build: the UMD build that `main` names requires its modules dynamically, which no bundle can follow.)
 */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, visit, type ParseError } from "jsonc-parser/lib/esm/main.js";

export type JsoncResult = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

const OPTIONS = { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false } as const;

/** What each jsonc-parser error code means, for the user. */
const EXPECTED: Record<string, string> = {
  InvalidSymbol: "not valid here",
  InvalidNumberFormat: "not a valid number",
  PropertyNameExpected: "a property name in double quotes was expected",
  ValueExpected: "a value was expected",
  ColonExpected: "a colon was expected",
  CommaExpected: "a comma was expected",
  CloseBraceExpected: "a closing } was expected",
  CloseBracketExpected: "a closing ] was expected",
  EndOfFileExpected: "the end of the file was expected",
  InvalidCommentToken: "a comment is not closed",
  UnexpectedEndOfComment: "a comment is not closed",
  UnexpectedEndOfString: "a string is not closed",
  UnexpectedEndOfNumber: "a number is cut off",
  InvalidUnicode: "an invalid \\u escape",
  InvalidEscapeCharacter: "an invalid escape character",
  InvalidCharacter: "a control character inside a string",
};

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - before.lastIndexOf("\n") };
}

/** Parses a settings text (a leading byte-order mark is skipped). */
export function parseJsonc(input: string): JsoncResult {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, OPTIONS);
  const first = errors[0];
  if (!first) return { ok: true, value };
  const { line, column } = position(text, first.offset);
  const found = first.offset >= text.length ? "end of file" : JSON.stringify(text.slice(first.offset, first.offset + Math.max(1, Math.min(first.length, 20))));
  const code = printParseErrorCode(first.error);
  return { ok: false, line, column, message: `unexpected ${found} (${EXPECTED[code] ?? code})` };
}

/** The value of a settings text, or an Error naming the line and column of the first syntax error. */
export function parseJsoncOrThrow(text: string): unknown {
  const r = parseJsonc(text);
  if (!r.ok) throw new SyntaxError(`${r.line}:${r.column}: ${r.message}`);
  return r.value;
}

/**
 * Keys that appear twice in one object (only the last value counts): each with the path of the
 * object (`["permissions"]`), the key and the 1-based line and column of the second one.
 */
export function findDuplicateKeys(input: string): Array<{ path: string[]; key: string; line: number; column: number }> {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const out: Array<{ path: string[]; key: string; line: number; column: number }> = [];
  const seen: Array<Set<string>> = [];
  visit(
    text,
    {
      onObjectBegin: () => void seen.push(new Set()),
      onObjectEnd: () => void seen.pop(),
      onObjectProperty: (key, offset, _length, startLine, startCharacter, pathSupplier) => {
        const keys = seen[seen.length - 1];
        if (!keys) return;
        if (keys.has(key)) out.push({ path: pathSupplier().map(String), key, line: startLine + 1, column: startCharacter + 1 });
        keys.add(key);
        void offset;
      },
    },
    OPTIONS,
  );
  return out;
}

/**
 * The 1-based line of each key found at `path` (an object's keys, e.g. `["mcpServers"]`), for
 * messages that name a place in the file (`file:line: …`). Empty when the text is not valid or
 * nothing is at `path`.
 */
export function keyLines(input: string, path: readonly string[]): Map<string, number> {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const out = new Map<string, number>();
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, OPTIONS);
  if (!root || errors.length) return out;
  const node = path.length ? findNodeAtLocation(root, [...path]) : root;
  // One pass over the text for all keys (they come in order): a line count per key from the file's
  // start took O(keys × size) — a repository's 1 MB .mcp.json of 40,000 servers held the CLI and
  // the editor for minutes (red team 18).
  let line = 1;
  let at = 0;
  for (const prop of node?.type === "object" ? (node.children ?? []) : []) {
    const key = prop.children?.[0];
    if (!key || typeof key.value !== "string") continue;
    if (prop.offset < at) {
      line = 1;
      at = 0;
    }
    for (let nl = text.indexOf("\n", at); nl !== -1 && nl < prop.offset; nl = text.indexOf("\n", nl + 1)) line++;
    at = prop.offset;
    out.set(key.value, line);
  }
  return out;
}
