/**
 * Red team A (session 17) on ext18's bounded matcher: its own generator (not bounded-glob.test.ts's),
 * weighted to what a deny rule meets — astral characters and lone surrogates, case folding of letters
 * whose upper case leaves ASCII or changes length (ſ, K, İ, ß, ﬀ, Σς), dot files and `**` at the edges,
 * brace ranges with steps, POSIX classes, escaped specials, and paths past the 16 KB bound. Every answer
 * is compared with picomatch's own matcher on the same glob and options; a deny reading (dotAll) must
 * never match less than picomatch (a missed deny is a bypass).
 */
import picomatch from "picomatch/posix";
import { describe, expect, it } from "vitest";
import { globMatcher } from "../../../src/core/glob";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = [
  "a",
  "A",
  "s",
  "S",
  "k",
  "K",
  "i",
  "I",
  "ſ",
  "\u212a",
  "İ",
  "ı",
  "ß",
  "ẞ",
  "ﬀ",
  "σ",
  "ς",
  "Σ",
  "😀",
  "\ud83d",
  "\ude00",
  "é",
  "e\u0301",
  ".",
  "-",
  "_",
  " ",
  "\n",
  "\r",
  "\\",
  "[",
  "]",
  "*",
  "?",
  "{",
  "}",
  ",",
  "!",
  "(",
  ")",
  "+",
  "@",
  "1",
  "5",
  "0",
];
const GLOB_PIECES = [
  "*",
  "**",
  "?",
  "[[:alpha:]]",
  "[[:digit:]]",
  "[[:upper:]]",
  "[^a]",
  "[!.]",
  "[a-z]",
  "[😀]",
  "{a,b}",
  "{1..9..2}",
  "{a..e}",
  "{0..10..5}",
  "\\*",
  "\\?",
  "\\[",
  "\\{",
  "@(a|s)",
  "*(a)",
  "+(k|K)",
  "?(.)",
  "!(a)",
  ".env",
  ".",
  "/",
  "ſ",
  "S",
  "K",
  "İ",
  "ß",
  "😀",
  "é",
];

function pick<T>(r: () => number, xs: T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function genGlob(r: () => number): string {
  const parts: string[] = [];
  const n = 1 + Math.floor(r() * 4);
  for (let p = 0; p < n; p++) {
    let seg = "";
    const k = 1 + Math.floor(r() * 3);
    for (let i = 0; i < k; i++) seg += pick(r, GLOB_PIECES);
    parts.push(seg);
  }
  let g = parts.join("/");
  if (r() < 0.3) g = `**/${g}`;
  if (r() < 0.1) g = `${g}/**`;
  return g;
}

function genPath(r: () => number, glob: string): string {
  // Half the paths are built from the glob's own pieces (so matches happen), half from characters.
  if (r() < 0.5) {
    return glob
      .split("/")
      .map((seg) =>
        seg === "**"
          ? Array.from({ length: Math.floor(r() * 3) }, () => pick(r, ["a", ".git", "x\ny", "😀"])).join("/")
          : seg.replace(/\*\*|\*|\?|\[[^\]]*\]\]?|\{[^}]*\}|[@*+?!]\([^)]*\)|\\(.)/g, (m, esc: string | undefined) => esc ?? pick(r, CHARS) + (r() < 0.3 ? pick(r, CHARS) : "")),
      )
      .filter((s, i, a) => s !== "" || i === a.length - 1)
      .join("/");
  }
  const n = 1 + Math.floor(r() * 4);
  return Array.from({ length: n }, () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(r, CHARS)).join("")).join("/");
}

function reference(glob: string, opts: { dot?: boolean; nocase?: boolean }, path: string): boolean {
  return picomatch(glob, { ...opts, windows: false })(path);
}

describe("the bounded matcher against picomatch (red team A's generator)", () => {
  it("never matches less than picomatch in the deny reading, and the same in the allow reading", () => {
    const r = rng(20261217);
    const narrower: string[] = [];
    const differs: string[] = [];
    let matches = 0;
    let pairs = 0;
    for (let g = 0; g < 3000; g++) {
      const glob = genGlob(r);
      for (const opts of [{}, { dot: true }, { nocase: true }, { dot: true, nocase: true }]) {
        let allow: ((p: string) => boolean) | undefined;
        let deny: ((p: string) => boolean) | undefined;
        try {
          allow = globMatcher(glob, opts);
          deny = globMatcher(glob, { ...opts, dotAll: true });
        } catch {
          continue;
        }
        for (let k = 0; k < 6; k++) {
          const path = genPath(r, glob);
          let want: boolean;
          try {
            want = reference(glob, opts, path);
          } catch {
            continue;
          }
          pairs++;
          if (want) matches++;
          if (want && deny && !deny(path)) narrower.push(`${JSON.stringify(glob)} ${JSON.stringify(opts)} ${JSON.stringify(path)}`);
          if (allow && allow(path) !== want) differs.push(`${JSON.stringify(glob)} ${JSON.stringify(opts)} ${JSON.stringify(path)} picomatch=${want}`);
        }
      }
    }
    expect(pairs).toBeGreaterThan(50_000);
    expect(matches).toBeGreaterThan(2_000);
    expect(narrower.slice(0, 10)).toEqual([]);
    expect(differs.slice(0, 10)).toEqual([]);
    // 72,000 pairs of CPU work: ~10 s on a quiet machine, 50 s at load 14 (a full run beside five builds).
  }, 240_000);
});
