/**
 * Sees through wrappers: `env`, `nohup`, `time`, `nice`, `timeout`, `command`, `builtin`, `exec`,
 * `stdbuf`, `sudo`/`doas`, `xargs`, `watch`, `busybox`, `find -exec`, `git` global options and
 * aliases, absolute command paths, and shells or `eval` given a script string (returned for
 * recursive parsing). Shells reading a script from their input (`echo … | sh`) run code Yoke
 * cannot see (`hidden`), unless that input is a literal here-document, which is parsed.
 */
import { isPushConfigKey, pushOptionsOf } from "./git-push";
import type { CommandPart, CommandView } from "./types";
import { checkoutOperand, discardReading } from "./git-discard";
import { literalWord, type Word } from "./words";
import { isDangerousVariable, isHarmlessSetting } from "./variables";
import { tokenize } from "../bash-spec";
import { shellQuote } from "../../commands/shell-quote";
import { globAsCodeOption } from "./glob-options";
import { WRAPPER_OPTIONS, type WrapperOptions } from "./wrapper-options";
import { namesDescriptor, normalizeAbs, resolveFrom } from "../posix-path";
import { edEscapes, type EdEscapes } from "./ed-escapes";
import { m4Escapes, type M4Include } from "./m4-escapes";
import { psqlEscapes } from "./psql-escapes";
import { readsCommandInput } from "../command-input";
import { isLongOption } from "../long-options";
import type { NpmSettingValues } from "../npm-config";

/** Directories whose programs are the standard ones: `/usr/bin/git push` may be allowed as `git push`. */
const SYSTEM_BIN = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$|^\/opt\/homebrew\/bin\/[^/]+$/;
const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "yash", "posh", "bash5", "rbash"]);
/** Shells whose scripts are not bash syntax: `-c` and input scripts cannot be read. */
const OTHER_SHELLS = new Set(["fish", "csh", "tcsh", "nu", "elvish", "xonsh", "pwsh", "powershell", "powershell.exe", "pwsh.exe", "cmd.exe", "cmd"]);
/** Package-manager subcommands that run another program (`npm exec -- git push`, `uv run git push`); deny and ask rules only. */
const RUNNER_SUBCOMMANDS: Record<string, string[]> = {
  // `npm explore PKG -- CMD…` joins CMD into a shell command line (red team 21).
  npm: ["exec", "x", "explore"],
  // `rustup run TOOLCHAIN CMD…` (red team 21).
  rustup: ["run"],
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  bun: ["x", "run"],
  uv: ["run"],
  poetry: ["run"],
  pipenv: ["run"],
  bundle: ["exec"],
  conda: ["run"],
  mamba: ["run"],
  mise: ["exec", "x"],
  direnv: ["exec"],
  nix: ["run", "shell", "develop"],
  pixi: ["run", "exec"],
  rye: ["run"],
  hatch: ["run"],
  pdm: ["run"],
  asdf: ["exec"],
  rtx: ["exec", "x"],
  devbox: ["run"],
  pipx: ["run"],
  // `cmake -E env|chdir|time CMD…` runs CMD (red team round 12); its own `rm`/`remove` are read as `rm`.
  cmake: ["-E"],
  guix: ["shell", "environment"],
  apptainer: ["exec", "run"],
  singularity: ["exec", "run"],
  ip: ["netns"],
  flatpak: ["run"],
  snap: ["run"],
};
/**
 * Programs that run a command elsewhere (a container, another host) that can still reach the
 * workspace: their later words are candidate commands for deny and ask rules only (allow rules
 * keep matching the program itself).
 */
const ELSEWHERE: Record<string, string[] | true> = {
  ssh: true,
  docker: ["run", "exec", "container", "compose"],
  podman: ["run", "exec", "container", "compose"],
  nerdctl: ["run", "exec", "container", "compose"],
  kubectl: ["exec", "run", "debug"],
  lxc: ["exec"],
  incus: ["exec"],
  distrobox: ["enter"],
  toolbox: ["run"],
  vagrant: ["ssh"],
};

/**
 * Programs that run another command given after their own options and arguments. Their views are
 * only used for deny and ask rules: every later word that is not an option starts a candidate.
 */
export const RUNS_A_COMMAND: ReadonlySet<string> = new Set([
  // Most of perf's subcommands take a command to run, some after a second word (`perf timechart record CMD`,
  // `perf kwork record CMD`; red team 21): every later word is a candidate.
  "perf",
  "npx",
  "uvx",
  "setarch",
  "linux32",
  "linux64",
  "i386",
  "x86_64",
  "ssh-agent",
  "tini",
  "dumb-init",
  "ccache",
  "sccache",
  "distcc",
  "icecc",
  "sshpass",
  "daemonize",
  "runcon",
  "cgexec",
  "fakechroot",
  "proot",
  "sandbox-exec",
  "winpty",
  "ts-node-dev",
  "rlwrap",
  "nix-shell",
  "xterm",
  "konsole",
  "gnome-terminal",
  "dbus-send",
  "bunx",
  "pnpx",
  "flock",
  "setsid",
  "unshare",
  "taskset",
  "ionice",
  "chrt",
  "caffeinate",
  "unbuffer",
  "chronic",
  "strace",
  "ltrace",
  "nsenter",
  "chroot",
  "su",
  "runuser",
  "sg",
  "script",
  "firejail",
  "bwrap",
  "proxychains",
  "proxychains4",
  "torsocks",
  "xvfb-run",
  "dbus-run-session",
  "dbus-launch",
  "entr",
  "coproc",
  "then",
  "do",
  "systemd-run",
  "faketime",
  "catchsegv",
  "valgrind",
  "numactl",
  "prlimit",
  "cpulimit",
  "trickle",
  "nocache",
  "eatmydata",
  "fakeroot",
  "pkexec",
  "time-limit",
  "with-contenv",
  "s6-setuidgid",
  "gosu",
  "su-exec",
  "chpst",
  "setpriv",
  "capsh",
  "sudoedit",
  "env-cmd",
  "dotenv",
  "cross-env",
  "op",
  "aws-vault",
  "doppler",
  "infisical",
  "teller",
]);
/** Programs whose `-c STRING` is a shell command. */
const DASH_C_SCRIPT = new Set(["su", "runuser", "flock", "script", "sg", "capsh"]);
/** Of those, the ones that also read `--session-command CMD` (util-linux su and runuser). */
const SESSION_COMMAND = new Set(["su", "runuser"]);
/**
 * `--command` (and with `session`, `--session-command`) as getopt_long reads it: `--opt=CMD` or `--opt CMD`,
 * with any unambiguous prefix (`--c`, `--se`). The match's group 1 is the glued command, if any.
 */
function longCommandOption(v: string, session: boolean): readonly (string | undefined)[] | null {
  const m = /^(--[^=]*)(?:=([\s\S]*))?$/.exec(v);
  if (!m) return null;
  const name = m[1]!;
  const ok = (name.length >= 3 && "--command".startsWith(name)) || (session && name.length >= 4 && "--session-command".startsWith(name));
  return ok ? [m[0], m[2]] : null;
}
/**
 * Options that name the program these run instead of a shell, with the words after as its arguments: su's and
 * runuser's `-s SHELL`/`--shell=SHELL` (`-sSHELL`, `-ls SHELL`, `--sh SHELL`); capsh's `--shell=PROG` for `--`
 * and `-+` (red team W, session 21: `capsh --shell=/bin/rm -- -rf src` and `… -+ -rf src` ran rm under
 * Bash(rm:*) in bypassPermissions; capsh reads only the `=` form, any `--sh…` asks).
 */
const SHELL_OPTION: Record<string, RegExp> = {
  su: /^(-[fhlmpPV]*s|--sh(e(ll?)?)?(=|$))/,
  runuser: /^(-[fhlmpPV]*s|--sh(e(ll?)?)?(=|$))/,
  capsh: /^--sh/,
};
/** Of those, the ones that run the script as another user or group, or with other capabilities. */
const OTHER_USER = new Set(["su", "runuser", "sg", "capsh"]);
/** Programs whose option takes a shell command string (`nix-shell --run CMD`, `hyperfine CMD`). */
const SCRIPT_OPTIONS: Record<string, RegExp> = {
  // npm reads unique prefixes of long options (nopt): `--cal` is `--call` (red team round 12: `npx -c 'rm -rf src'`).
  npx: /^(-c|--cal|--call)$/,
  npm: /^(-c|--cal|--call)$/,
  pnpm: /^(-c|--shell-mode)$/,
  pnpx: /^(-c|--shell-mode)$/,
  "nix-shell": /^--(run|command)$/,
  nix: /^(-c|--command)$/,
  "nix-build": /^$^/,
  xterm: /^-e$/,
  konsole: /^-e$/,
  "gnome-terminal": /^(-e|-x|--command)$/,
  "dbus-run-session": /^$^/,
  "systemd-run": /^$^/,
};
/**
 * Programs that run commands from strings, files or their input in ways Yoke does not follow
 * (`concurrently 'a' 'b'`, `at now`, `parallel`…).
 */
const HIDDEN_RUNNERS: Record<string, string> = {
  concurrently: "runs the command strings it is given",
  watchexec: "runs a command string when files change",
  // Its command comes from --exec plus every later word, nodemon.json, --config FILE or package.json's
  // nodemonConfig (red team 14: reading --exec's value alone, or the file as the sandbox's part, let
  // `nodemon --exec rm -rf src` and a nodemon.json with "exec" delete src under deny rules).
  nodemon: "runs a command when files change (from --exec, nodemon.json or package.json)",
  parallel: "runs commands built at run time",
  tmux: "runs commands in a terminal session",
  screen: "runs commands in a terminal session",
  at: "schedules commands read from its input",
  batch: "schedules commands read from its input",
  crontab: "installs scheduled commands",
  expect: "runs an expect script",
  osascript: "runs AppleScript",
  "wsl.exe": "runs commands in WSL",
  wsl: "runs commands in WSL",
  "run-p": "runs npm scripts",
  "run-s": "runs npm scripts",
  "npm-run-all": "runs npm scripts",
  tclsh: "runs a Tcl script",
  hyperfine: "runs the command strings it is given",
  gdb: "runs debugger commands (`-ex`, `-x`, its init files), which can run any program",
  lldb: "runs debugger commands, which can run any program",
  wish: "runs a Tcl script",
  busctl: "calls system services",
  "systemd-cat": "runs a command",
  pm2: "runs commands as services",
  forever: "runs commands as services",
};

/** Programs the unwrapper knows how to see through (or knows it cannot). */
export function isKnownRunner(name: string): boolean {
  return (
    RUNS_A_COMMAND.has(name) ||
    name in HIDDEN_RUNNERS ||
    name in ELSEWHERE ||
    name in RUNNER_SUBCOMMANDS ||
    SHELLS.has(name) ||
    OTHER_SHELLS.has(name) ||
    /^(nohup|builtin|time|command|exec|nice|stdbuf|timeout|coreutils|busybox|toybox|env|sudo|doas|xargs|watch|find|git|eval|start-stop-daemon|git-shell)$/.test(name) ||
    gitProgramCommand(name) !== undefined
  );
}

/** Shells, which run the code they are given. */
export function isShell(name: string): boolean {
  return SHELLS.has(name) || OTHER_SHELLS.has(name);
}

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

const MAX_WRAPPERS = 64;

export function unwrapCommand(part: CommandPart): Unwrapped {
  if (nestedCandidates === 0) candidateWords = 0;
  const out = unwrapViews(part);
  // A git command that discards work as `git reset --hard` does gets that reading too (deny and ask rules only).
  const readings: Word[][] = [];
  for (const [vi, v] of part.views.entries()) {
    const w = v.words;
    if (w[0] && !w[0].dynamic && w[0].value === "git") {
      const r = discardReading(w.slice(1));
      if (r) readings.push(r);
      const operand = checkoutOperand(w.slice(1), part.extraArgs);
      if (operand && !part.checkoutOperand) {
        // Not plain when a view shows git with a global option before the subcommand (`git -C dir checkout x`,
        // seen through into this view) or a GIT_* variable is set for it: the repository may be another one.
        // Nor when a wrapper runs it (red18g: `sudo -D d`, `unshare --wd=d`, `nsenter --wd=d`, `git submodule
        // foreach`, `find -execdir` ran it in another folder): only wrappers that keep the folder pass.
        const plain =
          !part.assignments.some((a) => a.name.startsWith("GIT_")) &&
          !part.views.some((o) => o.words[0] && /(^|\/)git$/.test(o.words[0].value) && o.words[1] && (o.words[1].dynamic || o.words[1].value.startsWith("-"))) &&
          part.views.slice(0, vi).every((o) => keepsFolder(o.words));
        part.checkoutOperand = { operand, plain };
      }
    }
  }
  if (readings.length) (part.readings ??= []).push(readings[0]!);
  return out;
}

/**
 * Does a wrapper run its command in the folder it was started in? A short list of wrappers that take
 * no folder (anything else, or one with an option that could name a folder, may run it elsewhere).
 */
function keepsFolder(words: readonly Word[]): boolean {
  const name = words[0];
  if (!name || name.dynamic || !/^(nohup|nice|timeout|stdbuf|command|builtin|exec|time|ionice|env)$/.test(name.value)) return false;
  return words.slice(1).every((w) => !w.dynamic && !/^(-[a-zA-Z]*C|--ch|--wd|--dir)/.test(w.value));
}

function unwrapViews(part: CommandPart): Unwrapped {
  const out: Unwrapped = { parts: [], scripts: [] };
  let words = part.views[0]!.words;
  let skip = 0;
  let allowable = true;
  let denyOnly = false;
  for (let guard = 0; ; guard++) {
    if (guard >= MAX_WRAPPERS) {
      part.problems.push(`it nests more than ${MAX_WRAPPERS} wrappers, too many to follow`);
      return out;
    }
    if (words.length === 0) return out;
    const first = words[0]!;
    if (first.dynamic) {
      part.problems.push(`the command name ${first.raw} is only known when it runs`);
      return out;
    }
    if (first.glob) {
      part.problems.push(`the command name ${first.raw} is a pattern`);
      return out;
    }
    // A program reached through a process's descriptor links (`exec 7</usr/bin/rm; /proc/self/fd/7 -f x`,
    // `/dev/fd/7`, `/proc/self/exe`, `map_files/…`) is whatever file the descriptor holds: its name says
    // nothing (session 21, check21: allowed under Bash(rm:*) in bypassPermissions, rm ran).
    if (first.value.includes("/") && DESCRIPTOR_PROGRAM.test(lexicalPath(first.value))) {
      part.problems.push(`${first.raw} runs the file a process descriptor holds, which Yoke cannot see by its name`);
      return out;
    }
    if (first.value.includes("/") && !first.value.endsWith("/")) {
      const base = first.value.slice(first.value.lastIndexOf("/") + 1);
      const renamed = [{ ...first, value: base }, ...words.slice(1)];
      const system = SYSTEM_BIN.test(first.value);
      part.views.push({ words: renamed, allowable: allowable && system && !denyOnly, denyOnly: denyOnly || !system, skip });
      if (!system) {
        // Not a standard program: what it runs is only looked at for deny rules.
        allowable = false;
        denyOnly = true;
      }
      words = renamed;
      continue;
    }
    // Where a pattern could expand into the option that makes the program run code (`bash -O {extglob,-c} "rm y"`,
    // `find . -maxdepth {0,-exec} rm y \;`, `watch -n {1,rm} y`): red team 20. Shells and watch: a pattern among the
    // leading options; find: one before its first action word.
    const early = patternBeforeCode(words);
    if (early) {
      expandsToMany(part, words[0]!.value, early);
      return out;
    }
    // A pattern that could match a file named like the option that runs code or writes (a planted `-fprint` and `find . *`).
    const planted = globAsCodeOption(words);
    if (planted) {
      const why = `${words[0]!.value} is given ${planted.word.raw}, a pattern that could match a file named like its option ${planted.option} (which runs a program or writes a file)`;
      if (!part.hidden.includes(why)) part.hidden.push(why);
    }
    const wrapperBefore = part.wrapper;
    const next = step(part, words, out);
    // A program that is not the standard one (`/tmp/x/bash -c …`) needs allowing itself.
    if (denyOnly) part.wrapper = wrapperBefore;
    if (!next) return out;
    if (next.elevate) {
      part.elevated = true;
      allowable = false;
    }
    denyOnly ||= !!next.denyOnly;
    const suffix = next.words.length <= words.length && next.words.every((w, i) => w === words[words.length - next.words.length + i]);
    // A brace or glob pattern among the words a wrapper took as its own (an option's value, a duration, a name) may expand
    // into several, and the command then starts at another word: `exec -a {x,rm} y` runs `rm y` (red team 19's class, for
    // every wrapper). Which command runs is then unknown.
    const taken = suffix ? words.slice(1, words.length - next.words.length) : [];
    const pattern = taken.find((w) => w.glob);
    if (pattern) {
      expandsToMany(part, words[0]!.value, pattern);
      return out;
    }
    skip = suffix ? skip + (words.length - next.words.length) : skip;
    words = next.words;
    if (words.length === 0) return out;
    part.views.push(denyOnly ? { words, allowable: false, denyOnly, skip } : { words, allowable, skip });
  }
}

interface Step {
  words: Word[];
  elevate?: boolean;
  /** The new view only serves deny and ask rules (e.g. `git -C dir push` read as `git push`). */
  denyOnly?: boolean;
}

/** Words that start a compound command in bash (after `coproc`, tree-sitter-bash does not parse one). */
const COMPOUND_START = new Set(["{", "(", "((", "[[", "while", "until", "for", "if", "case", "select", "function"]);

function step(part: CommandPart, words: Word[], out: Unwrapped): Step | undefined {
  const name = words[0]!.value;
  let args = words.slice(1);
  // tree-sitter-bash reads `coproc [NAME] COMPOUND` as the words `coproc`, `{` (or `while`, `if`…)
  // and more commands after: the compound's commands (an `sh -c` script among them) are not parsed,
  // so it is code Yoke cannot see. `coproc SIMPLE-COMMAND` runs that command.
  if (name === "coproc") {
    const start = args.slice(0, 2).find((a) => !a.dynamic && COMPOUND_START.has(a.value));
    if (start) {
      part.hidden.push(`coproc runs a compound command (${start.raw} …) that Yoke's parser does not read`);
      return undefined;
    }
    return { words: args };
  }
  switch (name) {
    case "nohup":
    case "builtin":
      return { words: args[0]?.value === "--" ? args.slice(1) : args };
    case "time": {
      // The bash keyword takes -p; GNU time also -o FILE (writes it), -a, -f FORMAT, -v, -q — read as
      // getopt_long reads them (red team E: `time --f ls rm -f x`, `time -qo ls rm …` ran rm while `ls` was read as the program).
      const r = readGetopt(part, name, args, WRAPPER_OPTIONS.time!);
      if (!r) return undefined;
      for (const o of r.options) if ((o.name === "o" || o.name === "--output") && o.value) (part.writes ??= []).push(o.value);
      return { words: r.rest };
    }
    case "command":
      if (args.some((a) => a.value === "-v" || a.value === "-V")) return undefined;
      return { words: skipFlags(args, new Set(["-p"])) };
    case "exec":
      return execStep(part, args);
    // GNU option parsing as the program does it (clusters, glued values, abbreviated long options: the
    // differential checker's `timeout --sig=TERM 5 date -uf.env` was read as the program `5`). An option
    // Yoke does not know makes the command one it cannot place (asks where a rule could apply).
    case "nice":
    case "stdbuf":
      return gnuWrapper(part, name, args, WRAPPER_OPTIONS[name]!);
    case "timeout": {
      const r = gnuWrapper(part, name, args, WRAPPER_OPTIONS.timeout!);
      // The duration is one word only if the shell does not expand it into more (`{5,rm}` is `5 rm`).
      if (r && r.words[0]?.glob) return expandsToMany(part, name, r.words[0]);
      return r && { words: r.words.slice(1) };
    }
    case "coreutils": {
      // The multi-call binary: `coreutils --coreutils-prog=rm -rf src` is `rm -rf src`.
      const sel = args[0]?.value.match(/^--coreutils-prog(?:-shebang)?=(.+)$/);
      if (sel && !args[0]!.dynamic) return { words: [{ ...args[0]!, value: sel[1]!, raw: args[0]!.raw }, ...args.slice(1)] };
      if (args[0] && args[0].dynamic) part.problems.push(`coreutils is given ${args[0].raw}, only known when it runs`);
      return undefined;
    }
    case "busybox":
    case "toybox":
      return args.length && !args[0]!.value.startsWith("-") ? { words: args } : undefined;
    case "env":
      return envStep(part, args);
    case "sudo":
    case "doas": {
      // getopt_long as sudo reads it (red team E: `sudo -np ls rm …` is `-n -p ls`, then rm), then
      // `NAME=VALUE` words, which sudo puts in the command's environment.
      const r = readGetopt(part, name, args, WRAPPER_OPTIONS.sudo!);
      if (!r) return undefined;
      // `-D DIR`/`--chdir` and `-R DIR`/`--chroot` move where the command's relative paths land (red team J, session
      // 19: `sudo -D sub cat ../.env` was read as `../.env` from the workspace, outside it, and allowed under
      // Read(./.env) in bypassPermissions; sudo runs it where a sudoers `runcwd=*`/`runchroot=*` lets it): as env -C.
      for (const o of r.options) {
        if (/^(D|--chdir)$/.test(o.name)) part.problems.push(`${name} ${o.name.length === 1 ? `-${o.name}` : o.name} runs the command in another folder`);
        if (/^(R|--chroot)$/.test(o.name)) part.problems.push(`${name} ${o.name.length === 1 ? `-${o.name}` : o.name} runs the command under another root folder`);
      }
      const shell = r.options.some((o) => /^(i|s|--login|--shell)$/.test(o.name));
      const rest = envAssignments(part, name, r.rest);
      if (!rest) return undefined;
      if (shell) {
        if (rest.length === 0) part.problems.push(`${name} opens a root shell`);
        else out.scripts.push({ how: `${name} -s`, script: joinWords(rest), elevated: true });
        part.elevated = true;
        part.wrapper = rest.length > 0;
        return undefined;
      }
      return { words: rest, elevate: true };
    }
    case "xargs": {
      // GNU long options may be abbreviated (`--arg F` is `--arg-file F`).
      const XARGS_VALUED = ["--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"];
      args = args.map((a) => {
        const full = !a.dynamic && a.value.startsWith("--") && !a.value.includes("=") ? XARGS_VALUED.find((f) => f.startsWith(a.value) && a.value.length > 2) : undefined;
        return full ? { ...a, value: full } : a;
      });
      // `-a F`, `-aF`, `-0a F` (clustered), `--arg-file=F` (any prefix): the arguments come from F, which xargs reads.
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (v === "--" || (!v.startsWith("-") && !/^(-[0rtpx]*[ILnPsdEa]|--(arg-file|delimiter|max-args|max-procs|max-chars|max-lines|eof|replace|process-slot-var))$/.test(args[i - 1]?.value ?? "")))
          break;
        const glued = /^--a(?:r(?:g(?:-(?:f(?:i(?:le?)?)?)?)?)?)?=(.*)$/.exec(v) ?? /^-[0rtpx]*a(.+)$/.exec(v);
        if (glued) (part.reads ??= []).push({ ...args[i]!, value: glued[1]! });
        else if ((v === "--arg-file" || /^-[0rtpx]*a$/.test(v)) && args[i + 1]) (part.reads ??= []).push(args[i + 1]!);
      }
      const rest = skipOptions(
        args,
        new Set([
          "-I",
          "-L",
          "-n",
          "-P",
          "-s",
          "-d",
          "-E",
          "-a",
          "--arg-file",
          "--a",
          "--ar",
          "--arg",
          "--arg-",
          "--arg-f",
          "--arg-fi",
          "--arg-fil",
          "--delimiter",
          "--max-args",
          "--max-procs",
          "--max-chars",
          "--process-slot-var",
          // (`--replace`, `--eof` and `--max-lines` take their value only as `--opt=VALUE`: getopt_long's
          // optional arguments — red team I, session 18: `xargs --replace rm -rf {}` ran rm -rf while
          // Yoke read `rm` as the replace string and allowed.)
        ]),
        /^(-[0rtpxo]+|-[iIlLnPsdeEa].+|--[a-z-]+(=.*)?)$/,
      );
      part.extraArgs = true;
      const replace = xargsReplaceString(args);
      const fed = xargsInputRunsAs(part, rest, replace);
      if (fed) part.hidden.push(`xargs gives its input to ${fed} as code to run (a command, a subcommand or part of a script)`);
      return { words: rest.length ? rest : [literalWord("echo")] };
    }
    case "watch":
      return watchStep(part, args, out);
    case "find":
      findExec(part, args, out);
      return undefined;
    case "git":
      return gitStep(part, args, out);
    case "eval": {
      part.wrapper = true;
      const script = joinWords(args);
      out.scripts.push({ how: "eval", script, elevated: part.elevated });
      return undefined;
    }
    case "git-shell": {
      // `git-shell -c 'git-receive-pack .'` runs that command line.
      const at = args.findIndex((a) => a.value === "-c");
      if (at >= 0 && args[at + 1]) out.scripts.push({ how: "git-shell -c", script: args[at + 1]!, elevated: part.elevated });
      else part.hidden.push("git-shell runs the commands it reads from its input");
      return undefined;
    }
    case "start-stop-daemon":
      startStopDaemon(part, args, out);
      return undefined;
    default: {
      // git runs `git-NAME` for `git NAME`: the program by its own name is the same command
      // (red team round 12: `/usr/lib/git-core/git-reset --hard` under Bash(git reset:*)).
      const sub = gitProgramCommand(name);
      if (sub !== undefined) return { words: [{ ...words[0]!, value: "git" }, literalWord(sub), ...args] };
      // A compiler driver's `-wrapper PROG,ARG…` under any program's name: gcc's drivers go by many names
      // (`gccgo`, `gdc`, `x86_64-w64-mingw32-gcc`, `g++-mp-12`), and the option is read wherever it is given
      // (deny and ask rules only: the candidate cannot make anything allowed).
      compilerWrapper(part, args, out);
      if (isCompilerDriver(name)) compilerLoads(part, args);
      if (isJavaLauncher(name)) javaOnError(part, args, out);
      if (name === "ed") edStep(part, args, out);
      if (name === "m4") m4Step(part, args, out);
      if (name === "psql") psqlStep(part, args, out);
      if (MAKES.test(name)) makeDefinitions(part, name, args, out);
      // `cmake --build DIR -- ARGS` hands ARGS to the build tool (make reads `CC=…` there too).
      if (name === "cmake" && args.some((a) => a.value === "--build")) {
        const at = args.findIndex((a) => a.value === "--");
        if (at >= 0) makeDefinitions(part, "cmake --build --", args.slice(at + 1), out);
      }
      if (name === "npm" || name === "npx") npmProgramOptions(part, args, out);
      if (name === "npm") npmConfiguredPrograms(part, args, out);
      if (SHELLS.has(name)) return shellStep(part, args, name, out);
      if (OTHER_SHELLS.has(name)) {
        part.hidden.push(`${name} runs a script Yoke cannot read (not bash syntax)`);
        return undefined;
      }
      if (HIDDEN_RUNNERS[name]) {
        part.hidden.push(`${name} ${HIDDEN_RUNNERS[name]}`);
        // Their arguments are often whole command lines (`concurrently 'a' 'b'`): parse each.
        for (const a of args) if (!a.dynamic && !a.value.startsWith("-") && /\s/.test(a.value)) out.scripts.push({ how: name, script: a, elevated: part.elevated });
        const candidates = args.filter((a) => !a.dynamic);
        for (let i = 0; i < candidates.length; i++) if (!candidates[i]!.value.startsWith("-")) part.views.push({ words: candidates.slice(i), allowable: false, denyOnly: true });
        return undefined;
      }
      const elsewhere = ELSEWHERE[name];
      // After global options too (`docker --context x run …`, `kubectl -n ns exec …`; red team 21).
      const where = elsewhere && elsewhere !== true ? runnerSubcommand(part, name, args, elsewhere) : undefined;
      if (elsewhere === true || where) {
        const rest = where ? args.slice(where.index + 1) : args;
        for (let i = 0; i < rest.length; i++) {
          const w = rest[i]!;
          if (w.dynamic) dynamicCandidate(part, name, w);
          if (w.dynamic || w.value.startsWith("-")) continue;
          part.views.push({ words: rest.slice(i), allowable: false, denyOnly: true });
          // ssh joins its command words into one remote shell line: its words are candidates too.
          if (name === "ssh" && /\s/.test(w.value)) {
            const words = tokenize(w.value.replace(/[;&|()]/g, " ")).map(literalWord);
            for (let k = 0; k < words.length; k++) part.views.push({ words: words.slice(k), allowable: false, denyOnly: true });
          }
        }
        return undefined;
      }
      if (RUNS_A_COMMAND.has(name)) runsACommand(part, args, name, out);
      else if (RUNNER_SUBCOMMANDS[name]) {
        const at = runnerSubcommand(part, name, args, RUNNER_SUBCOMMANDS[name]!);
        if (at?.sub === "explore") npmExplore(part, args.slice(at.index + 1), out);
        else if (at) runsACommand(part, args.slice(at.index + 1), `${name} ${at.sub}`, out);
      }
      return undefined;
    }
  }
}

/**
 * Where a package manager's subcommand that runs a command is (red team 21): not only the first word
 * — global options come first (`npm -w pkg exec -- CMD`, `npm --silent exec`), and an option Yoke
 * does not know may take the next word as its value — and, for npm, in any abbreviation it accepts
 * (`npm exe`, `npm explor`). The first operand that is not possibly an option's value ends the search.
 */
function runnerSubcommand(part: CommandPart, name: string, args: Word[], subs: readonly string[]): { sub: string; index: number } | undefined {
  let maybeValue = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.dynamic) {
      // The subcommand itself may be only known at run time (`npm $X -- CMD`).
      dynamicCandidate(part, name, w);
      return undefined;
    }
    const v = w.value;
    // npm's option parser ends its options at `--`; the command still follows (`npm -- exec CMD`).
    if (v === "--") {
      const next = args[i + 1];
      const sub = next && !next.dynamic ? subs.find((s) => s === next.value) : undefined;
      return name === "npm" && sub ? { sub, index: i + 1 } : undefined;
    }
    // (cmake's is an option itself: `cmake -E env CMD`.)
    const sub = subs.find((s) => s === v || (name === "npm" && v.length >= 2 && !v.startsWith("-") && s.startsWith(v)));
    if (sub) return { sub, index: i };
    if (v.startsWith("-") && v !== "-") {
      maybeValue = !v.includes("=");
      continue;
    }
    if (!maybeValue) return undefined;
    maybeValue = false;
  }
  return undefined;
}

/**
 * `npm explore PKG [-- CMD…]`: npm joins CMD's words with spaces and runs the line in a shell in the
 * package's folder; with no CMD the shell reads its commands from the input (red team 21).
 */
function npmExplore(part: CommandPart, args: Word[], out: Unwrapped): void {
  part.runsUnknown = true;
  // npm's parser takes options out (before `--`) and keeps every other word in order: the first is the package.
  const dashdash = args.findIndex((a) => a.value === "--");
  const head = dashdash < 0 ? args : args.slice(0, dashdash);
  const positional = [...head.filter((a) => a.dynamic || !a.value.startsWith("-") || a.value === "-"), ...(dashdash < 0 ? [] : args.slice(dashdash + 1))];
  const unknown = positional.find((w) => w.dynamic);
  if (unknown) {
    dynamicCandidate(part, "npm explore", unknown);
    return;
  }
  // An option npm does not know may take the next word as its value: the package may be the second word.
  const valued = head.some((a) => a.value.startsWith("-") && !a.value.includes("="));
  for (const skip of valued ? [1, 2] : [1]) {
    const words = positional.slice(skip);
    if (!words.length) {
      part.hidden.push("npm explore without a command runs a shell that reads its commands from the input");
      return;
    }
    const line = words.map((w) => w.value).join(" ");
    out.scripts.push({ how: "npm explore", script: { ...words[0]!, ...literalWord(line) }, elevated: part.elevated });
  }
}

function envStep(part: CommandPart, args: Word[]): Step | undefined {
  // getopt_long as GNU env reads it: clusters with a value (`-iu X`), abbreviations (`--uns X`), optional
  // values only glued (`--block-signal=INT`). Red team E: `env --uns ls rm -f x` and `env -iu ls rm …` ran rm
  // while `ls` was read as the program.
  const r = readGetopt(part, "env", args, WRAPPER_OPTIONS.env!);
  if (!r) return undefined;
  for (const o of r.options) {
    if (o.name === "S" || o.name === "--split-string") {
      part.problems.push("env -S splits a string into a command Yoke cannot check");
      return undefined;
    }
    if (o.name === "C" || o.name === "--chdir") part.problems.push("env -C runs the command in another folder");
  }
  // A lone `-` after the options is `-i`.
  const rest = envAssignments(part, "env", r.rest[0]?.value === "-" && !r.rest[0].dynamic ? r.rest.slice(1) : r.rest);
  return rest?.length ? { words: rest } : undefined;
}

/**
 * The `NAME=VALUE` words before the command of env and sudo: every word with a `=` is one, whatever
 * the name (`env 'BASH_FUNC_ls%%=() { rm -f x; }' bash -c ls` exports a function bash runs for `ls` —
 * red team E: the word was read as the program's name, and `rm` in it was never seen). Undefined with
 * a problem when a word is only known when the line runs.
 */
function envAssignments(part: CommandPart, name: string, args: Word[]): Word[] | undefined {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a.dynamic) {
      part.problems.push(`${name} is given ${a.raw}, only known when it runs`);
      return undefined;
    }
    const eq = a.value.indexOf("=");
    if (eq < 0) break;
    const v = a.value.slice(0, eq);
    part.assignments.push({ name: v, value: { ...a, value: a.value.slice(eq + 1) } });
    if ((isDangerousVariable(v) && !isHarmlessSetting(v, { ...a, value: a.value.slice(eq + 1) })) || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v))
      part.problems.push(`it sets ${v} for the command, which changes what runs`);
  }
  return args.slice(i);
}

/**
 * A shell's arguments as bash (and dash, zsh, ksh, mksh) read them: options first — long ones, then
 * clusters of `-` or `+` letters where each `o`/`O` takes the next word — up to `--`, `-` or the first
 * operand. With `c` anywhere in them (`-c`, `+c`, `-xc`, `-co NAME`, `-c -o NAME`, `-c --`) the first operand
 * is the script, the rest `$0 $1…`. Red team E: `bash -co errexit 'rm …'`, `bash -c -- 'rm …'`, `bash +c 'rm …'`
 * and `bash -oo errexit pipefail -c 'rm …'` ran rm while the word after `-c` was read as the script.
 */
function shellStep(part: CommandPart, args: Word[], name: string, out: Unwrapped): Step | undefined {
  let readsInput = false;
  let command = false;
  const bashLike = /^(ba|rba|da|)sh$/.test(name.replace(/^.*\//, ""));
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!;
    // After `-c`, a word only known at run time is read as the script (code Yoke cannot analyse).
    if (v.dynamic && command) break;
    if (v.dynamic) {
      part.hidden.push(`${name} is given ${v.raw}, only known when it runs`);
      return undefined;
    }
    const s = v.value;
    if (s === "--" || s === "-") {
      i++;
      break;
    }
    // An interactive bash (`-i`, anywhere on the line) runs this file's code before the -c script
    // (red team round 10: `bash --rcfile <(echo 'git clean -fd') -i -c :` passed as the read-only `:`).
    if (s === "--rcfile" || s === "--init-file") {
      const file = args[i + 1];
      part.hidden.push(`${name} ${s} runs the code of ${file ? file.raw : "a file"} in an interactive shell, which Yoke cannot see`);
      return undefined;
    }
    if (s.startsWith("--")) continue;
    if (!/^[-+]/.test(s)) break;
    let values = 0;
    for (let k = 1; k < s.length; k++) {
      const ch = s[k];
      if (ch === "o" || ch === "O") {
        // zsh, ksh and mksh take `-oNAME` glued (the rest of the cluster is the name); bash and dash the next
        // word (dash fails on a glued one). Read the way each shell does (a wrong guess here only asks more).
        if (!bashLike && k < s.length - 1) break;
        values++;
      } else if (ch === "c") command = true;
      else if (ch === "s") readsInput = true;
    }
    // Each `o`/`O` of the cluster takes the next word (`-oo errexit pipefail`).
    for (let k = 0; k < values && i + 1 < args.length; k++) {
      i++;
      if (args[i]!.dynamic) {
        part.hidden.push(`${name} is given ${args[i]!.raw}, only known when it runs`);
        return undefined;
      }
    }
  }
  if (command) {
    const script = args[i];
    part.wrapper = true;
    if (!script) {
      if (part.extraArgs) part.hidden.push(`${name} -c runs a script it is given at run time`);
      else part.problems.push(`${name} -c has no script`);
    } else out.scripts.push({ how: `${name} -c`, script, elevated: part.elevated });
    return undefined;
  }
  const operand = args[i];
  return scriptOperand(part, name, operand && !readsInput ? operand : undefined, readsInput || !operand, out);
}

function scriptOperand(part: CommandPart, name: string, script: Word | undefined, readsInput: boolean, out: Unwrapped): undefined {
  if (script && !readsInput) {
    if (script.dynamic || namesDescriptor(script.value)) part.hidden.push(`${name} runs a script from ${script.raw}, which Yoke cannot read`);
    else if (part.extraArgs) part.hidden.push(`${name} runs scripts named at run time`);
    // A script file: its code is the repository's, not the command line's (the sandbox confines it).
    return undefined;
  }
  if (part.extraArgs) {
    part.hidden.push(`${name} runs a script named at run time`);
    return undefined;
  }
  if (part.stdin !== undefined) {
    part.wrapper = true;
    out.scripts.push({ how: `${name} <<`, script: literalWord(part.stdin), elevated: part.elevated });
    return undefined;
  }
  part.hidden.push(`${name} runs a script read from its input, which Yoke cannot see`);
  return undefined;
}

/** `watch [options] command…`: without -x the words are joined and run by `sh -c`. */
function watchStep(part: CommandPart, args: Word[], out: Unwrapped): Step | undefined {
  let exec = false;
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (args[i]!.dynamic) {
      part.problems.push(`watch is given ${args[i]!.raw}, only known when it runs`);
      return undefined;
    }
    if (v === "--") {
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    if (v === "-x" || v === "--exec") exec = true;
    else if (/^-[a-zA-Z]*x[a-zA-Z]*$/.test(v) && !v.startsWith("--")) exec = true;
    if (v === "-n" || v === "--interval" || v === "-q" || v === "--equexit") i++;
  }
  const rest = args.slice(i);
  if (rest.length === 0) return undefined;
  if (exec) return { words: rest };
  part.wrapper = true;
  out.scripts.push({ how: "watch", script: joinWords(rest), elevated: part.elevated });
  return undefined;
}

/** `flock f git push`, `su -c 'git push'`, `ionice -c 3 cmd`: candidate inner commands for deny rules. */
function runsACommand(part: CommandPart, args: Word[], name: string, out: Unwrapped): void {
  part.runsUnknown = true;
  let edRead = false;
  const program = name.split(" ")[0]!;
  // Does the candidate at the current word read the line's own input (see handsInputOn)? Kept as the loop
  // goes (a check per candidate over the words before it was quadratic: setsid + 1,420 words, 37 → 120 ms).
  let passes = PASSES_INPUT.has(program);
  // flock reads its options up to its first operand, the lock file (getopt's `+`), and then `-c CMD` right
  // after it: a later `-c` is its command's (`flock /dev/null gcc -c a.c` compiles a.c; session 16's note
  // read `a.c` as a script run with sudo).
  let lockFile = -1;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (program === "flock" && lockFile < 0 && !args[i]!.dynamic && (!v.startsWith("-") || v === "-") && !/^(-[a-zA-Z]*[wE]|--timeout|--conflict-exit-code)$/.test(args[i - 1]?.value ?? ""))
      lockFile = i;
    const operands = lockFile >= 0 && i > lockFile + 1;
    const scriptOption = SCRIPT_OPTIONS[program];
    if (scriptOption && (scriptOption.test(v) || scriptOption.test(v.split("=")[0]!)) && (args[i + 1] || v.includes("="))) {
      const script = v.includes("=") ? { ...args[i]!, value: v.slice(v.indexOf("=") + 1) } : args[++i]!;
      out.scripts.push({ how: `${name} ${v.split("=")[0]}`, script, elevated: part.elevated });
      passes = false;
      continue;
    }
    // `-c CMD`, in a cluster (`-qc CMD`), glued (`-cCMD`, `-qcCMD`), and `--command` as getopt_long reads it:
    // `--command=CMD` and any prefix down to `--c` (red team E: `script --comm 'rm …' /dev/null` and
    // `script --command='rm …'` ran rm under Bash(rm:*); a prefix other long options share makes the program
    // fail, so reading it as the command too only asks more).
    // su and runuser also read `--session-command CMD` (any prefix down to `--se`): red team I, session 18 —
    // `su --sess 'rm -rf x'` ran rm under Bash(rm -rf:*) while the gate allowed.
    // su and runuser run `-s SHELL`/`--shell=SHELL` (`-sSHELL`, `-ls SHELL`, `--sh SHELL`) as the program, with the
    // words after the user as its arguments: `su -s /usr/bin/rm root -- -rf src` is `rm -rf src` (red team J,
    // session 19: `su --shell=/usr/bin/rm root -- -f x` and `su -s/usr/bin/rm …` ran rm as root while Yoke allowed
    // them under Bash(rm:*)). Which words reach it (options are permuted, `--` ends them) is the program's own
    // reading: the line is one Yoke cannot place.
    if (Object.hasOwn(SHELL_OPTION, program) && !args[i]!.dynamic && SHELL_OPTION[program]!.test(v)) {
      part.problems.push(`${program} ${v.startsWith("--") ? "--shell" : "-s"} runs the program it names with the words after ${program === "capsh" ? "-- or -+" : "the user"} as its arguments`);
      return;
    }
    const dashC: readonly (string | undefined)[] | null =
      DASH_C_SCRIPT.has(program) && !operands && !args[i]!.dynamic ? (/^-[a-bd-zA-Z]*c([\s\S]*)$/.exec(v) ?? longCommandOption(v, SESSION_COMMAND.has(program))) : null;
    if (dashC && (dashC[1] !== undefined && dashC[1] !== "" ? true : !!args[i + 1])) {
      // Only the programs that run it as another user raise its privileges (`flock f -c …` and `script -c …`
      // run it as the same user: session 16's note found `flock /dev/null gcc -c a.c` read as run with sudo).
      const glued = v.startsWith("--") ? v.includes("=") : dashC[1] !== "";
      const script = glued ? { ...args[i]!, value: dashC[1] ?? "" } : args[i + 1]!;
      out.scripts.push({ how: `${name} -c`, script, elevated: part.elevated || OTHER_USER.has(program) });
      if (!glued) i++;
      passes = false;
      continue;
    }
    if (!v.startsWith("-") && !args[i]!.dynamic) {
      if (candidate(part, args.slice(i), out, false, passes)) edRead = true;
    }
    // Every later word could start the command it runs (the candidates above): one only known at
    // run time (`setsid $(echo rm) -rf src`) could be the program itself, which no rule can see.
    else if (args[i]!.dynamic) dynamicCandidate(part, name, args[i]!);
    passes &&= handsInputOn(args[i]!, i === lockFile);
  }
  // An ed candidate's escapes were read from the input it is handed (`flock f ed x <<EOF`): its input is
  // no longer code Yoke cannot see — unless another reading's program also reads commands from it
  // (`flock f psql ed`), which the one flag on the part would then silence.
  if (edRead && !part.views.some((pv) => pv.words[0] && !pv.words[0].dynamic && baseName(pv.words[0].value) !== "ed" && readsCommandInput(baseName(pv.words[0].value)))) part.escapesRead = true;
}

const baseName = (v: string): string => v.slice(v.lastIndexOf("/") + 1);

/**
 * Wrappers that hand their own standard input, untouched, to the command they run (they read none of it
 * and redirect none of it): what a candidate of theirs reads on its input is the line's.
 */
const PASSES_INPUT = new Set([
  "flock",
  "setsid",
  "ionice",
  "chrt",
  "taskset",
  "nocache",
  "eatmydata",
  "setarch",
  "linux32",
  "linux64",
  "i386",
  "x86_64",
  "prlimit",
  "numactl",
  "faketime",
  "strace",
  "ltrace",
  "catchsegv",
  "unshare",
  "setpriv",
  "tini",
  "dumb-init",
  "fakeroot",
  "chpst",
  "gosu",
  "su-exec",
  "s6-setuidgid",
  "runcon",
]);

/**
 * A candidate reads the line's own input only if the wrapper passes it on and no word before the candidate
 * could be a program that gives it another input: each is an option, flock's lock file, a number or CPU
 * mask (`taskset 3`, `ionice -c 3`, `chrt 5`), or itself a wrapper that passes it on (`setsid nice ed`).
 * Anything else (`setsid runner --stdin=cmds ed f`) leaves the later candidates' input unseen.
 */
function handsInputOn(w: Word, lockFile: boolean): boolean {
  if (w.dynamic) return false;
  return w.value.startsWith("-") || lockFile || /^(?:0x)?[0-9a-fA-F,:-]+$/.test(w.value) || PASSES_INPUT.has(w.value) || w.value === "nice" || w.value === "nohup";
}

/**
 * One candidate for the command a wrapper runs (deny and ask rules only). The candidate is itself
 * seen through — a shell's `-c` script, `env`, `nice`, another wrapper — so what it runs meets the
 * rules too (red team round 12: `setsid sh -c 'rm -rf src'` was matched as `sh -c …` alone).
 * Every later word is a candidate of the outer wrapper already, so one level of this is enough;
 * what the inner unwrapping finds hard to read is code Yoke cannot see (a guess must not refuse
 * ordinary work where no deny rule could apply).
 */
/**
 * `input`: the candidate reads the line's own standard input (see handsInputOn), so a program on it that
 * reads commands there (ed) is read as a direct one is. Returns whether ed's escapes were read from it.
 */
function candidate(part: CommandPart, words: Word[], out: Unwrapped, derived = false, input = false): boolean {
  // Each candidate is a suffix of the words: n candidates of n words each is quadratic work in every
  // later step (630 × `rm -rf src` after `setsid` took a second). Past a budget of words over all
  // readings, which command runs is not followed further: code Yoke cannot see (asks where a deny
  // rule exists; the readings already made still meet the rules).
  candidateWords += words.length;
  if (candidateWords > MAX_CANDIDATE_WORDS) {
    const why = `it gives a program that runs a command more words than Yoke follows as that command (${MAX_CANDIDATE_WORDS} over all readings)`;
    if (!part.hidden.includes(why)) part.hidden.push(why);
    return false;
  }
  part.views.push({ words, allowable: false, denyOnly: true });
  // A candidate made of new words (a compiler's `-wrapper sh,-c,CODE` split on commas, start-stop-daemon's
  // program) is no later word of the outer wrapper: it is seen through even inside a candidate — under
  // `flock /dev/null gcc -wrapper 'sh,-c,cat .env,x' …` the script's reads were lost (differential
  // checker, session 16). Past MAX_NESTED such levels, what it runs is code Yoke cannot see.
  if (nestedCandidates > 0 && !derived) return false;
  if (nestedCandidates >= MAX_NESTED) {
    const why = `it nests programs that run commands more than ${MAX_NESTED} deep`;
    if (!part.hidden.includes(why)) part.hidden.push(why);
    return false;
  }
  const sub = probePart(part, words, part.extraArgs);
  if (input) {
    for (const k of ["stdin", "pipedData", "pipedExact", "inputUnseen"] as const) if (part[k] !== undefined) (sub as unknown as Record<string, unknown>)[k] = part[k];
  }
  nestedCandidates++;
  let nested: Unwrapped;
  try {
    nested = unwrapCommand(sub);
  } finally {
    nestedCandidates--;
  }
  // Each reading the candidate is seen through into is one more list of words every later step walks, and a
  // chain of wrappers makes one per wrapper: `setsid` + 1,420 × `nice` made 260 readings of ~1,400 words each
  // (0.35 s CPU; 1,990 × took 0.8 s: session 17's note). They count toward the same budget.
  for (const v of sub.views.slice(1)) {
    candidateWords += v.words.length;
    if (candidateWords > MAX_CANDIDATE_WORDS) {
      const why = `it gives a program that runs a command more words than Yoke follows as that command (${MAX_CANDIDATE_WORDS} over all readings)`;
      if (!part.hidden.includes(why)) part.hidden.push(why);
      break;
    }
    part.views.push({ words: v.words, allowable: false, denyOnly: true });
  }
  for (const why of [...sub.hidden, ...sub.problems]) if (!part.hidden.includes(why)) part.hidden.push(why);
  if (sub.elevated) part.elevated = true;
  if (sub.reads?.length) (part.reads ??= []).push(...sub.reads);
  // The candidate gives its command file names at run time (`nsenter -- xargs -0a l cat` read the .env that l
  // names: differential checker, session 16): any file, for the read deny rules.
  if (sub.extraArgs && !part.extraArgs) {
    const named = { value: `$(the files ${words[0]!.value} names at run time)`, raw: `the files ${words[0]!.value} names at run time`, dynamic: true, glob: false };
    if (!part.reads?.some((r) => r.value === named.value)) (part.reads ??= []).push(named);
  }
  if (sub.writes?.length) (part.writes ??= []).push(...sub.writes);
  if (sub.readings?.length) (part.readings ??= []).push(...sub.readings);
  out.parts.push(...nested.parts);
  out.scripts.push(...nested.scripts.map((sc) => ({ ...sc, elevated: sc.elevated || part.elevated })));
  return input && sub.escapesRead === true;
}
/** Set while a candidate is being seen through (candidates of candidates are candidates of the outer wrapper already). */
let nestedCandidates = 0;
/** Levels of derived candidates seen through inside a candidate. */
const MAX_NESTED = 4;
/** Words in the candidates of the command being unwrapped (reset for each command a line holds). */
let candidateWords = 0;
const MAX_CANDIDATE_WORDS = 8192;

/** A part of its own for `words` (read for deny and ask rules only), as `part` is placed: to see through it without touching `part`. */
function probePart(part: CommandPart, words: Word[], extraArgs: boolean): CommandPart {
  return {
    text: part.text,
    views: [{ words, allowable: false, denyOnly: true, skip: 0 }],
    assignments: [],
    redirects: [],
    elevated: part.elevated,
    extraArgs,
    wrapper: false,
    problems: [],
    hidden: [],
    via: part.via,
    cwd: part.cwd,
  };
}

/**
 * A command found in a program's data (`echo '!timeout 5 rm -fr src' | ed f`, `mysql -e '\\! git -C . reset --hard'`)
 * seen through exactly as a command line's own command is: wrappers, `env`, `nice`, git's global
 * options and program names, a shell's `-c` script. Its readings (the words as found first) serve
 * deny and ask rules only; `runsCode` says a reading runs a script or code Yoke cannot see.
 */
export function seeThrough(part: CommandPart, words: Word[]): { views: Word[][]; runsCode: boolean } {
  const sub = probePart(part, words, part.extraArgs);
  const nested = unwrapCommand(sub);
  const runsCode = nested.scripts.length > 0 || sub.hidden.length > 0 || sub.views.some((v) => v.words[0] !== undefined && !v.words[0].dynamic && isShell(v.words[0].value));
  return { views: [...sub.views.map((v) => v.words), ...(sub.readings ?? [])], runsCode };
}

/** A word that stands for xargs's input in the probe below (no command line holds it). */
const XARGS_INPUT = "\u0000yoke-xargs-input\u0000";

/** xargs's replace string: `-I R`, `-IR`, `--replace[=R]`, `-i[R]` (default `{}`); undefined when it appends its input. */
function xargsReplaceString(args: Word[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (!v.startsWith("-") || v === "--") break;
    if (v === "-I") return args[i + 1]?.value ?? "{}";
    if (/^-[0rtpx]*I./.test(v)) return v.slice(v.indexOf("I") + 1);
    if (/^-[0rtpx]*i$/.test(v) || v === "--replace") return "{}";
    if (/^-[0rtpx]*i./.test(v)) return v.slice(v.indexOf("i") + 1);
    if (v.startsWith("--replace=")) return v.slice(10) || "{}";
  }
  return undefined;
}

/**
 * Whether the command xargs runs takes its input as code (diffcheck, session 14: `echo CMD | xargs
 * -I{} sh -c {}`, `xargs -a FILE env` running a denied `chmod -R 777`): the command line is probed
 * with a stand-in for the input — appended, or put where the replace string is — and seen through
 * like any command. The input is code when it becomes the program (`xargs env`, `xargs nice`,
 * `xargs setsid`), git's subcommand (`xargs git`), part of a script (`sh -c '… {} …'` with -I,
 * `eval`), or options of find (`-exec`, `-delete`). Returns the program's name, or undefined.
 */
function xargsInputRunsAs(part: CommandPart, rest: Word[], replace: string | undefined): string | undefined {
  const name = rest[0]?.value ?? "echo";
  if (rest.length === 0) return undefined;
  const probe = replace ? rest.map((w) => (!w.dynamic && w.value.includes(replace) ? { ...w, value: w.value.split(replace).join(XARGS_INPUT), raw: w.raw } : w)) : [...rest, literalWord(XARGS_INPUT)];
  const sub = probePart(part, probe, false);
  const nested = unwrapViews(sub);
  const has = (w: Word | undefined) => w !== undefined && w.value.includes(XARGS_INPUT);
  for (const v of sub.views) {
    const [first, second] = v.words;
    if (has(first)) return name;
    if (first?.value === "git" && has(v.words.find((w, i) => i > 0 && !w.value.startsWith("-")))) return name;
    if (first?.value === "find") return name;
    if (second && first !== undefined && isShell(first.value) && has(second)) return name;
  }
  if (nested.scripts.some((sc) => has(sc.script))) return name;
  const last = sub.views[sub.views.length - 1]?.words ?? probe;
  if (programTextFromInput(last, has)) return name;
  return undefined;
}

/** awk's and sed's program text is their first operand unless an option gives it; these take a value. */
const PROGRAM_TEXT: Record<string, { given: RegExp; valued: RegExp; flags: RegExp }> = {
  awk: {
    given: /^(-f|--file|-e|--source|-E|--exec)(=|$)|^-[a-zA-Z]*[fE]/,
    valued: /^(-[FvfW]|--field-separator|--assign|--file)$/,
    // Options known to take no separate value; any other option may take the next word (gawk
    // `--ass x=1`, `-l ext`, mawk `-W interactive`), so the input after it may be the program.
    flags:
      /^(-[bcCDgMNOPrsStVz]+|-W.+|--[a-z-]+=.*|--(posix|traditional|lint|sandbox|characters-as-bytes|re-interval|non-decimal-data|optimize|no-optimize|use-lc-numeric|bignum|copyright|version|help))$/,
  },
  sed: {
    given: /^(-e|-f|--expression|--file)(=|$)|^-[a-zA-Z]*[ef]/,
    valued: /^(-[efl]|--expression|--file|--line-length)$/,
    flags: /^(-[nrEsuz]+|-[nrEsuz]*i.*|-l.+|--[a-z-]+=.*|--(quiet|silent|regexp-extended|separate|unbuffered|null-data|zero-terminated|posix|debug|sandbox|follow-symlinks|in-place|version|help))$/,
  },
};
/** Options whose value is code for the programs that take one (`psql -c`, `perl -e`, `gnuplot -e`). */
const CODE_OPTION = /^(-c|-e|-E|--eval|--command|--execute|-ex|-cmd|--cmd|-x)$/;
const CODE_PROGRAMS =
  /^(psql|mysql|mariadb|gnuplot|perl|python[0-9.]*|node|nodejs|ruby|php|lua[0-9.]*|Rscript|R|octave|julia|tclsh|wish|sqlite3|gdb|vim?|nvim|ex|view|emacs|m4|dc|bc|redis-cli|mongo|mongosh)$/;

/**
 * xargs's input (the word `has` finds) as program text: awk's or sed's first operand when no option
 * gives their program (`xargs -0 mawk` runs the input as an awk program, `xargs sed -n` as a sed
 * script, whose `e` command runs programs), or the value of a code option (`xargs psql -c`).
 */
function programTextFromInput(words: Word[], has: (w: Word | undefined) => boolean): boolean {
  const name = words[0]?.value.replace(/^.*\//, "") ?? "";
  const family = /^(g|m|n|busybox-)?awk$/.test(name) ? "awk" : /^g?sed$/.test(name) ? "sed" : undefined;
  for (let i = 1; i < words.length; i++) {
    if (has(words[i]) && CODE_OPTION.test(words[i - 1]!.value) && CODE_PROGRAMS.test(name)) return true;
  }
  if (!family) return false;
  const spec = PROGRAM_TEXT[family]!;
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value;
    if (v === "--") return has(words[i + 1]);
    if (has(words[i])) return true;
    if (!v.startsWith("-") || v === "-") return false;
    // awk's -v and -F take the rest of the word (`-vf=1` assigns f; it names no program file).
    if (family === "awk" && /^-[vF]/.test(v)) {
      if (v.length === 2) i++;
      continue;
    }
    if (spec.given.test(v)) return false;
    if (spec.valued.test(v)) i++;
    else if (!spec.flags.test(v)) return words.slice(i + 1).some(has);
  }
  return false;
}

/** git's own command run by its program file (`git-reset`, `/usr/lib/git-core/git-clean`): its name; undefined for other programs. */
function gitProgramCommand(name: string): string | undefined {
  if (!name.startsWith("git-")) return undefined;
  const sub = name.slice(4);
  return GIT_COMMANDS.has(sub) ||
    /^(receive-pack|upload-pack|upload-archive|remote-[a-z]+|http-(fetch|push)|sh-setup|submodule--helper|merge-[a-z]+|difftool--helper|mergetool--lib|rebase--[a-z]+|credential-[a-z]+)$/.test(sub)
    ? sub
    : undefined;
}

/** `start-stop-daemon -S -x PROGRAM [-a NAME] -- ARGS…` starts PROGRAM (or `--startas`) with ARGS. */
function startStopDaemon(part: CommandPart, args: Word[], out: Unwrapped): void {
  part.runsUnknown = true;
  const programs: Word[] = [];
  let rest: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.value === "--") {
      rest = args.slice(i + 1);
      break;
    }
    const m = /^(-[xa]|--exec|--startas)(?:=(.*))?$/.exec(a.value) ?? /^-([xa])(.+)$/.exec(a.value);
    if (!m) continue;
    const value = m[2] !== undefined ? { ...a, value: m[2] } : args[++i];
    if (value) programs.push(value);
  }
  for (const p of programs) {
    if (p.dynamic) dynamicCandidate(part, "start-stop-daemon", p);
    else candidate(part, [p, ...rest], out, true);
  }
}

/**
 * C compilers' drivers, by family: each dash-separated part of the name is tried, a version glued or
 * after it (`gcc-12`, `clang++-17`, `g++-mp-12`, `x86_64-w64-mingw32-gcc`, `c99-gcc`, `gcc12`), so a
 * target, vendor or packager's prefix or suffix does not hide the driver (`setsid gcc-12 -wrapper …`
 * ran cat on .env under Read(**\/.env) in bypassPermissions: red team 23; gccgo, gdc, mingw names:
 * session 16's note). The families: GCC's and LLVM's drivers and the C compilers that read GCC's options.
 */
const COMPILER_FAMILY =
  /^(gcc|g\+\+|cc|c\+\+|cpp|clang|clang\+\+|clang-cl|gfortran|gccgo|gdc|gnat[a-z]*|gm2|gccrs|tcc|icc|icpc|icx|icpx|nvcc|mpicc|mpicxx|mpic\+\+|c89|c99|c11|emcc|em\+\+)(\d[\d.]*)?$/;
export function isCompilerDriver(name: string): boolean {
  return name.split("-").some((p) => COMPILER_FAMILY.test(p));
}
/** `-wrapper PROG,ARG…` (gcc's drivers) runs each compiler stage through PROG: a candidate of any program given it. */
function compilerWrapper(part: CommandPart, args: Word[], out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    if (args[i]!.value !== "-wrapper" && args[i]!.value !== "--wrapper") continue;
    const value = args[i + 1];
    if (!value) continue;
    if (value.dynamic) dynamicCandidate(part, args[i]!.value, value);
    else candidate(part, value.value.split(",").filter(Boolean).map(literalWord), out, true);
  }
}

/** Where a value names system files a driver may load (anything else may be a file the line or the repository made). */
const SYSTEM_FILES = /^\/(usr|lib|lib32|lib64|opt|etc|nix\/store)\//;

/**
 * What a compiler driver reads or loads when it runs and then runs as code (session 16's note): `@FILE`
 * (more options, a `-wrapper` among them: `gcc @o …` ran the wrapper's `sh -c` under Read(**\/.env),
 * red team 23), `-specs=FILE` (spec strings name the programs each stage runs), `-B DIR`/`--prefix`
 * (`cc1`, `as`, `collect2`, `ld` are looked for there first), `-fplugin=FILE` and `-fpass-plugin=`,
 * `-Xclang -load` (shared objects loaded into the compiler), `-fuse-ld=PATH`/`--ld-path=` (the linker
 * run), `-Wl,-plugin`. Each is code Yoke cannot see (asks where a deny rule exists), unless it names a
 * system file; a plugin by bare name is looked up in the compiler's own folder.
 */
function compilerLoads(part: CommandPart, args: Word[]): void {
  const hide = (a: Word, what: string, value?: Word) => {
    const why = `the compiler ${what} (${a.raw}${value && value !== a ? ` ${value.raw}` : ""}) when it runs, code Yoke cannot see`;
    if (!part.hidden.includes(why)) part.hidden.push(why);
  };
  const outside = (w: Word | undefined) => w !== undefined && (w.dynamic || !SYSTEM_FILES.test(w.value));
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (a.dynamic) continue;
    if (v.startsWith("@") && v.length > 1) hide(a, "reads more options from a file, where a -wrapper would run a command");
    let m: RegExpExecArray | null;
    if ((m = /^--?specs(?:=(.*))?$/.exec(v))) {
      const file = m[1] !== undefined ? a : args[i + 1];
      if (outside(m[1] !== undefined ? { ...a, value: m[1] } : file)) hide(a, "reads spec strings, which name the programs it runs, from a file", file);
    } else if ((m = /^(?:-B|--prefix(?:=|$))(.*)$/.exec(v))) {
      const dir = m[1] ? a : args[i + 1];
      if (outside(m[1] ? { ...a, value: m[1] } : dir)) hide(a, "runs its stages (cc1, as, ld) from another folder", dir);
    } else if ((m = /^-f(?:plugin|pass-plugin)=(.*)$/.exec(v))) {
      if (!/^[A-Za-z0-9_]+$/.test(m[1]!) && outside({ ...a, value: m[1]! })) hide(a, "loads a plugin file");
    } else if ((m = /^(?:-fuse-ld=|--ld-path=)(.*)$/.exec(v))) {
      if (m[1]!.includes("/") && outside({ ...a, value: m[1]! })) hide(a, "runs a linker from a file");
    } else if (v === "-Xclang" && /^-(load|plugin|load-pass-plugin)/.test(args[i + 1]?.value ?? "")) hide(a, "loads a plugin file", args[i + 1]);
    else if (/^-Wl,.*plugin/.test(v) || (v === "-Xlinker" && /plugin/.test(args[i + 1]?.value ?? ""))) hide(a, "has the linker load a plugin");
  }
}

/** The JDK's programs: `-XX:OnOutOfMemoryError=CMD` and `-XX:OnError=CMD` (`-J-XX:…` through javac and its kin). */
const JAVA_LAUNCHERS = new Set([
  "java",
  "javac",
  "javadoc",
  "jar",
  "jshell",
  "jlink",
  "jpackage",
  "kotlinc",
  "scalac",
  "javap",
  "jdeps",
  "jarsigner",
  "keytool",
  "jcmd",
  "jdb",
  "serialver",
  "jmod",
  "jdeprscan",
  "jhsdb",
  "jstat",
  "jconsole",
  "jwebserver",
]);
/** A JDK launcher by any installed name (`java-17`, `/usr/lib/jvm/…/bin/java` is seen by its base name). */
function isJavaLauncher(name: string): boolean {
  return JAVA_LAUNCHERS.has(name.replace(/-?\d[\d.]*$/, ""));
}
/**
 * The JVM runs these values with `sh -c` when memory runs out or it crashes. With them unread,
 * `printf '…' > A.java && java -Xmx16m -XX:OnOutOfMemoryError='cat .env' A.java` read .env under
 * Read(**\/.env) in bypassPermissions (red team 24, real bash via diffcheck).
 */
function javaOnError(part: CommandPart, args: Word[], out: Unwrapped): void {
  for (const a of args) {
    // Options the launcher reads from a file when it runs (`java @F`, `javac @F`, `-J@F`, `-XX:Flags=F`,
    // `-XX:VMOptionsFile=F`): an `-XX:OnError=CMD` there runs CMD (session 16's note).
    const file = a.dynamic ? undefined : (/^(?:-J)?@(.+)$/.exec(a.value) ?? /^(?:-J)?-XX:(?:Flags|VMOptionsFile)=(.+)$/.exec(a.value));
    if (file) {
      const why = `${part.views[0]?.words[0]?.value ?? "java"} reads more options from ${a.raw} when it runs, and an -XX:OnError there would run a command Yoke cannot see`;
      if (!part.hidden.includes(why)) part.hidden.push(why);
      continue;
    }
    const m = /^(?:-J)?-XX:(OnOutOfMemoryError|OnError)=([\s\S]*)$/.exec(a.value);
    if (!m) continue;
    if (a.dynamic) dynamicCandidate(part, `-XX:${m[1]}`, a);
    else out.scripts.push({ how: `${part.views[0]?.words[0]?.value ?? "java"} -XX:${m[1]}`, script: { ...a, value: m[2]! }, elevated: part.elevated });
  }
}

/**
 * ed's shell escapes in its input (`echo '!ls > listed.txt' | ed -s f`), each read as a script of its own
 * (its reads, writes and rules) instead of code Yoke cannot see (session 16 asked wherever a deny rule
 * existed). The input is the literal text (a here-document, a here-string) or the exact output of an
 * echo/printf before it, every line of which is read: more commands than run, never fewer. Any other
 * input stays code Yoke cannot see (command-input.ts, evaluate-bash.ts). A file operand `!CMD` reads
 * CMD's output as the buffer.
 */
function edStep(part: CommandPart, args: Word[], out: Unwrapped): void {
  let file: Word | undefined;
  let restricted = false;
  let informational = false;
  // GNU ed's options as its argument parser reads them (carg_parser): a short cluster's `p` takes the rest
  // of the word or the next one (`-pr` is the prompt `r`, not restricted: red-team A, session 17 — `ed -pr`
  // ran `!cat .env` while Yoke read no escape), long options by any unambiguous prefix (`--pro X`,
  // `--res`), options also after the file; the first operand is the file.
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (args[i]!.dynamic) return;
    if (v === "--") {
      file ??= args[i + 1];
      break;
    }
    if (v.startsWith("--")) {
      const opt = v.slice(2).split("=")[0]!;
      if (opt.length && "prompt".startsWith(opt) && !v.includes("=")) i++;
      else if (opt.length >= 2 && "restricted".startsWith(opt)) restricted = true;
      else if ((opt.length >= 4 && "version".startsWith(opt)) || (opt.length && "help".startsWith(opt))) informational = true;
      continue;
    }
    if (v.startsWith("-") && v !== "-") {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (c === "p") {
          if (k === v.length - 1) i++;
          break;
        }
        if (c === "r") restricted = true;
        if (c === "V" || c === "h") informational = true;
      }
      continue;
    }
    file ??= args[i];
  }
  if (informational) {
    part.escapesRead = true;
    return;
  }
  // Its exact input only: a here-document or here-string, or what an echo/printf Yoke can print pipes in
  // (the rough hint of other pipes may break or join lines: `printf '!cat %s\n' .env`). Otherwise the input
  // stays code Yoke cannot see.
  const data = [part.stdin, part.pipedExact].filter((d): d is string => d !== undefined);
  // Restricted ed (`-r`) runs no escape.
  if (restricted) {
    part.escapesRead = true;
    return;
  }
  if (file?.dynamic || part.inputUnseen || (part.stdin === undefined && part.pipedData !== undefined && part.pipedExact === undefined)) {
    // Said here too, not only by the search of the programs a part runs (evaluate-bash.ts), which reads a
    // wrapper's later candidates with the first one (`echo 'r !\cat .env' | flock f ed -s x` was searched as
    // the program `f`: the differential checker, session 18, ran cat under Read(**/.env)).
    if (part.inputUnseen || /!/.test(part.pipedData ?? "")) {
      const why = "ed runs the commands its input gives its shell escape, which Yoke cannot read exactly";
      if (!part.hidden.includes(why)) part.hidden.push(why);
    }
    return;
  }
  const scripts: string[] = [];
  if (file?.value.startsWith("!")) scripts.push(file.value.slice(1));
  const name = file === undefined || file.value.startsWith("!") ? undefined : file.value;
  for (const d of data) {
    const found = edEscapes(d, name);
    scripts.push(...found.commands);
    for (const why of found.unknown) if (!part.hidden.includes(why)) part.hidden.push(why);
  }
  // No input Yoke can read: ed reads whatever its standard input is — inside `{ true; ed f; }`, `( … )`, a
  // loop, `sh -c`, `eval` after a pipe, or after `exec < FILE` (red-team A, session 17: each ran the piped
  // `!cat .env` while Yoke read ed's input as empty). Code Yoke cannot see, as for `sh` with no script.
  if (!data.length) {
    const why = "ed runs the commands on its input, which Yoke cannot see (`!` runs programs)";
    if (!part.hidden.includes(why)) part.hidden.push(why);
  }
  for (const sc of [...new Set(scripts)]) out.scripts.push({ how: "ed !", script: literalWord(sc), elevated: part.elevated });
  part.escapesRead = true;
}

/**
 * The text a program reading commands from its standard input is handed, where Yoke has it exactly (a
 * here-document or here-string, what a literal echo/printf pipes in); undefined when its input is a file,
 * another command's output or a substitution (code Yoke cannot see), `[]` when it has none Yoke knows of.
 */
function literalInput(part: CommandPart): string[] | undefined {
  if (part.inputUnseen || (part.stdin === undefined && part.pipedData !== undefined && part.pipedExact === undefined)) return undefined;
  return [part.stdin, part.pipedExact].filter((d): d is string => d !== undefined);
}

/**
 * This program's escapes on the part's input were read (CommandPart.escapesReadFor): by name, so that another
 * reading of the same part (`flock f mysql m4 <<<…`: mysql or m4) keeps its own reasons.
 */
function readFor(part: CommandPart, name: string): void {
  if (!(part.escapesReadFor ??= []).includes(name)) part.escapesReadFor.push(name);
}

/** A reader's commands as scripts of the line (`how`), its reasons as code Yoke cannot see. */
function escapeScripts(part: CommandPart, out: Unwrapped, how: string, found: EdEscapes): void {
  for (const why of found.unknown) if (!part.hidden.includes(why)) part.hidden.push(why);
  for (const sc of found.commands) out.scripts.push({ how, script: literalWord(sc), elevated: part.elevated });
}

/** A GNU long option's full name from an unambiguous prefix (`--def` → `define`), undefined when none or several match. */
function longOption(v: string, names: readonly string[]): string | undefined {
  const given = v.slice(2).split("=")[0]!;
  if (names.includes(given)) return given;
  const matches = names.filter((n) => n.startsWith(given));
  return given && matches.length === 1 ? matches[0] : undefined;
}

const M4_LONG = [
  "batch",
  "debug",
  "debugfile",
  "define",
  "discard-comments",
  "error-output",
  "fatal-warnings",
  "freeze-state",
  "gnu",
  "hashsize",
  "help",
  "import-environment",
  "include",
  "interactive",
  "nesting-limit",
  "prefix-builtins",
  "quiet",
  "reload-state",
  "safer",
  "silent",
  "synclines",
  "trace",
  "traditional",
  "undefine",
  "version",
  "warn-macro-sequence",
  "word-regexp",
  "arglength",
];
/** m4's options that take a value, by their long names and letters. */
const M4_VALUED = new Set([
  "define",
  "undefine",
  "include",
  "error-output",
  "freeze-state",
  "reload-state",
  "hashsize",
  "nesting-limit",
  "trace",
  "arglength",
  "word-regexp",
  "D",
  "U",
  "I",
  "o",
  "F",
  "R",
  "H",
  "L",
  "t",
  "l",
  "W",
]);

/**
 * GNU m4's `syscmd`/`esyscmd` commands read from the input Yoke has (shell/m4-escapes.ts), as ed's escapes
 * are: its options as getopt_long reads them (clusters, glued values, long options by unambiguous prefix,
 * options after operands). `-D NAME=TEXT` is text m4 reads again (not followed unless a number); options
 * writing or loading files (`-o`, `-F`, `-R`, `--debugfile`) and `--word-regexp` are not read. A file
 * operand is input Yoke does not read (command-input.ts says so); `-` is the standard input.
 */
function m4Step(part: CommandPart, args: Word[], out: Unwrapped): void {
  const notes: string[] = [];
  let operands = 0;
  let stdin = false;
  const files: Array<Word | "-"> = [];
  const includeDirs: Array<string | undefined> = [];
  const value = (opt: string, v: string | undefined, dynamic = false) => {
    if (v === undefined) return;
    // A folder only known when m4 runs (`-I "$D"`): where m4 finds a name then is unknown.
    if (opt === "include" || opt === "I") includeDirs.push(dynamic ? undefined : v);
    if (opt === "define" || opt === "D") {
      const text = v.slice(v.indexOf("=") + 1);
      if (v.includes("=") && !/^[\d.+\-\s]*$/.test(text)) notes.push(`m4 -D ${v.split("=")[0]} is text m4 reads again, which Yoke does not follow`);
    } else if (["error-output", "freeze-state", "reload-state", "word-regexp", "o", "F", "R", "W"].includes(opt))
      notes.push(`m4's ${opt.length > 1 ? `--${opt}` : `-${opt}`} reads or writes a file or changes m4's syntax`);
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.dynamic) return;
    const v = w.value;
    if (v === "--") {
      for (const op of args.slice(i + 1)) {
        if (op.value === "-") stdin = true;
        else operands++;
        files.push(op.value === "-" ? "-" : op);
      }
      break;
    }
    if (v.startsWith("--")) {
      const name = longOption(v, M4_LONG);
      if (name === undefined) return;
      if (name === "version" || name === "help") {
        readFor(part, "m4");
        return;
      }
      if (name === "debugfile") notes.push("m4's --debugfile writes a file");
      if (M4_VALUED.has(name)) value(name, v.includes("=") ? v.slice(v.indexOf("=") + 1) : args[++i]?.value, !v.includes("=") && !!args[i]?.dynamic);
      continue;
    }
    if (v.startsWith("-") && v !== "-") {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (c === "d") break; // -dFLAGS: the rest of the word is its value
        if (M4_VALUED.has(c)) {
          value(c, k < v.length - 1 ? v.slice(k + 1) : args[++i]?.value, k === v.length - 1 && !!args[i]?.dynamic);
          break;
        }
        if (!"PsEeiQqGgbc".includes(c)) return;
      }
      continue;
    }
    if (v === "-") stdin = true;
    else operands++;
    files.push(v === "-" ? "-" : w);
  }
  for (const why of notes) if (!part.hidden.includes(why)) part.hidden.push(why);
  const data = literalInput(part);
  const include = m4Include(part, includeDirs);
  // Input files: read through the gate's port (evaluate-bash.ts readScriptFiles) and scanned as one stream with
  // what they include; until then, or when one cannot be read, command-input.ts asks for them. With none, or
  // with `-`, the standard input.
  if (operands) {
    if (!include || (stdin && !data?.length)) return;
    const texts: string[] = [];
    for (const f of files) {
      if (f === "-") {
        texts.push(...data!);
        continue;
      }
      const got = f.dynamic || f.glob ? undefined : include(f.value);
      if (got === undefined) return;
      if (got !== "absent") texts.push(got);
    }
    escapeScripts(part, out, "m4 syscmd", m4Escapes(texts.join(""), include));
    readFor(part, "m4");
    return;
  }
  if (!data?.length) return;
  for (const d of data) escapeScripts(part, out, "m4 syscmd", m4Escapes(d, include));
  readFor(part, "m4");
}

/**
 * How m4 finds a file it is given or told to include (GNU m4 1.4.19, checked): an absolute name as it is; a
 * relative one in the folder m4 runs in, then in each `-I` folder in order, then in `M4PATH`'s. Each name
 * tried is a file m4 reads (part.reads: the Read rules apply, a denied one denies the command). The texts are
 * the gate's (ScriptFileLookup); a name not read yet is asked for (part.scriptFiles). Found nowhere the gate
 * looked, the file may come from `M4PATH`: not known. Undefined when the folder m4 runs in is not one known folder.
 */
function m4Include(part: CommandPart, includeDirs: Array<string | undefined>): M4Include | undefined {
  const cwd = part.cwd?.length === 1 ? part.cwd[0]! : undefined;
  if (cwd === undefined || includeDirs.some((d) => d === undefined || d.startsWith("~"))) return undefined;
  const dirs = [cwd, ...includeDirs.map((d) => resolveFrom(cwd, d!, "/"))];
  return (name) => {
    if (!name || name.startsWith("~") || name.includes("\0")) return undefined;
    const candidates = name.startsWith("/") ? [normalizeAbs(name)] : dirs.map((d) => resolveFrom(d, name, "/"));
    let unknown = false;
    for (const abs of candidates) {
      if (!(part.reads ??= []).some((r) => r.value === abs)) part.reads.push({ ...literalWord(abs), raw: name });
      const got = scriptFile(part, abs);
      // Every name is asked for at once (one more read of the gate, not one more analysis per folder).
      if (got === undefined) unknown = true;
      else if (got !== null) return unknown ? undefined : got;
    }
    return unknown || !name.startsWith("/") ? undefined : "absent";
  };
}

/**
 * Script files the gate read for this line (evaluate-bash.ts readScriptFiles): an absolute path's text, null when
 * no such file exists, false when it cannot be known (refused by a Read rule, too large, not a regular file),
 * undefined when it was not read yet.
 */
export type ScriptFileLookup = (absPath: string) => string | null | false | undefined;
let scriptLookup: ScriptFileLookup | undefined;
/** A script file's text as the gate read it (ScriptFileLookup); each is named in part.scriptFiles, so one not read yet is read. */
function scriptFile(part: CommandPart, abs: string): string | null | undefined {
  if (!(part.scriptFiles ??= []).includes(abs)) part.scriptFiles.push(abs);
  const got = scriptLookup?.(abs);
  return got === false ? undefined : got;
}
/** Runs `fn` (an analysis of a line) with the script files read so far known. */
export function withScriptFiles<T>(lookup: ScriptFileLookup, fn: () => T): T {
  const before = scriptLookup;
  scriptLookup = lookup;
  try {
    return fn();
  } finally {
    scriptLookup = before;
  }
}

const PSQL_LONG = [
  "echo-all",
  "no-align",
  "command",
  "dbname",
  "echo-queries",
  "echo-errors",
  "echo-hidden",
  "file",
  "field-separator",
  "field-separator-zero",
  "host",
  "html",
  "list",
  "log-file",
  "no-readline",
  "single-transaction",
  "output",
  "port",
  "pset",
  "quiet",
  "record-separator",
  "record-separator-zero",
  "single-step",
  "single-line",
  "tuples-only",
  "table-attr",
  "username",
  "set",
  "variable",
  "version",
  "no-password",
  "password",
  "expanded",
  "no-psqlrc",
  "help",
  "csv",
];
const PSQL_VALUED = new Set([
  "command",
  "dbname",
  "file",
  "field-separator",
  "host",
  "log-file",
  "output",
  "port",
  "pset",
  "record-separator",
  "table-attr",
  "username",
  "set",
  "variable",
  "c",
  "d",
  "f",
  "F",
  "h",
  "L",
  "o",
  "p",
  "P",
  "R",
  "T",
  "U",
  "v",
]);

/**
 * psql's meta-commands that run programs, read from `-c`'s values and from the input Yoke has
 * (shell/psql-escapes.ts), as ed's escapes are; its options as getopt_long reads them. `-f FILE` is a file
 * Yoke does not read (command-input.ts asks for it), `-f -` the standard input; `-o`/`-L` write a file.
 */
function psqlStep(part: CommandPart, args: Word[], out: Unwrapped): void {
  const texts: string[] = [];
  let stdin = true;
  let file = false;
  const scripts: Word[] = [];
  let dash = false;
  const value = (opt: string, v: Word | undefined) => {
    if (!v) return;
    if (opt === "command" || opt === "c") {
      stdin = false;
      if (v.dynamic) part.hidden.push("psql -c is given a command only known when it runs");
      else texts.push(v.value);
    } else if (opt === "file" || opt === "f") {
      if (v.value === "-") [stdin, dash] = [true, true];
      else {
        [file, stdin] = [true, false];
        scripts.push(v);
      }
    } else if (["output", "log-file", "o", "L"].includes(opt)) {
      const why = `psql's ${opt.length > 1 ? `--${opt}` : `-${opt}`} writes a file Yoke does not check`;
      if (!part.hidden.includes(why)) part.hidden.push(why);
    }
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic && v.startsWith("-")) return;
    if (v === "--") break;
    if (v.startsWith("--")) {
      const name = longOption(v, PSQL_LONG);
      if (name === undefined) return;
      if (name === "version" || name === "help" || name === "list") stdin = false;
      if (PSQL_VALUED.has(name)) value(name, v.includes("=") ? { ...w, value: v.slice(v.indexOf("=") + 1) } : args[++i]);
      continue;
    }
    if (v.startsWith("-") && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (PSQL_VALUED.has(c)) {
          value(c, k < v.length - 1 ? { ...w, value: v.slice(k + 1) } : args[++i]);
          break;
        }
        if (c === "V" || c === "?" || c === "l") stdin = false;
      }
    }
  }
  // A startup file the line names (`PSQLRC=f psql …`) runs its meta-commands first, unless `-X`.
  const noRc = args.some((a) => a.value === "--no-psqlrc" || /^-[a-zA-Z]*X/.test(a.value));
  if (!noRc && part.assignments.some((a) => a.name === "PSQLRC")) {
    const why = "psql runs the startup file PSQLRC names, which Yoke does not read";
    if (!part.hidden.includes(why)) part.hidden.push(why);
  }
  for (const t of texts) escapeScripts(part, out, "psql \\!", psqlEscapes(t));
  if (file) {
    // `-f FILE`: read through the gate's port (evaluate-bash.ts readScriptFiles), relative to the folder psql
    // runs in; its meta-commands as `-c`'s (a `\i` in it stays a reason). Until read, command-input.ts asks.
    const cwd = part.cwd?.length === 1 ? part.cwd[0]! : undefined;
    const read: string[] = [];
    for (const f of scripts) {
      if (cwd === undefined || f.dynamic || f.glob || f.value.startsWith("~") || namesDescriptor(f.value) || f.value.includes("\0")) return;
      const abs = resolveFrom(cwd, f.value, "/");
      if (!(part.reads ??= []).some((r) => r.value === abs)) part.reads.push({ ...literalWord(abs), raw: f.raw });
      const got = scriptFile(part, abs);
      if (typeof got !== "string") return;
      read.push(got);
    }
    if (dash && !literalInput(part)?.length) return;
    for (const t of read) escapeScripts(part, out, "psql \\!", psqlEscapes(t));
    if (dash) for (const d of literalInput(part)!) escapeScripts(part, out, "psql \\!", psqlEscapes(d));
    readFor(part, "psql");
    return;
  }
  if (!stdin) {
    readFor(part, "psql");
    return;
  }
  const data = literalInput(part);
  if (!data?.length) return;
  for (const d of data) escapeScripts(part, out, "psql \\!", psqlEscapes(d));
  readFor(part, "psql");
}

/**
 * make's variable definitions on the command line (`make CC='sh -c "cat .env" #'`) replace the makefile's,
 * and any of them may be a command, or part of one, in a recipe (`$(CC) $(CFLAGS) -c a.c`): the gate's
 * reading of make is that it runs the repository's recipes (confined by the sandbox), but these values are
 * the command line's own. Each value is read as the start of a command (a script: its programs and the files
 * it names meet the rules), each of its words as a file some other value's program may read
 * (`make CC=cat CFLAGS=.env` ran `cat .env -c a.c`), and a value with more than one word, shell syntax or a
 * make reference is code Yoke cannot see (asks where a deny rule exists). Session 16's note; confirmed with
 * real make under strace (scripts/diffcheck.mjs).
 */
/** make by its implementations' names (GNU, BSD, and packaged spellings: `gmake`, `bmake`, `pmake`, `remake`, `mingw32-make`, `make-4.3`). */
const MAKES = /^(?:[A-Za-z0-9_]+-)?(?:g|b|p|re|color)?make(?:-?\d[\d.]*)?$/;
function makeDefinitions(part: CommandPart, name: string, args: Word[], out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    // Options that take the next word as their value (`-f FILE`, `-C DIR`, `-o FILE`…).
    if (/^-[fCIoWj]$|^--(file|makefile|directory|include-dir|old-file|assume-old|new-file|assume-new|what-if|jobs|eval)$/.test(a.value)) {
      i++;
      continue;
    }
    if (a.dynamic || a.value.startsWith("-")) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_.-]*)\s*(?::::|::|:|!|\+|\?)?=([\s\S]*)$/.exec(a.value);
    if (!m) continue;
    const value = m[2]!.replace(/\$\$/g, "$");
    if (!value.trim()) continue;
    if (/\s|[;&|<>()`'"\\#*?[\]{}~]/.test(value) || m[2]!.replace(/\$\$/g, "").includes("$")) {
      const why = `${name} is given ${m[1]}=${value.length > 40 ? `${value.slice(0, 40)}…` : value}, which a recipe may run as (part of) a command`;
      if (!part.hidden.includes(why)) part.hidden.push(why);
    }
    out.scripts.push({ how: `${name} ${m[1]}=`, script: { ...a, value }, elevated: part.elevated });
    for (const w of tokenize(value)) if (w && !w.startsWith("-")) (part.reads ??= []).push({ ...literalWord(w), raw: a.raw });
  }
}

/**
 * The values of npm's settings the gate read for this line (evaluate-bash.ts reads them through the gate's
 * port and analyses the line again with them); undefined while they are not read.
 */
/** npm's spellings of the commands whose program a setting names (npm 11's deref: abbreviations and aliases). */
const NPM_EDIT = new Set(["ed", "edi", "edit"]);
const NPM_EXPLORE = new Set(["explo", "explor", "explore"]);
const NPM_CONFIG = new Set(["c", "con", "conf", "confi", "config"]);
export type NpmSettingsLookup = (cwd: string, userconfig: string | undefined) => NpmSettingValues | undefined;
let npmLookup: NpmSettingsLookup | undefined;
/** Runs `fn` (an analysis of a line) with npm's settings known. */
export function withNpmSettings<T>(lookup: NpmSettingsLookup, fn: () => T): T {
  const before = npmLookup;
  npmLookup = lookup;
  try {
    return fn();
  } finally {
    npmLookup = before;
  }
}

/**
 * `npm edit`, `npm config edit` and `npm explore` run the program a setting names, from the command line
 * (npmProgramOptions) or else from npm's configuration: a `.npmrc` in the project — repository content —,
 * the user's, `npm_config_*` (red team A, session 17: a committed `.npmrc` with `editor=cat .env` made `npm
 * edit x` read .env). The settings not on the line are asked for (part.npmSettings); once the gate has read
 * them, each value is evaluated as the command npm makes of it: `editor` split on blanks (npm's
 * `split(/\s+/)`, no shell) with the folder after it; `shell` (explore with no command) a line
 * `script-shell` runs with `-c`; `script-shell` the program given `-c LINE`. Until then, or when a value is
 * not known, the command stays code Yoke cannot see (command-effects.ts).
 */
function npmConfiguredPrograms(part: CommandPart, args: Word[], out: Unwrapped): void {
  const before = args.findIndex((a) => a.value === "--");
  const head = before < 0 ? args : args.slice(0, before);
  // npm's command by any spelling it accepts (its deref: `npm ed`, `npm explo`, `npm c edit`), after its
  // options: a word after an option without `=` may be that option's value (`-C DIR edit`, `--prefix DIR
  // edit`, an option npm does not know), so the next word may be the command too (more readings than npm
  // makes, never fewer); the first word that cannot be a value is the command.
  const words = head.map((a) => (a.dynamic ? "" : a.value));
  let at = -1;
  let maybeValue = false;
  for (let i = 0; i < words.length; i++) {
    const v = words[i]!;
    if (v.startsWith("-") && v !== "-") {
      maybeValue = !v.includes("=");
      continue;
    }
    if (NPM_EDIT.has(v) || NPM_EXPLORE.has(v) || (NPM_CONFIG.has(v) && words[i + 1] === "edit")) {
      at = i;
      break;
    }
    if (!maybeValue) break;
    maybeValue = false;
  }
  if (at < 0) return;
  const explore = NPM_EXPLORE.has(words[at]!);
  const onLine = (setting: string) =>
    head.some((a) => {
      const o = /^--([a-z-]+)/.exec(a.value)?.[1];
      return !!o && o.length >= 2 && setting.startsWith(o);
    });
  // The command explore runs: the words after the package (npm joins them with spaces), or else the shell setting.
  const command = explore
    ? [
        ...head
          .slice(at + 1)
          .filter((a) => !a.value.startsWith("-"))
          .slice(1),
        ...(before < 0 ? [] : args.slice(before + 1)),
      ]
    : [];
  const settings = (explore ? [...(command.length ? [] : ["shell"]), "script-shell"] : ["editor"]).filter((s) => !onLine(s));
  if (!settings.length) return;
  const verb = explore ? "explore" : "edit";
  const unseen = (why: string) => {
    if (!part.hidden.includes(why)) part.hidden.push(why);
  };
  const generic = `npm ${verb} runs the program its ${settings.join(" and ")} setting names (a .npmrc, npm_config_*), which Yoke cannot see`;
  // Options that move npm's configuration files: `--userconfig F` is read; another (`-C`, `--prefix`,
  // `--globalconfig`, an abbreviation of them) or a value only known at run time leaves the settings unknown.
  let userconfig: string | undefined;
  for (let i = 0; i < head.length; i++) {
    const a = head[i]!;
    if (a.dynamic) return unseen(generic);
    if (/^-[a-zA-Z]*C/.test(a.value)) return unseen(`npm is given ${a.value}, which moves the configuration it reads: ${generic}`);
    const m = /^--([a-z-]+)(?:=([\s\S]*))?$/.exec(a.value);
    if (!m) continue;
    const moves = ["userconfig", "globalconfig", "prefix"].some((o) => m[1]!.length >= 2 && o.startsWith(m[1]!));
    if (!moves) continue;
    const value = m[2] !== undefined ? a : head[i + 1];
    if (m[1] !== "userconfig" || !value || value.dynamic) return unseen(`npm is given ${a.value}, which moves the configuration it reads: ${generic}`);
    userconfig = m[2] !== undefined ? m[2] : value.value;
  }
  part.npmSettings = { settings, userconfig };
  const found = npmLookup && part.cwd ? part.cwd.map((cwd) => npmLookup!(cwd, userconfig)) : [undefined];
  if (found.some((f) => f === undefined)) return unseen(generic);
  const unknown = found.flatMap((f) => f!.unknown);
  if (unknown.length) {
    for (const why of unknown) unseen(why);
    return;
  }
  const line = command.map((w) => w.value).join(" ");
  // Each value is a candidate of its own: what every one of them reads and writes is collected (evaluate-bash.ts).
  part.runsUnknown = true;
  const values = (setting: string, f: NpmSettingValues) => (settings.includes(setting) ? (f.values[setting] ?? []) : []);
  for (const f of found) {
    for (const v of values("editor", f!)) candidate(part, v.split(/\s+/).filter(Boolean).map(literalWord), out, true);
    for (const v of values("shell", f!)) out.scripts.push({ how: "npm explore (its shell setting)", script: literalWord(v), elevated: part.elevated });
    for (const v of values("script-shell", f!)) candidate(part, [...v.split(/\s+/).filter(Boolean).map(literalWord), literalWord("-c"), literalWord(line || "sh")], out, true);
  }
  part.npmSettingsRead = true;
}

/** npm's settings whose value is a program it runs (`npm edit x --editor='cat .env'` ran `cat .env DIR`), by any prefix npm accepts. */
const NPM_PROGRAM_SETTINGS = ["editor", "browser", "shell", "script-shell", "git", "node-gyp", "viewer"];
/**
 * The program an npm setting names, given on the command line: npm splits `editor` on spaces and runs it
 * with the package's folder (`npm edit`, `npm config edit`); `browser` (`npm docs`, `npm repo`), `shell`,
 * `script-shell`, `git`, `node-gyp` likewise run what they name. Each value is a candidate command (deny
 * and ask rules; command-effects.ts reads the option itself as code Yoke cannot see).
 */
function npmProgramOptions(part: CommandPart, args: Word[], out: Unwrapped): void {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.value === "--") break;
    const m = /^--([a-z-]+)(?:=([\s\S]*))?$/.exec(a.value);
    if (!m || a.dynamic) continue;
    const full = NPM_PROGRAM_SETTINGS.find((s) => s === m[1] || (m[1]!.length >= 2 && s.startsWith(m[1]!)));
    if (!full) continue;
    const value = m[2] !== undefined ? { ...a, value: m[2] } : args[i + 1];
    if (m[2] === undefined) i++;
    if (!value) continue;
    if (value.dynamic) dynamicCandidate(part, `npm --${full}`, value);
    else {
      const words = tokenize(value.value).filter(Boolean).map(literalWord);
      if (words.length) candidate(part, words, out, true);
    }
  }
}

/** A word only known at run time where a wrapper's command could start: code Yoke cannot see (asks where a deny rule could apply). */
function dynamicCandidate(part: CommandPart, name: string, word: Word): void {
  const why = `${name} runs a command, and ${word.raw} (only known when it runs) could be that command`;
  if (!part.hidden.includes(why)) part.hidden.push(why);
}

/** `find … -exec CMD … ;` — each CMD is a further part; `{}` are paths found at run time. */
function findExec(part: CommandPart, args: Word[], out: Unwrapped): void {
  const roots: Word[] = [];
  for (const a of args) {
    if (/^-(H|L|P)$/.test(a.value)) continue;
    if (/^[-(!]/.test(a.value) || a.value === ")" || a.value === ",") break;
    roots.push(a);
  }
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (!/^-(exec|execdir|ok|okdir)$/.test(v)) continue;
    const inner: Word[] = [];
    let j = i + 1;
    for (; j < args.length && args[j]!.value !== ";" && !(args[j]!.value === "+" && args[j - 1]?.value === "{}"); j++) inner.push(args[j]!);
    if (inner.length) {
      const sub: CommandPart = {
        text: inner.map((w) => w.raw).join(" "),
        views: [{ words: inner, allowable: !part.elevated, skip: 0 }],
        assignments: [],
        redirects: [],
        elevated: part.elevated,
        extraArgs: true,
        wrapper: false,
        problems: [],
        hidden: [],
        via: [...part.via, `find ${v}`],
        cwd: part.cwd,
        filesFrom: roots.length ? roots : [literalWord(".")],
      };
      const nested = unwrapCommand(sub);
      out.parts.push(sub, ...nested.parts);
      out.scripts.push(...nested.scripts);
    } else part.problems.push(`find ${v} has no command`);
    i = j;
  }
}

/** git's own commands (anything else is an alias or a `git-NAME` program). */
const GIT_COMMANDS = new Set(
  "add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects credential daemon describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help hook http-backend imap-send index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog remote repack replace request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack shortlog show show-branch show-index show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info var verify-commit verify-pack verify-tag version whatchanged worktree write-tree lfs flow".split(
    " ",
  ),
);

/** git configuration keys that cannot make git run anything. */
const SAFE_GIT_CONFIG =
  /^(color(\..*)?|user\.(name|email)|author\.(name|email)|committer\.(name|email)|core\.(quotepath|autocrlf|safecrlf|eol|abbrev|ignorecase|filemode|whitespace|compression|bigfilethreshold)|advice\..*|log\.(date|decorate|showroot|follow|abbrevcommit|showsignature)|format\.pretty|diff\.(renames|renamelimit|mnemonicprefix|noprefix|algorithm|indentheuristic|colormoved|context|interhunkcontext|submodule|statgraphwidth|ignoresubmodules|relative|suppressblankempty|orderfile|wserrorhighlight)|status\.(short|branch|showuntrackedfiles|relativepaths|submodulesummary|aheadbehind|renames)|init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote|followtags)|merge\.(ff|conflictstyle|log|stat)|rebase\.(autostash|autosquash|stat|updaterefs)|fetch\.(prune|prunetags|parallel)|commit\.(verbose|cleanup|status)|tag\.sort|branch\.sort|column\.ui|pager\.[a-z-]+=?false|gc\.auto|maintenance\.auto|protocol\.version|http\.(postbuffer|lowspeedlimit|lowspeedtime|version)|grep\.(linenumber|extendedregexp|patterntype|column|fullname)|blame\.(date|coloring)|i18n\..*|am\.threeway)$/i;
/** Keys whose value is a shell command git runs. */
const SCRIPT_GIT_CONFIG =
  /^(core\.(pager|editor|sshcommand|askpass|fsmonitor)|sequence\.editor|diff\.external|diff\.[^.]+\.(textconv|command)|filter\.[^.]+\.(clean|smudge|process)|merge\.[^.]+\.driver|uploadpack\.packobjectshook|pager\.[^.]+|difftool\.[^.]+\.cmd|mergetool\.[^.]+\.cmd|man\.[^.]+\.cmd|gpg\.program|gpg\.[^.]+\.program|credential\.helper|credential\.[^.]+\.helper|remote\.[^.]+\.(uploadpack|receivepack)|sendemail\.(smtpserver|tocmd|cccmd)|core\.gitproxy|ssh\.variant)$/i;

/**
 * `git -C dir --no-pager push` is read as `git push` (deny rules only); `-c alias.x=…` expands the
 * alias; `-c` keys that run commands give their value as a script; other options that make git
 * run programs are hidden code; subcommand options that take a command (`rebase --exec`,
 * `bisect run`, `submodule foreach`, `--upload-pack`…) give it as a script or a candidate command.
 */
function gitStep(part: CommandPart, args: Word[], out: Unwrapped): Step | undefined {
  let i = 0;
  let changed = false;
  const aliases = new Map<string, string>();
  // `-c remote.X.push=+…` / `-c remote.X.mirror=true`: the push options they mean (shell/git-push.ts).
  const impliedPush: string[] = [];
  const config = (kv: Word) => {
    if (kv.dynamic) {
      part.hidden.push(`git -c ${kv.raw} is only known when it runs`);
      return;
    }
    const eq = kv.value.indexOf("=");
    const key = (eq < 0 ? kv.value : kv.value.slice(0, eq)).toLowerCase();
    const value = eq < 0 ? "" : kv.value.slice(eq + 1);
    if (key.startsWith("alias.")) aliases.set(kv.value.slice(6, eq < 0 ? undefined : eq), value);
    else if (isPushConfigKey(key)) impliedPush.push(...pushOptionsOf(key, value));
    else if (SAFE_GIT_CONFIG.test(key)) return;
    else if (SCRIPT_GIT_CONFIG.test(key) && value !== "" && !/^(true|false|0|1|yes|no|on|off)$/i.test(value)) {
      const script = key.startsWith("credential") && !value.startsWith("!") ? `git-credential-${value}` : value.replace(/^!/, "");
      out.scripts.push({ how: `git -c ${key}`, script: literalWord(script), elevated: part.elevated });
    } else if (!SCRIPT_GIT_CONFIG.test(key)) part.hidden.push(`git -c ${key} may make git run programs or read other files`);
  };
  while (i < args.length) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic && v.startsWith("-")) {
      part.problems.push(`git is given ${w.raw}, only known when it runs`);
      return undefined;
    }
    if (v === "-c") {
      if (args[i + 1]) config(args[i + 1]!);
      i += 2;
    } else if (v.startsWith("-c") && v.length > 2 && !v.startsWith("--")) {
      config({ ...w, value: v.slice(2) });
      i++;
    } else if (v === "--config-env" || v.startsWith("--config-env=")) {
      part.hidden.push("git --config-env takes configuration from the environment");
      i += v === "--config-env" ? 2 : 1;
    } else if (v === "--exec-path" && args[i + 1] && !args[i + 1]!.value.startsWith("-")) {
      part.hidden.push("git --exec-path runs git commands from another folder");
      i += 2;
    } else if (v.startsWith("--exec-path=")) {
      part.hidden.push("git --exec-path runs git commands from another folder");
      i++;
    } else if (v === "-C" || v === "--git-dir" || v === "--work-tree" || v === "--namespace" || v === "--super-prefix") i += 2;
    else if (
      /^--(git-dir|work-tree|namespace|super-prefix)=/.test(v) ||
      /^-(p|P)$/.test(v) ||
      /^--(no-pager|paginate|bare|no-replace-objects|literal-pathspecs|glob-pathspecs|noglob-pathspecs|icase-pathspecs|no-optional-locks|no-advice|exec-path|html-path|man-path|info-path|version|help|no-lazy-fetch)$/.test(
        v,
      )
    )
      i++;
    else break;
    changed = true;
  }
  let rest = args.slice(i);
  const sub = rest[0];
  if (sub && !sub.dynamic && aliases.has(sub.value)) {
    const value = aliases.get(sub.value)!;
    if (value.startsWith("!")) {
      part.wrapper = true;
      out.scripts.push({ how: `git alias ${sub.value}`, script: literalWord(value.slice(1)), elevated: part.elevated });
      return undefined;
    }
    rest = [...tokenize(value).map(literalWord), ...rest.slice(1)];
    changed = true;
  }
  gitSubcommandCommands(part, rest, out);
  const subName = rest[0];
  if (subName && !subName.dynamic && !subName.value.startsWith("-") && !GIT_COMMANDS.has(subName.value)) {
    // Not a git command: an alias from a configuration Yoke does not read (or `git-X` on the PATH),
    // which could be any git command. Deny rules on git commands might apply.
    part.views.push({ words: [literalWord("git"), { value: subName.value, raw: subName.raw, dynamic: true, glob: false }, ...rest.slice(1)], allowable: false, denyOnly: true });
  }
  if (!changed) return undefined;
  // A push the configuration forces is read with the options it implies (`git push --force …`).
  if (impliedPush.length && rest[0] && !rest[0].dynamic && rest[0].value === "push") rest = [rest[0], ...impliedPush.map(literalWord), ...rest.slice(1)];
  return { words: [literalWord("git"), ...rest], denyOnly: true };
}

function gitSubcommandCommands(part: CommandPart, rest: Word[], out: Unwrapped): void {
  const sub = rest[0]?.value;
  const opts = rest.slice(1);
  const script = (how: string, w: Word | undefined) => {
    if (!w) return;
    if (w.dynamic) part.problems.push(`${how} runs ${w.raw}, only known when it runs`);
    else out.scripts.push({ how, script: w, elevated: part.elevated });
  };
  for (let j = 0; j < opts.length; j++) {
    const v = opts[j]!.value;
    if (v === "--") break;
    const cluster = sub === "rebase" ? shortExec(opts, j, "sSXC") : sub === "difftool" ? shortExec(opts, j, "t") : undefined;
    if (cluster) {
      // `git rebase -xrm`, `-x'rm -rf src'`, `-ix 'rm y'` (sbx18: allowed under Bash(git:*) and Bash(rm:*)).
      script(`git ${sub} -x`, cluster.word);
      j += cluster.used - 1;
    } else if ((sub === "rebase" && (v === "-x" || /^--exe?c?$/.test(v))) || (sub === "difftool" && (v === "-x" || /^--e(x(t(c(m(d)?)?)?)?)?$/.test(v))))
      // Long options by any unambiguous prefix, as parse-options takes them (`git rebase --exe 'rm y'`).
      script(`git ${sub} ${v}`, opts[++j]);
    else if (sub === "rebase" && /^--exe?c?=/.test(v)) script(`git rebase --exec`, { ...opts[j]!, value: v.slice(v.indexOf("=") + 1) });
    else if (sub === "difftool" && /^--e(x(t(c(m(d)?)?)?)?)?=/.test(v)) script(`git difftool --extcmd`, { ...opts[j]!, value: v.slice(v.indexOf("=") + 1) });
    // clone's `--upload-pack` by any prefix (`--u`, `--upl=`) and `-u` in a cluster or glued (`-qu CMD`, `-uCMD`), as
    // parse-options reads them: real git 2.39 ran `git clone --upload='touch UP' src d` (session 23, gitnew23).
    else if (sub === "clone" && /^--u[a-z-]*(=|$)/.test(v) && isLongOption(v, "--upload-pack"))
      script("git clone --upload-pack", v.includes("=") ? { ...opts[j]!, value: v.slice(v.indexOf("=") + 1) } : opts[++j]);
    else if (sub === "clone" && /^-[vqnls46]*u/.test(v)) {
      const glued = v.slice(v.indexOf("u") + 1);
      script("git clone -u", glued ? { ...opts[j]!, value: glued } : opts[++j]);
    } else if (/^--(upload-pack|receive-pack|exec)$/.test(v)) script(`git ${sub} ${v}`, opts[++j]);
    else if (/^--(upload-pack|receive-pack|exec)=/.test(v)) script(`git ${sub} ${v.split("=")[0]}`, { ...opts[j]!, value: v.slice(v.indexOf("=") + 1) });
    // --subdirectory-filter takes a folder, not code; --setup is code run before the filters.
    else if (sub === "filter-branch" && v === "--subdirectory-filter") j++;
    else if (sub === "filter-branch" && (/^--[a-z-]+-filter$/.test(v) || v === "--setup")) script(`git filter-branch ${v}`, opts[++j]);
    else if (sub === "grep" && (v === "-O" || v === "--open-files-in-pager")) part.hidden.push("git grep -O opens the files in a pager");
    else if (sub === "grep" && (v.startsWith("-O") || v.startsWith("--open-files-in-pager=")))
      script("git grep -O", { ...opts[j]!, value: v.startsWith("-O") ? v.slice(2) : v.slice(v.indexOf("=") + 1) });
    else if ((sub === "clone" || sub === "init") && (v === "--template" || v.startsWith("--template="))) part.hidden.push(`git ${sub} --template copies hooks from a folder`);
    else if (sub === "clone" && (v === "-c" || v === "--config")) {
      const kv = opts[++j];
      if (kv && !/^(color|user|core\.autocrlf|init)\b/i.test(kv.value)) part.hidden.push(`git clone ${v} ${kv.raw} may make git run programs`);
    }
  }
  if (sub === "submodule" && opts.some((w) => w.value === "foreach")) {
    const k = opts.findIndex((w) => w.value === "foreach");
    const cmd = opts.slice(k + 1).filter((w, idx) => idx > 0 || w.value !== "--recursive");
    if (cmd.length) script("git submodule foreach", joinWords(cmd));
  }
  if (sub === "bisect" && opts[0]?.value === "run" && opts[1]) {
    // git runs the words as run_command(use_shell) does: the first word is shell code (`sh -c
    // 'FIRST "$@"'` when it holds a shell character, else the program), the rest its arguments. A
    // script of its own, so wrappers in it are followed (sbx18: `git bisect run sh -c 'rm -rf src'`
    // and `git bisect run env rm y` were allowed under Bash(rm:*) in bypassPermissions, as only
    // the first word was checked, for deny rules).
    const [first, ...args] = opts.slice(1);
    if (first!.value === "--") part.problems.push("git bisect run -- runs a program named --");
    else
      script("git bisect run", {
        value: [first!.value, ...args.map((a) => shellQuote(a.value))].join(" "),
        raw: opts
          .slice(1)
          .map((w) => w.raw)
          .join(" "),
        dynamic: [first!, ...args].some((w) => w.dynamic),
        glob: false,
      });
  }
}

/**
 * A cluster of short options (`-ix cmd`, `-xcmd`, `-ixcmd`) holding `-x`, git's parse-options
 * reading: flags first; `-x` takes the rest of the word, or the next word. `valued` are the
 * subcommand's other short options that take a value (then the rest of the word is theirs).
 * Returns the script word and how many words were used, or undefined.
 */
function shortExec(words: Word[], j: number, valued: string): { word: Word | undefined; used: number } | undefined {
  const w = words[j]!;
  if (!/^-[A-Za-z]/.test(w.value) || w.value === "-x") return undefined;
  for (let k = 1; k < w.value.length; k++) {
    const c = w.value[k]!;
    if (!/[A-Za-z]/.test(c) || valued.includes(c)) return undefined;
    if (c !== "x") continue;
    const rest = w.value.slice(k + 1);
    return rest ? { word: { ...w, value: rest }, used: 1 } : { word: words[j + 1], used: 2 };
  }
  return undefined;
}

function skipFlags(args: Word[], flags: Set<string>): Word[] {
  let i = 0;
  while (i < args.length && flags.has(args[i]!.value)) i++;
  if (args[i]?.value === "--") i++;
  return args.slice(i);
}

type GnuOptions = WrapperOptions;

/** One option as getopt_long read it: `-n`/`--adjustment` (the full long name), and its value word. */
interface ReadOption {
  name: string;
  value?: Word;
}

/**
 * A wrapper's options read as getopt_long with a leading `+` reads them (options end at the first
 * operand; clusters, glued values, unambiguous prefixes of long options, optional values only after
 * `=`), or undefined with a problem when an option is not one the program has, is ambiguous, or is
 * only known when the line runs, or a pattern could expand into options.
 */
function readGetopt(part: CommandPart, name: string, args: Word[], o: GnuOptions): { options: ReadOption[]; rest: Word[] } | undefined {
  const unknown = (w: Word) => {
    part.hidden.push(`${name} is given ${w.raw}, an option Yoke cannot read (which command it runs is unknown)`);
    return undefined;
  };
  const options: ReadOption[] = [];
  let i = 0;
  while (i < args.length) {
    const w = args[i]!;
    const v = w.value;
    if (!v.startsWith("-") || v === "-") {
      // `{-s,9}` or `-[s]` can expand into options: Yoke cannot tell where the command starts.
      if (w.glob && (name === "timeout" || /^[{[*?-]/.test(v))) return expandsToMany(part, name, w);
      break;
    }
    if (w.dynamic) return unknown(w);
    if (w.glob) return expandsToMany(part, name, w);
    if (v === "--") return { options, rest: args.slice(i + 1) };
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const n = eq < 0 ? v : v.slice(0, eq);
      const optional = o.longOptional ?? [];
      const all = [...o.long, ...o.longValued, ...optional];
      const hits = all.includes(n) ? [n] : all.filter((l) => l.startsWith(n));
      if (hits.length !== 1) return unknown(w);
      const full = hits[0]!;
      if (o.longValued.includes(full)) {
        if (eq < 0 && args[i + 1]?.glob) return expandsToMany(part, name, args[i + 1]!);
        if (eq < 0 && !args[i + 1]) return unknown(w);
        options.push({ name: full, value: eq < 0 ? args[i + 1] : { ...w, value: v.slice(eq + 1) } });
        i += eq < 0 ? 2 : 1;
      } else if (optional.includes(full)) {
        options.push({ name: full, ...(eq < 0 ? {} : { value: { ...w, value: v.slice(eq + 1) } }) });
        i++;
      } else if (eq >= 0) return unknown(w);
      else {
        options.push({ name: full });
        i++;
      }
      continue;
    }
    if (o.number && /^-\d+$/.test(v)) {
      options.push({ name: "n", value: { ...w, value: v.slice(1) } });
      i++;
      continue;
    }
    let j = 1;
    for (; j < v.length; j++) {
      const c = v[j]!;
      if (o.valued.includes(c)) break;
      if (!o.flags.includes(c)) return unknown(w);
      options.push({ name: c });
    }
    if (j < v.length) {
      const glued = j < v.length - 1;
      if (!glued && args[i + 1]?.glob) return expandsToMany(part, name, args[i + 1]!);
      if (!glued && !args[i + 1]) return unknown(w);
      options.push({ name: v[j]!, value: glued ? { ...w, value: v.slice(j + 1) } : args[i + 1] });
      i += glued ? 1 : 2;
    } else i++;
  }
  return { options, rest: args.slice(i) };
}

/** The words after a wrapper's options (see readGetopt). */
function gnuWrapper(part: CommandPart, name: string, args: Word[], o: GnuOptions): { words: Word[] } | undefined {
  const r = readGetopt(part, name, args, o);
  return r && { words: r.rest };
}

/** A word the wrapper reads as one (an option's value, timeout's duration) that the shell may expand into several. */
/** A brace or glob word where its expansion could become the option that runs code (see the unwrap loop). */
function patternBeforeCode(words: Word[]): Word | undefined {
  const name = words[0]!.value;
  if (name === "find") {
    for (const w of words.slice(1)) {
      if (!w.glob && /^-(exec|execdir|ok|okdir)$/.test(w.value)) return undefined;
      // A brace pattern (a glob expands to file names, which a command could plant too, but `find -name *.ts` is common work).
      if (w.glob && w.raw.includes("{")) return w;
    }
    return undefined;
  }
  if (name !== "watch" && !isShell(name)) return undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w.glob) return w;
    if (!/^[-+]/.test(w.value) || w.value === "--" || w.value === "-") return undefined;
    // Options whose value is the next word.
    if (/^([-+][oO]|--(rcfile|init-file|interval|differences)|-n|-d)$/.test(w.value) && words[i + 1]) {
      if (words[i + 1]!.glob) return words[i + 1];
      i++;
    }
  }
  return undefined;
}

function expandsToMany(part: CommandPart, name: string, w: Word): undefined {
  part.hidden.push(`${name} is given ${w.raw}, a pattern the shell expands (which command it runs is unknown)`);
  return undefined;
}

/** Programs reached through `/proc/PID/fd/N`, `/proc/PID/exe`, `/proc/PID/map_files/…`, `/dev/fd/N`, `/dev/stdin`. */
const DESCRIPTOR_PROGRAM = /(^|\/)proc\/[^/]+\/(task\/[^/]+\/)?(fd|fdinfo|exe|map_files)(\/|$)|^\/dev\/(fd|stdin|stdout|stderr)(\/|$)/;

/** `.`, `..` and repeated slashes removed (no symlinks followed). */
function lexicalPath(p: string): string {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return `${p.startsWith("/") ? "/" : ""}${out.join("/")}`;
}

/** Programs that choose what they are by the name they are started as (their argv[0]). */
const MULTICALL = new Set(["busybox", "toybox", "coreutils"]);

/**
 * bash's `exec [-cl] [-a NAME] COMMAND`, options as bash reads them (`-cla NAME`, `-aNAME`, `--`). With `-a`
 * the program is started as NAME: a multi-call binary then runs NAME (session 21, check21: `exec -a rm busybox
 * -f src/a.ts` ran rm while Yoke allowed it under Bash(rm:*) in bypassPermissions; `exec -arm busybox …` too).
 */
function execStep(part: CommandPart, args: Word[]): Step | undefined {
  let i = 0;
  let argv0: Word | undefined;
  while (i < args.length) {
    const a = args[i]!;
    if (a.value === "--") {
      i++;
      break;
    }
    if (!a.value.startsWith("-") || a.value === "-") break;
    if (a.dynamic) {
      part.problems.push(`exec is given ${a.raw}, only known when it runs`);
      return undefined;
    }
    const at = a.value.indexOf("a");
    if (!/^-[cla]+/.test(a.value)) break;
    if (at > 0) {
      const glued = a.value.slice(at + 1);
      // A glued name is shown as its value (its raw text is the whole `-aNAME` word).
      argv0 = glued ? { ...a, value: glued, raw: glued } : args[i + 1];
      i += glued ? 1 : 2;
    } else i++;
  }
  const words = args.slice(i);
  const prog = words[0];
  if (argv0 && prog && !prog.dynamic && MULTICALL.has(prog.value.slice(prog.value.lastIndexOf("/") + 1))) {
    if (argv0.dynamic || argv0.glob) {
      part.problems.push(`exec -a ${argv0.raw} starts ${prog.raw}, which runs the program it is named as, only known when it runs`);
      return undefined;
    }
    const name = argv0.value.slice(argv0.value.lastIndexOf("/") + 1);
    if (!MULTICALL.has(name)) return { words: [{ ...argv0, value: name }, ...words.slice(1)] };
  }
  // Other programs started under another name may act as that name too (vim as `ex`, `rview` or `vimdiff`, bash
  // as `sh`, python as a venv's, `view`…): which ones look at argv[0] is not a table Yoke keeps — a wrong guess
  // would run what the rules did not see — so any name other than the program's own is code Yoke cannot see.
  if (argv0 && prog && !prog.dynamic) {
    const own = prog.value.slice(prog.value.lastIndexOf("/") + 1);
    const name = argv0.dynamic || argv0.glob ? undefined : argv0.value.slice(argv0.value.lastIndexOf("/") + 1);
    if (name !== own) part.problems.push(`exec -a ${argv0.raw} starts ${prog.raw} under another name, which some programs act on (vim as ex, bash as sh): what it does is only known when it runs`);
  }
  return { words };
}

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
