/**
 * A script the command line writes and then runs: `echo 'rm -rf src' > s.sh; bash s.sh`,
 * `printf … > s; source s`, `… > p.sed; sed -f p.sed f`, `… > p.awk; awk -f p.awk`,
 * `… > x; chmod +x x; ./x`, `… > p.py; python3 p.py`. A script file that was there before is the
 * sandbox's part (as with `node FILE`), but here the code is data of the line itself, which Yoke
 * does not analyse as code: under a deny rule the command asks, as for code read from input
 * (parse-or-ask; differential checker, session 14, found `source s` and `sed -f p.sed` running
 * `rm` in bypassPermissions under `Bash(rm:*)`).
 */
import { isInterpreter } from "./command-effects";
import { shortOptionUses, optionValues } from "./long-options";
import { normalizeAbs, resolveFrom } from "./posix-path";
import { isShell } from "./shell/unwrap";
import type { Word } from "./shell/words";

interface ScriptRunner {
  part: { hidden: string[]; views?: ReadonlyArray<{ words: Word[] }> };
  cwd: string | null;
  innermost: { words: Word[] };
}

interface LineTouch {
  kind: "read" | "write";
  inst: unknown;
  exact?: { lexical: string };
}

/** Options of shells and interpreters that take a value (their value is not the script). */
const VALUED = /^(-[cCeEoOWXIm]|--rcfile|--init-file|-r|--require|--import|--loader)$/;

/** The files a part runs as code: a shell's or interpreter's script, `source F`, `sed -f F`, `awk -f F`, `./F`. */
function scriptOperands(words: Word[]): Word[] {
  const program = words[0];
  if (!program || program.dynamic) return [];
  const name = program.value.slice(program.value.lastIndexOf("/") + 1);
  const args = words.slice(1);
  const out: Word[] = [];
  // A program named by a path (`./s.sh`; the analysis keeps its name, the path is in `raw`).
  const path = program.value.includes("/") ? program.value : program.raw.includes("/") ? program.raw.replace(/['"\\]/g, "") : undefined;
  if (path) out.push({ ...program, value: path });
  if (name === "sed" || name === "awk" || name === "gawk" || name === "mawk" || name === "nawk") {
    out.push(...optionValues(args, "--file", undefined, ["--follow-symlinks"]), ...shortOptionUses(args, "f", name === "sed" ? "efl" : "fvF").flatMap((u) => (u.value ? [u.value] : [])));
    return out;
  }
  if (!isShell(name) && !isInterpreter(name)) return out;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") {
      if (args[i + 1]) out.push(args[i + 1]!);
      break;
    }
    if (VALUED.test(v)) {
      i++;
      continue;
    }
    if (v.startsWith("-") && v.length > 1) continue;
    out.push(args[i]!);
    break;
  }
  return out;
}

/** Marks each part that runs, as code, a file another part of the same line writes. */
export function markScriptsTheLineWrites(instances: readonly ScriptRunner[], touches: readonly LineTouch[], home: string): void {
  // Who writes each file: a wrapper's candidates are read for what they write too (session 17, gate18), and
  // the file one candidate writes is not run by another candidate of the same command (`setsid rm -f build/x.o`
  // runs rm, which removes x.o; it does not run it).
  const written = new Map<string, Set<unknown>>();
  for (const t of touches) {
    if (t.kind !== "write" || !t.exact) continue;
    const abs = normalizeAbs(t.exact.lexical);
    const by = written.get(abs) ?? new Set<unknown>();
    by.add(t.inst);
    written.set(abs, by);
  }
  if (!written.size) return;
  for (const inst of instances) {
    if (inst.cwd === null) continue;
    // Each command a wrapper may run is read too: `ln -s /bin/sh s && setsid ./s -c 'cat .env'` read .env
    // under Read(**/.env) in bypassPermissions (red team 24, diffcheck): only the innermost command was.
    const runs = [inst.innermost.words, ...(inst.part.views ?? []).map((v) => v.words)];
    for (const op of runs.flatMap(scriptOperands)) {
      if (op.dynamic) continue;
      const abs = normalizeAbs(resolveFrom(inst.cwd, op.value, home));
      const by = written.get(abs);
      if (!by || (by.size === 1 && by.has(inst))) continue;
      // The part that writes the file is another part (a script that rewrites itself is still data).
      const why = `it runs ${op.value} as code, a file this command line writes, so the code it runs is data Yoke does not analyse`;
      if (!inst.part.hidden.includes(why)) inst.part.hidden.push(why);
      break;
    }
  }
}
