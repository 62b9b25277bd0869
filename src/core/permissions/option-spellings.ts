/**
 * Deny and ask rules hold whatever way the options are spelled. Claude Code's specifiers match the
 * command's words as text, so `Bash(rm -rf:*)` does not match `rm -fr src`, `rm -r -f src`,
 * `rm -Rf src` or `rm --recursive --force src` — the same command. Outside bypassPermissions such a
 * spelling only asks (nothing allows it), but in bypassPermissions a deny rule is the one thing
 * that stops it (red team 10). So a deny or ask rule of the form `PROGRAM [SUBCOMMAND…] OPTIONS…
 * [OPERANDS…]` (with or without the trailing ` *`, no other `*`) also matches a command that runs
 * the same program and subcommands with every one of the rule's options in any order and spelling:
 * short options bundled or apart (`-rf` = `-r -f` = `-fr`), long options abbreviated as GNU getopt
 * takes them (`--rec`), `--opt=value` and `--opt value`, and the long and short names a program
 * documents for the same option (the table below); the rule's operands must be the command's
 * first operands, in order.
 *
 * Used only to widen deny and ask rules (src/core/permissions/evaluate-bash.ts, matchViews): a
 * wrong guess here asks or refuses more, never allows more. Allow rules stay literal.
 */
import type { SpecMatch } from "./bash-spec";
import { isModeWord, normalizeValueWords, sameOperand } from "./option-values";
import type { Word } from "./shell/words";

/** Names of the same option, per program (and subcommand), as each program's manual gives them. */
const SAME_OPTION: Record<string, Record<string, string>> = {
  rm: { "-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d", "--interactive": "-i", "--verbose": "-v" },
  cp: { "-R": "-r", "--recursive": "-r", "--force": "-f", "--archive": "-a", "--link": "-l", "--symbolic-link": "-s" },
  mv: { "--force": "-f", "--no-clobber": "-n" },
  ln: { "--force": "-f", "--symbolic": "-s" },
  chmod: { "--recursive": "-R" },
  chown: { "--recursive": "-R" },
  chgrp: { "--recursive": "-R" },
  shred: { "--remove": "-u", "--zero": "-z", "--force": "-f" },
  // `--mirror` force-updates and deletes remote refs (git-push(1)): it is also `-f` and `-d`.
  "git push": { "--force": "-f", "--delete": "-d", "--all": "--all", "--mirror": "--mirror -f -d" },
  "git clean": { "--force": "-f", "--dry-run": "-n", "--quiet": "-q" },
  "git checkout": { "--force": "-f" },
  "git switch": { "--force": "-f", "--discard-changes": "-f" },
  // `-D` is `--delete --force`, `-M` is `--move --force` (git-branch(1)).
  "git branch": { "--delete": "-d", "--force": "-f", "--move": "-m", "-D": "-d -f", "-M": "-m -f" },
  "git stash": {},
  "git reset": {},
  "git rebase": { "--interactive": "-i" },
  "git commit": { "--all": "-a", "--message": "-m", "--amend": "--amend", "--no-verify": "-n" },
  "git tag": { "--delete": "-d", "--force": "-f" },
  "git worktree remove": { "--force": "-f" },
  "npm publish": {},
  "docker rm": { "--force": "-f", "--volumes": "-v" },
  "docker system prune": { "--all": "-a", "--force": "-f", "--volumes": "--volumes" },
  "kubectl delete": { "--all": "--all", "--force": "--force" },
};

/**
 * Options that take a value, per program (git's parse-options and GNU getopt take `-mVALUE`,
 * `-m VALUE`, `--opt VALUE` and `--opt=VALUE`): the value is not an option (`git commit -m"new"` is
 * not `-n`, `git commit -m "$MSG"` cannot be `--no-verify`). Short letters, then long names.
 */
const TAKES_VALUE: Record<string, { short: string; long: string[] }> = {
  "git push": { short: "o", long: ["--push-option", "--repo", "--receive-pack", "--exec"] },
  "git clean": { short: "e", long: ["--exclude"] },
  "git commit": { short: "mFcCt", long: ["--message", "--file", "--reuse-message", "--reedit-message", "--template", "--author", "--date", "--fixup", "--squash", "--cleanup", "--trailer"] },
  "git tag": { short: "mFu", long: ["--message", "--file", "--local-user", "--cleanup", "--contains", "--no-contains", "--points-at", "--merged", "--no-merged", "--sort", "--format"] },
  "git branch": { short: "tu", long: ["--set-upstream-to", "--contains", "--no-contains", "--points-at", "--merged", "--no-merged", "--sort", "--format"] },
  "git checkout": { short: "bB", long: ["--conflict", "--orphan"] },
  "git switch": { short: "cC", long: ["--create", "--force-create", "--conflict", "--orphan"] },
};

/** Could the shell split this word into several (an unquoted `$x`, `$(…)` or backquote)? */
function splittable(raw: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "\\" && quote !== "'") i++;
    else if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "$" || c === "`") return true;
  }
  return false;
}

interface RuleShape {
  head: string[];
  /** The rule's options as canonical names (a bundle `-rf` gives two). */
  options: string[];
  operands: string[];
  tail: boolean;
}

const shapes = new Map<string, RuleShape | null>();

/** `PROGRAM [SUB…] -opts… [operands…]` with no `*` but an optional trailing ` *` / `:*`; else null. */
function shapeOf(spec: string): RuleShape | null {
  let shape = shapes.get(spec);
  if (shape !== undefined) return shape;
  shape = null;
  let text = spec.trim();
  let tail = false;
  if (text.endsWith(":*") && !text.endsWith("\\:*")) {
    text = text.slice(0, -2).trimEnd();
    tail = true;
  } else if (/\s\*$/.test(text)) {
    text = text.slice(0, -1).trimEnd();
    tail = true;
  }
  // Only plain words: quotes, escapes and other stars keep the rule literal.
  if (!/[*'"\\]/.test(text)) {
    const split = text.split(/\s+/).filter(Boolean);
    // Values in one spelling (`kill -s KILL` → `kill --signal=9`), as the command's are.
    const words = split.length
      ? [
          split[0]!,
          ...normalizeValueWords(
            split[0]!,
            split.slice(1).map((value) => ({ value })),
          ).map((w) => w.value),
        ]
      : split;
    const firstOpt = words.findIndex((w) => w.startsWith("-") && w.length > 1);
    if (firstOpt > 0) {
      const head = words.slice(0, firstOpt);
      const rest = words.slice(firstOpt);
      const opts = rest.filter((w) => w.startsWith("-") && w.length > 1 && w !== "--");
      const operands = rest.filter((w) => !(w.startsWith("-") && w.length > 1));
      // Options after an operand (`rm src -rf`) are spelled as the rule's author meant them: keep literal.
      const lastOpt = rest.map((w) => w.startsWith("-") && w.length > 1).lastIndexOf(true);
      const firstOperand = rest.findIndex((w) => !(w.startsWith("-") && w.length > 1));
      if (firstOperand < 0 || lastOpt < firstOperand) {
        const key = programKey(head);
        const names = key === undefined ? {} : SAME_OPTION[key]!;
        shape = { head, options: opts.flatMap((o) => splitOption(o, names)), operands, tail };
      }
    }
  }
  shapes.set(spec, shape);
  return shape;
}

/** The table's key for a command's head words (the longest listed: `git worktree remove`, `git push`, `rm`). */
function programKey(head: readonly string[]): string | undefined {
  for (let n = head.length; n >= 1; n--) {
    const k = head.slice(0, n).join(" ");
    if (k in SAME_OPTION) return k;
  }
  return undefined;
}

/** One option word as canonical names: `-rf` → `-r`,`-f`; `--recursive` → `-r` (rm); `--x=v` → `--x=v`. */
function splitOption(word: string, names: Record<string, string>): string[] {
  if (word.startsWith("--")) {
    const eq = word.indexOf("=");
    const name = eq < 0 ? word : word.slice(0, eq);
    const canon = names[name] ?? name;
    return eq < 0 ? canon.split(" ") : [`${canon}${word.slice(eq)}`];
  }
  return [...word.slice(1)].flatMap((c) => (names[`-${c}`] ?? `-${c}`).split(" "));
}

/**
 * The command's options as canonical names, with long abbreviations resolved against `wanted`.
 * `unsure`: a word only known at run time stands where an option could be (not an option's value,
 * not after `--`, unless the shell may split it into several words).
 */
function commandOptions(
  words: readonly Word[],
  key: string | undefined,
  names: Record<string, string>,
  wanted: readonly string[],
): { options: Set<string>; operands: string[]; dynamicOperands: Set<number>; unsure: boolean } {
  const options = new Set<string>();
  const operands: string[] = [];
  const dynamicOperands = new Set<number>();
  const takes = (key !== undefined && TAKES_VALUE[key]) || { short: "", long: [] };
  const longNames = [...new Set([...Object.keys(names).filter((k) => k.startsWith("--")), ...takes.long, ...wanted.filter((w) => w.startsWith("--")).map((w) => w.split("=")[0]!)])];
  let ended = false;
  let unsure = false;
  let valueNext = false;
  for (const word of words) {
    const w = word.value;
    if (word.dynamic) {
      const split = splittable(word.raw);
      // A refspec `+src:dst` forces that ref (git-push(1)), whatever follows the `+`.
      if (key === "git push" && !valueNext && w.startsWith("+")) options.add("-f");
      else if (!ended && (split || (!valueNext && /^[-$`]/.test(w)))) unsure = true;
      valueNext = false;
      dynamicOperands.add(operands.length);
      operands.push(w);
      continue;
    }
    if (valueNext) {
      valueNext = false;
      continue;
    }
    if (ended || !w.startsWith("-") || w === "-" || (operands.length === 0 && key !== undefined && isModeWord(key, w))) {
      if (key === "git push" && w.startsWith("+") && w.length > 1) {
        options.add("-f");
        operands.push(w.slice(1));
      } else {
        // An empty source (`:branch`) deletes that ref on the remote, as --delete does (git-push(1)).
        if (key === "git push" && w.startsWith(":") && w.length > 1 && operands.length > 0) options.add("-d");
        operands.push(w);
      }
      continue;
    }
    if (w === "--") {
      ended = true;
      continue;
    }
    if (w.startsWith("--")) {
      const eq = w.indexOf("=");
      const name = eq < 0 ? w : w.slice(0, eq);
      // GNU getopt_long takes any unambiguous prefix; every long name it could be counts (asks more, never less).
      const full = longNames.filter((n) => n === name || (name.length > 2 && n.startsWith(name)));
      // Only a name that is certainly a value-taking option consumes the next word.
      if (eq < 0 && full.length > 0 && full.every((n) => takes.long.includes(n))) valueNext = true;
      for (const n of full.length ? full : [name]) {
        for (const canon of (names[n] ?? n).split(" ")) {
          options.add(canon);
          if (eq >= 0) options.add(`${canon}${w.slice(eq)}`);
        }
      }
      continue;
    }
    for (let i = 1; i < w.length; i++) {
      const c = w[i]!;
      for (const canon of (names[`-${c}`] ?? `-${c}`).split(" ")) options.add(canon);
      if (takes.short.includes(c)) {
        // `-mVALUE`: the rest of the word is the value; `-m VALUE`: the next word is.
        if (i === w.length - 1) valueNext = true;
        break;
      }
    }
  }
  return { options, operands, dynamicOperands, unsure };
}

/**
 * Does the deny or ask rule `spec` match `words` under any spelling of its options? "maybe" when a
 * word only known at run time could be one of the missing options or operands.
 */
export function matchOptionSpellings(spec: string | undefined, words: readonly Word[]): SpecMatch {
  if (spec === undefined) return "no";
  const shape = shapeOf(spec);
  if (!shape || words.length < shape.head.length) return "no";
  for (let i = 0; i < shape.head.length; i++) if (words[i]!.dynamic || words[i]!.value !== shape.head[i]) return "no";
  const program = shape.head[0]!;
  // Values in one spelling (`kill -KILL`, `kill -s 9` → `kill --signal=9`; `rm --interactive=never` → `rm -f`).
  const rest = normalizeValueWords(program, words.slice(shape.head.length)).map((w): Word => ("raw" in w ? w : { value: w.value, raw: w.value, dynamic: false, glob: false }));
  const key = programKey(shape.head) ?? (shape.head.length === 1 ? program : undefined);
  const names = (key !== undefined && SAME_OPTION[key]) || {};
  const wanted = shape.options;
  const { options, operands, dynamicOperands, unsure } = commandOptions(rest, key, names, wanted);
  const optionsHeld = wanted.every((o) => options.has(o));
  // The operands as the program reads them: chmod's mode and chown's owner as values (`0777` = `a+rwx` = `777`).
  const each = shape.operands.map((o, i) => (shape.head.length === 1 ? sameOperand(program, i, o, operands[i], dynamicOperands.has(i)) : operands[i] === o ? "yes" : "no"));
  const countHeld = shape.tail || operands.length === shape.operands.length;
  const operandsHeld = each.every((m) => m === "yes") && countHeld;
  if (optionsHeld && operandsHeld) return "yes";
  // A word known only at run time may be a missing option (where an option can stand) or an operand.
  const optionsMaybe = optionsHeld || unsure;
  const operandsMaybe = (each.every((m) => m !== "no") && countHeld) || rest.some((w) => w.dynamic);
  return optionsMaybe && operandsMaybe ? "maybe" : "no";
}
