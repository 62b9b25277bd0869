/**
 * Randomized round trips for the patch dialects: each round builds a file (with repeated lines, so
 * contexts are often ambiguous), the change a model means (1-3 hunks), and renders it as a V4A
 * apply_patch or a unified diff with the noise models produce: wrong `@@` line numbers, wrong hunk
 * counts, context lines that lost their indentation, trailing whitespace, blank context lines
 * without their space, a CRLF file or a CRLF patch, a fence or heredoc around it, no
 * `*** End Patch`. The result must be exactly the intended file or a refusal; anything else is a
 * wrong apply. Used by test/unit/edit/patch-random.test.ts and the patch bench.
 */
import { planPatch } from "../core/edit/patch/apply";
import { parsePatch } from "../core/edit/patch/parse";
import type { PatchDialect } from "../core/edit/patch/types";
import { rng, type Rng } from "./edit-random";

const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const indentOf = (l: string) => l.length - l.trimStart().length;

/** Code-like lines; a third come from a small set, so the same line (and context) recurs. */
function makeFile(r: Rng, n: number): string[] {
  const common = ["}", "return x;", "x = x + 1;", "", "break;", "end"];
  const out: string[] = [];
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const roll = r();
    if (roll < 0.15 && depth < 3) {
      out.push(`${"  ".repeat(depth)}block_${i} {`);
      depth++;
    } else if (roll < 0.25 && depth > 0) {
      depth--;
      out.push(`${"  ".repeat(depth)}}`);
    } else if (roll < 0.55) {
      const c = pick(r, common);
      out.push(c === "" ? "" : `${"  ".repeat(depth)}${c}`);
    } else out.push(`${"  ".repeat(depth)}call_${i}(${int(r, 0, 99)});`);
  }
  return out;
}

interface Hunk {
  /** 0-based first old line replaced (or insertion point). */
  at: number;
  removed: number;
  added: string[];
}

export interface PatchRound {
  dialect: PatchDialect;
  file: string;
  patch: string;
  intended: string;
  noise: string[];
}

export function makeRound(r: Rng, dialect: PatchDialect, round: number): PatchRound {
  const n = int(r, 6, 40);
  const lines = makeFile(r, n);
  // Three lines of context as the formats ask; models often give fewer (and ambiguous) ones.
  const CONTEXT = r() < 0.6 ? 3 : int(r, 1, 2);
  // Hunks far enough apart that their contexts do not overlap.
  const hunks: Hunk[] = [];
  let next = 0;
  for (let k = int(r, 1, 3); k > 0 && next < n; k--) {
    const at = int(r, next, Math.min(n - 1, next + 10));
    const removed = Math.min(int(r, 0, 3), n - at);
    // New lines at the indentation of the place they go: the first non-blank line they replace, else the nearest above (else below).
    let ref = at;
    while (ref < at + removed && !lines[ref]!.trim()) ref++;
    if (ref >= at + removed) for (ref = at - 1; ref >= 0 && !lines[ref]!.trim(); ref--);
    if (ref < 0) for (ref = at; ref < n && !lines[ref]!.trim(); ref++);
    const ind = (lines[ref] ?? "").match(/^\s*/)![0];
    const added = Array.from({ length: removed === 0 ? int(r, 1, 3) : int(r, 0, 3) }, (_, j) => `${ind}new_${round}_${hunks.length}_${j}();`);
    hunks.push({ at, removed, added });
    next = at + removed + 2 * CONTEXT + 1;
  }
  const intendedLines: string[] = [];
  let pos = 0;
  for (const h of hunks) {
    intendedLines.push(...lines.slice(pos, h.at), ...h.added);
    pos = h.at + h.removed;
  }
  intendedLines.push(...lines.slice(pos));

  const noise: string[] = [];
  const crlfFile = r() < 0.25;
  if (crlfFile) noise.push("crlf-file");
  const lostIndent = r() < 0.15;
  if (lostIndent) noise.push("lost-indentation");
  // Lost on the added lines too, or only on the context and removed lines.
  const lostAll = lostIndent && r() < 0.5;
  if (lostAll) noise.push("lost-indentation-everywhere");
  const trailing = r() < 0.2;
  if (trailing) noise.push("trailing-space");
  const bareBlank = r() < 0.3;
  if (bareBlank) noise.push("blank-context-without-space");
  const wrongNumbers = dialect === "unified_diff" && r() < 0.5;
  if (wrongNumbers) noise.push("wrong-line-numbers");
  const wrongCounts = dialect === "unified_diff" && r() < 0.3;
  if (wrongCounts) noise.push("wrong-counts");
  if (CONTEXT < 3) noise.push("short-context");
  const headers = dialect === "apply_patch" && r() < 0.5;
  if (headers) noise.push("context-headers");
  const numberShift = wrongNumbers ? pick(r, [-40, -7, -2, 3, 12, 50]) : 0;

  const ctxLine = (l: string) => {
    let t = l;
    if (lostIndent) t = t.trimStart();
    if (trailing && t !== "" && r() < 0.5) t += " ";
    if (t === "" && bareBlank) return "";
    return ` ${t}`;
  };
  const body: string[] = [];
  let shift = 0;
  for (const h of hunks) {
    const from = Math.max(0, h.at - CONTEXT);
    const to = Math.min(n, h.at + h.removed + CONTEXT);
    const before = lines.slice(from, h.at);
    const old = lines.slice(h.at, h.at + h.removed);
    const after = lines.slice(h.at + h.removed, to);
    if (dialect === "unified_diff") {
      const oldLen = to - from;
      const newLen = before.length + h.added.length + after.length;
      const count = (c: number) => (wrongCounts ? c + int(r, -2, 2) : c);
      body.push(`@@ -${Math.max(1, from + 1 + numberShift)},${count(oldLen)} +${Math.max(1, from + 1 + shift + numberShift)},${count(newLen)} @@`);
    } else {
      let header = "";
      const target = h.at < n ? lines[h.at]! : "";
      if (headers && target.trim() !== "") {
        for (let j = h.at - 1; j >= 0; j--) {
          const l = lines[j]!;
          if (l.trim() !== "" && indentOf(l) < indentOf(target)) {
            header = l.trim();
            break;
          }
        }
      }
      body.push(header ? `@@ ${header}` : "@@");
    }
    body.push(...before.map(ctxLine), ...old.map((l) => `-${lostIndent ? l.trimStart() : l}${trailing ? " " : ""}`), ...h.added.map((l) => `+${lostAll ? l.trimStart() : l}`), ...after.map(ctxLine));
    if (dialect === "apply_patch" && to === n && r() < 0.5) body.push("*** End of File");
    shift += h.added.length - h.removed;
  }
  let patch: string;
  if (dialect === "unified_diff") patch = ["--- a/src/f.txt", "+++ b/src/f.txt", ...body].join("\n") + "\n";
  else {
    const end = r() < 0.2 ? [] : ["*** End Patch"];
    if (!end.length) noise.push("no-end-patch");
    patch = ["*** Begin Patch", "*** Update File: src/f.txt", ...body, ...end].join("\n") + "\n";
  }
  const wrap = r();
  if (wrap < 0.1) {
    patch = "```diff\n" + patch + "```\n";
    noise.push("fence");
  } else if (wrap < 0.2 && dialect === "apply_patch") {
    patch = `apply_patch <<'EOF'\n${patch}EOF\n`;
    noise.push("heredoc");
  }
  if (r() < 0.15) {
    patch = patch.replace(/\n/g, "\r\n");
    noise.push("crlf-patch");
  }
  const nl = crlfFile ? "\r\n" : "\n";
  const join = (ls: string[]) => (ls.length ? ls.join(nl) + nl : "");
  return { dialect, file: join(lines), patch, intended: join(intendedLines), noise };
}

export interface PatchRoundsResult {
  dialect: PatchDialect;
  rounds: number;
  correct: number;
  refused: number;
  wrong: number;
  /** The first few wrong rounds, for a report. */
  wrongExamples: PatchRound[];
  /** Refusals per noise kind (a round with several noises counts for each). */
  refusedBy: Record<string, number>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export async function runPatchRounds(dialect: PatchDialect, count: number, seed = 1): Promise<PatchRoundsResult> {
  const r = rng(seed);
  const out: PatchRoundsResult = { dialect, rounds: count, correct: 0, refused: 0, wrong: 0, wrongExamples: [], refusedBy: {} };
  for (let i = 0; i < count; i++) {
    const round = makeRound(r, dialect, i);
    const parsed = parsePatch(round.patch);
    const plan = parsed.ok ? await planPatch(parsed.files, async (p) => (p === "src/f.txt" ? enc.encode(round.file) : undefined)) : undefined;
    if (!plan?.ok) {
      out.refused++;
      for (const k of round.noise.length ? round.noise : ["none"]) out.refusedBy[k] = (out.refusedBy[k] ?? 0) + 1;
      continue;
    }
    const got = plan.files.length === 1 && plan.files[0]!.bytes ? dec.decode(plan.files[0]!.bytes) : undefined;
    if (got === round.intended) out.correct++;
    else {
      out.wrong++;
      if (out.wrongExamples.length < 3) out.wrongExamples.push(round);
    }
  }
  return out;
}
