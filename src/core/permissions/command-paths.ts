/**
 * The files any command names, for deny and ask rules and protected paths: arguments of programs
 * that write (`tee`, `cp`, `mv`, `rm`, `sed -i`, `dd of=`…) count as writes (of the path and
 * everything below it), other arguments as reads. Deny rules such as `Read(./.env)` or
 * `Edit(./secrets/**)` therefore also catch `source .env`, `node x.js .env` or `rm -r secrets`.
 * Never used to allow anything.
 */
import { NO_PATH_COMMANDS, pathArguments } from "./readonly-commands";
import type { Word } from "./shell/words";

const NO_PATH = new Set(NO_PATH_COMMANDS);
/** Every non-option argument is written (or removed, or changed in place). */
const WRITES_ALL = new Set([
  "tee",
  "touch",
  "mkdir",
  "rmdir",
  "rm",
  "unlink",
  "truncate",
  "shred",
  "chmod",
  "chown",
  "chgrp",
  "setfacl",
  "chattr",
  "mkfifo",
  "mknod",
  "srm",
  "trash",
  "trash-put",
  "gio",
]);
/** The last non-option argument is written; the others are read. */
const WRITES_LAST = new Set(["cp", "install", "ln", "rsync", "scp", "link"]);
/** Sources are read and removed, the last argument written. */
const MOVES = new Set(["mv"]);

/** Options of common programs whose value is not a file (`git commit -m MESSAGE`). */
const NON_PATH_VALUES: Record<string, Set<string>> = {
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

export interface NamedPaths {
  reads: Word[];
  writes: Word[];
}

export function namedPaths(words: Word[]): NamedPaths {
  const name = words[0]?.value ?? "";
  const out: NamedPaths = { reads: [], writes: [] };
  if (NO_PATH.has(name)) return out;
  const args = words.slice(1);
  if (name === "dd") {
    for (const a of args) {
      if (a.value.startsWith("of=")) out.writes.push({ ...a, value: a.value.slice(3) });
      if (a.value.startsWith("if=")) out.reads.push({ ...a, value: a.value.slice(3) });
    }
    return out;
  }
  const positional = positionalArgs(args, NON_PATH_VALUES[name]);
  if (WRITES_LAST.has(name) || MOVES.has(name)) {
    // `cp -t DIR src…`, `mv --target-directory=DIR src…`: the folder is written, the rest read.
    const target = targetDirectory(args);
    if (target) {
      const sources = positional.filter((w) => w !== target.word && w.value !== target.dir.value);
      out.reads.push(...sources);
      out.writes.push(target.dir, ...(MOVES.has(name) ? sources : []));
      return out;
    }
  }
  if (WRITES_ALL.has(name) || (name === "sed" && args.some((a) => /^(-i|--in-place)/.test(a.value) || /^-[a-zA-Z]*i/.test(a.value)))) {
    out.writes.push(...positional);
  } else if (MOVES.has(name) && positional.length > 1) {
    out.reads.push(...positional.slice(0, -1));
    out.writes.push(...positional);
  } else if (WRITES_LAST.has(name) && positional.length > 1) {
    out.reads.push(...positional.slice(0, -1));
    out.writes.push(positional[positional.length - 1]!);
  } else out.reads.push(...positional);
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
