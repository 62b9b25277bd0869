/**
 * The files any command names, for deny and ask rules only: arguments of programs that write
 * (`tee`, `cp`, `mv`, `rm`, `sed -i`, `dd of=`…) count as writes, other arguments as reads. Deny
 * rules such as `Read(./.env)` or `Edit(./secrets/**)` therefore also catch `source .env`,
 * `node x.js .env` or `rm -r secrets`. Never used to allow anything.
 */
import { NO_PATH_COMMANDS, pathArguments } from "./readonly-commands";
import type { Word } from "./shell/words";

const NO_PATH = new Set(NO_PATH_COMMANDS);
/** Every non-option argument is written (or removed, or changed in place). */
const WRITES_ALL = new Set(["tee", "touch", "mkdir", "rmdir", "rm", "unlink", "truncate", "shred", "mv", "chmod", "chown", "chgrp", "setfacl"]);
/** The last non-option argument is written; the others are read. */
const WRITES_LAST = new Set(["cp", "install", "ln", "rsync", "scp"]);

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
  const positional = positionalArgs(args);
  if (WRITES_ALL.has(name) || (name === "sed" && args.some((a) => /^(-i|--in-place)/.test(a.value) || /^-[a-zA-Z]*i/.test(a.value)))) {
    out.writes.push(...positional);
  } else if (WRITES_LAST.has(name) && positional.length > 1) {
    out.reads.push(...positional.slice(0, -1));
    out.writes.push(positional[positional.length - 1]!);
  } else out.reads.push(...positional);
  return out;
}

/** Literal arguments that are not options (everything after `--`), plus values glued to short options (`-f/etc/x`). */
export function positionalArgs(args: Word[]): Word[] {
  return pathArguments(args.filter((a) => !a.dynamic));
}
