/**
 * An unquoted glob or brace pattern among a program's arguments becomes whatever file names match
 * it when the line runs — and a file can be named like an option. A file `-fprint` planted by an
 * earlier command turns `find . *` into `find . -fprint README.md …` (README.md overwritten); a file
 * `--checkpoint-action=exec=sh s.sh` turns `tar -cf a.tar *` into a program run. Yoke does not list
 * the folder (the file may be made by the same line, or between the check and the run): it asks
 * whether the pattern COULD become one of the options that make the program run code or write
 * files (a table per program below), and if so the command is one whose effect Yoke cannot see.
 * `find . -name *.ts` stays readable: `*.ts` cannot spell `-exec`; `*` can.
 */
import { braceExpand, segmentRegex } from "./expand";
import type { Word } from "./words";

/**
 * Options that make a program run code or write files, as getopt spells them. `exact`: single-dash
 * words matched whole (find's primaries); `short`: letters taking a value (glued or next word) or a
 * flag, in a cluster; `long`: GNU long options, any unambiguous prefix, `=value` or the next word.
 */
export interface CodeOptions {
  exact?: readonly string[];
  short?: string;
  long?: readonly string[];
}

export const CODE_OPTIONS: Readonly<Record<string, CodeOptions>> = {
  find: { exact: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"] },
  sort: { short: "oT", long: ["--output", "--compress-program", "--temporary-directory"] },
  sed: { short: "ief", long: ["--in-place", "--expression", "--file"] },
  tar: { short: "IF", long: ["--checkpoint-action", "--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--index-file", "--rsh-command"] },
  rg: { long: ["--pre"] },
  "git diff": { long: ["--output", "--ext-diff", "--textconv"] },
  "git grep": { short: "O", long: ["--open-files-in-pager", "--textconv"] },
  awk: { short: "fe", long: ["--file", "--source", "--exec", "--load"] },
  zip: { long: ["--unzip-command"], exact: ["-TT"] },
  less: { short: "oO", long: ["--log-file", "--LOG-FILE", "--lesskey-file", "--lesskey-src"] },
  uniq: { long: ["--output"] },
  shuf: { short: "o", long: ["--output"] },
  split: { long: ["--filter"] },
  xargs: { short: "a", long: ["--arg-file"] },
};
for (const a of ["gawk", "mawk", "nawk"]) (CODE_OPTIONS as Record<string, CodeOptions>)[a] = CODE_OPTIONS.awk!;
for (const a of ["log", "show", "format-patch", "whatchanged", "diff-files", "diff-index", "diff-tree"]) (CODE_OPTIONS as Record<string, CodeOptions>)[`git ${a}`] = CODE_OPTIONS["git diff"]!;

type Tok = { star: true } | { test: (c: string) => boolean };

/** One slash-less segment of a pattern (shell/words.ts escaping) as tokens. */
function tokens(seg: string): Tok[] {
  const out: Tok[] = [];
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === "\\") {
      const lit = seg[++i] ?? "\\";
      out.push({ test: (x) => x === lit });
    } else if (c === "*") out.push({ star: true });
    else if (c === "?") out.push({ test: (x) => x !== "/" });
    else if (c === "[") {
      let j = i + 1;
      if (seg[j] === "!" || seg[j] === "^") j++;
      if (seg[j] === "]") j++;
      for (; j < seg.length && seg[j] !== "]"; j++) if (seg[j] === "[" && seg[j + 1] === ":") j = Math.max(j, seg.indexOf(":]", j + 2) + 1);
      if (j >= seg.length) out.push({ test: (x) => x === "[" });
      else {
        const re = new RegExp(`^${segmentRegex(seg.slice(i, j + 1))}$`, "s");
        out.push({ test: (x) => re.test(x) });
        i = j;
      }
    } else out.push({ test: (x) => x === c });
  }
  return out;
}

/** The positions reachable after reading `text` (empty: no string with this beginning matches). */
function run(toks: Tok[], text: string): Set<number> {
  const close = (s: Set<number>) => {
    for (const i of [...s]) for (let k = i; k < toks.length && "star" in toks[k]!; k++) s.add(k + 1);
    return s;
  };
  let states = close(new Set([0]));
  for (const ch of text) {
    const next = new Set<number>();
    for (const i of states) {
      const t = toks[i];
      if (!t) continue;
      if ("star" in t) {
        if (ch !== "/") next.add(i);
      } else if (t.test(ch)) next.add(i + 1);
    }
    states = close(next);
    if (!states.size) break;
  }
  return states;
}

/** Can the pattern match exactly `text`, or (`prefix`) some name beginning with `text`? */
function canMatch(toks: Tok[], text: string, prefix: boolean): boolean {
  const s = run(toks, text);
  return prefix ? s.size > 0 : s.has(toks.length);
}

/** The option a pattern could spell, or undefined. */
function optionSpelled(toks: Tok[], o: CodeOptions): string | undefined {
  for (const e of o.exact ?? []) if (canMatch(toks, e, false)) return e;
  for (const letter of o.short ?? "") {
    // `-o…`, and one flag letter before it in a cluster (`-uo…`).
    if (canMatch(toks, `-${letter}`, true)) return `-${letter}`;
    for (const f of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") if (canMatch(toks, `-${f}${letter}`, true)) return `-${f}${letter}`;
  }
  for (const l of o.long ?? []) {
    // `--out`, `--out=F`: every prefix of the name past `--`.
    for (let k = 3; k <= l.length; k++) if (canMatch(toks, l.slice(0, k), false) || canMatch(toks, `${l.slice(0, k)}=`, true)) return l;
  }
  return undefined;
}

/**
 * The first pattern among `words` (a program and its arguments, before `--`) that could expand into
 * one of the program's options that run code or write files, with that option; undefined when none
 * could (or the program has no such table).
 */
export function globAsCodeOption(words: readonly Word[]): { word: Word; option: string } | undefined {
  const name = words[0]?.value === "git" ? `git ${words[1]?.value}` : words[0]?.value;
  const table = name !== undefined ? CODE_OPTIONS[name] : undefined;
  if (!table) return undefined;
  for (const w of words.slice(name!.includes(" ") ? 2 : 1)) {
    if (!w.dynamic && w.value === "--") return undefined;
    if (!w.glob || w.dynamic || w.pattern === undefined) continue;
    for (const alt of braceExpand(w.pattern) ?? ["*"]) {
      // A name with a folder in front (`src/*`) cannot begin with a dash.
      if (/(^|[^\\])\//.test(alt)) continue;
      const option = optionSpelled(tokens(alt), table);
      if (option) return { word: w, option };
    }
  }
  return undefined;
}
