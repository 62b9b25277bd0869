/**
 * Hashline ops (contract section 2): validated together against the file as read, turned into
 * splices that are applied in one batch (the equivalent of bottom-up application).
 */
import { formatHashline, legacyLineHash, lineHash } from "./hashline";
import { boundaryEcho, insertEcho, reflow, restoreIndent, type Applied } from "./hashline-tolerance";
import { docLines, lineStarts, type Splice, type TextDoc } from "./text-doc";
import type { EditFailure, HashlineOp } from "./types";

const ANCHOR = /^(\d+)#([ZPMQVRWSNKTXJBYH]{2})$/;
const ANCHOR_ANYWHERE = /(\d+)\s*#\s*([ZPMQVRWSNKTXJBYH]{2})(?![A-Z])/i;
const COPIED_PREFIX = /^\s*(?:>>>\s*)?\d+\s*#\s*[ZPMQVRWSNKTXJBYH]{2}\|/;
const STALE_CONTEXT = 2;

export interface Anchor {
  line: number;
  hash: string;
}

/**
 * Reads an anchor the way models write it: `12#QN`, `>>> 12 # QN`, `12#QN|content` copied
 * whole, `+12#QN`, a lowercase hash. Returns undefined when there is no anchor in it.
 */
export function parseAnchor(ref: string): Anchor | undefined {
  let s = ref.trim().replace(/^(?:>>>|[+-])\s*/, "");
  const bar = s.indexOf("|");
  if (bar >= 0) s = s.slice(0, bar);
  s = s.replace(/\s*#\s*/, "#").trim();
  s = s.replace(/#([a-z]{2})$/i, (_m, h: string) => `#${h.toUpperCase()}`);
  let m = ANCHOR.exec(s);
  if (!m) {
    const found = ANCHOR_ANYWHERE.exec(ref.split("|")[0] ?? "");
    if (!found) return undefined;
    m = ANCHOR.exec(`${found[1]}#${found[2]!.toUpperCase()}`);
    if (!m) return undefined;
  }
  return { line: Number(m[1]), hash: m[2]! };
}

/** The lines an op inserts: a string is split on newlines; copied `N#HH|` prefixes are removed. */
export function opLines(lines: HashlineOp["lines"]): string[] {
  if (lines === null || lines === undefined) return [];
  let out: string[] = typeof lines === "string" ? lines.split("\n") : lines.flatMap((l) => String(l).split("\n"));
  if (typeof lines === "string" && out.length > 1 && out[out.length - 1] === "") out.pop();
  out = out.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  return stripViewPrefixes(out) ?? out;
}

/**
 * Lines copied from the hashline view with their `N#HH|` prefixes: the lines without them when
 * at least half of the non-empty lines have one, as oh-my-openagent does (a model often copies
 * a few lines and types a new one); undefined otherwise, so ordinary text is never altered.
 */
export function stripViewPrefixes(lines: readonly string[]): string[] | undefined {
  const nonEmpty = lines.filter((l) => l.trim() !== "");
  const prefixed = nonEmpty.filter((l) => COPIED_PREFIX.test(l)).length;
  if (prefixed === 0 || prefixed * 2 < nonEmpty.length) return undefined;
  return lines.map((l) => l.replace(COPIED_PREFIX, ""));
}

/** Removes a copied `N#HH|` prefix from one line, if it has one. */
export function stripViewPrefix(line: string): string {
  return line.replace(COPIED_PREFIX, "");
}

function isBlankRef(ref: unknown): boolean {
  return typeof ref !== "string" || ref.trim() === "";
}

function describe(op: HashlineOp): string {
  const where = [op.pos, op.end].filter((x) => typeof x === "string" && x.trim() !== "").map((x) => x!.trim());
  const name = typeof op.op === "string" ? op.op : "?";
  return where.length ? `${name} ${where.join("..")}` : name;
}

/** The current view of the lines around `stale` (1-based), `>>>` marking the stale ones. */
export function reanchorView(lines: readonly string[], stale: readonly number[]): string {
  const shown = new Set<number>();
  for (const n of stale) {
    for (let k = Math.max(1, n - STALE_CONTEXT); k <= Math.min(lines.length, n + STALE_CONTEXT); k++) shown.add(k);
  }
  const out: string[] = [];
  let prev = -1;
  for (const n of [...shown].sort((a, b) => a - b)) {
    if (prev !== -1 && n > prev + 1) out.push("    ...");
    out.push(`${stale.includes(n) ? ">>> " : "    "}${formatHashline(n, lines[n - 1]!)}`);
    prev = n;
  }
  return out.join("\n");
}

interface Planned {
  index: number;
  op: HashlineOp;
  label: string;
  /** Replaced lines [from, to] (1-based, inclusive), or an insertion point before line `from` (to = from - 1). */
  from: number;
  to: number;
  splice: Splice;
  noop: boolean;
  /** A remark for the model (a replacement line that repeats its neighbour, kept as written). */
  echo?: string;
  /** Tolerance rules that applied. */
  rules: Applied[];
  /** Deletes the empty line after the final newline (the final newline itself). */
  dropsFinalNewline?: boolean;
}

export interface PlannedOp {
  index: number;
  noop: boolean;
  label: string;
  echo?: string;
  rules: Applied[];
}

export interface HashlinePlan {
  splices: Splice[];
  planned: PlannedOp[];
  /** Ops left out because they repeat an earlier op exactly (anchors compared as parsed). */
  duplicates: Array<{ index: number; of: number }>;
  failures: EditFailure[];
}

/** An anchor resolved against the file: a real line, or the empty line a view may show after the final newline (or of an empty file). */
interface Resolved {
  line: number;
  hash: string;
  virtual?: "final-newline" | "empty-file";
}

function canonicalRef(ref: unknown): string | null {
  if (typeof ref !== "string" || ref.trim() === "") return null;
  const a = parseAnchor(ref);
  return a ? `${a.line}#${a.hash}` : ref.trim();
}

function matches(line: number, text: string, hash: string): boolean {
  return lineHash(line, text) === hash || legacyLineHash(line, text) === hash;
}

/**
 * Validates every op against `doc` (the file as read) and plans their splices. `index` is each
 * op's 1-based position in the whole edits list. A file without a final newline may come out
 * with one (after deleting its last line): the caller restores that (see keepFinalNewline).
 */
export function planHashlineOps(doc: TextDoc, ops: ReadonlyArray<{ index: number; op: HashlineOp }>): HashlinePlan {
  const lines = docLines(doc.text);
  const starts = lineStarts(doc.text);
  const failures: EditFailure[] = [];
  const planned: Planned[] = [];
  const seen = new Map<string, number>();
  const duplicates: Array<{ index: number; of: number }> = [];
  const n = lines.length;
  const endsWithNewline = doc.text.endsWith("\n");
  const len = doc.text.length;

  for (const { index, op: given } of ops) {
    const rules: Applied[] = [];
    const label = `Edit ${index} (${describe(given)})`;
    const fail = (message: string) => failures.push({ index, message: `${label}: ${message}` });
    if (given.op !== "replace" && given.op !== "append" && given.op !== "prepend") {
      fail(`unknown op ${JSON.stringify(given.op)}; use "replace", "append" or "prepend".`);
      continue;
    }
    let op = given;
    // One anchor given as "end": it is the anchor (never ignored).
    if (isBlankRef(op.pos) && !isBlankRef(op.end)) {
      op = { ...op, pos: op.end, end: undefined };
      rules.push({
        rule: "end-as-anchor",
        what: op.op === "replace" ? `"end" was given without "pos", so it was taken as the one line to replace` : `"end" was given without "pos", so it was taken as the anchor`,
      });
    } else if (op.op !== "replace" && !isBlankRef(op.end)) {
      if (canonicalRef(op.end) !== canonicalRef(op.pos)) {
        fail(
          `${op.op} takes one anchor ("pos"), but both "pos" (${JSON.stringify(op.pos)}) and "end" (${JSON.stringify(op.end)}) were given, so where to insert is unclear. ` +
            `Give only "pos": ${op.op === "append" ? "the line after which to insert" : "the line before which to insert"}.`,
        );
        continue;
      }
      op = { ...op, end: undefined };
    }
    if (op.lines === undefined) {
      fail(`"lines" is missing: give the new lines as "lines" (a string or an array of strings${op.op === "replace" ? "; null or [] deletes the range" : ""}).`);
      continue;
    }
    if (op.op === "replace" && isBlankRef(op.pos)) {
      fail(`"pos" is required for replace (the first line to replace, e.g. "12#QN").`);
      continue;
    }
    const key = JSON.stringify([op.op, canonicalRef(op.pos), canonicalRef(op.end), opLines(op.lines)]);
    const first = seen.get(key);
    if (first !== undefined) {
      duplicates.push({ index, of: first });
      continue;
    }
    seen.set(key, index);

    const refs: Array<["pos" | "end", string]> = [];
    if (typeof op.pos === "string" && op.pos.trim() !== "") refs.push(["pos", op.pos]);
    if (op.op === "replace" && typeof op.end === "string" && op.end.trim() !== "") refs.push(["end", op.end]);
    const anchors: Partial<Record<"pos" | "end", Resolved>> = {};
    const problems: string[] = [];
    const stale: number[] = [];
    const staleText: string[] = [];
    for (const [name, ref] of refs) {
      const a = parseAnchor(ref);
      if (!a) {
        problems.push(`"${name}" is not a line anchor: ${JSON.stringify(ref)}. Use LINE#HASH exactly as read_file shows it, e.g. "12#QN".`);
        continue;
      }
      // The empty line after the final newline (views that split on newlines show it), or the one line of an empty file.
      if (a.line === n + 1 && (n === 0 || endsWithNewline) && matches(a.line, "", a.hash)) {
        anchors[name] = { ...a, virtual: n === 0 ? "empty-file" : "final-newline" };
        continue;
      }
      if (a.line < 1 || a.line > n) {
        problems.push(`line ${a.line} is out of range; the file has ${n} line${n === 1 ? "" : "s"}.`);
        continue;
      }
      const text = lines[a.line - 1]!;
      if (!matches(a.line, text, a.hash)) {
        stale.push(a.line);
        staleText.push(`line ${a.line} has changed since it was read (anchor ${a.line}#${a.hash}, now ${a.line}#${lineHash(a.line, text)})`);
        continue;
      }
      anchors[name] = a;
    }
    if (problems.length) {
      fail(problems.join(" "));
      continue;
    }
    if (stale.length) {
      fail(
        `${staleText.join("; ")}. Current lines (>>> marks the changed ${stale.length === 1 ? "line" : "lines"}):\n` +
          `${reanchorView(lines, stale)}\nRetry with these anchors; there is no need to re-read the file.`,
      );
      continue;
    }
    const virtual = anchors.pos?.virtual ?? anchors.end?.virtual;
    if (virtual === "final-newline") {
      rules.push({
        rule: "final-newline-line",
        what: `line ${n + 1} is the empty line after the file's final newline (as views that split the file on newlines show it); the op was applied there, and the file keeps its final newline unless that line was deleted`,
      });
    } else if (virtual === "empty-file") {
      rules.push({ rule: "final-newline-line", what: `the file is empty; line 1 is the empty line views show for it` });
    }
    // The file as a view that shows the empty line after the final newline sees it.
    const view = virtual === "final-newline" ? [...lines, ""] : lines;
    const refuse = (reason: string, shown: number[]) => {
      const visible = shown.filter((k) => k >= 1 && k <= n);
      fail(`${reason}. Nothing was changed.${visible.length ? ` Current lines:\n${reanchorView(lines, visible)}` : ""}`);
    };
    let newLines = opLines(op.lines);
    const pos = anchors.pos;

    if (op.op === "replace") {
      if (pos!.virtual === "empty-file") {
        const text = newLines.length ? newLines.join("\n") + "\n" : "";
        planned.push({ index, op, label, from: 1, to: 1, splice: { start: 0, end: 0, text }, noop: text === "", rules });
        continue;
      }
      const from = pos!.line;
      const to = anchors.end?.line ?? from;
      if (to < from) {
        fail(`"end" (line ${to}) is before "pos" (line ${from}); "end" is the last line to replace.`);
        continue;
      }
      const current = view.slice(from - 1, to);
      const steps = [
        () => boundaryEcho(view, from, to, newLines),
        () => reflow(current, newLines, from),
        () => restoreIndent(current, newLines, from, { before: view.slice(0, from - 1), after: view.slice(to) }),
      ];
      let refused = false;
      for (const step of steps) {
        const r = step();
        if (!r.ok) {
          refuse(r.reason, r.lines);
          refused = true;
          break;
        }
        newLines = r.lines;
        rules.push(...r.applied);
      }
      if (refused) continue;
      const noop = current.length === newLines.length && current.every((l, i) => l === newLines[i]);
      let echo: string | undefined;
      if (!noop && from > 1 && newLines.length > 0 && newLines[0]!.trim() !== "" && newLines[0] === view[from - 2]) echo = `its first new line repeats line ${from - 1}, which it does not replace`;
      else if (!noop && to < view.length && newLines.length > 0 && newLines[newLines.length - 1]!.trim() !== "" && newLines[newLines.length - 1] === view[to]) {
        echo = `its last new line repeats line ${to + 1}, which it does not replace`;
      }
      if (to === n + 1) {
        // Up to the empty line after the final newline: the new lines end the file, with its final newline;
        // deleting that empty line (alone or with lines before it) deletes the final newline.
        const start = from <= n ? starts[from - 1]! : len;
        if (newLines.length) {
          planned.push({ index, op, label, from, to, splice: { start, end: len, text: newLines.join("\n") + "\n", bias: 2 }, noop, echo, rules });
        } else {
          planned.push({ index, op, label, from, to, splice: { start: Math.max(0, start - 1), end: len, text: "" }, noop, echo, rules, dropsFinalNewline: true });
        }
        continue;
      }
      const start = starts[from - 1]!;
      const end = to < n ? starts[to]! : len;
      const hasNewline = to < n || endsWithNewline;
      const text = newLines.length ? newLines.join("\n") + (hasNewline ? "\n" : "") : "";
      planned.push({ index, op, label, from, to, splice: { start, end, text }, noop, echo, rules });
      continue;
    }
    if (newLines.length === 0) {
      fail(`${op.op} has no lines to insert ("lines" is ${op.lines === null ? "null" : "empty"}). Give the lines to insert, or leave this op out.`);
      continue;
    }
    const anchorLine = pos && pos.virtual !== "empty-file" ? pos.line : undefined;
    if (anchorLine !== undefined) {
      const at = (k: number) => (k >= 1 && k <= view.length ? { n: k, text: view[k - 1]! } : undefined);
      const r = op.op === "append" ? insertEcho("append", newLines, at(anchorLine), at(anchorLine + 1)) : insertEcho("prepend", newLines, at(anchorLine - 1), at(anchorLine));
      if (!r.ok) {
        refuse(r.reason, r.lines);
        continue;
      }
      newLines = r.lines;
      rules.push(...r.applied);
    }
    const body = newLines.join("\n");
    if (op.op === "prepend") {
      const before = anchorLine ?? 1;
      if (before === n + 1 && n > 0) {
        // Before the empty line after the final newline: at the very end, as the last line.
        planned.push({ index, op, label, from: before, to: before - 1, splice: { start: len, end: len, text: body + "\n", bias: 1 }, noop: false, rules });
        continue;
      }
      const at = n === 0 ? 0 : starts[before - 1]!;
      // Text prepended to a line follows text appended to the line before it; in an empty file, the top comes first.
      planned.push({ index, op, label, from: before, to: before - 1, splice: { start: at, end: at, text: body + "\n", bias: n === 0 ? -1 : 1 }, noop: false, rules });
      continue;
    }
    const after = anchorLine ?? n;
    if (after === n + 1) {
      // After the empty line after the final newline: that empty line stays (a blank line), and the new lines end the file.
      planned.push({ index, op, label, from: after + 1, to: after, splice: { start: len, end: len, text: "\n" + body + "\n", bias: 3 }, noop: false, rules });
    } else if (after < n) {
      const at = starts[after]!;
      planned.push({ index, op, label, from: after + 1, to: after, splice: { start: at, end: at, text: body + "\n" }, noop: false, rules });
    } else if (n === 0 || endsWithNewline) {
      planned.push({ index, op, label, from: after + 1, to: after, splice: { start: len, end: len, text: body + "\n" }, noop: false, rules });
    } else {
      planned.push({ index, op, label, from: after + 1, to: after, splice: { start: len, end: len, text: "\n" + body }, noop: false, rules });
    }
  }

  for (let i = 0; i < planned.length; i++) {
    for (let j = i + 1; j < planned.length; j++) {
      const a = planned[i]!;
      const b = planned[j]!;
      if (overlaps(a, b)) {
        failures.push({
          index: b.index,
          message:
            `Edits ${a.index} and ${b.index} overlap (${span(a)} and ${span(b)}). All ops refer to the file as it was read, ` +
            `so one line cannot be changed by two ops: merge them into one replace covering ${span(a, b)}.`,
        });
      } else if ((a.dropsFinalNewline && isInsert(b) && b.from >= n + 1) || (b.dropsFinalNewline && isInsert(a) && a.from >= n + 1)) {
        failures.push({
          index: b.index,
          message: `Edits ${a.index} and ${b.index} both change the end of the file (one deletes the empty line after the final newline, one inserts there): merge them into one replace.`,
        });
      }
    }
  }
  const ok = failures.length === 0;
  return {
    splices: ok ? planned.filter((p) => !p.noop).map((p) => p.splice) : [],
    planned: planned.map((p) => ({ index: p.index, noop: p.noop, label: p.label, echo: p.echo, rules: p.rules })),
    duplicates,
    failures,
  };
}

function isInsert(p: Planned): boolean {
  return p.to < p.from;
}

function overlaps(a: Planned, b: Planned): boolean {
  if (isInsert(a) && isInsert(b)) return false;
  if (isInsert(a)) return b.from < a.from && a.from <= b.to;
  if (isInsert(b)) return a.from < b.from && b.from <= a.to;
  return a.from <= b.to && b.from <= a.to;
}

function span(a: Planned, b?: Planned): string {
  const from = Math.min(a.from, b?.from ?? a.from);
  const to = Math.max(a.to, b?.to ?? a.to);
  if (!b && isInsert(a)) return `an insertion ${a.op.op === "append" ? "after" : "before"} line ${a.op.op === "append" ? a.to : a.from}`;
  return from === to ? `line ${from}` : `lines ${from}-${to}`;
}

/** When the file had no final newline, the result must not gain one. */
export function keepFinalNewline(before: TextDoc, after: TextDoc): TextDoc {
  if (before.text === "" || before.text.endsWith("\n") || !after.text.endsWith("\n")) return after;
  return { text: after.text.slice(0, -1), crlf: after.crlf.slice(0, -1), bom: after.bom };
}
