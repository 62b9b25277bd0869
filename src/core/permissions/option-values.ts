/**
 * Deny and ask rules hold whatever way their VALUES are spelled (red team 11): `Bash(chmod -R 777:*)`
 * is the same rule for `chmod -R 0777`, `chmod -R a+rwx` and `chmod -R ugo=rwx`; `Bash(kill -9:*)`
 * for `kill -KILL`, `kill -SIGKILL`, `kill -s KILL`, `kill -n 9`, `kill --signal=kill`;
 * `Bash(rm -f:*)` for `rm --interactive=never` (and `=no`, `=none`, abbreviated as GNU argmatch takes
 * them); `Bash(chown -R root:root:*)` for `chown -R 0:0` and `root.root`.
 *
 * Two steps, both used only by option-spellings.ts (so only to WIDEN deny and ask rules):
 * - `normalizeValueWords` rewrites a program's value-carrying words into one canonical word, on the
 *   rule's words and the command's alike (`kill -s KILL` → `kill --signal=9`);
 * - `sameOperand` compares a rule's operand with the command's where the program reads it as a
 *   value (chmod's mode, chown's owner), not as text.
 */
import type { SpecMatch } from "./bash-spec";

// ---------------------------------------------------------------- signals (kill, pkill, killall)

const SIGNALS: Record<string, number> = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  ILL: 4,
  TRAP: 5,
  ABRT: 6,
  IOT: 6,
  BUS: 7,
  FPE: 8,
  KILL: 9,
  USR1: 10,
  SEGV: 11,
  USR2: 12,
  PIPE: 13,
  ALRM: 14,
  TERM: 15,
  STKFLT: 16,
  CHLD: 17,
  CLD: 17,
  CONT: 18,
  STOP: 19,
  TSTP: 20,
  TTIN: 21,
  TTOU: 22,
  URG: 23,
  XCPU: 24,
  XFSZ: 25,
  VTALRM: 26,
  PROF: 27,
  WINCH: 28,
  IO: 29,
  POLL: 29,
  PWR: 30,
  SYS: 31,
};

/** A signal as its number (`9`, `KILL`, `SIGKILL`, `sigkill`, `RTMIN+1`…); undefined when not a signal. */
export function signalNumber(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const name = text.toUpperCase().replace(/^SIG/, "");
  if (name in SIGNALS) return SIGNALS[name];
  const rt = /^RTM(IN|AX)([+-]\d+)?$/.exec(name);
  if (rt) return (rt[1] === "IN" ? 34 : 64) + Number(rt[2] ?? 0);
  return undefined;
}

/** Per program: the options that take a signal as the next word (or glued), besides `-SIGNAL`. */
const SIGNAL_OPTIONS: Record<string, { short: string; long: string[] }> = {
  // bash's builtin and procps' kill: -s SIG, -n NUM, --signal SIG.
  kill: { short: "sn", long: ["--signal"] },
  // pkill's -s is the session; only --signal and -SIG.
  pkill: { short: "", long: ["--signal"] },
  killall: { short: "s", long: ["--signal"] },
};

interface ValueWord {
  value: string;
  /** Only known when it runs: never rewritten. */
  dynamic?: boolean;
}

function normalizeSignals(program: string, words: ValueWord[]): ValueWord[] {
  const opts = SIGNAL_OPTIONS[program]!;
  const out: ValueWord[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamic || !v.startsWith("-") || v === "-" || v === "--") {
      out.push(w);
      if (v === "--" && !w.dynamic) out.push(...words.slice(i + 1));
      if (v === "--" && !w.dynamic) break;
      continue;
    }
    const canon = (sig: ValueWord | undefined) => {
      const n = sig && !sig.dynamic ? signalNumber(sig.value) : undefined;
      return n === undefined ? undefined : { value: `--signal=${n}` };
    };
    let rewritten: ValueWord | undefined;
    let used = 1;
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq < 0 ? v : v.slice(0, eq);
      if (name.length > 2 && opts.long.some((l) => l.startsWith(name))) {
        if (eq >= 0) rewritten = canon({ value: v.slice(eq + 1) });
        else {
          rewritten = canon(words[i + 1]);
          used = 2;
        }
      }
    } else if (v.length === 2 && opts.short.includes(v[1]!)) {
      rewritten = canon(words[i + 1]);
      used = 2;
    } else if (opts.short.includes(v[1]!) && signalNumber(v.slice(2)) !== undefined) rewritten = canon({ value: v.slice(2) });
    else rewritten = canon({ value: v.slice(1) });
    if (rewritten) {
      out.push(rewritten);
      i += used - 1;
    } else out.push(w);
  }
  return out;
}

// ---------------------------------------------------------------- rm --interactive=WHEN

/** GNU argmatch: an unambiguous prefix, or an ambiguous one whose every match means the same. */
function argmatch(text: string, table: Record<string, string>): string | undefined {
  if (text in table) return table[text];
  const hits = new Set(
    Object.keys(table)
      .filter((k) => text.length > 0 && k.startsWith(text))
      .map((k) => table[k]!),
  );
  return hits.size === 1 ? [...hits][0] : undefined;
}
const INTERACTIVE_WHEN: Record<string, string> = { never: "-f", no: "-f", none: "-f", once: "-I", always: "-i", yes: "-i" };

function normalizeRm(words: ValueWord[]): ValueWord[] {
  return words.map((w) => {
    if (w.dynamic) return w;
    const m = /^--(i[a-z]*)=(.*)$/.exec(w.value);
    if (!m || !"interactive".startsWith(m[1]!)) return w;
    // `--interactive=never` is `-f`'s "never prompt" (rm(1)); it does not ignore missing files, but a
    // rule about -f is about not being asked.
    const canon = argmatch(m[2]!, INTERACTIVE_WHEN);
    return canon ? { value: canon } : w;
  });
}

/**
 * The program's value-carrying words in one canonical spelling. `words` are the words after the
 * program's name (options and operands). Programs without values are returned as they are.
 */
export function normalizeValueWords<W extends ValueWord>(program: string, words: readonly W[]): Array<W | ValueWord> {
  if (program in SIGNAL_OPTIONS) return normalizeSignals(program, [...words]);
  if (program === "rm") return normalizeRm([...words]);
  return [...words];
}

// ---------------------------------------------------------------- chmod modes

/** A permission bit after the mode is applied: certainly 0 or 1, as it was before, or either (X, umask). */
type Bit = 0 | 1 | "before" | "either";
const WHO: Record<string, number[]> = { u: [0, 1, 2], g: [3, 4, 5], o: [6, 7, 8] };
/** Bit index: 0..8 = u rwx, g rwx, o rwx; 9 setuid, 10 setgid, 11 sticky. */
const SETUID = 9;
const SETGID = 10;
const STICKY = 11;

/**
 * What a chmod mode does to the 12 mode bits, as far as it is the same for every file; undefined
 * when the text is not a mode. `umask`: an absent who-list (`+rwx`) leaves the umask's bits alone, so
 * those bits are "either".
 */
export function chmodEffect(mode: string): Bit[] | undefined {
  if (/^[0-7]+$/.test(mode)) {
    const n = Number.parseInt(mode, 8);
    if (n > 0o7777) return undefined;
    return Array.from({ length: 12 }, (_, i) => {
      const mask = i < 9 ? 1 << (8 - i) : i === SETUID ? 0o4000 : i === SETGID ? 0o2000 : 0o1000;
      // GNU chmod keeps a directory's set-user/group-ID bits for a numeric mode of under 5 digits.
      if (i === SETUID || i === SETGID) return n & mask ? 1 : "before";
      return n & mask ? 1 : 0;
    });
  }
  const bits: Bit[] = Array.from({ length: 12 }, () => "before" as Bit);
  for (const clause of mode.split(",")) {
    const m = /^([ugoa]*)((?:[-+=](?:[rwxXst]*|[ugo]))+)$/.exec(clause);
    if (!m) return undefined;
    const who = m[1]!.includes("a") || m[1] === "" ? "ugo" : m[1]!;
    const implicit = m[1] === "";
    for (const op of m[2]!.match(/[-+=](?:[rwxXst]*|[ugo])/g)!) {
      const kind = op[0]!;
      const perm = op.slice(1);
      // What each rwx position gets: 1, or the copied class's bit, or "either" (X: only directories
      // and files already executable).
      const given = (pos: number): Bit | undefined => {
        if (/^[ugo]$/.test(perm)) return bits[WHO[perm]![pos]!] === "before" ? "either" : bits[WHO[perm]![pos]!];
        const letter = "rwx"[pos]!;
        if (perm.includes(letter)) return 1;
        if (pos === 2 && perm.includes("X")) return "either";
        return undefined;
      };
      const before = [...bits];
      for (const c of who) {
        for (let pos = 0; pos < 3; pos++) {
          const idx = WHO[c]![pos]!;
          const g = given(pos);
          let next: Bit = before[idx]!;
          if (kind === "=") next = g ?? 0;
          else if (g !== undefined) next = kind === "+" ? (g === 1 ? 1 : g === "either" ? (next === 1 ? 1 : "either") : next) : g === 1 ? 0 : "either";
          // With no who-list the umask's bits are left alone: the bit may stay as it was.
          bits[idx] = implicit && next !== before[idx] ? "either" : next;
        }
      }
      // Only the special bits a mode sets count (sameMode compares no others).
      const special = (idx: number, on: boolean) => {
        if (on) bits[idx] = kind === "-" ? 0 : 1;
      };
      if (who.includes("u")) special(SETUID, perm.includes("s"));
      if (who.includes("g")) special(SETGID, perm.includes("s"));
      if (who.includes("o") || implicit) special(STICKY, perm.includes("t"));
    }
  }
  return bits;
}

/**
 * Does the command's chmod mode give what the rule's mode gives? "yes" when every permission bit
 * the rule sets or clears comes out the same (and the special bits the rule sets are set);
 * "maybe" when some of them depend on the file or the umask; "no" otherwise (a bit left as it was
 * is not the rule's mode: `u+w` is not `777`). Undefined when the rule's mode says nothing certain.
 */
function sameMode(ruleMode: string, mode: string): SpecMatch | undefined {
  const want = chmodEffect(ruleMode);
  if (!want || want.slice(0, 9).some((b) => b !== 0 && b !== 1)) return undefined;
  const got = chmodEffect(mode);
  if (!got) return "no";
  let result: SpecMatch = "yes";
  for (let i = 0; i < 12; i++) {
    const w = want[i]!;
    if (i >= 9 && w !== 1) continue;
    const g = got[i]!;
    if (g === w) continue;
    if (g === "either") result = "maybe";
    else return "no";
  }
  return result;
}

// ---------------------------------------------------------------- chown owners

/** `root:root` = `0:0` = `root.root` = `0.0` (root is 0 on every system; other names are left as text). */
function ownerCanon(text: string): string {
  const sep = text.includes(":") ? ":" : text.includes(".") ? "." : undefined;
  const [user, group] = sep ? [text.slice(0, text.indexOf(sep)), text.slice(text.indexOf(sep) + 1)] : [text, undefined];
  const id = (s: string) => (s === "root" ? "0" : s);
  return group === undefined ? id(user) : `${id(user)}:${id(group)}`;
}

/**
 * Does the command's operand at `index` stand for the rule's (`index` counts the operands after the
 * program's options)? Text equality, or the program's reading of a value: chmod's mode, chown's owner.
 */
export function sameOperand(program: string, index: number, ruleOperand: string, operand: string | undefined, dynamic: boolean): SpecMatch {
  if (operand === undefined) return "no";
  if (operand === ruleOperand) return "yes";
  if (index === 0 && program === "chmod") {
    if (dynamic) return "no";
    return sameMode(ruleOperand, operand) ?? "no";
  }
  if (index === 0 && (program === "chown" || program === "chgrp") && !dynamic) return ownerCanon(operand) === ownerCanon(ruleOperand) ? "yes" : "no";
  return "no";
}

/** chmod reads a word that starts with `-` as its mode when it is one (`chmod -w f`, `chmod -x,a+rwx f`). */
export function isModeWord(program: string, word: string): boolean {
  return program === "chmod" && /^-[rwxXstugoa0-7,+=-]+$/.test(word) && chmodEffect(word) !== undefined;
}
