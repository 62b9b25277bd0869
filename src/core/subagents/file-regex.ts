/**
 * Roo Code's `fileRegex` (a mode's edit group limited to files whose path matches it), tested
 * with a bound on the work: the pattern comes from a repository file, and JavaScript's regex
 * engine backtracks — `(a+)+$` against thirty letters, or `a.*a.*a.*b` against a long path, runs
 * for minutes. No linear-time engine is among the project's dependencies, so the pattern's shape
 * is read first (a scan of its tokens; `new RegExp` checks the syntax):
 * - refused outright: a repeated group (`(…)*`, `(…)+`, `(…){2,}` — exponential backtracking),
 *   and backreferences (`\1`, `\k<name>`);
 * - otherwise its worst case is bounded by n^(k+1) · 2^q · a steps for a path of n characters
 *   (n^k when the pattern is anchored with `^`: one start position), with k repeating quantifiers
 *   (`*`, `+`, `{n,}`, `{n,m}` with m ≥ 2), q optional ones (`?`) and a the product of the
 *   alternatives of its groups; a path longer than that bound allows within MAX_STEPS is not
 *   tested: the edit is refused, saying why. (Measured: `a.*a.*b` against 1,024 letters, n^3 ≈ 10^9
 *   steps, took 1.1 s here: about a nanosecond a step, so MAX_STEPS is about 10 ms.)
 * A refused pattern lets the mode edit no file (the safe side), and the listing says why.
 */

/** The most backtracking steps one test may take (about 10 ms of the engine's work). */
export const MAX_STEPS = 10_000_000;
/** The longest pattern read. */
export const MAX_PATTERN = 1000;

export type FileRegex = {
  source: string;
  /** What the mode's edit group says about it (`description`), when it does. */
  description?: string;
} & ({ regex: RegExp; maxPath: number } | { problem: string });

interface Shape {
  /** Alternatives at the top level (`a|b`: 2). */
  topAlternatives: number;
  repeating: number;
  optional: number;
  alternatives: number;
}

/** `*`, `+`, `{2}`, `{1,}`, `{0,5}`: repeats; `?`, `{0,1}`: optional; `{1}`, `{0}`: once. */
function quantifierKind(c: string, counted: RegExpExecArray | null): "repeat" | "optional" | "once" {
  if (c === "*" || c === "+") return "repeat";
  if (!counted) return "optional";
  const min = Number(counted[1]);
  const max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
  if (max >= 2) return "repeat";
  return max === 1 && min === 0 ? "optional" : "once";
}

/** The pattern's shape, or why it is refused. */
function shapeOf(source: string): Shape | { problem: string } {
  const shape: Shape = { topAlternatives: 1, repeating: 0, optional: 0, alternatives: 1 };
  // Alternatives of each open group (the outermost: the whole pattern).
  const groups: number[] = [1];
  // What the last atom was, for the quantifier that may follow it.
  let last: "none" | "atom" | "group" = "none";
  for (let i = 0; i < source.length;) {
    const c = source[i]!;
    if (c === "\\") {
      const n = source[i + 1] ?? "";
      if (/[1-9]/.test(n) || (n === "k" && source[i + 2] === "<")) return { problem: "a backreference (\\1, \\k<name>) can take exponential time to test" };
      i += 2;
      last = "atom";
      continue;
    }
    if (c === "[") {
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      i = j + 1;
      last = "atom";
      continue;
    }
    if (c === "(") {
      groups.push(1);
      i++;
      if (source[i] === "?") {
        // (?: (?= (?! (?<= (?<! (?<name>
        i++;
        if (source[i] === "<" && source[i + 1] !== "=" && source[i + 1] !== "!") i = source.indexOf(">", i) + 1;
        else i += source[i] === "<" ? 2 : 1;
      }
      last = "none";
      continue;
    }
    if (c === ")") {
      shape.alternatives *= groups.pop() ?? 1;
      i++;
      last = "group";
      continue;
    }
    if (c === "|") {
      groups[groups.length - 1]!++;
      i++;
      last = "none";
      continue;
    }
    const counted = c === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i)) : null;
    if (c === "*" || c === "+" || c === "?" || counted) {
      const kind = quantifierKind(c, counted);
      if (last === "group" && kind === "repeat") return { problem: "a repeated group ((…)*, (…)+, (…){2}) can take exponential time to test" };
      if (last !== "none" && kind === "repeat") shape.repeating++;
      else if (last !== "none" && kind === "optional") shape.optional++;
      i += counted ? counted[0].length : 1;
      if (source[i] === "?") i++; // lazy
      last = "none";
      continue;
    }
    i++;
    last = "atom";
  }
  shape.topAlternatives = groups[0] ?? 1;
  shape.alternatives *= shape.topAlternatives;
  return shape;
}

/** A mode's fileRegex, read with its bound (or why it is refused). */
export function boundedFileRegex(source: string, description?: string): FileRegex {
  const base = { source, ...(description ? { description } : {}) };
  if (source.length > MAX_PATTERN) return { ...base, problem: `longer than ${MAX_PATTERN} characters` };
  let regex: RegExp;
  try {
    regex = new RegExp(source);
  } catch (err) {
    return { ...base, problem: `not a valid regular expression (${err instanceof Error ? err.message : String(err)})` };
  }
  const shape = shapeOf(source);
  if ("problem" in shape) return { ...base, problem: shape.problem };
  const fixed = 2 ** shape.optional * shape.alternatives;
  if (fixed > MAX_STEPS) return { ...base, problem: "too many optional parts and alternatives to test in bounded time" };
  // Tried at every start position (a factor n), unless the whole pattern is anchored at the start.
  const anchored = source.startsWith("^") && shape.topAlternatives === 1;
  const maxPath = Math.floor((MAX_STEPS / fixed) ** (1 / (shape.repeating + (anchored ? 0 : 1) || 1)));
  return { ...base, regex, maxPath };
}

/** Whether a workspace-relative path may be edited under these limits (any one matching), or why not. */
export function editAllowed(limits: readonly FileRegex[], path: string): { ok: true } | { ok: false; why: string } {
  const tooLong: FileRegex[] = [];
  for (const l of limits) {
    if ("problem" in l) continue;
    if (path.length > l.maxPath) {
      tooLong.push(l);
      continue;
    }
    l.regex.lastIndex = 0;
    if (l.regex.test(path)) return { ok: true };
  }
  const shown = limits.map(fileRegexLabel).join(" or ");
  if (tooLong.length)
    return {
      ok: false,
      why: `${path} is too long (${path.length} characters) to be checked against ${tooLong.map(fileRegexLabel).join(" or ")} in bounded time (at most ${Math.max(...tooLong.map((l) => ("maxPath" in l ? l.maxPath : 0)))})`,
    };
  if (limits.every((l) => "problem" in l))
    return { ok: false, why: `its fileRegex was refused (${limits.map((l) => ("problem" in l ? `${l.source}: ${l.problem}` : "")).join("; ")}), so it may edit no file` };
  return { ok: false, why: `${path} does not match ${shown}` };
}

/** `/re/ (description)`, as the model and the user read a limit. */
export function fileRegexLabel(l: FileRegex): string {
  return `/${l.source}/${l.description ? ` (${l.description})` : ""}`;
}
