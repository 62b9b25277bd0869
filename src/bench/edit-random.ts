/**
 * Randomized edits with a known intent, for the tolerance rules and dialects: each round builds a
 * file, the change the model means, and the edit a model would send for it (with the noise the
 * rules tolerate: echoed lines, lost indentation, re-flowed lines, drifted SEARCH text, Roo line
 * numbers, unclosed blocks). The engine must produce exactly the intended file or refuse; anything
 * else is a wrong apply. Used by test/unit/edit/randomized.test.ts (a few hundred rounds) and by
 * the edit bench (10^5 rounds).
 *
 * The intents left out are the ones a rule reads one way by design (docs/edits.md): an append whose
 * first line is meant as a second copy of the anchor line, statements meant to be joined onto one
 * line, a block's whole body meant to be dedented, a line hint more than one line off.
 */
import { applyEditsToBytes } from "../core/edit/apply-edits";
import { parseEditText } from "../core/edit/edit-input";
import { lineTag } from "../core/edit/hashline";
import type { EditInput, HashlineOp } from "../core/edit/types";

export type Rng = () => number;

/** mulberry32. */
export function rng(seed: number): Rng {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Round {
  file: string;
  /** JSON edits, or the text `yoke edit apply` reads. */
  edits: EditInput[] | string;
  truncated?: boolean;
  intended: string;
  /** What the round exercised, for reports. */
  what: string;
}

export type Generator = (r: Rng, round: number) => Round | undefined;

const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const text = (lines: readonly string[]) => (lines.length ? lines.join("\n") + "\n" : "");
const ws = (l: string) => /^[ \t]*/.exec(l)![0];

/** A file of distinct statements, some blank lines and closing braces, with indentation. */
function plainFile(r: Rng, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const roll = r();
    const ind = "  ".repeat(int(r, 0, 2));
    if (roll < 0.1 && i < n - 1) return "";
    if (roll < 0.18) return `${ind}}`;
    return `${ind}stmt_${i}(${int(r, 0, 999)});`;
  });
}

/** Echoed neighbour lines: appends/prepends repeating the anchor (and the line on the other side), replaces repeating the lines around the range. */
export const echoes: Generator = (r, round) => {
  const n = int(r, 3, 20);
  const lines = plainFile(r, n);
  const fresh = (k: number, ind: string) => Array.from({ length: k }, (_, j) => `${ind}new_${round}_${j}();`);
  const kind = r();
  let op: HashlineOp;
  let intended: string[];
  let what: string;
  if (kind < 0.35) {
    const p = int(r, 1, n);
    const x = fresh(int(r, 1, 3), ws(lines[p - 1]!));
    let sent = [...x];
    const near = r() < 0.6;
    if (near) sent = [lines[p - 1]!, ...sent];
    // The far side is echoed only in region style (with the anchor), and never a blank line alone.
    if (near && p < n && r() < 0.4) sent = [...sent, lines[p]!];
    op = { op: "append", pos: lineTag(p, lines[p - 1]!), lines: sent };
    intended = [...lines.slice(0, p), ...x, ...lines.slice(p)];
    what = `append${near ? " + echo" : ""}`;
  } else if (kind < 0.6) {
    const p = int(r, 1, n);
    const x = fresh(int(r, 1, 3), ws(lines[p - 1]!));
    let sent = [...x];
    const near = r() < 0.6;
    if (near) sent = [...sent, lines[p - 1]!];
    if (near && p > 1 && r() < 0.4) sent = [lines[p - 2]!, ...sent];
    op = { op: "prepend", pos: lineTag(p, lines[p - 1]!), lines: sent };
    intended = [...lines.slice(0, p - 1), ...x, ...lines.slice(p - 1)];
    what = `prepend${near ? " + echo" : ""}`;
  } else if (kind < 0.9) {
    const a = int(r, 1, n);
    const b = Math.min(n, a + int(r, 0, 2));
    // New lines at the indentation of the first line they replace (a blank line gives none: the next one's).
    const first = lines.slice(a - 1, b).find((l) => l.trim() !== "") ?? lines[a - 1]!;
    const y = r() < 0.15 ? [] : fresh(int(r, 1, 3), ws(first));
    let sent = [...y];
    if (a > 1 && r() < 0.4) sent = [lines[a - 2]!, ...sent];
    if (b < n && r() < 0.4) sent = [...sent, lines[b]!];
    // A replacement that is only a blank line is a line blanked on purpose, even next to a blank line.
    if (sent.length && sent.every((l) => l.trim() === "") && sent.length !== y.length) return undefined;
    op = { op: "replace", pos: lineTag(a, lines[a - 1]!), lines: sent.length ? sent : null };
    if (b > a) op.end = lineTag(b, lines[b - 1]!);
    intended = [...lines.slice(0, a - 1), ...y, ...lines.slice(b)];
    what = `replace${sent.length !== y.length ? " + echo" : ""}`;
  } else {
    // A second copy meant on purpose, written as a replace of the line with both copies.
    const p = int(r, 1, n);
    op = { op: "replace", pos: lineTag(p, lines[p - 1]!), lines: [lines[p - 1]!, lines[p - 1]!] };
    intended = [...lines.slice(0, p), ...lines.slice(p - 1)];
    what = "duplicate on purpose";
  }
  return { file: text(lines), edits: [op], intended: text(intended), what };
};

/** A Python- or brace-style file of functions with nested blocks; each line knows its depth. */
function structuredFile(r: Rng, tabs: boolean): { lines: string[]; depth: number[] } {
  const unit = tabs ? "\t" : pick(r, ["  ", "    "]);
  const brace = r() < 0.5;
  const lines: string[] = [];
  const depth: number[] = [];
  const add = (d: number, t: string) => {
    lines.push(unit.repeat(d) + t);
    depth.push(d);
  };
  const fns = int(r, 1, 3);
  for (let f = 0; f < fns; f++) {
    add(0, brace ? `function f${f}(a) {` : `def f${f}(a):`);
    const body = int(r, 2, 5);
    for (let k = 0; k < body; k++) {
      if (r() < 0.3) {
        add(1, brace ? `if (a > ${k}) {` : `if a > ${k}:`);
        const inner = int(r, 1, 3);
        for (let j = 0; j < inner; j++) add(2, brace ? `call_${f}_${k}_${j}(a);` : `call_${f}_${k}_${j}(a)`);
        if (brace) add(1, "}");
      } else add(1, brace ? `step_${f}_${k}(a);` : `step_${f}_${k}(a)`);
    }
    add(1, brace ? "return a;" : "return a");
    if (brace) add(0, "}");
    if (f < fns - 1) {
      lines.push("");
      depth.push(-1);
    }
  }
  return { lines, depth };
}

/** Replacement lines that lost their indentation (and the intents that must not be "restored"). */
export const indentation: Generator = (r, round) => {
  const { lines, depth } = structuredFile(r, r() < 0.3);
  const n = lines.length;
  const body = lines.map((_, i) => i).filter((i) => depth[i]! >= 1);
  if (!body.length) return undefined;
  const a = pick(r, body);
  let b = a;
  while (b + 1 < n && depth[b + 1]! >= 1 && b - a < 3 && r() < 0.6) b++;
  const original = lines.slice(a, b + 1);
  const change = (l: string) => (/[;)]$/.test(l.trim()) && !/^return/.test(l.trim()) ? l.replace(/\(a\)/, `(a, ${round})`) : l);
  const variant = r();
  let intended: string[];
  let what: string;
  if (variant < 0.45) {
    intended = original.map(change);
    if (intended.every((l, k) => l === original[k])) intended = original.map((l) => (l.trim() === "}" ? l : `${l} // ${round}`));
    what = "lost indentation, same lines";
  } else if (variant < 0.6) {
    // A new line between two lines of one indentation.
    const k = original.findIndex((l, i) => i + 1 < original.length && ws(l) === ws(original[i + 1]!) && l.trim() !== "}");
    if (k < 0) return undefined;
    intended = [...original.slice(0, k + 1), `${ws(original[k]!)}added_${round}(a)`, ...original.slice(k + 1)];
    what = "lost indentation, line added";
  } else if (variant < 0.7) {
    intended = original.map((l) => l.trim());
    what = "dedent on purpose";
  } else if (variant < 0.85) {
    // Structure change: the first line wrapped into a new block (deeper), lost indentation on top.
    const ind = ws(original[0]!);
    const unit = ind.startsWith("\t") ? "\t" : ind.length ? ind.slice(0, Math.max(1, ind.length / Math.max(1, depth[a]!))) : "  ";
    intended = [`${ind}if (check_${round}) {`.replace(/ \{$/, lines[0]!.endsWith(":") ? ":" : " {"), ...original.map((l) => unit + l)];
    if (!lines[0]!.endsWith(":")) intended.push(`${ind}}`);
    what = "structure change";
  } else {
    // Moved out of its block on purpose (a dedent with a change): only plausible at the end of a block, after
    // other lines of it, where no closing line follows (Python).
    const next = lines.slice(b + 1).find((l) => l.trim() !== "");
    const before = lines[a - 1]!;
    if (lines[0]!.endsWith("{") || (next !== undefined && ws(next).length >= ws(original[0]!).length) || ws(before).length < ws(original[0]!).length) return undefined;
    if (original.some((l) => ws(l) !== ws(original[0]!))) return undefined;
    const outer = lines
      .slice(0, a)
      .reverse()
      .find((l) => l.trim() !== "" && ws(l).length < ws(original[0]!).length);
    const level = outer === undefined ? "" : ws(outer);
    intended = original.map((l) => level + change(l).trim() + ` # moved ${round}`);
    what = "moved out on purpose";
  }
  if (intended.length === original.length && intended.every((l, k) => l === original[k])) return undefined;
  const sentLines = variant < 0.6 || (variant >= 0.7 && variant < 0.85) ? intended.map((l) => l.trimStart()) : intended;
  const op: HashlineOp = { op: "replace", pos: lineTag(a + 1, lines[a]!), lines: sentLines };
  if (b > a) op.end = lineTag(b + 1, lines[b]!);
  return { file: text(lines), edits: [op], intended: text([...lines.slice(0, a), ...intended, ...lines.slice(b + 1)]), what };
};

/** Unchanged long lines wrapped or run together in a replacement that changes another line. */
export const reflow: Generator = (r, round) => {
  const n = int(r, 3, 10);
  const lines = Array.from({ length: n }, (_, i) => `const value_${i} = compute(alpha_${i}, beta_${int(r, 0, 99)}, "gamma ${i}");`);
  const a = int(r, 1, n - 1);
  const b = Math.min(n, a + int(r, 1, 3));
  const original = lines.slice(a - 1, b);
  const changed = int(r, 0, original.length - 1);
  const intended = original.map((l, k) => (k === changed ? l.replace("compute(", `compute2_${round}(`) : l));
  const keep = original.map((_, k) => k).filter((k) => k !== changed);
  const variant = r();
  let sent = [...intended];
  let what = "as written";
  if (variant < 0.4 && keep.length) {
    const k = pick(r, keep);
    const words = intended[k]!.split(" ");
    const cut = int(r, 1, words.length - 1);
    sent.splice(k, 1, words.slice(0, cut).join(" "), "  " + words.slice(cut).join(" "));
    what = "wrapped";
  } else if (variant < 0.7) {
    const k = keep.find((x) => keep.includes(x + 1));
    if (k === undefined) return undefined;
    sent.splice(k, 2, `${intended[k]} ${intended[k + 1]}`);
    what = "merged";
  } else if (variant < 0.85) {
    // A change wrapped on purpose: the wrapped line differs from the original, so it is written as sent.
    const words = intended[changed]!.split(" ");
    const cut = int(r, 1, words.length - 1);
    sent = [...intended.slice(0, changed), words.slice(0, cut).join(" "), words.slice(cut).join(" "), ...intended.slice(changed + 1)];
    return { file: text(lines), edits: [rangeOp(lines, a, b, sent)], intended: text([...lines.slice(0, a - 1), ...sent, ...lines.slice(b)]), what: "wrapped on purpose" };
  }
  return { file: text(lines), edits: [rangeOp(lines, a, b, sent)], intended: text([...lines.slice(0, a - 1), ...intended, ...lines.slice(b)]), what };
};

function rangeOp(lines: readonly string[], a: number, b: number, sent: string[]): HashlineOp {
  const op: HashlineOp = { op: "replace", pos: lineTag(a, lines[a - 1]!), lines: sent };
  if (b > a) op.end = lineTag(b, lines[b - 1]!);
  return op;
}

const MARKERS = [
  ["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"],
  ["------- SEARCH", "=======", "+++++++ REPLACE"],
  ["----------- SEARCH", "===========", "+++++++++++ REPLACE"],
  ["<<< SEARCH", "===", ">>> REPLACE"],
] as const;

/**
 * SEARCH/REPLACE text blocks with drifted SEARCH text (trailing whitespace, indentation, runs of
 * spaces, blank lines at the edges), Roo line numbers or :start_line: on files with repeated
 * lines, marker spellings, and last blocks without their REPLACE marker.
 */
export const blocks: Generator = (r, round) => {
  const n = int(r, 3, 24);
  const pool = ["x = 1;", "y();", "return z;", "}", "if (a) {", "log(x);", "call(a, b);", "let q = a + b;"];
  const unit = r() < 0.3 ? "\t" : "  ";
  const lines = Array.from({ length: n }, () => {
    if (r() < 0.1) return "";
    return unit.repeat(int(r, 0, 2)) + pick(r, pool) + (r() < 0.08 ? "  " : "");
  });
  lines[n - 1] = "end();";
  const at = int(r, 0, n - 2);
  const len = Math.min(int(r, 1, 3), n - 1 - at);
  const region = lines.slice(at, at + len);
  const j = region.findIndex((l) => l.trim() !== "");
  if (j < 0) return undefined;
  // The change: line j edited, or a new line added after it.
  const adds = r() < 0.3;
  const newLine = `${ws(region[j]!)}added_${round}();`;
  const intendedRegion = adds ? [...region.slice(0, j + 1), newLine, ...region.slice(j + 1)] : region.map((l, k) => (k === j ? `${l.trimEnd()} // changed ${round}` : l));
  const drift = pick(r, ["none", "trailing", "indent", "tabs", "spacing", "lead-blank", "trail-blank", "roo", "hint", "search-lost-indent"] as const);
  let search = [...region];
  let replace = [...intendedRegion];
  let hint: number | undefined;
  if (drift === "trailing") search = search.map((l) => l.trimEnd());
  if (drift === "indent") {
    search = search.map((l) => (l === "" ? "" : "    " + l));
    replace = replace.map((l) => (l === "" ? "" : "    " + l));
  }
  // SEARCH lost its indentation while REPLACE is written in the file's (issue 21: it must not be shifted again).
  if (drift === "search-lost-indent") {
    search = search.map((l) => l.trimStart());
    if (search.every((l, k) => l === region[k])) return undefined;
  }
  if (drift === "tabs") {
    search = search.map((l) => l.replace(/^\t+/, (t) => "    ".repeat(t.length)));
    replace = replace.map((l) => l.replace(/^\t+/, (t) => "    ".repeat(t.length)));
  }
  if (drift === "spacing") {
    // The model misremembers every run of spaces inside the file's lines as twice as long, in SEARCH and in
    // the parts of REPLACE it copied; the text it adds is written as it means it.
    const dbl = (l: string) =>
      ws(l) +
      l
        .slice(ws(l).length)
        .trimEnd()
        .replace(/ +/g, (m) => m + m);
    search = search.map(dbl);
    replace = adds ? [...region.slice(0, j + 1).map(dbl), newLine, ...region.slice(j + 1).map(dbl)] : region.map((l, k) => (k === j ? `${dbl(l)} // changed ${round}` : dbl(l)));
    if (search.every((l, k) => l === region[k]!.trimEnd())) return undefined;
  }
  if (drift === "lead-blank") {
    if (at === 0 || lines[at - 1]!.trim() === "") return undefined;
    search = ["", ...search];
    if (r() < 0.5) replace = ["", ...replace];
  }
  if (drift === "trail-blank") {
    if (at + len >= n || lines[at + len]!.trim() === "") return undefined;
    search = [...search, ""];
    if (r() < 0.5) replace = [...replace, ""];
  }
  // The true line, or off by one (the model miscounted): a hint is trusted to within one line.
  if (drift === "hint") hint = at + 1 + pick(r, [0, 0, 0, 1, -1]);
  let numbered = false;
  if (drift === "roo") {
    search = search.map((l, k) => `${at + 1 + k} | ${l}`);
    if (r() < 0.6) replace = replace.map((l, k) => `${at + 1 + k} | ${l}`);
    numbered = true;
  }
  const plain = drift === "roo" ? region : search;
  // A drifted SEARCH that is exactly some other place's text is taken at its word: not this generator's concern.
  if (drift !== "none" && drift !== "hint" && drift !== "roo" && ("\n" + text(lines)).includes("\n" + text(plain))) return undefined;
  const [head, mid, tail] = pick(r, MARKERS);
  const unclosed = r() < 0.15;
  const truncated = unclosed && r() < 0.3;
  const start = hint !== undefined ? `:start_line:${hint}\n-------\n` : numbered && r() < 0.5 ? `:start_line:${at + 1}\n-------\n` : "";
  // An unclosed block ends at the end of the reply: its REPLACE cannot end in blank lines it means.
  if (unclosed && replace.length && replace[replace.length - 1]!.trim() === "" && !(search.length && search[search.length - 1]!.trim() === "")) return undefined;
  const block = `${head}\n${start}${search.map((l) => l + "\n").join("")}${mid}\n${replace.map((l) => l + "\n").join("")}${unclosed ? "" : tail + "\n"}`;
  const intended = [...lines.slice(0, at), ...intendedRegion, ...lines.slice(at + len)];
  return {
    file: text(lines),
    edits: block,
    truncated,
    intended: truncated ? text(lines) + "\u0000refused" : text(intended),
    what: `${drift}${unclosed ? (truncated ? " unclosed+truncated" : " unclosed") : ""}`,
  };
};

/**
 * The indentation intents as SEARCH/REPLACE blocks whose SEARCH and REPLACE both lost their
 * indentation (flattened-reindent). The intents the rule reads one way by design are left out
 * (a block's body dedented on purpose, lines moved out of their block on purpose).
 */
export const flattened: Generator = (r, round) => {
  const c = indentation(r, round);
  if (!c || typeof c.edits === "string" || c.what === "dedent on purpose" || c.what === "moved out on purpose") return undefined;
  const op = c.edits[0] as HashlineOp;
  const lines = c.file.split("\n").slice(0, -1);
  const a = Number(op.pos!.split("#")[0]) - 1;
  const b = op.end ? Number(op.end.split("#")[0]) - 1 : a;
  const search = lines.slice(a, b + 1).map((l) => l.trimStart());
  const replace = (op.lines as string[]).map((l) => l.trimStart());
  // A flattened SEARCH that is some place's exact text is taken at its word; wrapping a closing line in a new block is no intent.
  if (("\n" + c.file).includes("\n" + text(search))) return undefined;
  if (c.what === "structure change" && search.some((l) => /^[}\])]/.test(l))) return undefined;
  return { file: c.file, edits: [{ kind: "block", search, replace }], intended: c.intended, what: `flattened: ${c.what}` };
};

export const GENERATORS: Record<string, Generator> = { echoes, indentation, reflow, blocks, flattened };

export interface RoundsResult {
  rounds: number;
  applied: number;
  refused: number;
  /** Per kind of round: [applied as intended, refused]. */
  byKind: Record<string, [number, number]>;
  wrong: Array<{ round: number; what: string; file: string; edits: unknown; expected: string; got: string }>;
}

const encoder = new TextEncoder();

/**
 * Runs a generator (seeded by round number): `count` attempts, or with `executed`, until `count`
 * rounds were run (a generator skips some attempts).
 */
export function runRounds(name: string, count: number, seed = 1, executed = false): RoundsResult {
  const gen = GENERATORS[name];
  if (!gen) throw new Error(`no generator ${name}`);
  const out: RoundsResult = { rounds: 0, applied: 0, refused: 0, byKind: {}, wrong: [] };
  const tally = (what: string, k: 0 | 1) => {
    const t = (out.byKind[what] ??= [0, 0]);
    t[k]++;
  };
  for (let round = 0; executed ? out.rounds < count && round < count * 4 : round < count; round++) {
    const rr = rng(seed * 1_000_003 + round);
    const c = gen(rr, round);
    if (!c) continue;
    out.rounds++;
    let edits: EditInput[];
    if (typeof c.edits === "string") {
      const p = parseEditText(c.edits, { file: "f.ts", truncated: c.truncated });
      if (!p.ok) {
        out.refused++;
        tally(c.what, 1);
        continue;
      }
      edits = p.edits;
    } else edits = c.edits;
    const res = applyEditsToBytes(encoder.encode(c.file), edits, "f.ts");
    if (!res.ok) {
      out.refused++;
      tally(c.what, 1);
      continue;
    }
    if (res.after === c.intended) {
      out.applied++;
      tally(c.what, 0);
    } else if (out.wrong.length < 20) out.wrong.push({ round, what: c.what, file: c.file, edits: c.edits, expected: c.intended, got: res.after });
    else out.wrong.push({ round, what: c.what, file: "", edits: "", expected: "", got: "" });
  }
  return out;
}

/**
 * Refusals that fix themselves (issue 21): a SEARCH block written from a view that differs from
 * the file (a stale value, a typo, a line left out, a changed character), whose refusal is then
 * answered the way a model would answer it using only what the refusal shows: SEARCH copied from
 * the "closest region" lines it prints (without their `N#HH|` prefixes), REPLACE the same lines
 * with the intended change. Counts how often the first attempt lands, how often the retry lands,
 * and any wrong result (first attempt or retry).
 */
export interface RetryResult {
  rounds: number;
  firstLanded: number;
  retryLanded: number;
  retryRefused: number;
  /** The refusal named no region holding the line to change. */
  noRegion: number;
  wrong: number;
  /** Per noise: [rounds, first attempt landed, retry landed]. */
  byNoise: Record<string, [number, number, number]>;
}

const VIEW_LINE = /^(\d+)#[A-Z]{2}\|(.*)$/;
const REGION = /The closest region is lines? (\d+)(?:-(\d+))?/;

export function runRetryRounds(count: number, seed = 1): RetryResult {
  const out: RetryResult = { rounds: 0, firstLanded: 0, retryLanded: 0, retryRefused: 0, noRegion: 0, wrong: 0, byNoise: {} };
  const noises = ["stale-value", "typo", "missing-line", "changed-char"] as const;
  for (let round = 0; round < count; round++) {
    const r = rng(seed * 7_000_003 + round);
    const lines = plainFile(r, int(r, 8, 30));
    const stmts = lines.map((l, i) => (/stmt_\d+\(/.test(l) ? i : -1)).filter((i) => i >= 0);
    if (stmts.length < 3) continue;
    const k = pick(r, stmts.slice(1, -1).length ? stmts.slice(1, -1) : stmts);
    const a = Math.max(0, k - int(r, 1, 2));
    const b = Math.min(lines.length - 1, k + int(r, 1, 2));
    const region = lines.slice(a, b + 1);
    const changed = lines[k]!.replace(/\((\d+)\)/, (_m, n: string) => `(${Number(n) + 1000})`);
    const intended = text(lines.map((l, i) => (i === k ? changed : l)));
    const noise = pick(r, noises);
    // The model's view of the region.
    let seen = [...region];
    const others = region.map((l, i) => (i + a !== k && /stmt_\d+\(/.test(l) ? i : -1)).filter((i) => i >= 0);
    if (noise === "stale-value" || noise === "typo") {
      const i = others.length ? pick(r, others) : k - a;
      seen[i] = noise === "stale-value" ? seen[i]!.replace(/\((\d+)\)/, (_m, n: string) => `(${Number(n) + 1})`) : seen[i]!.replace("stmt_", "stmt");
    } else if (noise === "missing-line") {
      const inner = others.filter((i) => i > 0 && i < region.length - 1);
      if (!inner.length) continue;
      seen = seen.filter((_, i) => i !== pick(r, inner));
    } else {
      seen[k - a] = seen[k - a]!.replace(";", ":");
    }
    const target = /stmt_(\d+)\(/.exec(lines[k]!)![1]!;
    const isTarget = (l: string) => new RegExp(`stmt_?${target}\\(`).test(l);
    const replace = seen.map((l) => (isTarget(l) ? changed : l));
    out.rounds++;
    const t = (out.byNoise[noise] ??= [0, 0, 0]);
    t[0]++;
    const first = applyEditsToBytes(encoder.encode(text(lines)), [{ kind: "block", search: seen, replace }], "f.ts");
    if (first.ok) {
      if (first.after === intended) {
        out.firstLanded++;
        t[1]++;
      } else out.wrong++;
      continue;
    }
    // The retry: only what the refusal shows.
    const m = REGION.exec(first.message);
    const view = new Map<number, string>();
    for (const l of first.message.split("\n")) {
      const v = VIEW_LINE.exec(l);
      if (v) view.set(Number(v[1]), v[2]!);
    }
    const from = m ? Number(m[1]) : undefined;
    const to = m ? Number(m[2] ?? m[1]) : undefined;
    const copied: string[] = [];
    for (let n = from ?? 1; from !== undefined && n <= to!; n++) if (view.has(n)) copied.push(view.get(n)!);
    if (!copied.some(isTarget)) {
      out.noRegion++;
      continue;
    }
    const retry = applyEditsToBytes(encoder.encode(text(lines)), [{ kind: "block", search: copied, replace: copied.map((l) => (isTarget(l) ? changed : l)) }], "f.ts");
    if (!retry.ok) out.retryRefused++;
    else if (retry.after === intended) {
      out.retryLanded++;
      t[2]++;
    } else out.wrong++;
  }
  return out;
}
