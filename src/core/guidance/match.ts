/**
 * Scoring: how relevant each entry is to what is happening (the user's message, the tools used,
 * what they printed, the files touched), with the reasons a person can read.
 */
import { stemmer } from "stemmer";
import { folderOf, isInside, joinPath, normalizePath, relativePath } from "../paths";
import type { WorkspaceFs } from "../ports";
import { globTester as parsedGlobTester, stripInlineFlags } from "./parse";
import type { GuidanceEntry, MatchSignals, ScoredEntry } from "./types";

/** Weights of one hit; a lesson's score is their sum times its priority. */
export const WEIGHTS = { keyword: 1, keywordInOutput: 0.5, pattern: 2, tool: 1, glob: 1.5, always: 1, folder: 1.5, pinned: 10, skillWord: 0.25, mention: 5 };
/** Only the end of a long tool output is searched (tracebacks and test summaries are at the end). */
const OUTPUT_TAIL = 20_000;

/** Words that say nothing about a task (English function words and the words every request or description has). */
const STOP = new Set(
  (
    "a about after all also an and any are as at be been before being but by can could do does doing done for from get had has have how i if in into is it its " +
    "just let like make me more most my need needs no not of on one or other our out over please so some such than that the their them then there these " +
    "they this those through to too up us use used uses using want was we were what when where which while who why will with would you your " +
    "should fix file files work working help claude skill skills task tasks thing things new create creating"
  ).split(" "),
);

/**
 * A word as the matcher compares it: lower-case, stemmed (Porter: "spreadsheets" and
 * "spreadsheet", "formulas" and "formula", "creating" and "create" are one word).
 */
export function termOf(word: string): string {
  const w = word.toLowerCase();
  return /^[a-z]+$/.test(w) ? stemmer(w) : w;
}

/** The terms of a text: words of at least two letters, stop words left out, stemmed, each once. */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (w.length < 2 || STOP.has(w)) continue;
    out.add(termOf(w));
    // A file extension or format name is a term too (.xlsx → xlsx) — and so are its known aliases.
    for (const alias of ALIASES[w] ?? []) out.add(termOf(alias));
  }
  return out;
}

/**
 * What people call a file format, and the name tools give it: a request says "Excel" or "Word
 * document", a skill says ".xlsx" or "docx". A short, fixed list of formats (not synonyms of
 * ordinary words: those come from the descriptions themselves).
 */
const ALIASES: Record<string, string[]> = {
  excel: ["xlsx", "spreadsheet"],
  xls: ["xlsx"],
  word: ["docx"],
  doc: ["docx"],
  powerpoint: ["pptx", "presentation"],
  ppt: ["pptx"],
  slides: ["pptx", "presentation"],
  slide: ["pptx", "presentation"],
  deck: ["pptx", "presentation"],
  gif: ["gif", "animation"],
  acrobat: ["pdf"],
};

interface Compiled {
  keywords: Array<{ text: string; re: RegExp; literal: string; stem?: string }>;
  patterns: Array<{ text: string; re: RegExp }>;
  globs: Array<{ text: string; test: (rel: string) => boolean }>;
  tools: Set<string>;
  /** The terms of the name and description (made when first asked: only skills' scores and ties among scored entries read them). */
  readonly words: Set<string>;
  readonly nameTerms: Set<string>;
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

/** A guidance glob's matcher (bounded time; one parse.ts cannot match was reported there and matches nothing). */
export function globTester(glob: string): (rel: string) => boolean {
  let m: ((rel: string) => boolean) | undefined;
  try {
    m = parsedGlobTester(glob);
  } catch {
    m = undefined;
  }
  return m ?? (() => false);
}

function compiled(e: GuidanceEntry): Compiled {
  let c = cache.get(e);
  if (!c) {
    // Stemming every entry's name and description cost ~1.5 ms of a session's start-up for
    // lessons whose score never reads them (docs/benchmarks.md, "Session 20: start20").
    let words: Set<string> | undefined;
    let nameTerms: Set<string> | undefined;
    c = {
      keywords: e.match.keywords
        .filter((k) => k.trim())
        .map((k) => ({ text: k, re: keywordRegex(k), literal: longestLiteral(k), ...(/^[a-z]{3,}$/i.test(k.trim()) && !STOP.has(k.trim().toLowerCase()) ? { stem: termOf(k.trim()) } : {}) })),
      patterns: e.match.patterns.map((p) => ({ text: p, re: new RegExp(stripInlineFlags(p), "im") })),
      globs: e.match.globs.map((g) => ({ text: g, test: globTester(g) })),
      tools: new Set(e.match.tools.map((t) => t.toLowerCase())),
      get words() {
        return (words ??= termsOf(`${e.name.replace(/[-_]+/g, " ")} ${e.name} ${e.description ?? ""}`));
      },
      get nameTerms() {
        return (nameTerms ??= termsOf(e.name.replace(/[-_]+/g, " ")));
      },
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
  /** How rare each term is among the entries being ranked (inverse document frequency); absent: every term weighs 1. */
  idf?: (term: string) => number;
  mentions: Set<string>;
}

function prepare(s: MatchSignals, ctx: ScoreContext, entries?: readonly GuidanceEntry[]): Prepared {
  const message = s.message ?? "";
  const outputs = (s.outputs ?? []).map((o) => (o.length > OUTPUT_TAIL ? o.slice(-OUTPUT_TAIL) : o));
  return {
    message,
    lowerMessage: message.toLowerCase(),
    outputs,
    lowerOutputs: outputs.map((o) => o.toLowerCase()),
    files: (s.files ?? []).map((f) => ({ abs: normalizePath(f), rel: relForGlob(ctx.fs, f) })),
    tools: [...new Set(s.tools ?? [])].map((t) => ({ name: t, names: [t.toLowerCase(), ...(ctx.toolAliases?.(t) ?? [])] })),
    words: termsOf(message),
    ...(entries ? { idf: idfOf(entries) } : {}),
    // `@name`, without the sentence's punctuation after it ("follow @release-checklist.").
    // `:` inside a name: a plugin's skill is `@PLUGIN:NAME`.
    mentions: new Set([...message.matchAll(/(?:^|[\s(])@([\w.:-]*\w)/g)].map((m) => m[1]!.toLowerCase())),
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
  // A nested rule folder's globs are relative to its project, and it applies only under it.
  const scoped = e.kind === "rule" && e.dir ? normalizePath(e.dir) : undefined;
  // A rule above a workspace folder opened through a link sees that folder's files by their real paths.
  const seen = e.linked ? files.map((f) => ({ ...f, abs: realOf(e.linked!, f.abs) })) : files;
  const globFiles = scoped ? seen.filter((f) => isInside(scoped, f.abs) && f.abs !== scoped).map((f) => ({ ...f, rel: relativePath(scoped, f.abs) })) : files;
  const globHits = () => {
    for (const g of c.globs) {
      const hit = globFiles.find((f) => g.test(f.rel));
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
        } else if (message && k.stem && p.words.has(k.stem)) {
          // A plain one-word keyword matches the word's other forms too ("migration" in "migrations").
          score += WEIGHTS.keyword;
          reasons.push(`keyword "${k.text}" (a form of it)`);
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
          // Each term the request shares with the skill's name and description, rarer terms more (a
          // term every skill has says little); a term of the name counts double.
          const weight = hits.reduce((sum, w) => sum + (p.idf?.(w) ?? 1) * (c.nameTerms.has(w) ? 2 : 1), 0);
          score += WEIGHTS.skillWord * weight;
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

/** `abs` under the linked folder's real path when it is under the folder as configured. */
function realOf(linked: { root: string; real: string }, abs: string): string {
  const root = normalizePath(linked.root);
  if (abs === root) return normalizePath(linked.real);
  return isInside(root, abs) ? joinPath(normalizePath(linked.real), relativePath(root, abs)) : abs;
}

const KIND_ORDER = { memory: 0, rule: 1, lesson: 2, skill: 3 } as const;

/**
 * Entries with a score above 0, best first. Ties: higher priority; then memory, rules, lessons,
 * skills; then the entry more of whose own terms the request used (the more specific one); then
 * the order they were loaded in — never the name.
 */
export function rank(entries: readonly GuidanceEntry[], s: MatchSignals, ctx: ScoreContext = {}): ScoredEntry[] {
  const p = prepare(s, ctx, entries);
  const coverage = (e: GuidanceEntry) => {
    const w = compiled(e).words;
    if (!w.size) return 0;
    let n = 0;
    for (const t of w) if (p.words.has(t)) n++;
    return n / w.size;
  };
  return entries
    .map((e, i) => ({ s: score(e, p), i }))
    .filter((x) => x.s.score > 0)
    .sort(
      (a, b) => b.s.score - a.s.score || b.s.entry.priority - a.s.entry.priority || KIND_ORDER[a.s.entry.kind] - KIND_ORDER[b.s.entry.kind] || coverage(b.s.entry) - coverage(a.s.entry) || a.i - b.i,
    )
    .map((x) => x.s);
}

const idfCache = new WeakMap<readonly GuidanceEntry[], (term: string) => number>();

/** Inverse document frequency of each term among the skills' names and descriptions: ln(1 + N / df). */
function idfOf(entries: readonly GuidanceEntry[]): (term: string) => number {
  let f = idfCache.get(entries);
  if (!f) {
    const skills = entries.filter((e) => e.kind === "skill");
    const df = new Map<string, number>();
    for (const e of skills) for (const t of compiled(e).words) df.set(t, (df.get(t) ?? 0) + 1);
    const n = Math.max(1, skills.length);
    f = (t) => Math.log(1 + n / (df.get(t) ?? 1));
    idfCache.set(entries, f);
  }
  return f;
}

/** Rough token count of a text (4 characters a token), for budgets. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
