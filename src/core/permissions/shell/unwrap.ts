/**
 * Sees through wrappers: `env`, `nohup`, `time`, `nice`, `timeout`, `command`, `builtin`, `exec`,
 * `stdbuf`, `sudo`/`doas`, `xargs`, `find -exec`, `git -C`, absolute command paths, and shells or
 * `eval` given a script string (returned for recursive parsing).
 */
import type { CommandPart, CommandView } from "./types";
import type { Word } from "./words";
import { isDangerousVariable } from "./variables";

/** Directories whose programs are the standard ones: `/usr/bin/git push` may be allowed as `git push`. */
const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$/;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"]);
/** Package-manager subcommands that run another program (`npm exec -- git push`, `uv run git push`); deny and ask rules only. */
const RUNNER_SUBCOMMANDS: Record<string, string[]> = {
  npm: ["exec", "x"], pnpm: ["exec", "dlx"], yarn: ["exec", "dlx"], bun: ["x", "run"], uv: ["run"], poetry: ["run"], pipenv: ["run"],
  bundle: ["exec"], conda: ["run"], mise: ["exec", "x"], direnv: ["exec"], nix: ["run", "shell"],
};

/**
 * Programs that run another command given after their own options and arguments. Their views are
 * only used for deny and ask rules: every later word that is not an option starts a candidate.
 */
const RUNS_A_COMMAND = new Set(["npx", "bunx", "pnpx", "watch", "flock", "setsid", "unshare", "taskset", "ionice", "chrt", "caffeinate", "unbuffer", "chronic", "strace", "ltrace", "nsenter", "chroot", "su", "runuser", "script", "firejail", "proxychains", "proxychains4", "torsocks", "xvfb-run", "dbus-run-session", "parallel", "entr", "coproc", "then", "do"]);

export interface InnerScript {
  how: string;
  script: Word;
  elevated: boolean;
}

export interface Unwrapped {
  /** Further commands (find -exec). */
  parts: CommandPart[];
  /** Script strings to parse (bash -c, eval). */
  scripts: InnerScript[];
}

export function unwrapCommand(part: CommandPart): Unwrapped {
  const out: Unwrapped = { parts: [], scripts: [] };
  let words = part.views[0]!.words;
  let allowable = true;
  let denyOnly = false;
  for (let guard = 0; guard < 16 && words.length > 0; guard++) {
    const first = words[0]!;
    if (first.dynamic) {
      part.problems.push(`the command name ${first.raw} is only known when it runs`);
      return out;
    }
    if (first.glob) {
      part.problems.push(`the command name ${first.raw} is a pattern`);
      return out;
    }
    if (first.value.includes("/") && !first.value.endsWith("/")) {
      const base = first.value.slice(first.value.lastIndexOf("/") + 1);
      const renamed = [{ ...first, value: base }, ...words.slice(1)];
      const system = SYSTEM_BIN.test(first.value);
      part.views.push({ words: renamed, allowable: allowable && system, denyOnly: !system });
      if (!system) return out;
      words = renamed;
      continue;
    }
    const next = step(part, words, out);
    if (!next) return out;
    if (next.elevate) {
      part.elevated = true;
      allowable = false;
    }
    denyOnly ||= !!next.denyOnly;
    words = next.words;
    if (words.length === 0) return out;
    part.views.push(denyOnly ? { words, allowable: false, denyOnly } : { words, allowable });
  }
  return out;
}

interface Step {
  words: Word[];
  elevate?: boolean;
  /** The new view only serves deny and ask rules (e.g. `git -C dir push` read as `git push`). */
  denyOnly?: boolean;
}

function step(part: CommandPart, words: Word[], out: Unwrapped): Step | undefined {
  const name = words[0]!.value;
  const args = words.slice(1);
  switch (name) {
    case "nohup":
    case "builtin":
      return { words: args };
    case "time":
      return { words: skipFlags(args, new Set(["-p"])) };
    case "command":
      if (args.some((a) => a.value === "-v" || a.value === "-V")) return undefined;
      return { words: skipFlags(args, new Set(["-p"])) };
    case "exec":
      return { words: skipOptions(args, new Set(["-a"]), /^-[cl]+$/) };
    case "nice":
      return { words: skipOptions(args, new Set(["-n"]), /^(-\d+|--adjustment=.*|-n\d+)$/) };
    case "stdbuf":
      return { words: skipOptions(args, new Set(["-i", "-o", "-e"]), /^(-[ioe].+|--(input|output|error)=.*)$/) };
    case "timeout": {
      const rest = skipOptions(args, new Set(["-s", "-k"]), /^(--(signal|kill-after)=.*|--preserve-status|--foreground|-v|--verbose|-s.+|-k.+)$/);
      return { words: rest.slice(1) };
    }
    case "env":
      return envStep(part, args);
    case "sudo":
    case "doas": {
      const valued = new Set(["-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-h", "--user", "--group", "--chdir"]);
      if (args.some((a) => /^-[a-zA-Z]*[is]$/.test(a.value) || a.value === "--login" || a.value === "--shell")) {
        const rest = skipOptions(args, valued, /^-[a-zA-Z]+$|^--[a-z-]+(=.*)?$/);
        if (rest.length === 0) part.problems.push(`${name} opens a root shell`);
      }
      return { words: skipOptions(args, valued, /^-[a-zA-Z]+$|^--[a-z-]+(=.*)?$/), elevate: true };
    }
    case "xargs": {
      const rest = skipOptions(args, new Set(["-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"]), /^(-[0rtpx]+|-[iIlLnPsdeEa].+|--[a-z-]+(=.*)?)$/);
      part.extraArgs = true;
      return { words: rest.length ? rest : [{ value: "echo", raw: "echo", dynamic: false, glob: false }] };
    }
    case "find":
      findExec(part, args, out);
      return undefined;
    case "git":
      return gitStep(args);
    case "eval": {
      part.wrapper = true;
      const script = joinWords(args);
      out.scripts.push({ how: "eval", script, elevated: part.elevated });
      return undefined;
    }
    default:
      if (SHELLS.has(name)) return shellStep(part, args, name, out);
      if (RUNS_A_COMMAND.has(name)) runsACommand(part, args, name, out);
      else if (RUNNER_SUBCOMMANDS[name]?.includes(args[0]?.value ?? "")) runsACommand(part, args.slice(1), `${name} ${args[0]!.value}`, out);
      return undefined;
  }
}

function envStep(part: CommandPart, args: Word[]): Step | undefined {
  let i = 0;
  while (i < args.length) {
    const v = args[i]!.value;
    if (v === "--") {
      i++;
      break;
    }
    if (v === "-S" || v.startsWith("--split-string") || /^-[a-zA-Z]*S/.test(v)) {
      part.problems.push("env -S splits a string into a command Yoke cannot check");
      return undefined;
    }
    if (v === "-C" || v.startsWith("--chdir")) {
      part.problems.push("env -C runs the command in another folder");
      i += v === "-C" ? 2 : 1;
      continue;
    }
    if (v === "-u" || v === "--unset") i += 2;
    else if (v.startsWith("-")) i++;
    else break;
  }
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!.value)) {
    const name = args[i]!.value.slice(0, args[i]!.value.indexOf("="));
    part.assignments.push({ name, value: args[i]! });
    if (isDangerousVariable(name)) part.problems.push(`it sets ${name} for the command, which changes what runs`);
    i++;
  }
  const rest = args.slice(i);
  return rest.length ? { words: rest } : undefined;
}

function shellStep(part: CommandPart, args: Word[], name: string, out: Unwrapped): Step | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!;
    if (v.dynamic) return undefined;
    if (v.value === "-o" || v.value === "+o" || v.value === "-O" || v.value === "+O") {
      i++;
      continue;
    }
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(v.value)) {
      const script = args[i + 1];
      part.wrapper = true;
      if (!script) part.problems.push(`${name} -c has no script`);
      else out.scripts.push({ how: `${name} -c`, script, elevated: part.elevated });
      return undefined;
    }
    if (!v.value.startsWith("-") && !v.value.startsWith("+")) return undefined;
  }
  return undefined;
}

/** `watch -n 5 git push`, `flock f git push`, `su -c 'git push'`: candidate inner commands for deny rules. */
function runsACommand(part: CommandPart, args: Word[], name: string, out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "-c" && args[i + 1]) {
      out.scripts.push({ how: `${name} -c`, script: args[i + 1]!, elevated: true });
      i++;
      continue;
    }
    if (!v.startsWith("-") && !args[i]!.dynamic) part.views.push({ words: args.slice(i), allowable: false, denyOnly: true });
  }
}

/** `find … -exec CMD … ;` — each CMD is a further part; `{}` are paths found at run time. */
function findExec(part: CommandPart, args: Word[], out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (!/^-(exec|execdir|ok|okdir)$/.test(v)) continue;
    const inner: Word[] = [];
    let j = i + 1;
    for (; j < args.length && args[j]!.value !== ";" && args[j]!.value !== "+"; j++) inner.push(args[j]!);
    if (inner.length) {
      const sub: CommandPart = {
        text: inner.map((w) => w.raw).join(" "),
        views: [{ words: inner, allowable: !part.elevated }],
        assignments: [],
        redirects: [],
        elevated: part.elevated,
        extraArgs: true,
        wrapper: false,
        problems: [],
        via: [...part.via, `find ${v}`],
      };
      const nested = unwrapCommand(sub);
      out.parts.push(sub, ...nested.parts);
      out.scripts.push(...nested.scripts);
    }
    i = j;
  }
}

/** `git -C dir --no-pager push` is read as `git push` too. */
function gitStep(args: Word[]): Step | undefined {
  let i = 0;
  let changed = false;
  while (i < args.length) {
    const v = args[i]!.value;
    if (v === "-C" || v === "-c" || v === "--git-dir" || v === "--work-tree" || v === "--namespace" || v === "--exec-path") i += 2;
    else if (/^--(git-dir|work-tree|namespace|exec-path|config-env)=/.test(v) || /^-(p|P)$/.test(v) || /^--(no-pager|paginate|bare|no-replace-objects|literal-pathspecs|no-optional-locks)$/.test(v)) i++;
    else break;
    changed = true;
  }
  if (!changed) return undefined;
  const git: Word = { value: "git", raw: "git", dynamic: false, glob: false };
  return { words: [git, ...args.slice(i)], denyOnly: true };
}

function skipFlags(args: Word[], flags: Set<string>): Word[] {
  let i = 0;
  while (i < args.length && flags.has(args[i]!.value)) i++;
  if (args[i]?.value === "--") i++;
  return args.slice(i);
}

/** Skips leading options: `valued` take the next word; `flag` matches self-contained ones. */
function skipOptions(args: Word[], valued: Set<string>, flag: RegExp): Word[] {
  let i = 0;
  while (i < args.length) {
    const v = args[i]!.value;
    if (v === "--") return args.slice(i + 1);
    if (valued.has(v)) i += 2;
    else if (v.startsWith("-") && v.length > 1 && flag.test(v)) i++;
    else break;
  }
  return args.slice(i);
}

function joinWords(words: Word[]): Word {
  return {
    value: words.map((w) => w.value).join(" "),
    raw: words.map((w) => w.raw).join(" "),
    dynamic: words.some((w) => w.dynamic),
    glob: false,
  };
}

export type { CommandView };
