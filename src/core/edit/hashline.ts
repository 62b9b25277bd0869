/**
 * Hashline view: every line printed as `LINE#HH|content` (contract section 2), byte-compatible
 * with oh-my-openagent's hashline: xxHash32 over the UTF-8 bytes of the line with `\r` removed
 * and trailing whitespace trimmed; seed 0 when the line has a letter or digit, else the line
 * number; `hash % 256` written as two characters of ZPMQVRWSNKTXJBYH, high nibble first.
 */
import xxhash, { type XXHashAPI } from "xxhash-wasm";

export const HASHLINE_ALPHABET = "ZPMQVRWSNKTXJBYH";
const DICT = Array.from({ length: 256 }, (_, i) => HASHLINE_ALPHABET[i >>> 4]! + HASHLINE_ALPHABET[i & 15]!);
const SIGNIFICANT = /[\p{L}\p{N}]/u;

let api: XXHashAPI | undefined;
let loading: Promise<void> | undefined;

/** Loads the xxHash WebAssembly module. Must have resolved before any other function here is called. */
export function hashlineReady(): Promise<void> {
  loading ??= xxhash().then((a) => {
    api = a;
  });
  return loading;
}

function h32(text: string, seed: number): number {
  if (!api) throw new Error("hashline: call `await hashlineReady()` before hashing");
  return api.h32(text, seed) >>> 0;
}

/** xxHash32 (seed 0) of a whole text, as 8 hex digits: identifies a file's content in the log. */
export function textHash(text: string): string {
  return h32(text, 0).toString(16).padStart(8, "0");
}

/** Normalises a line as the hash sees it. */
function normalize(line: string): string {
  return line.replace(/\r/g, "").trimEnd();
}

/** The 2-character hash of one line (1-based line number). */
export function lineHash(lineNumber: number, line: string): string {
  const text = normalize(line);
  const seed = SIGNIFICANT.test(text) ? 0 : lineNumber;
  return DICT[h32(text, seed) % 256]!;
}

/**
 * Older anchors (every whitespace character removed before hashing) are still accepted when
 * validating, as oh-my-openagent does, so anchors a model copied from such a view verify.
 */
export function legacyLineHash(lineNumber: number, line: string): string {
  const text = line.replace(/\r/g, "").replace(/\s+/g, "");
  const seed = SIGNIFICANT.test(text) ? 0 : lineNumber;
  return DICT[h32(text, seed) % 256]!;
}

export function lineTag(lineNumber: number, line: string): string {
  return `${lineNumber}#${lineHash(lineNumber, line)}`;
}

/** One line of the view. A trailing `\r` (CRLF files) is not shown. */
export function formatHashline(lineNumber: number, line: string): string {
  const shown = line.endsWith("\r") ? line.slice(0, -1) : line;
  return `${lineNumber}#${lineHash(lineNumber, line)}|${shown}`;
}

/**
 * Splits file text into lines the way the view numbers them: on `\n`, keeping a `\r` with its
 * line; a final newline does not start an extra (empty) line.
 */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The view of `lines[from-1 .. to-1]` (1-based, inclusive), one line each, joined with `\n`. */
export function formatHashlineView(lines: readonly string[], from = 1, to = lines.length): string {
  const out: string[] = [];
  for (let n = Math.max(1, from); n <= Math.min(to, lines.length); n++) out.push(formatHashline(n, lines[n - 1]!));
  return out.join("\n");
}

export const HASHLINE_REF = /^\s*(\d+)\s*#\s*([ZPMQVRWSNKTXJBYH]{2})/;
