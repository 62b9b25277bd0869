/**
 * Paths only partly known when the check runs (an argument holding `$X`, a relative path in a
 * folder `cd` may or may not have reached, a glob whose matches an earlier command may change,
 * everything git can print from its history): described as segment patterns, and tested for
 * whether any path they stand for could be covered by a rule or a protected path. A yes means
 * "could apply", which asks; it never allows anything.
 */
import { globMatcher } from "../glob";
import { PROTECTED_WORKSPACE_PATHS, type ProtectedPath } from "../protected-paths";
import { HOST_FOLDER_WHY, OWN_SETTINGS_WHY, rulesFor, type EvalContext } from "./context";
import { anchorsOf, type PathSpecContext } from "./path-spec";
import { segmentMatcher } from "./shell/expand";
import type { PermissionRule, RuleList } from "./types";

/** One path segment: a literal name, a bash glob (no `/`), or any number of segments. */
export type Seg = { lit: string } | { glob: string; rule?: boolean } | { any: true };
export type PathPattern = Seg[];

export const ANY: Seg = { any: true };

/** The literal segments of an absolute path. */
export function litSegs(abs: string): Seg[] {
  return abs
    .split("/")
    .filter((s) => s !== "")
    .map((lit) => ({ lit }));
}

/** A path pattern from an absolute base and a relative or absolute bash pattern (escaped as in shell/words.ts). */
export function globSegs(base: string, pattern: string, anySegments = false): PathPattern {
  const out = pattern.startsWith("/") ? [] : litSegs(base);
  for (const seg of pattern.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      // Going up from a pattern: could be anywhere above.
      out.length = 0;
      out.push(ANY);
      continue;
    }
    if (/(^|[^\\])[*?[]/.test(seg)) out.push(anySegments ? ANY : { glob: seg });
    else out.push({ lit: seg.replace(/\\(.)/g, "$1") });
  }
  return out;
}

/**
 * The paths a word with run-time parts could name: anything up to the segment holding the last
 * expansion, a pattern for that segment's static end, then the literal rest.
 */
export function dynamicSegs(value: string): PathPattern {
  const segs = value.split("/");
  let last = -1;
  segs.forEach((s, i) => {
    if (/[$`]/.test(s)) last = i;
  });
  if (last < 0) return [ANY];
  const seg = segs[last]!;
  const close = Math.max(seg.lastIndexOf(")"), seg.lastIndexOf("}"), seg.lastIndexOf("`"), seg.lastIndexOf('"'), seg.lastIndexOf("'"));
  const dollar = seg.lastIndexOf("$");
  let tail: string;
  if (dollar > close) {
    const m = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(seg.slice(dollar));
    tail = m ? seg.slice(dollar + m[0].length) : "";
  } else tail = seg.slice(close + 1);
  if (!/^[A-Za-z0-9._-]*$/.test(tail)) tail = "";
  const out: PathPattern = [ANY];
  if (tail) out.push({ glob: `*${tail}`, rule: true });
  else out.push(ANY);
  for (const s of segs.slice(last + 1)) if (s !== "" && s !== ".") out.push(s === ".." ? ANY : { lit: s });
  return out;
}

const ruleGlobCache = new Map<string, (s: string) => boolean>();

function ruleSegs(base: string, pattern: string): PathPattern {
  const out = litSegs(base);
  for (const seg of pattern.split("/")) {
    if (seg === "") continue;
    if (seg === "**") out.push(ANY);
    else if (/[*?[{(!+@]/.test(seg)) out.push({ glob: seg, rule: true });
    else out.push({ lit: seg });
  }
  return out;
}

function segMatches(glob: { glob: string; rule?: boolean }, name: string): boolean {
  if (!glob.rule) return segmentMatcher(glob.glob)(name);
  let m = ruleGlobCache.get(glob.glob);
  if (!m) {
    // picomatch's reading in bounded time (src/core/glob); syntax the bounded matcher does not read
    // could match (the conservative answer here: the rule may reach the path).
    m = globMatcher(glob.glob, { dot: true, dotAll: true }) ?? (() => true);
    ruleGlobCache.set(glob.glob, m);
  }
  return m(name);
}

function segCompatible(a: Seg, b: Seg, fold: boolean): boolean {
  if ("lit" in a && "lit" in b) return fold ? a.lit.toLowerCase() === b.lit.toLowerCase() : a.lit === b.lit;
  if ("lit" in a && "glob" in b) return segMatches(b, fold ? a.lit.toLowerCase() : a.lit) || (fold && segMatches(b, a.lit));
  if ("glob" in a && "lit" in b) return segMatches(a, fold ? b.lit.toLowerCase() : b.lit) || (fold && segMatches(a, b.lit));
  return true;
}

/** Could some path match both patterns? */
export function patternsMeet(a: PathPattern, b: PathPattern, fold = false): boolean {
  const n = a.length;
  const m = b.length;
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = i * (m + 1) + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    let r: boolean;
    if (i === n && j === m) r = true;
    else if (i < n && "any" in a[i]!) r = go(i + 1, j) || (j < m && go(i, j + 1));
    else if (j < m && "any" in b[j]!) r = go(i, j + 1) || (i < n && go(i + 1, j));
    else if (i < n && j < m) r = segCompatible(a[i]!, b[j]!, fold) && go(i + 1, j + 1);
    else r = false;
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

function specContext(ctx: EvalContext, rule: PermissionRule, list: RuleList): PathSpecContext[] {
  const base: PathSpecContext = { cwd: ctx.cwd, home: ctx.home, baseDir: rule.source.baseDir, list };
  const out = [base];
  const realCwd = ctx.roots[0];
  if (realCwd && realCwd !== ctx.cwd) out.push({ ...base, cwd: realCwd, baseDir: base.baseDir === ctx.cwd ? realCwd : base.baseDir });
  if (ctx.realHome !== ctx.home) out.push({ ...base, home: ctx.realHome, baseDir: base.baseDir === ctx.home ? ctx.realHome : base.baseDir });
  return out;
}

/** Answers of ruleCouldMatch, per context made for one check (`scopedToOneCheck`): its rules do not change during it. */
const ruleMemo = new WeakMap<EvalContext, Map<string, PermissionRule | null>>();

/**
 * A context for one check: file-system probes answered once per path, and ruleCouldMatch's
 * answers kept (a command naming the same path 2,000 times costs one match per rule). The gate's
 * own context lives across checks (the files and the session's rules change between them), so
 * nothing is kept on it.
 */
export function scopedToOneCheck(ctx: EvalContext): EvalContext {
  const once = <T>(f: ((p: string) => Promise<T>) | undefined) => {
    if (!f) return undefined;
    const seen = new Map<string, Promise<T>>();
    return (p: string) => {
      let r = seen.get(p);
      if (!r) seen.set(p, (r = f(p)));
      return r;
    };
  };
  const scoped: EvalContext = { ...ctx, realPath: once(ctx.realPath), listDir: once(ctx.listDir) };
  ruleMemo.set(scoped, new Map());
  return scoped;
}

const patternKey = (path: PathPattern) => path.map((s) => ("lit" in s ? `l${s.lit}` : "glob" in s ? `${s.rule ? "r" : "g"}${s.glob}` : "*")).join("\0");

/** The first rule of `list` for `permission` that could match a path the pattern stands for. */
export function ruleCouldMatch(ctx: EvalContext, list: RuleList, permission: string, path: PathPattern, leaf = false): PermissionRule | undefined {
  const memo = ruleMemo.get(ctx);
  if (!memo) return ruleCouldMatchNow(ctx, list, permission, path, leaf);
  const key = `${list}\0${permission}\0${leaf ? "leaf\0" : ""}${patternKey(path)}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const r = ruleCouldMatchNow(ctx, list, permission, path, leaf);
  memo.set(key, r ?? null);
  return r;
}

/** `leaf`: the pattern stands for files only (a blob git prints), never a folder a rule's path lies in or below. */
function ruleCouldMatchNow(ctx: EvalContext, list: RuleList, permission: string, path: PathPattern, leaf = false): PermissionRule | undefined {
  const fold = !!ctx.caseInsensitive;
  return rulesFor(ctx, list, permission).find((r) => {
    if (r.specifier === undefined) return true;
    for (const sc of specContext(ctx, r, list)) {
      for (const { base, pattern } of anchorsOf(r.specifier, sc)) {
        const segs = ruleSegs(base, pattern);
        if (patternsMeet(path, segs, fold) || (!leaf && patternsMeet(path, [...segs, ANY], fold))) return true;
      }
    }
    return false;
  });
}

/** A protected workspace path the pattern could stand for (or lie above). */
export function protectedCouldMatch(ctx: EvalContext, path: PathPattern): ProtectedPath | undefined {
  const fold = !!ctx.caseInsensitive;
  for (const root of [ctx.cwd, ...ctx.roots]) {
    for (const entry of PROTECTED_WORKSPACE_PATHS) {
      const segs = [...litSegs(root), ...litSegs(`/${entry.path}`)];
      // Writing a folder above a protected path (rm -rf .git) touches it too.
      if (patternsMeet([...path, ANY], entry.kind === "dir" ? [...segs, ANY] : segs, fold)) return entry;
    }
  }
  // The settings files that count as the user's own, where they lie in a workspace folder (red team D, session 23).
  for (const f of ctx.settingsFiles ?? []) if (patternsMeet([...path, ANY], litSegs(f), fold)) return { path: f, kind: "file", why: OWN_SETTINGS_WHY };
  // The session folder, where it lies in a workspace folder (session 24, bgprot24).
  for (const f of ctx.hostFolders ?? []) if (patternsMeet([...path, ANY], [...litSegs(f), ANY], fold)) return { path: f, kind: "dir", why: HOST_FOLDER_WHY };
  return undefined;
}

/** Could a write below the folder `region` (the folder itself included) touch a rule's or a protected path? */
export function regionPattern(abs: string): PathPattern {
  return [...litSegs(abs), ANY];
}
