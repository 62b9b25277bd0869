/**
 * Bash rule specifiers: `npm run test:*` (prefix, word boundary), `git status` (exact), and `*`
 * wildcards (`git * main`; a trailing ` *` is the prefix form). Matched against the words of one
 * simple command after quote removal, never against the raw command text.
 */
import type { Word } from "./shell/words";

export type SpecMatch = "yes" | "maybe" | "no";

type Spec = { kind: "any" } | { kind: "prefix"; words: string[] } | { kind: "exact"; words: string[] } | { kind: "wildcard"; re: RegExp; first: string };

const cache = new Map<string, Spec>();

export function compileBashSpec(spec: string | undefined): Spec {
  if (spec === undefined || spec === "*") return { kind: "any" };
  let s = cache.get(spec);
  if (s) return s;
  if (spec.endsWith(":*")) s = { kind: "prefix", words: tokenize(spec.slice(0, -2)) };
  else if (/ \*$/.test(spec) && !spec.slice(0, -2).includes("*")) s = { kind: "prefix", words: tokenize(spec.slice(0, -2)) };
  else if (spec.includes("*")) {
    const pieces = spec.replace(/\s+/g, " ").split("*").map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
    s = { kind: "wildcard", re: new RegExp(`^${pieces.join(".*")}$`, "s"), first: tokenize(spec)[0] ?? "" };
  } else s = { kind: "exact", words: tokenize(spec) };
  cache.set(spec, s);
  return s;
}

/**
 * Does the specifier match the command words? "maybe" when it could, depending on a word only
 * known at run time (`git $SUB`) or on arguments added at run time (xargs).
 */
export function matchBashSpec(spec: string | undefined, words: Word[], extraArgs = false): SpecMatch {
  const s = compileBashSpec(spec);
  if (s.kind === "any") return "yes";
  if (s.kind === "wildcard") {
    if (s.re.test(words.map((w) => w.value).join(" "))) return "yes";
    const first = words[0];
    if ((words.some((w) => w.dynamic) || extraArgs) && first && (first.value === s.first || s.first.includes("*"))) return "maybe";
    return "no";
  }
  let uncertain = false;
  for (let i = 0; i < s.words.length; i++) {
    const w = words[i];
    if (!w) {
      if (extraArgs) uncertain = true;
      else return "no";
      break;
    }
    if (w.dynamic) uncertain = true;
    else if (w.value !== s.words[i]) return "no";
  }
  if (s.kind === "exact" && words.length > s.words.length) return "no";
  if (s.kind === "exact" && extraArgs) uncertain = true;
  return uncertain ? "maybe" : "yes";
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
