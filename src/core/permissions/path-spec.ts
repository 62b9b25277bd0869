/**
 * Path specifiers of Read/Edit/Write/Glob/Grep rules, gitignore-style, as in Claude Code:
 * `//abs/path` from the file-system root, `~/path` from the home folder, `/path` relative to the
 * settings source's folder (the project root for project files), `./path` or `path` relative to the
 * workspace. A pattern without a slash (`*.pem`, `.env`) matches at any depth; a pattern naming a
 * folder also matches everything below it.
 *
 * Deny and ask rules are read the stricter way where a pattern is ambiguous (fail closed): `/path`
 * is also read as an absolute path, a relative pattern with a slash (`secrets/**`) also matches at
 * any depth (a `secrets` folder anywhere) unless it starts with `./`, and case is
 * ignored (`.ENV` is `.env` on a case-insensitive file system). Allow rules keep the narrow reading.
 */
import { globMatcher } from "../glob";
import { dirnameOf, normalizeAbs, relativeTo } from "./posix-path";
import type { RuleList } from "./types";

export interface PathSpecContext {
  cwd: string;
  home: string;
  /** The same folders with symlinks resolved, when they differ (resolved paths are matched too). */
  realCwd?: string;
  realHome?: string;
  /** The folder `/path` specifiers are relative to. */
  baseDir: string;
  list: RuleList;
}

interface Anchored {
  base: string;
  pattern: string;
}

const cache = new Map<string, (p: string) => boolean>();

/** Matches a path relative to the anchor: the pattern itself, or anything below what it names. */
export function matcher(pattern: string, nocase = false): (p: string) => boolean {
  const key = `${nocase ? "i" : "s"}:${pattern}`;
  let m = cache.get(key);
  if (!m) {
    m = boundedMatcher(pattern, nocase);
    cache.set(key, m);
  }
  return m;
}

/**
 * picomatch's reading of the pattern, matched in bounded time (src/core/glob: an extglob such as
 * `+(*a)X` in a repository's rule held the check past 20 s on a 40-character name with picomatch's
 * own expression). Regular-expression syntax the glob passes through and the bounded matcher does
 * not read (a back-reference) is read the safe way: deny and ask rules (`nocase`, the strict
 * reading) match every path below their anchor; allow rules match nothing.
 */
function boundedMatcher(pattern: string, nocase: boolean): (p: string) => boolean {
  // The strict reading also lets `**` cross names holding a line terminator (picomatch's does not).
  const a = globMatcher(pattern, { dot: true, nocase, dotAll: nocase });
  const b = globMatcher(pattern.replace(/\/+$/, "") + "/**", { dot: true, nocase, dotAll: nocase });
  if (!a || !b) return () => nocase;
  return (p: string) => (p.length > MAX_MATCHED_PATH ? nocase : a(p) || b(p));
}

/**
 * Paths longer than this are not matched but read the safe way (deny and ask rules match, allow
 * rules do not): no file is opened by such a path (Linux refuses a path past PATH_MAX, 4,096
 * bytes, in one call), and the bounded matcher's time is linear in the path — a 1 MB path took
 * about a second per `**` rule on this machine (docs/benchmarks.md, session 17 ext18).
 */
export const MAX_MATCHED_PATH = 16_384;

/** Every (base, pattern) reading of a specifier. `/path` in deny and ask rules is also read as absolute. */
export function anchorsOf(spec: string, ctx: PathSpecContext): Anchored[] {
  return readings(spec, ctx).map(climb);
}

/** `../x` from a base is `x` from the base's parent (a pattern only matches below its base). */
function climb(a: Anchored): Anchored {
  let { base, pattern } = a;
  for (;;) {
    if (pattern.startsWith("./")) pattern = pattern.slice(2);
    else if (pattern === ".." || pattern.startsWith("../")) {
      base = dirnameOf(normalizeAbs(base));
      pattern = pattern === ".." ? "**" : pattern.slice(3);
    } else break;
  }
  return { base, pattern: pattern === "" ? "**" : pattern };
}

function readings(spec: string, ctx: PathSpecContext): Anchored[] {
  if (spec.startsWith("//")) return [{ base: "/", pattern: spec.slice(2) }];
  if (spec === "~") return [{ base: ctx.home, pattern: "**" }];
  if (spec.startsWith("~/")) return [{ base: ctx.home, pattern: spec.slice(2) }];
  if (spec.startsWith("/")) {
    const relative = { base: ctx.baseDir, pattern: spec.slice(1) };
    return ctx.list === "allow" ? [relative] : [relative, { base: "/", pattern: spec.slice(1) }];
  }
  const rest = spec.startsWith("./") ? spec.slice(2) : spec;
  const body = rest.replace(/\/+$/, "");
  if (spec.startsWith("./")) return [{ base: ctx.cwd, pattern: rest }];
  if (!body.includes("/")) return [{ base: ctx.cwd, pattern: `**/${rest}` }];
  if (ctx.list === "allow" || rest.startsWith("**/") || rest.startsWith("../")) return [{ base: ctx.cwd, pattern: rest }];
  return [
    { base: ctx.cwd, pattern: rest },
    { base: ctx.cwd, pattern: `**/${rest}` },
  ];
}

/** Does the specifier match any of the absolute paths? */
export function pathSpecMatches(spec: string, paths: string[], ctx: PathSpecContext): boolean {
  const anchors = anchorsOf(spec, ctx);
  if (ctx.realCwd && ctx.realCwd !== ctx.cwd) anchors.push(...anchorsOf(spec, { ...ctx, cwd: ctx.realCwd, baseDir: ctx.baseDir === ctx.cwd ? ctx.realCwd : ctx.baseDir }));
  if (ctx.realHome && ctx.realHome !== ctx.home) anchors.push(...anchorsOf(spec, { ...ctx, home: ctx.realHome, baseDir: ctx.baseDir === ctx.home ? ctx.realHome : ctx.baseDir }));
  for (const p of paths) {
    for (const { base, pattern } of anchors) {
      const rel = relativeTo(p, normalizeAbs(base));
      if (rel === undefined) continue;
      if (rel === "" ? pattern === "**" : matcher(pattern, ctx.list !== "allow")(rel)) return true;
    }
  }
  return false;
}
