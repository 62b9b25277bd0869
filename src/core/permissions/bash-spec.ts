/**
 * Bash rule specifiers, as Claude Code documents them: `*` matches any sequence of characters
 * (spaces included) anywhere in the command; a trailing ` *` also matches nothing, so
 * `Bash(ls *)` matches `ls` and `ls -la` but not `lsof`, while `Bash(ls*)` matches all three; the
 * legacy suffix `:*` is the same as a trailing ` *` (`Bash(npm run test:*)` = `Bash(npm run test *)`,
 * `Bash(rm -rf /*:*)` = `Bash(rm -rf /* *)`); without `*` the rule is exact. Quotes in a specifier
 * group words (`Bash(git commit -m "fix bug")`), `\*` is a literal star.
 *
 * Matched against the words of one simple command after quote removal, never against the raw
 * command text: a rule never spans `&&`, `;` or `|`.
 */
import type { Word } from "./shell/words";

export type SpecMatch = "yes" | "maybe" | "no";

/** A compiled specifier: characters, `null` for `*`; spaces between words are " ", spaces inside a word U+0000. */
interface Spec {
  any: boolean;
  tokens: Array<string | null>;
  /** Ends with ` *`: the tail (a space and anything) may be absent. */
  optionalTail: boolean;
  re: RegExp;
  /** Words before the first `*`, as written (for wrapper and option coverage). */
  literal: string[];
}

const cache = new Map<string, Spec>();
const INNER_SPACE = "\u0000";
const ANY: Spec = { any: true, tokens: [], optionalTail: false, re: /^/, literal: [] };

export function compileBashSpec(spec: string | undefined): Spec {
  if (spec === undefined || spec.trim() === "*") return ANY;
  let s = cache.get(spec);
  if (s) return s;
  let text = spec.trim();
  if (text.endsWith(":*") && !text.endsWith("\\:*")) text = `${text.slice(0, -2)} *`;
  const tokens: Array<string | null> = [];
  const literal: string[] = [];
  let word = "";
  let wordHasStar = false;
  let starSeen = false;
  const endWord = () => {
    if (!starSeen && !wordHasStar && word !== "") literal.push(word);
    if (wordHasStar) starSeen = true;
    word = "";
    wordHasStar = false;
  };
  let pendingSep = false;
  const push = (t: string | null) => {
    if (pendingSep && tokens.length) tokens.push(" ");
    pendingSep = false;
    tokens.push(t);
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      const body = end < 0 ? text.slice(i + 1) : text.slice(i + 1, end);
      for (const ch of body) push(ch === " " ? INNER_SPACE : ch);
      if (body === "") push("");
      word += body;
      i = end < 0 ? text.length : end;
    } else if (c === '"') {
      let j = i + 1;
      let body = "";
      for (; j < text.length && text[j] !== '"'; j++) body += text[j] === "\\" && /["\\$`]/.test(text[j + 1] ?? "") ? text[++j] : text[j];
      for (const ch of body) push(ch === " " ? INNER_SPACE : ch);
      if (body === "") push("");
      word += body;
      i = j;
    } else if (c === "\\" && i + 1 < text.length) {
      const ch = text[++i]!;
      push(ch === " " ? INNER_SPACE : ch);
      word += ch;
    } else if (/\s/.test(c)) {
      if (tokens.length) pendingSep = true;
      endWord();
    } else if (c === "*") {
      push(null);
      wordHasStar = true;
    } else {
      push(c);
      word += c;
    }
  }
  endWord();
  // Drop the empty-string markers of "" words (they only separate).
  const clean = tokens.filter((t) => t !== "");
  let optionalTail = false;
  if (clean.length >= 2 && clean[clean.length - 1] === null && clean[clean.length - 2] === " ") {
    clean.splice(-2, 2);
    optionalTail = true;
  }
  const body = clean.map((t) => (t === null ? "[\\s\\S]*" : t.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"))).join("");
  s = { any: false, tokens: clean, optionalTail, re: new RegExp(`^${body}${optionalTail ? "(?: [\\s\\S]*)?" : ""}$`), literal };
  cache.set(spec, s);
  return s;
}

/** The words of a specifier before its first `*` (`git commit -m *` → git, commit, -m). */
export function specLiteralWords(spec: string | undefined): string[] {
  return compileBashSpec(spec).literal;
}

/** A stand-in for a word only known at run time: no literal of a specifier contains it, only `*` matches it. */
const UNKNOWN = "\u0001";
const subjects = new WeakMap<Word[], string>();
const subject = (words: Word[]) => {
  let s = subjects.get(words);
  if (s === undefined) subjects.set(words, (s = words.map((w) => (w.dynamic ? UNKNOWN : w.value.replaceAll(" ", INNER_SPACE))).join(" ")));
  return s;
};

/** Some word only known at run time or a pattern (per array: a part's views are matched against every rule). */
const uncertainWords = new WeakMap<Word[], boolean>();
function hasUncertain(words: Word[]): boolean {
  let u = uncertainWords.get(words);
  if (u === undefined) uncertainWords.set(words, (u = words.some((w) => w.dynamic || w.glob)));
  return u;
}

/**
 * Does the specifier match the command words? "yes" also when a word only known at run time lies
 * where the specifier has a `*` (`rm -rf $f` under `rm -rf *`); "maybe" when it could match,
 * depending on such a word elsewhere (`git $SUB`), a pattern the shell expands (`rm -rf /*`) or
 * arguments added at run time (xargs).
 */
export function matchBashSpec(spec: string | undefined, words: Word[], extraArgs = false): SpecMatch {
  const s = compileBashSpec(spec);
  if (s.any) return "yes";
  const uncertain = extraArgs || hasUncertain(words);
  // Words only known at run time match when a `*` of the specifier covers them whatever they are.
  if (s.re.test(subject(words))) return "yes";
  if (!uncertain) return "no";
  return couldMatch(s, words, extraArgs) ? "maybe" : "no";
}

/** Is there a command the words could become that the specifier matches? */
/** A command's words as pattern tokens (cached per words array: every rule looks at the same views). */
const cmdTokens = new WeakMap<Word[], Array<string | null>>();
function tokensOf(words: Word[]): Array<string | null> {
  let cmd = cmdTokens.get(words);
  if (cmd) return cmd;
  cmd = [];
  const out = cmd;
  words.forEach((w, i) => {
    if (i > 0) out.push(" ");
    if (w.dynamic) out.push(null);
    else if (w.glob) for (const t of patternTokens(w.pattern ?? w.value)) out.push(t);
    else for (const ch of w.value) out.push(ch === " " ? INNER_SPACE : ch);
  });
  cmdTokens.set(words, cmd);
  return cmd;
}

function couldMatch(s: Spec, words: Word[], extraArgs: boolean): boolean {
  const cmd = tokensOf(words);
  const specs = s.optionalTail ? [s.tokens, [...s.tokens, " ", null]] : [s.tokens];
  const cmds = extraArgs ? [cmd, [...cmd, " ", null]] : [cmd];
  for (const a of specs) for (const b of cmds) if (endsAgree(a, b) && intersect(a, b)) return true;
  return false;
}

/**
 * A necessary condition for two patterns to share a string, in time of their literal ends: up to
 * the first wildcard of either, their first characters are the same, and so are their last ones
 * back to the last wildcard of either. Most rules fail it at the first character (`rm *` against
 * `xargs …`), which spares the quadratic `intersect` (red team's 2,000-deep xargs chain: seconds).
 */
export function endsAgree(a: ReadonlyArray<string | null>, b: ReadonlyArray<string | null>): boolean {
  for (let i = 0; ; i++) {
    const x = a[i];
    const y = b[i];
    if (x === null || y === null) break;
    if (x === undefined || y === undefined) return x === y;
    if (x !== y) return false;
  }
  for (let i = a.length - 1, j = b.length - 1; ; i--, j--) {
    const x = i >= 0 ? a[i] : undefined;
    const y = j >= 0 ? b[j] : undefined;
    if (x === null || y === null) return true;
    if (x === undefined || y === undefined) return x === y;
    if (x !== y) return false;
  }
}

/** A glob word as tokens: `*`, `?`, `[...]` and brace groups become `*` (an over-approximation). */
function patternTokens(p: string): Array<string | null> {
  const out: Array<string | null> = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === "\\" && i + 1 < p.length) out.push(p[++i] === " " ? INNER_SPACE : p[i]!);
    else if (c === "*" || c === "?" || c === "[" || c === "{" || c === "]" || c === "}" || c === ",") {
      if (out[out.length - 1] !== null) out.push(null);
    } else out.push(c === " " ? INNER_SPACE : c);
  }
  return out;
}

/** Do two star patterns (null = any sequence) have a string in common? O(n·m). */
export function intersect(a: Array<string | null>, b: Array<string | null>): boolean {
  const n = a.length;
  const m = b.length;
  if ((n + 1) * (m + 1) > 4_000_000) return true;
  const width = m + 1;
  const f = new Uint8Array((n + 1) * width);
  f[n * width + m] = 1;
  for (let i = n; i >= 0; i--) {
    for (let j = m; j >= 0; j--) {
      if (i === n && j === m) continue;
      const x = i < n ? a[i] : undefined;
      const y = j < m ? b[j] : undefined;
      let v = 0;
      if (x === null) v = f[(i + 1) * width + j]! || (j < m ? f[i * width + j + 1]! : 0);
      else if (y === null) v = f[i * width + j + 1]! || (i < n ? f[(i + 1) * width + j]! : 0);
      else if (x !== undefined && y !== undefined) v = x === y ? f[(i + 1) * width + j + 1]! : 0;
      f[i * width + j] = v;
    }
  }
  return f[0] === 1;
}

/** Splits a specifier into words, honouring quotes and backslashes like the shell. */
export function tokenize(text: string, keepEmpty = false): string[] {
  const out: string[] = [];
  let cur = "";
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      cur += end < 0 ? text.slice(i + 1) : text.slice(i + 1, end);
      i = end < 0 ? text.length : end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) cur += text[j] === "\\" && /["\\$`]/.test(text[j + 1] ?? "") ? text[++j] : text[j];
      i = j;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      cur += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = "";
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord || (keepEmpty && out.length === 0)) out.push(cur);
  return out;
}
