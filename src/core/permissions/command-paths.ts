/**
 * The files any command names, for deny and ask rules and protected paths: arguments of programs
 * that write (`tee`, `cp`, `mv`, `rm`, `sed -i`, `dd of=`…) count as writes (of the path and
 * everything below it), other arguments as reads. Deny rules such as `Read(./.env)` or
 * `Edit(./secrets/**)` therefore also catch `source .env`, `node x.js .env` or `rm -r secrets`.
 * Never used to allow anything.
 */
import { isLongOption } from "./long-options";
import { isModeWord } from "./option-values";
import { NO_PATH_COMMANDS, pathArguments } from "./readonly-commands";
import type { Word } from "./shell/words";

const NO_PATH = new Set(NO_PATH_COMMANDS);
/**
 * Every non-option argument is written (or removed, or changed in place). Only that path: these
 * never write below it (`touch x`, `mkdir -p x/y`, `tee x`).
 */
const WRITES_ALL = new Set(["tee", "touch", "mkdir", "rmdir", "unlink", "truncate", "shred", "mkfifo", "mknod"]);
/** Every non-option argument is written, and everything below it with a recursive option. */
const WRITES_ALL_RECURSIVE: Record<string, RegExp> = {
  rm: /^-[a-zA-Z]*[rR]|^--recursive$/,
  srm: /^-[a-zA-Z]*[rR]|^--recursive$/,
  chmod: /^-[a-zA-Z]*R|^--recursive$/,
  chown: /^-[a-zA-Z]*R|^--recursive$/,
  chgrp: /^-[a-zA-Z]*R|^--recursive$/,
  setfacl: /^-[a-zA-Z]*R|^--recursive$/,
  chattr: /^-[a-zA-Z]*R$/,
};
/** Every argument is written with everything below it (moving a folder to the trash). */
const WRITES_ALL_REGION = new Set(["trash", "trash-put", "gio"]);
/** The last non-option argument is written; the others are read. */
const WRITES_LAST = new Set(["cp", "install", "ln", "rsync", "scp", "link"]);
/** Options that make a copy recursive (rsync copies folders as they are named). */
const RECURSIVE_COPY: Record<string, RegExp> = {
  cp: /^-[a-zA-Z]*[rRa]|^--(recursive|archive)$/,
  install: /^$^/,
  ln: /^$^/,
  link: /^$^/,
  rsync: /^/,
  scp: /^-[a-zA-Z]*r/,
};
/** Sources are read and removed, the last argument written. */
const MOVES = new Set(["mv"]);

/** Options of common programs whose value is not a file (`git commit -m MESSAGE`). */
const NON_PATH_VALUES: Record<string, Set<string>> = {
  // The ACL entries of setfacl (`setfacl -R -m u:me:rwx d`).
  setfacl: new Set(["-m", "--modify", "-x", "--remove", "--set"]),
  git: new Set([
    "-m",
    "--message",
    "--author",
    "--date",
    "--format",
    "--pretty",
    "-n",
    "--max-count",
    "--since",
    "--until",
    "--after",
    "--before",
    "--grep",
    "-S",
    "-G",
    "--trailer",
    "--fixup",
    "--squash",
    "-b",
    "-B",
    "--branch",
    "--depth",
    "--jobs",
    "-j",
    "--origin",
    "-o",
    "--push-option",
    "--abbrev",
    "--decorate",
    "--color",
    "--reuse-message",
    "-c",
    "-C",
    "--reedit-message",
    "--cleanup",
    "--strategy",
    "-s",
    "-X",
    "--strategy-option",
    "--onto",
    "--upstream",
    "--set-upstream-to",
    "-u",
    "--track",
    "-t",
    "--signoff",
    "--gpg-sign",
  ]),
  grep: new Set(["-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "--include", "--exclude", "--exclude-dir", "--color"]),
  // The script of `sed -i -e '/^$/d' f` is not a file.
  sed: new Set(["-e", "--expression", "-l", "--line-length"]),
  rg: new Set(["-e", "--regexp", "-g", "--glob", "-t", "--type", "-T", "--type-not", "-m", "-A", "-B", "-C", "-r", "--replace"]),
  npm: new Set(["-w", "--workspace", "--tag", "--otp", "--access"]),
  docker: new Set([
    "-t",
    "--tag",
    "-e",
    "--env",
    "--name",
    "-p",
    "--publish",
    "--network",
    "--platform",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--entrypoint",
    "-m",
    "--memory",
    "--cpus",
    "--label",
    "-l",
  ]),
  curl: new Set([
    "-H",
    "--header",
    "-X",
    "--request",
    "-d",
    "--data",
    "--data-raw",
    "--data-urlencode",
    "-A",
    "--user-agent",
    "-u",
    "--user",
    "-e",
    "--referer",
    "-b",
    "--cookie",
    "--connect-timeout",
    "-m",
    "--max-time",
    "-w",
    "--write-out",
    "-x",
    "--proxy",
  ]),
};

/** Programs whose arguments this module reads as written paths. */
export function writesNamedPaths(name: string): boolean {
  return WRITES_ALL.has(name) || WRITES_ALL_REGION.has(name) || name in WRITES_ALL_RECURSIVE || WRITES_LAST.has(name) || MOVES.has(name) || name === "dd";
}

export interface NamedPaths {
  reads: Word[];
  /** Written, only that path. */
  writes: Word[];
  /** Written with everything below it. */
  regions?: Word[];
  /**
   * cp/mv/ln/install: `target` and `target/<name of each source>` are written (the target may be a
   * folder); below them too when `below` says so: always for a recursive copy of a folder, for a
   * move of a folder (the caller decides whether a source is a folder).
   */
  copies?: { sources: Word[]; target: Word; kind: "copy" | "recursive" | "move"; intoFolder?: boolean };
}

/**
 * chmod's mode, chown's owner and chgrp's group come before the files (`chmod -R 777 d`: 777 is not
 * a path); with `--reference=F` there is none (F is read). chmod reads an option-like word as its
 * mode (`chmod -w f`); chattr's attributes are `+i`, `-i`, `=i`.
 */
function withoutModeOperand(name: string, args: Word[], positional: Word[]): Word[] {
  if (name === "chattr") return positional.filter((w) => w.dynamic || !/^[+=]/.test(w.value));
  if (name !== "chmod" && name !== "chown" && name !== "chgrp") return positional;
  const dashdash = args.findIndex((a) => a.value === "--");
  const options = dashdash < 0 ? args : args.slice(0, dashdash);
  const reference = options.find((a) => isLongOption(a.value, "--reference"));
  if (reference) return positional;
  if (name === "chmod" && options.some((a) => a.value.startsWith("-") && !a.value.startsWith("--") && isModeWord("chmod", a.value))) return positional;
  return positional.slice(1);
}

export function namedPaths(words: Word[]): NamedPaths {
  const name = words[0]?.value ?? "";
  const out: NamedPaths = { reads: [], writes: [], regions: [] };
  if (NO_PATH.has(name)) return out;
  const args = words.slice(1);
  if (name === "dd") {
    for (const a of args) {
      if (a.value.startsWith("of=")) out.writes.push({ ...a, value: a.value.slice(3) });
      if (a.value.startsWith("if=")) out.reads.push({ ...a, value: a.value.slice(3) });
    }
    return out;
  }
  if (name === "history") return historyPaths(args, out);
  if (name === "git" || name.endsWith("/git")) {
    const git = gitWorktreeWrites(args);
    if (git) return git;
  }
  const positional = withoutModeOperand(name, args, positionalArgs(args, NON_PATH_VALUES[name]));
  const dashdash = args.findIndex((a) => a.value === "--");
  const options = (dashdash < 0 ? args : args.slice(0, dashdash)).filter((a) => a.value.startsWith("-"));
  if (WRITES_LAST.has(name) || MOVES.has(name)) {
    const kind = MOVES.has(name) ? "move" : options.some((o) => RECURSIVE_COPY[name]!.test(o.value)) ? "recursive" : "copy";
    // `cp -t DIR src…`, `mv --target-directory=DIR src…`: the folder is written, the rest read.
    const target = targetDirectory(args);
    if (target) {
      const sources = positional.filter((w) => w !== target.word && w.value !== target.dir.value);
      out.reads.push(...sources);
      out.copies = { sources, target: target.dir, kind, intoFolder: true };
      return out;
    }
    if (positional.length > 1) {
      const sources = positional.slice(0, -1);
      out.reads.push(...sources);
      out.copies = { sources, target: positional[positional.length - 1]!, kind };
      return out;
    }
  }
  if (name === "sed" && args.some((a) => /^(-i|--in-place)/.test(a.value) || (/^-[a-zA-Z]*i/.test(a.value) && !a.value.startsWith("--")))) {
    // The script is the first operand unless -e/-f gave one; the files are changed in place.
    const explicit = args.some((a) => /^(-e|--expression|-f|--file)(=|$)/.test(a.value) || /^-[a-zA-Z]*[ef]$/.test(a.value));
    const files = explicit ? positional : positional.slice(1);
    out.writes.push(...files);
    // `-i.bak` / `--in-place=.bak` also writes a backup next to each file (`*` stands for its name).
    const suffix = args.map((a) => /^-[a-zA-Z]*i(.+)$/.exec(a.value)?.[1] ?? /^--in-place=(.+)$/.exec(a.value)?.[1]).find((x) => x !== undefined);
    if (suffix) for (const f of files) out.writes.push({ ...f, value: suffix.includes("*") ? suffix.replace(/\*/g, f.value.slice(f.value.lastIndexOf("/") + 1)) : `${f.value}${suffix}` });
    return out;
  }
  if (WRITES_ALL.has(name)) out.writes.push(...positional);
  else if (WRITES_ALL_REGION.has(name)) out.regions!.push(...positional);
  else if (WRITES_ALL_RECURSIVE[name]) {
    if (options.some((o) => WRITES_ALL_RECURSIVE[name]!.test(o.value))) out.regions!.push(...positional);
    else out.writes.push(...positional);
  } else out.reads.push(...positional);
  return out;
}

/** A word standing for a path only known when the command runs (a write the rules cannot see: asks where one could apply). */
const unknownPath = (w: Word, why: string): Word => ({ ...w, value: why, dynamic: true });

/**
 * bash's `history` builtin: `-w FILE` writes (truncates) FILE, `-a FILE` appends to it, `-r FILE`/`-n FILE` read it
 * (checked with real bash; session 21 saw `history -w .git/config` allowed in bypassPermissions). Without FILE they use
 * `$HISTFILE`, which the line may set: a path only known when it runs. `-s`/`-p` take words, not files; `-d` an offset.
 */
function historyPaths(args: Word[], out: NamedPaths): NamedPaths {
  let write = false;
  let read = false;
  let i = 0;
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (args[i]!.dynamic) return { ...out, writes: [unknownPath(args[i]!, "$HISTFILE")] };
    if (v === "--") {
      i++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (c === "s" || c === "p") return out;
      if (c === "w" || c === "a") write = true;
      if (c === "r" || c === "n") read = true;
      if (c === "d") {
        if (k === v.length - 1) i++;
        break;
      }
    }
  }
  if (!write && !read) return out;
  const file = args[i];
  const target = file ?? unknownPath(literalPathWord("history"), "$HISTFILE");
  if (write) out.writes.push(target);
  if (read && file) out.reads.push(file);
  return out;
}

const literalPathWord = (raw: string): Word => ({ value: raw, raw, dynamic: false, glob: false });

/** git's global options that take the next word as their value. */
const GIT_GLOBAL_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path"]);
/** Options of `git mv`, `git checkout` and `git restore` that take the next word as their value (not a path of the work tree). */
const GIT_SUB_VALUED: Record<string, Set<string>> = {
  mv: new Set(),
  checkout: new Set(["-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"]),
  restore: new Set(["-s", "--source", "--conflict", "--pathspec-from-file"]),
};

/**
 * The work-tree files `git mv`, `git checkout … PATHS` and `git restore PATHS` write (session 21 saw `git mv README.md
 * .vscode/tasks.json` allowed in bypassPermissions: the gate read git's operands as reads). `mv`: as mv (every
 * source moved away, the destination and `DEST/<source name>`: the destination may be a folder). `checkout`: every operand (the
 * first may be a commit or a branch, read as a path too: more writes than happen, never fewer). `restore`: every
 * operand. A pathspec with magic (`:(…)`, `:/`), a glob, `--pathspec-from-file`, or a global option that moves the work
 * tree (`-C`, `--work-tree`, `--git-dir`) makes the paths only known when git runs. Undefined for other subcommands.
 */
function gitWorktreeWrites(args: Word[]): NamedPaths | undefined {
  let i = 0;
  let moved = false;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic || !v.startsWith("-")) break;
    if (v === "-C" || v === "--git-dir" || v === "--work-tree" || /^--(git-dir|work-tree)=/.test(v)) moved = true;
    if (GIT_GLOBAL_VALUED.has(v)) i++;
  }
  const sub = args[i];
  // `git stash -u`/`-a` (push, save) removes the untracked (and ignored) files, wherever they are: an untracked
  // protected file too (the differential checker saw `git stash -u` try to remove `.git` itself).
  if (sub && !sub.dynamic && sub.value === "stash") {
    const rest = args.slice(i + 1);
    const action = rest.find((w) => !w.value.startsWith("-"));
    const pushes = !action || action.value === "push" || action.value === "save";
    if (pushes && rest.some((w) => w.dynamic || /^--(include-untracked|all)$|^-[a-zA-Z]*[ua]/.test(w.value)))
      return { reads: [], writes: [], regions: [moved ? unknownPath(sub, "the untracked files git stash -u removes") : { ...sub, value: "." }] };
    return undefined;
  }
  if (!sub || sub.dynamic || !(sub.value in GIT_SUB_VALUED)) return undefined;
  const valued = GIT_SUB_VALUED[sub.value]!;
  const out: NamedPaths = { reads: [], writes: [], regions: [] };
  const operands: Word[] = [];
  let fromFile = false;
  let afterDashes = false;
  let beforeDashes = 0;
  for (let k = i + 1; k < args.length; k++) {
    const w = args[k]!;
    const v = w.value;
    if (!afterDashes && !w.dynamic && v === "--") {
      afterDashes = true;
      beforeDashes = operands.length;
      continue;
    }
    if (!afterDashes && !w.dynamic && v.startsWith("-") && v !== "-") {
      if (/^--pathspec-from-file(=|$)/.test(v)) fromFile = true;
      if (valued.has(v)) k++;
      continue;
    }
    operands.push(w);
  }
  const unknown = (w: Word) => w.dynamic || moved || fromFile || w.glob || /[*?[]/.test(w.value) || w.value.startsWith(":");
  const path = (w: Word) => (unknown(w) ? unknownPath(w, `the files git ${sub.value} ${w.raw} names`) : w);
  if (fromFile) out.writes.push(unknownPath(sub, `the files git ${sub.value} --pathspec-from-file names`));
  if (sub.value === "mv") {
    if (operands.length < 2) return out;
    // As mv is read (NamedPaths.copies, kind "move"): the sources moved away, DEST and DEST/<source name>.
    const sources = operands.slice(0, -1).map(path);
    out.reads.push(...sources);
    out.copies = { sources, target: path(operands[operands.length - 1]!), kind: "move" };
    return out;
  }
  // checkout's commit or branch: before `--` (`git checkout HEAD -- f`), or the first of several operands when it
  // reads as a revision (`git checkout HEAD~1 f`); any other operand is a path git may write.
  const paths = afterDashes
    ? operands.slice(sub.value === "checkout" ? Math.min(beforeDashes, 1) : beforeDashes)
    : sub.value === "checkout" && operands.length > 1 && !operands[0]!.dynamic && /^(@|HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD)$|[~^]|@\{/.test(operands[0]!.value)
      ? operands.slice(1)
      : operands;
  for (const w of paths) out.writes.push(path(w));
  return out;
}

/** Arguments that are not options (everything after `--`), plus values glued to short options (`-f/etc/x`). */
export function positionalArgs(args: Word[], nonPathValues?: Set<string>): Word[] {
  return pathArguments(args, nonPathValues);
}

/** Is words[i] the value of the option before it (`-m "$(date)"`), or after `--`, so it cannot be an option itself? */
export function isOptionValue(words: Word[], i: number): boolean {
  const table = NON_PATH_VALUES[words[0]?.value ?? ""];
  if (words.slice(1, i).some((w) => w.value === "--")) return true;
  const prev = words[i - 1];
  return !!prev && !!table?.has(prev.value);
}

function targetDirectory(args: Word[]): { dir: Word; word?: Word } | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") break;
    if ((v === "-t" || v === "--target-directory") && args[i + 1]) return { dir: args[i + 1]!, word: args[i + 1] };
    if (v.startsWith("--target-directory=")) return { dir: { ...args[i]!, value: v.slice(19) } };
    if (/^-[a-zA-Z]*t$/.test(v) && !v.startsWith("--") && args[i + 1]) return { dir: args[i + 1]!, word: args[i + 1] };
    if (/^-t./.test(v)) return { dir: { ...args[i]!, value: v.slice(2) } };
  }
  return undefined;
}
