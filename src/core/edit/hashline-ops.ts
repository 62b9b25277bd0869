/**
 * Hashline ops (contract section 2): validated together against the file as read, turned into
 * splices that are applied in one batch (the equivalent of bottom-up application).
 */
import { formatHashline, legacyLineHash, lineHash } from "./hashline";
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
  /** Replaced lines [from, to] (1-based, inclusive), or an insertion point before line `from` (to = from - 1). */
  from: number;
  to: number;
  splice: Splice;
  noop: boolean;
  /** A remark for the model (an inserted line that repeats its neighbour). */
  echo?: string;
}

export interface HashlinePlan {
  splices: Splice[];
  planned: Array<{ index: number; noop: boolean; label: string; echo?: string }>;
  failures: EditFailure[];
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
  const seen = new Set<string>();
  const n = lines.length;

  for (const { index, op: given } of ops) {
    // A replace with only "end" is a one-line replace of that line.
    const op = given.op === "replace" && isBlankRef(given.pos) && !isBlankRef(given.end) ? { ...given, pos: given.end, end: undefined } : given;
    const label = `Edit ${index} (${describe(op)})`;
    const key = JSON.stringify([op.op, op.pos ?? null, op.end ?? null, opLines(op.lines)]);
    if (seen.has(key)) continue;
    seen.add(key);
    if (op.op !== "replace" && op.op !== "append" && op.op !== "prepend") {
      failures.push({ index, message: `${label}: unknown op ${JSON.stringify(op.op)}; use "replace", "append" or "prepend".` });
      continue;
    }
    if (op.op === "replace" && isBlankRef(op.pos)) {
      failures.push({ index, message: `${label}: "pos" is required for replace (the first line to replace, e.g. "12#QN").` });
      continue;
    }
    const refs: Array<["pos" | "end", string]> = [];
    if (typeof op.pos === "string" && op.pos.trim() !== "") refs.push(["pos", op.pos]);
    if (op.op === "replace" && typeof op.end === "string" && op.end.trim() !== "") refs.push(["end", op.end]);
    const anchors: Partial<Record<"pos" | "end", Anchor>> = {};
    const problems: string[] = [];
    const stale: number[] = [];
    const staleText: string[] = [];
    for (const [name, ref] of refs) {
      const a = parseAnchor(ref);
      if (!a) {
        problems.push(`"${name}" is not a line anchor: ${JSON.stringify(ref)}. Use LINE#HASH exactly as read_file shows it, e.g. "12#QN".`);
        continue;
      }
      if (a.line < 1 || a.line > n) {
        problems.push(`line ${a.line} is out of range; the file has ${n} line${n === 1 ? "" : "s"}.`);
        continue;
      }
      const text = lines[a.line - 1]!;
      if (lineHash(a.line, text) !== a.hash && legacyLineHash(a.line, text) !== a.hash) {
        stale.push(a.line);
        staleText.push(`line ${a.line} has changed since it was read (anchor ${a.line}#${a.hash}, now ${a.line}#${lineHash(a.line, text)})`);
        continue;
      }
      anchors[name] = a;
    }
    if (problems.length) {
      failures.push({ index, message: `${label}: ${problems.join(" ")}` });
      continue;
    }
    if (stale.length) {
      failures.push({
        index,
        message:
          `${label}: ${staleText.join("; ")}. Current lines (>>> marks the changed ${stale.length === 1 ? "line" : "lines"}):\n` +
          `${reanchorView(lines, stale)}\nRetry with these anchors; there is no need to re-read the file.`,
      });
      continue;
    }
    const newLines = opLines(op.lines);
    const pos = anchors.pos;
    if (op.op === "replace") {
      const from = pos!.line;
      const to = anchors.end?.line ?? from;
      if (to < from) {
        failures.push({ index, message: `${label}: "end" (line ${to}) is before "pos" (line ${from}); "end" is the last line to replace.` });
        continue;
      }
      const start = starts[from - 1]!;
      const end = to < n ? starts[to]! : doc.text.length;
      const hasNewline = to < n || doc.text.endsWith("\n");
      const text = newLines.length ? newLines.join("\n") + (hasNewline ? "\n" : "") : "";
      const current = lines.slice(from - 1, to);
      const noop = current.length === newLines.length && current.every((l, i) => l === newLines[i]);
      let echo: string | undefined;
      if (!noop && from > 1 && newLines.length > 0 && newLines[0]!.trim() !== "" && newLines[0] === lines[from - 2]) echo = `its first new line repeats line ${from - 1}, which it does not replace`;
      else if (!noop && to < n && newLines.length > 0 && newLines[newLines.length - 1]!.trim() !== "" && newLines[newLines.length - 1] === lines[to]) {
        echo = `its last new line repeats line ${to + 1}, which it does not replace`;
      }
      planned.push({ index, op, from, to, splice: { start, end, text }, noop, echo });
      continue;
    }
    if (newLines.length === 0) {
      planned.push({ index, op, from: 0, to: -1, splice: { start: 0, end: 0, text: "" }, noop: true });
      continue;
    }
    const body = newLines.join("\n");
    if (op.op === "prepend") {
      const before = pos ? pos.line : 1;
      const at = n === 0 ? 0 : starts[before - 1]!;
      // Text prepended to a line follows text appended to the line before it.
      const last = newLines[newLines.length - 1]!;
      const echo = n > 0 && last.trim() !== "" && last === lines[before - 1] ? `its last line repeats line ${before}, before which it inserts` : undefined;
      planned.push({ index, op, from: before, to: before - 1, splice: { start: at, end: at, text: body + "\n", bias: 1 }, noop: false, echo });
      continue;
    }
    const after = pos ? pos.line : n;
    const echo = after > 0 && newLines[0]!.trim() !== "" && newLines[0] === lines[after - 1] ? `its first line repeats line ${after}, after which it inserts` : undefined;
    if (after < n) {
      const at = starts[after]!;
      planned.push({ index, op, from: after + 1, to: after, splice: { start: at, end: at, text: body + "\n" }, noop: false, echo });
    } else if (n === 0 || doc.text.endsWith("\n")) {
      planned.push({ index, op, from: after + 1, to: after, splice: { start: doc.text.length, end: doc.text.length, text: body + "\n" }, noop: false, echo });
    } else {
      planned.push({ index, op, from: after + 1, to: after, splice: { start: doc.text.length, end: doc.text.length, text: "\n" + body }, noop: false, echo });
    }
  }

  for (let i = 0; i < planned.length; i++) {
    for (let j = i + 1; j < planned.length; j++) {
      const a = planned[i]!;
      const b = planned[j]!;
      if (a.noop && a.op.op !== "replace") continue;
      if (b.noop && b.op.op !== "replace") continue;
      if (overlaps(a, b)) {
        failures.push({
          index: b.index,
          message:
            `Edits ${a.index} and ${b.index} overlap (${span(a)} and ${span(b)}). All ops refer to the file as it was read, ` +
            `so one line cannot be changed by two ops: merge them into one replace covering ${span(a, b)}.`,
        });
      }
    }
  }
  const ok = failures.length === 0;
  return {
    splices: ok ? planned.filter((p) => !p.noop).map((p) => p.splice) : [],
    planned: planned.map((p) => ({ index: p.index, noop: p.noop, label: `Edit ${p.index} (${describe(p.op)})`, echo: p.echo })),
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
