/**
 * What a hook's command line names, read with the gate's shell parser (tree-sitter-bash through
 * src/core/permissions/shell: the same walk that decides what an agent's command runs), so that
 * quoting, `bash -c '…'`, `cd DIR && ./x`, environment prefixes and redirections are read as bash
 * reads them. Each word's value is then computed as bash would expand it with the hook's
 * environment — quotes and escapes removed, `~` and `$HOME`, `$VAR`, `${VAR}` of that environment
 * substituted — or marked unknown when bash's result depends on something else (a command
 * substitution, a variable the line itself assigns, word splitting or a glob). An unknown word names
 * nothing: the sandbox keeps nothing readable for it. test/unit/hooks/hook-words.test.ts compares
 * the values with real bash's (`printf '%s\0' WORDS`) on randomized words.
 */
import type { Parser } from "web-tree-sitter";
import { analyseCommand } from "../core/permissions/shell/extract";
import { initShellParser } from "../core/permissions/shell/parser";
import type { CommandPart, Word } from "../core/permissions/shell/types";
import { loadShellWasm } from "./tree-sitter-wasm";
import { isAbsolute, resolve } from "node:path";

/** A word's value after bash's expansions: the text, no word at all (an unquoted empty expansion), or unknown. */
export type WordValue = { value: string } | { none: true } | { unknown: string };

/** Variables bash sets itself, or that change as the line runs: their value is not the environment's. */
const SHELL_VARS = new Set(["PWD", "OLDPWD", "RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "SHLVL", "REPLY", "PPID", "UID", "EUID", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "IFS", "_"]);

export interface WordEnv {
  env: Record<string, string | undefined>;
  /** Names the command line assigns somewhere (`d=…`, `read d`, `for d in`): their value is unknown. */
  assigned?: ReadonlySet<string>;
}

const IFS_OR_GLOB = /[ \t\n*?[]/;

/**
 * The value bash gives one word (its source text, as the parser delimited it), or why it cannot be
 * known.
 */
export function expandWord(raw: string, env: WordEnv): WordValue {
  let out = "";
  let quoted = false;
  let i = 0;
  const unknown = (why: string): WordValue => ({ unknown: why });
  // Tilde: an unquoted `~` alone or before `/` at the start is $HOME; `~user`, `~+`, `~-` are not known here.
  if (raw.startsWith("~")) {
    const end = raw.indexOf("/");
    const prefix = raw.slice(1, end < 0 ? undefined : end);
    if (prefix === "") {
      const home = env.env.HOME;
      if (home === undefined) return unknown("~ without HOME");
      out = home;
      quoted = true;
      i = 1;
    } else if (!/['"\\$`]/.test(prefix)) return unknown(`~${prefix}`);
  }
  const variable = (name: string, inQuotes: boolean): string | WordValue => {
    if (SHELL_VARS.has(name) || env.assigned?.has(name)) return unknown(`$${name}`);
    const v = env.env[name] ?? "";
    if (!inQuotes && IFS_OR_GLOB.test(v)) return unknown(`$${name} is split or globbed`);
    return v;
  };
  /** `$…` at raw[i] (raw[i] === "$"): the text it gives and where it ends, or unknown. */
  const dollar = (inQuotes: boolean): { text: string; next: number } | WordValue => {
    const n = raw[i + 1];
    if (n === "{") {
      const close = raw.indexOf("}", i + 2);
      const name = close < 0 ? "" : raw.slice(i + 2, close);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return unknown("${…}");
      const v = variable(name, inQuotes);
      return typeof v === "string" ? { text: v, next: close + 1 } : v;
    }
    if (n !== undefined && /[A-Za-z_]/.test(n)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(raw.slice(i + 1))![0];
      const v = variable(m, inQuotes);
      return typeof v === "string" ? { text: v, next: i + 1 + m.length } : v;
    }
    if (n !== undefined && /[0-9@*#?$!(\-[]/.test(n)) return unknown(`$${n}`);
    if (inQuotes && n === '"') return { text: "$", next: i + 1 };
    return { text: "$", next: i + 1 };
  };
  while (i < raw.length) {
    const c = raw[i]!;
    if (c === "\\") {
      if (raw[i + 1] === "\n") i += 2;
      else if (i + 1 < raw.length) {
        out += raw[i + 1];
        quoted = true;
        i += 2;
      } else {
        out += "\\";
        i++;
      }
    } else if (c === "'") {
      const close = raw.indexOf("'", i + 1);
      if (close < 0) return unknown("unterminated '");
      out += raw.slice(i + 1, close);
      quoted = true;
      i = close + 1;
    } else if (c === "$" && raw[i + 1] === "'") {
      const r = ansiC(raw, i + 2);
      if (!r) return unknown("$'…'");
      out += r.text;
      quoted = true;
      i = r.next;
    } else if (c === '"' || (c === "$" && raw[i + 1] === '"')) {
      i += c === "$" ? 2 : 1;
      quoted = true;
      for (;;) {
        if (i >= raw.length) return unknown('unterminated "');
        const d = raw[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d === "\\") {
          const e = raw[i + 1];
          if (e === "\n") i += 2;
          else if (e !== undefined && /[$`"\\]/.test(e)) {
            out += e;
            i += 2;
          } else {
            out += "\\";
            i++;
          }
        } else if (d === "`") return unknown("`…`");
        else if (d === "$") {
          const r = dollar(true);
          if (!("text" in r)) return r;
          out += r.text;
          i = r.next;
        } else {
          out += d;
          i++;
        }
      }
    } else if (c === "$") {
      const r = dollar(false);
      if (!("text" in r)) return r;
      out += r.text;
      i = r.next;
    } else if (c === "`") return unknown("`…`");
    else if (c === "*" || c === "?" || c === "[") return unknown("a glob");
    else if (c === "{" && raw.indexOf("}", i) > i) return unknown("a brace expansion");
    else {
      out += c;
      i++;
    }
  }
  if (out === "" && !quoted) return { none: true };
  return { value: out };
}

const ANSI: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "?": "?" };

/** The text of `$'…'` starting after `$'`, or undefined for escapes not decoded here (\u, \c, octal, hex). */
function ansiC(raw: string, start: number): { text: string; next: number } | undefined {
  let text = "";
  for (let i = start; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "'") return { text, next: i + 1 };
    if (c !== "\\") {
      text += c;
      continue;
    }
    const n = raw[++i];
    if (n === undefined || !(n in ANSI)) return undefined;
    text += ANSI[n];
  }
  return undefined;
}

/** The names a command line (and the strings it runs) may assign: their values are not the environment's. */
export function assignedNames(line: string): Set<string> {
  const out = new Set<string>();
  for (const m of line.matchAll(/([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/g)) out.add(m[1]!);
  for (const m of line.matchAll(/\b(?:for|select)\s+([A-Za-z_][A-Za-z0-9_]*)/g)) out.add(m[1]!);
  // read, mapfile, getopts, unset: every identifier after them may be a name they set; printf -v, wait -p: the one after.
  for (const m of line.matchAll(/\b(?:read|readarray|mapfile|getopts|unset)\b([^;&|\n]*)/g)) for (const n of m[1]!.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) out.add(n[0]);
  for (const m of line.matchAll(/\b(?:printf|wait)\s+-[vp]\s*([A-Za-z_][A-Za-z0-9_]*)/g)) out.add(m[1]!);
  return out;
}

/** A path a hook's command line names: absolute, after bash's expansions; `written` when it is a redirection's target or a file given to `tee`. */
export interface NamedPath {
  path: string;
  written: boolean;
}

export interface HookLine {
  paths: NamedPath[];
  /** Words whose value could not be known (so name nothing), with why: for reports. */
  unknown: string[];
}

/**
 * The absolute paths a hook's shell command line names, read with the gate's parser: every word
 * of every simple command (also inside `bash -c '…'`, `$(…)`, after `env`/`timeout`…), the values
 * of environment prefixes and assignments, redirection targets; a relative word counts in every
 * folder the command may run in (`cd ~/.claude/hooks && ./run.sh`).
 */
export function hookLinePaths(parser: Parser, line: string, opts: { env: Record<string, string | undefined>; cwd: string; home: string }): HookLine {
  const assigned = assignedNames(line);
  const wenv: WordEnv = { env: opts.env, assigned };
  const paths = new Map<string, boolean>();
  const unknown: string[] = [];
  const analysis = analyseCommand(parser, line, { cwd: [opts.cwd], home: opts.home });
  const broken = brokenLine(analysis.problems);
  if (broken) return { paths: [], unknown: [`the line (${broken})`] };
  const add = (w: Word | string, written: boolean, cwds: readonly string[] | null) => {
    const raw = typeof w === "string" ? w : w.raw;
    const v = expandWord(raw, wenv);
    if ("unknown" in v) {
      unknown.push(`${raw} (${v.unknown})`);
      return;
    }
    if ("none" in v || v.value === "" || (!isAbsolute(v.value) && v.value.startsWith("-"))) return;
    const list = isAbsolute(v.value) ? [resolve(v.value)] : (cwds ?? []).map((d) => resolve(d, v.value));
    for (const p of list) paths.set(p, (paths.get(p) ?? false) || written);
  };
  for (const part of analysis.parts) {
    const cwds = part.cwd;
    if (!wordsAsBash(part)) {
      unknown.push(`${part.text} (words split otherwise than bash)`);
      continue;
    }
    const seen = new Set<Word>();
    for (const view of part.views)
      for (const w of view.words)
        if (!seen.has(w)) {
          seen.add(w);
          add(w, false, cwds);
        }
    for (const a of part.assignments) add(a.value, false, cwds);
    for (const r of part.redirects) if (r.kind !== "dup") add(r.target, r.kind === "write", cwds);
    for (const w of part.writes ?? []) add(w, true, cwds);
    for (const w of part.reads ?? []) add(w, false, cwds);
    // tee's files are written.
    const run = [...part.views].reverse().find((v) => v.allowable) ?? part.views[0];
    const words = run?.words ?? [];
    if (words[0] && /(^|\/)tee$/.test(words[0].value)) {
      for (const w of words.slice(1)) if (!w.value.startsWith("-")) add(w, true, cwds);
    }
  }
  // Assignments with no command (`d=~/.claude/hooks; …`): their values name paths too.
  const tree = parser.parse(line);
  if (tree) {
    try {
      for (const node of tree.rootNode.descendantsOfType("variable_assignment")) {
        const value = node?.childForFieldName("value");
        if (value && value.type !== "array") add(value.text, false, [opts.cwd]);
      }
    } finally {
      tree.delete();
    }
  }
  return { paths: [...paths].map(([path, written]) => ({ path, written })), unknown };
}

/** The exec form's words (`command` + `args`: no shell): each as written, absolute ones only. */
export function execFormPaths(words: readonly string[]): HookLine {
  return { paths: words.filter((w) => isAbsolute(w)).map((w) => ({ path: resolve(w), written: false })), unknown: [] };
}

/** The gate's shell parser (loaded once per process). */
export function hookShellParser(): Promise<Parser> {
  return initShellParser(() => loadShellWasm());
}

/** The words of each simple command of a line (also inside `bash -c '…'`), as bash would expand them: for tests against real bash. */
export function commandWords(parser: Parser, line: string, env: Record<string, string | undefined>): WordValue[][] {
  const wenv: WordEnv = { env, assigned: assignedNames(line) };
  const analysis = analyseCommand(parser, line, { cwd: ["/"], home: env.HOME ?? "/" });
  const broken = brokenLine(analysis.problems);
  return analysis.parts.map((p) => (p.views[0]?.words ?? []).map((w) => (broken || !wordsAsBash(p) ? { unknown: broken ?? "words split otherwise" } : expandWord(w.raw, wenv))));
}

/** The parser could not read the line as bash does (a syntax error): its words are not trusted. */
function brokenLine(problems: readonly string[]): string | undefined {
  return problems.find((p) => /syntax error|could not be parsed|cannot parse/.test(p));
}

/**
 * Does the parser split this command into words where bash does? Each word must stand in the
 * command's text in order, with a blank (or an operator) on both sides: tree-sitter reads some
 * quote runs (`'a'\$b`, `$'x'\y`) as two words where bash reads one (found by the comparison with bash).
 */
function wordsAsBash(part: CommandPart): boolean {
  const text = part.text;
  let pos = 0;
  for (const w of part.views[0]?.words ?? []) {
    const at = text.indexOf(w.raw, pos);
    if (at < 0) return false;
    const before = at === 0 ? "" : text[at - 1]!;
    const after = text[at + w.raw.length] ?? "";
    if ((before && !/[\s;&|()<>]/.test(before)) || (after && !/[\s;&|()<>]/.test(after))) return false;
    // Between two words only blanks, unless redirections stand there.
    if (pos > 0 && !part.redirects.length && text.slice(pos, at).trim() !== "") return false;
    pos = at + w.raw.length;
  }
  // After the last word: nothing the parser dropped (unless redirections follow).
  return part.redirects.length > 0 || text.slice(pos).trim() === "" || pos === 0;
}
