/**
 * Re-indentation for the indentation-insensitive rung: when the model's SEARCH lines match the
 * file only with different indentation, its REPLACE lines are moved by the same consistent
 * amount, written in the file's style (tabs or spaces). When no consistent shift explains every
 * matched line, the edit is refused rather than guessed.
 */

export type Reindent = { ok: true; apply: (line: string) => string | undefined; describe: string } | { ok: false; reason: string };

export function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The indentation unit of a set of lines: "\t", or a run of spaces; undefined if mixed or unclear. */
function unitOf(lines: readonly string[]): string | undefined {
  let tabs = false;
  let g = 0;
  for (const l of lines) {
    if (isBlank(l)) continue;
    const ws = leadingWhitespace(l);
    if (ws === "") continue;
    if (/^\t+$/.test(ws)) tabs = true;
    else if (/^ +$/.test(ws)) g = gcd(g, ws.length);
    else return undefined;
  }
  if (tabs && g) return undefined;
  if (tabs) return "\t";
  if (g === 0) return "";
  return " ".repeat(g);
}

function levels(ws: string, unit: string): number | undefined {
  if (ws === "") return 0;
  if (unit === "") return undefined;
  if (ws.length % unit.length !== 0 || ws !== unit.repeat(ws.length / unit.length)) return undefined;
  return ws.length / unit.length;
}

function plural(n: number, w: string): string {
  return `${n} ${w}${n === 1 ? "" : "s"}`;
}

function show(ws: string): string {
  if (ws === "") return "none";
  if (/^\t+$/.test(ws)) return plural(ws.length, "tab");
  if (/^ +$/.test(ws)) return plural(ws.length, "space");
  return JSON.stringify(ws);
}

/**
 * Finds the shift that turns each SEARCH line's indentation into its file line's. `pairs` are
 * [file line, search line]; `replace` lines are checked too so a refusal happens before writing.
 * `fileUnit` is the indentation unit used elsewhere in the file (a hint for converting styles).
 */
export function findReindent(pairs: ReadonlyArray<[string, string]>, replace: readonly string[], fileUnit: string | undefined): Reindent {
  const real = pairs.filter(([f, s]) => !isBlank(f) && !isBlank(s));
  if (real.length === 0) return { ok: true, apply: (l) => l, describe: "no indentation change" };
  const [f0, s0] = real[0]!;
  const fi0 = leadingWhitespace(f0);
  const si0 = leadingWhitespace(s0);

  // 1. Same style: a common prefix added to (or removed from) every line.
  if (fi0.endsWith(si0)) {
    const add = fi0.slice(0, fi0.length - si0.length);
    // Spaces added under a tab prefix (or the reverse) would mix styles: leave that to step 2.
    const other = add.startsWith("\t") ? " " : add.startsWith(" ") ? "\t" : undefined;
    const mixes = other !== undefined && replace.some((l) => !isBlank(l) && leadingWhitespace(l).includes(other));
    if (!mixes && real.every(([f, s]) => leadingWhitespace(f) === add + leadingWhitespace(s))) {
      return { ok: true, apply: (l) => (isBlank(l) ? "" : add + l), describe: add === "" ? "no indentation change" : `indentation shifted by +${show(add)}` };
    }
  }
  if (si0.endsWith(fi0)) {
    const cut = si0.slice(0, si0.length - fi0.length);
    if (real.every(([f, s]) => leadingWhitespace(s) === cut + leadingWhitespace(f))) {
      const bad = replace.find((l) => !isBlank(l) && !l.startsWith(cut));
      if (!bad) return { ok: true, apply: (l) => (isBlank(l) ? "" : l.slice(cut.length)), describe: `indentation shifted by -${show(cut)}` };
      return {
        ok: false,
        reason: `the REPLACE line ${JSON.stringify(bad.trim())} is indented less than the ${show(cut)} that SEARCH has in excess ` + `of the file, so it cannot be moved consistently`,
      };
    }
  }

  // 2. Different styles (tabs vs spaces, 2 vs 4 spaces): whole indentation levels.
  const modelUnit = unitOf([...real.map(([, s]) => s), ...replace]);
  const fUnit = unitOf(real.map(([f]) => f)) || fileUnit;
  if (modelUnit !== undefined && fUnit) {
    let delta: number | undefined;
    let consistent = true;
    for (const [f, s] of real) {
      const lf = levels(leadingWhitespace(f), fUnit);
      const ls = levels(leadingWhitespace(s), modelUnit);
      if (lf === undefined || ls === undefined) {
        consistent = false;
        break;
      }
      if (delta === undefined) delta = lf - ls;
      else if (delta !== lf - ls) {
        consistent = false;
        break;
      }
    }
    if (consistent && delta !== undefined) {
      const d = delta;
      const convert = (l: string): string | undefined => {
        if (isBlank(l)) return "";
        const lv = levels(leadingWhitespace(l), modelUnit);
        if (lv === undefined || lv + d < 0) return undefined;
        return fUnit.repeat(lv + d) + l.slice(leadingWhitespace(l).length);
      };
      const bad = replace.find((l) => convert(l) === undefined);
      if (!bad) return { ok: true, apply: convert, describe: `re-indented to the file's ${show(fUnit)} per level` };
      return { ok: false, reason: `the REPLACE line ${JSON.stringify(bad.trim())} is not indented by whole levels, so it cannot be converted to the file's indentation` };
    }
  }
  const examples = [...real]
    .sort((x, y) => Number(leadingWhitespace(y[0]) !== leadingWhitespace(y[1])) - Number(leadingWhitespace(x[0]) !== leadingWhitespace(x[1])))
    .slice(0, 3)
    .map(([f, s]) => `file ${show(leadingWhitespace(f))} vs SEARCH ${show(leadingWhitespace(s))} for ${JSON.stringify(f.trim().slice(0, 40))}`)
    .join("; ");
  return { ok: false, reason: `the indentation differs by different amounts on different lines (${examples})` };
}

/** The indentation unit most of the file uses ("\t" or spaces), for converting styles. */
export function fileIndentUnit(lines: readonly string[]): string | undefined {
  let tabs = 0;
  let spaces = 0;
  const widths = new Map<number, number>();
  for (const l of lines) {
    if (l.startsWith("\t")) tabs++;
    else if (l.startsWith(" ") && !isBlank(l)) {
      spaces++;
      const w = leadingWhitespace(l).length;
      widths.set(w, (widths.get(w) ?? 0) + 1);
    }
  }
  if (tabs === 0 && spaces === 0) return undefined;
  if (tabs >= spaces) return "\t";
  for (const unit of [8, 4, 3, 2]) {
    let ok = 0;
    for (const [w, c] of widths) if (w % unit === 0) ok += c;
    if (ok >= spaces * 0.9 && widths.has(unit)) return " ".repeat(unit);
  }
  return " ";
}
