/**
 * Parses SEARCH/REPLACE text blocks (contract section 2), accepting the marker variants models
 * trained on other harnesses emit: marker runs of 3 or more characters, Cline's `------- SEARCH` /
 * `=======` / `+++++++ REPLACE`, Roo Code's `:start_line:N` + `-------`, and code fences
 * around the blocks. A filename line just before a block is optional. A last block without its
 * `>>>>>>> REPLACE` line is read to the end of the reply (or to the fence it was opened in) when
 * the reply ended normally, and refused when the reply was cut off.
 */
import type { SearchReplaceBlock } from "./types";

// A marker run, a space, the word (`-------SEARCH` is not a marker, as in aider, Cline and Roo).
const HEAD = /^\s*(?:<{3,}|-{3,})[ \t]+SEARCH\s*>*\s*$/;
const DIVIDER = /^\s*={3,}\s*$/;
const TAIL = /^\s*(?:>{3,}|\+{3,})[ \t]+REPLACE\s*<*\s*$/;
const FENCE = /^\s*(```|~~~)/;
/** A fence line that closes a fence (no info string). */
const BARE_FENCE = /^\s*(```+|~~~+)\s*$/;
const START_LINE = /^\s*:start_line:\s*\[?\s*(\d+)\s*\]?\s*$/;
const END_LINE = /^\s*:end_line:\s*\[?\s*(\d+)\s*\]?\s*$/;
const LINE_MARKER = /^\s*:(?:start|end)_line:/;
const ROO_SEPARATOR = /^\s*-{3,}\s*$/;

export type ParseBlocksResult = { ok: true; blocks: SearchReplaceBlock[] } | { ok: false; message: string };

export interface ParseBlocksOptions {
  /** The reply the blocks come from was cut off (a token limit), so an unclosed last block is incomplete. */
  truncated?: boolean;
}

/** Does the text look like SEARCH/REPLACE blocks at all? */
export function looksLikeBlocks(text: string): boolean {
  return text.split(/\r?\n/).some((l) => HEAD.test(l));
}

function cleanPath(line: string): string | undefined {
  let t = line.trim();
  if (!t || t.length > 300) return undefined;
  t = t
    .replace(/^(?:#+\s*|[*_`]+)/, "")
    .replace(/[*_`:]+$/, "")
    .trim();
  if (!t || /\s{2,}/.test(t) || HEAD.test(t) || DIVIDER.test(t) || TAIL.test(t)) return undefined;
  if (!/[./\\]/.test(t) && !/^[\w-]+$/.test(t)) return undefined;
  return t;
}

const HOW = `Each block is: optional filename line, "<<<<<<< SEARCH", the exact current lines, "=======", the new lines, ">>>>>>> REPLACE".`;

export function parseEditBlocks(input: string, options: ParseBlocksOptions = {}): ParseBlocksResult {
  const lines = input.replace(/\r\n/g, "\n").split("\n");
  const blocks: SearchReplaceBlock[] = [];
  let lastText: string | undefined;
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!HEAD.test(line)) {
      // A divider or REPLACE marker outside any block (not a Markdown heading's underline): the blocks are malformed.
      const above = i > 0 ? lines[i - 1]! : "";
      if (TAIL.test(line) || (DIVIDER.test(line) && (above.trim() === "" || DIVIDER.test(above) || TAIL.test(above) || FENCE.test(above)))) {
        return {
          ok: false,
          message: `Line ${i + 1} ("${line.trim()}") is a ${TAIL.test(line) ? "REPLACE marker" : '"=======" divider'} outside any block, so the blocks are malformed; nothing was applied. ${HOW}`,
        };
      }
      if (FENCE.test(line)) inFence = !inFence;
      else if (line.trim() !== "") lastText = line;
      continue;
    }
    const headAt = i + 1;
    const path = lastText === undefined ? undefined : cleanPath(lastText);
    lastText = undefined;
    let j = i + 1;
    let startLine: number | undefined;
    const sl = START_LINE.exec(lines[j] ?? "");
    if (sl) {
      startLine = Number(sl[1]);
      j++;
      if (END_LINE.test(lines[j] ?? "")) j++;
      if (ROO_SEPARATOR.test(lines[j] ?? "") && !DIVIDER.test(lines[j] ?? "")) j++;
    }
    const body: string[] = [];
    const dividers: number[] = [];
    let closed = false;
    let nextHead = false;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (TAIL.test(l)) {
        closed = true;
        break;
      }
      if (HEAD.test(l)) {
        nextHead = true;
        break;
      }
      if (DIVIDER.test(l)) dividers.push(body.length);
      body.push(l);
    }
    const incomplete = (why: string): ParseBlocksResult => ({
      ok: false,
      message: `Block ${blocks.length + 1} (SEARCH marker on line ${headAt}) is not complete: ${why}. ${HOW}`,
    });
    if (dividers.length === 0) return incomplete(`expected a "=======" line and then ">>>>>>> REPLACE"`);
    if (!closed && nextHead) return incomplete(`a new SEARCH marker (line ${j + 1}) comes before its ">>>>>>> REPLACE" line`);
    if (dividers.length % 2 === 0) {
      return {
        ok: false,
        message:
          `Block ${blocks.length + 1} (SEARCH marker on line ${headAt}) has ${dividers.length} "=======" lines, so where SEARCH ends ` +
          `is ambiguous. If the file itself contains such a line, use a JSON edit (old_string/new_string) instead.`,
      };
    }
    const cut = dividers[(dividers.length - 1) / 2]!;
    const marker = body.slice(cut + 1).findIndex((l) => LINE_MARKER.test(l));
    if (marker >= 0) {
      return {
        ok: false,
        message:
          `Block ${blocks.length + 1} (SEARCH marker on line ${headAt}) has a line hint (${body[cut + 1 + marker]!.trim()}) in its REPLACE part; ` +
          `":start_line:" and ":end_line:" go right after the SEARCH marker. If the file itself has such a line, write it as "\\${body[cut + 1 + marker]!.trim()}".`,
      };
    }
    const search = body.slice(0, cut).map(unescapeMarker);
    let replace = body.slice(cut + 1).map(unescapeMarker);
    let unclosed = false;
    if (!closed) {
      // The last block of the reply, without its closing marker.
      if (options.truncated) {
        return {
          ok: false,
          message:
            `Block ${blocks.length + 1} (SEARCH marker on line ${headAt}) was cut off: the reply ended (it hit the output token limit) before the block's ` +
            `">>>>>>> REPLACE" line, so its REPLACE text may be incomplete. Nothing was applied. Send the edit again, in smaller blocks if it is long.`,
        };
      }
      const end = unclosedEnd(replace, search, inFence);
      if (typeof end === "string") return incomplete(end);
      replace = replace.slice(0, end);
      unclosed = true;
    }
    blocks.push({ kind: "block", search, replace, path, startLine, ...(unclosed ? { unclosed } : {}) });
    i = j;
  }
  if (blocks.length === 0) {
    return { ok: false, message: `No SEARCH/REPLACE blocks found. ${HOW}` };
  }
  return { ok: true, blocks };
}

/**
 * Where the REPLACE text of an unclosed last block ends: at the fence it was opened in, else at
 * the end of the reply (blank lines at the very end left out, beyond those SEARCH ends with).
 * A blank line followed by more text, outside a fence, could be prose after the block: refused.
 */
function unclosedEnd(replace: readonly string[], search: readonly string[], inFence: boolean): number | string {
  if (inFence) {
    for (let k = replace.length - 1; k >= 0; k--) if (BARE_FENCE.test(replace[k]!)) return trimBlanks(replace, k, search);
  }
  const end = trimBlanks(replace, replace.length, search);
  const body = replace.slice(0, end);
  const gap = body.findIndex((l, k) => l.trim() === "" && body.slice(k + 1).some((x) => x.trim() !== ""));
  if (gap >= 0) {
    return `the reply ends without the block's ">>>>>>> REPLACE" line, and its REPLACE text has a blank line followed by more text, so where its REPLACE text ends (and prose begins) is unclear`;
  }
  return end;
}

/** Roo Code escapes marker lines (and `:start_line:` lines) that are content with a backslash (`\\=======`): the line without it. */
function unescapeMarker(line: string): string {
  const m = /^(\s*)\\(.*)$/.exec(line);
  if (!m) return line;
  const rest = m[1]! + m[2]!;
  return HEAD.test(rest) || DIVIDER.test(rest) || TAIL.test(rest) || LINE_MARKER.test(rest) || /^\s*(?:<{3,}|>{3,}|={3,}|-{3,}|\+{3,})/.test(rest) ? rest : line;
}

function trimBlanks(replace: readonly string[], end: number, search: readonly string[]): number {
  let keep = 0;
  while (keep < search.length && search[search.length - 1 - keep]!.trim() === "") keep++;
  let e = end;
  let dropped = 0;
  while (e > 0 && replace[e - 1]!.trim() === "") {
    e--;
    dropped++;
  }
  return e + Math.min(dropped, keep);
}

/** A marker line of Copilot's code-mapper patch text: `---FILEPATH`, `---FIND`, `---REPLACE`, `---COMPLETE`. */
const MAPPER_MARKER = /^---(FILEPATH|FIND|REPLACE|COMPLETE)(?![A-Za-z])[ \t]*(.*)$/;

/** Does the text hold code-mapper ---FIND/---REPLACE sections? */
export function looksLikeCodeMapper(text: string): boolean {
  const lines = text.split(/\r?\n/);
  return lines.some((l) => /^---FIND\s*$/.test(l)) && lines.some((l) => /^---(REPLACE|COMPLETE)\s*$/.test(l));
}

/** A section's lines without one code fence around them (and without blank lines outside it). */
function unfence(lines: readonly string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && lines[a]!.trim() === "") a++;
  while (b > a && lines[b - 1]!.trim() === "") b--;
  const body = lines.slice(a, b);
  const open = /^(`{3,}|~{3,})[\w+#.-]*\s*$/.exec(body[0] ?? "");
  if (open && body.length >= 2 && body[body.length - 1]!.trim() === open[1]) return body.slice(1, -1);
  return body;
}

/**
 * Copilot's code-mapper patch text: an optional `---FILEPATH path`, then `---FIND` and `---REPLACE`
 * sections (each usually a fenced code block), ended by `---COMPLETE`. Each FIND/REPLACE pair is
 * one SEARCH/REPLACE block of whole lines.
 */
export function parseCodeMapper(input: string): ParseBlocksResult {
  const lines = input.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  const sections: Array<{ marker: string; rest: string; body: string[] }> = [];
  for (const l of lines) {
    const m = MAPPER_MARKER.exec(l);
    if (m) sections.push({ marker: m[1]!, rest: m[2]!.trim(), body: [] });
    else sections[sections.length - 1]?.body.push(l);
  }
  const blocks: SearchReplaceBlock[] = [];
  let path: string | undefined;
  let find: string[] | undefined;
  for (const s of sections) {
    if (s.marker === "FILEPATH") {
      path = (s.rest || s.body.join("\n")).trim() || undefined;
    } else if (s.marker === "FIND") {
      if (find) return { ok: false, message: `a ---FIND section is followed by another ---FIND instead of its ---REPLACE` };
      find = unfence(s.body);
    } else if (s.marker === "REPLACE") {
      if (!find) return { ok: false, message: `a ---REPLACE section has no ---FIND section before it` };
      blocks.push({ kind: "block", search: find, replace: unfence(s.body), ...(path ? { path } : {}) });
      find = undefined;
    } else if (find) {
      return { ok: false, message: `---COMPLETE came after a ---FIND section without its ---REPLACE` };
    }
  }
  if (find) return { ok: false, message: `the last ---FIND section has no ---REPLACE section` };
  if (blocks.length === 0) return { ok: false, message: `no ---FIND/---REPLACE pair was found` };
  return { ok: true, blocks };
}
