/**
 * Parses SEARCH/REPLACE text blocks (contract section 2), accepting the marker variants models
 * trained on other harnesses emit: 5 to 9 marker characters, Cline's `------- SEARCH` /
 * `=======` / `+++++++ REPLACE`, Roo Code's `:start_line:N` + `-------`, and code fences
 * around the blocks. A filename line just before a block is optional.
 */
import type { SearchReplaceBlock } from "./types";

const HEAD = /^\s*(?:<{5,9}|-{5,9})\s*SEARCH\s*>*\s*$/;
const DIVIDER = /^\s*={5,9}\s*$/;
const TAIL = /^\s*(?:>{5,9}|\+{5,9})\s*REPLACE\s*<*\s*$/;
const FENCE = /^\s*(```|~~~)/;
const START_LINE = /^\s*:start_line:\s*(\d+)\s*$/;
const END_LINE = /^\s*:end_line:\s*(\d+)\s*$/;
const ROO_SEPARATOR = /^\s*-{3,}\s*$/;

export type ParseBlocksResult = { ok: true; blocks: SearchReplaceBlock[] } | { ok: false; message: string };

/** Does the text look like SEARCH/REPLACE blocks at all? */
export function looksLikeBlocks(text: string): boolean {
  return text.split(/\r?\n/).some((l) => HEAD.test(l));
}

function cleanPath(line: string): string | undefined {
  let t = line.trim();
  if (!t || t.length > 300) return undefined;
  t = t.replace(/^(?:#+\s*|[*_`]+)/, "").replace(/[*_`:]+$/, "").trim();
  if (!t || /\s{2,}/.test(t) || HEAD.test(t) || DIVIDER.test(t) || TAIL.test(t)) return undefined;
  if (!/[./\\]/.test(t) && !/^[\w-]+$/.test(t)) return undefined;
  return t;
}

export function parseEditBlocks(input: string): ParseBlocksResult {
  const lines = input.replace(/\r\n/g, "\n").split("\n");
  const blocks: SearchReplaceBlock[] = [];
  let lastText: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!HEAD.test(line)) {
      if (line.trim() !== "" && !FENCE.test(line)) lastText = line;
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
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      if (TAIL.test(l)) {
        closed = true;
        break;
      }
      if (HEAD.test(l) && dividers.length === 0) break;
      if (DIVIDER.test(l)) dividers.push(body.length);
      body.push(l);
    }
    if (!closed || dividers.length === 0) {
      return {
        ok: false,
        message:
          `Block ${blocks.length + 1} (SEARCH marker on line ${headAt}) is not complete: expected a "=======" line and then ` +
          `">>>>>>> REPLACE". Each block is: optional filename line, "<<<<<<< SEARCH", the exact current lines, "=======", ` +
          `the new lines, ">>>>>>> REPLACE".`,
      };
    }
    if (dividers.length % 2 === 0) {
      return {
        ok: false,
        message:
          `Block ${blocks.length + 1} (SEARCH marker on line ${headAt}) has ${dividers.length} "=======" lines, so where SEARCH ends ` +
          `is ambiguous. If the file itself contains such a line, use a JSON edit (old_string/new_string) instead.`,
      };
    }
    const cut = dividers[(dividers.length - 1) / 2]!;
    blocks.push({ kind: "block", search: body.slice(0, cut), replace: body.slice(cut + 1), path, startLine });
    i = j;
  }
  if (blocks.length === 0) {
    return {
      ok: false,
      message:
        `No SEARCH/REPLACE blocks found. Each block is: optional filename line, "<<<<<<< SEARCH", the exact current lines, ` +
        `"=======", the new lines, ">>>>>>> REPLACE".`,
    };
  }
  return { ok: true, blocks };
}
