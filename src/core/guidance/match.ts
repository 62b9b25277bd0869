/**
 * Scoring: how relevant each entry is to what is happening (the user's message, the tools used,
 * what they printed, the files touched), with the reasons a person can read.
 */
import picomatch from "picomatch";
import { folderOf, isInside, normalizePath, relativePath } from "../paths";
import type { WorkspaceFs } from "../ports";
import { stripInlineFlags } from "./parse";
import type { GuidanceEntry, MatchSignals, ScoredEntry } from "./types";

/** Weights of one hit; a lesson's score is their sum times its priority. */
export const WEIGHTS = { keyword: 1, keywordInOutput: 0.5, pattern: 2, tool: 1, glob: 1.5, always: 1, folder: 1.5, pinned: 10, skillWord: 0.25, mention: 5 };
/** Only the end of a long tool output is searched (tracebacks and test summaries are at the end). */
const OUTPUT_TAIL = 20_000;

const STOP = new Set("a an and are as at be by do for from how i in is it me my of on or so that the this to use using we what when with you your can should would not fix file".split(" "));

interface Compiled {
  keywords: Array<{ text: string; re: RegExp; literal: string }>;
  patterns: Array<{ text: string; re: RegExp }>;
  globs: Array<{ text: string; test: (rel: string) => boolean }>;
  tools: Set<string>;
  words: Set<string>;
}

const cache = new WeakMap<GuidanceEntry, Compiled>();

/** gptme keywords: case-insensitive, `*` matches any run of word characters, words match whole. */
export function keywordRegex(k: string): RegExp {
  const src = k
    .trim()
    .split(/\s+/)
    .map((w) => w.split("*").map(escape).join("[\\w-]*"))
    .join("\\s+");
  const start = /^[\w*]/.test(k.trim()) ? "(?<![\\w-])" : "";
  const end = /[\w*]$/.test(k.trim()) ? "(?![\\w])" : "";
  return new RegExp(`${start}${src}${end}`, "i");
}

/** The longest piece of a keyword without wildcards, lower-case: a cheap test before the regex. */
function longestLiteral(k: string): string {
  return k
    .toLowerCase()
    .split(/\*|\s+/)
    .reduce((a, b) => (b.length > a.length ? b : a), "");
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function globTester(glob: string): (rel: string) => boolean {
  const g = glob.replace(/^\.\//, "").replace(/^\//, "");
  const m = picomatch(g, { dot: true, windows: false, basename: !g.includes("/") });
  return (rel) => m(rel);
}

function compiled(e: GuidanceEntry): Compiled {
  let c = cache.get(e);
  if (!c) {
    c = {
      keywords: e.match.keywords.filter((k) => k.trim()).map((k) => ({ text: k, re: keywordRegex(k), literal: longestLiteral(k) })),
      patterns: e.match.patterns.map((p) => ({ text: p, re: new RegExp(stripInlineFlags(p), "im") })),
      globs: e.match.globs.map((g) => ({ text: g, test: globTester(g) })),
      tools: new Set(e.match.tools.map((t) => t.toLowerCase())),
      words: new Set(
        `${e.name} ${e.description ?? ""}`
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .filter((w) => w.length > 2 && !STOP.has(w)),
      ),
    };
    cache.set(e, c);
  }
  return c;
}

/** A touched file relative to its workspace folder (what globs are written against). */
export function relForGlob(fs: WorkspaceFs | undefined, abs: string): string {
  const n = normalizePath(abs);
  const folder = fs ? folderOf(fs, n) : undefined;
  return folder ? relativePath(normalizePath(folder.root), n) : n.replace(/^\//, "");
}

export interface ScoreContext {
  fs?: WorkspaceFs;
  /** Tool names and their aliases (permission and hook names), lower-case: a lesson may name either. */
  toolAliases?: (name: string) => string[];
}

/** Signals prepared once per ranking (not per entry). */
interface Prepared {
  message: string;
  lowerMessage: string;
  outputs: string[];
  lowerOutputs: string[];
  files: Array<{ abs: string; rel: string }>;
  tools: Array<{ name: string; names: string[] }>;
  words: Set<string>;
  mentions: Set<string>;
}

function prepare(s: MatchSignals, ctx: ScoreContext): Prepared {
  const message = s.message ?? "";
  const outputs = (s.outputs ?? []).map((o) => (o.length > OUTPUT_TAIL ? o.slice(-OUTPUT_TAIL) : o));
  return {
    message,
    lowerMessage: message.toLowerCase(),
    outputs,
    lowerOutputs: outputs.map((o) => o.toLowerCase()),
    files: (s.files ?? []).map((f) => ({ abs: normalizePath(f), rel: relForGlob(ctx.fs, f) })),
    tools: [...new Set(s.tools ?? [])].map((t) => ({ name: t, names: [t.toLowerCase(), ...(ctx.toolAliases?.(t) ?? [])] })),
    words: new Set(message.toLowerCase().split(/[^\p{L}\p{N}]+/u)),
    mentions: new Set([...message.matchAll(/(?:^|\s)@([\w.-]+)/g)].map((m) => m[1]!.toLowerCase())),
  };
}

/** The entry's score (0: not relevant) and why. */
export function scoreEntry(e: GuidanceEntry, s: MatchSignals, ctx: ScoreContext = {}): ScoredEntry {
  return score(e, prepare(s, ctx));
}

function score(e: GuidanceEntry, p: Prepared): ScoredEntry {
  const c = compiled(e);
  const reasons: string[] = [];
  let score = 0;
  const { message, outputs, files } = p;
  const globHits = () => {
    for (const g of c.globs) {
      const hit = files.find((f) => g.test(f.rel));
      if (hit) {
        score += WEIGHTS.glob;
        reasons.push(`glob ${g.text} (${hit.rel})`);
      }
    }
  };
  switch (e.kind) {
    case "lesson": {
      if (e.status !== "active") break;
      for (const k of c.keywords) {
        if (message && p.lowerMessage.includes(k.literal) && k.re.test(message)) {
          score += WEIGHTS.keyword;
          reasons.push(`keyword "${k.text}"`);
        } else if (outputs.some((o, i) => p.lowerOutputs[i]!.includes(k.literal) && k.re.test(o))) {
          score += WEIGHTS.keywordInOutput;
          reasons.push(`keyword "${k.text}" in tool output`);
        }
      }
      for (const pat of c.patterns) {
        if (message && pat.re.test(message)) {
          score += WEIGHTS.pattern;
          reasons.push(`pattern /${pat.text}/`);
        } else if (outputs.some((o) => pat.re.test(o))) {
          score += WEIGHTS.pattern;
          reasons.push(`pattern /${pat.text}/ in tool output`);
        }
      }
      // A tool used is a trigger only for a lesson that names nothing else: one that also has
      // keywords, patterns or globs fires on their evidence, and the tool then adds to its score
      // (a lesson on Python tracebacks is not sent because some command ran).
      globHits();
      const narrowed = c.keywords.length > 0 || c.patterns.length > 0 || c.globs.length > 0;
      if (c.tools.size && (!narrowed || score > 0)) {
        for (const t of p.tools) {
          if (t.names.some((n) => c.tools.has(n))) {
            score += WEIGHTS.tool;
            reasons.push(`tool ${t.name}`);
          }
        }
      }
      score *= e.priority;
      break;
    }
    case "rule":
      if (e.activation === "always") {
        score = WEIGHTS.always;
        reasons.push("always");
      } else if (e.activation === "glob") globHits();
      break;
    case "memory":
      if (e.activation === "always") {
        score = WEIGHTS.always;
        reasons.push("always");
      } else if (e.dir) {
        const dir = normalizePath(e.dir);
        const hit = files.find((f) => isInside(dir, f.abs) && f.abs !== dir);
        if (hit) {
          score = WEIGHTS.folder;
          reasons.push(`file ${hit.rel} in its folder`);
        }
      }
      break;
    case "skill": {
      if (c.globs.length) globHits();
      if (message && c.words.size) {
        const hits = [...c.words].filter((w) => p.words.has(w));
        if (hits.length) {
          score += WEIGHTS.skillWord * hits.length;
          reasons.push(
            `words ${hits
              .slice(0, 5)
              .map((w) => `"${w}"`)
              .join(", ")}`,
          );
        }
      }
      break;
    }
  }
  if (e.kind !== "memory" && p.mentions.has(e.name.toLowerCase())) {
    score += WEIGHTS.mention;
    reasons.push(`named @${e.name}`);
  }
  return { entry: e, score: Math.round(score * 100) / 100, reasons };
}

const KIND_ORDER = { memory: 0, rule: 1, lesson: 2, skill: 3 } as const;

/** Entries with a score above 0, best first (ties: higher priority, then memory, rules, lessons, skills, then name). */
export function rank(entries: readonly GuidanceEntry[], s: MatchSignals, ctx: ScoreContext = {}): ScoredEntry[] {
  const p = prepare(s, ctx);
  return entries
    .map((e) => score(e, p))
    .filter((x) => x.score > 0)
    .sort(
      (a, b) =>
        b.score - a.score || b.entry.priority - a.entry.priority || KIND_ORDER[a.entry.kind] - KIND_ORDER[b.entry.kind] || (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0),
    );
}

/** Rough token count of a text (4 characters a token), for budgets. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
