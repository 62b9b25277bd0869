/**
 * Compares what the gate predicted and decided with what bash really did (a traced run), and sorts
 * every difference into a class. A difference is a BYPASS when the gate allowed the command in that
 * rule set and mode (or classified it read-only) and the run did something the analysis did not
 * name and the gate would not have allowed on its own; where the gate asked or denied it is only
 * informational (the user sees the command first).
 */
import type { PermissionDecision, PermissionMode } from "../../core/loop/types";
import type { BashPrediction, PredictedPart } from "../../core/permissions/bash-prediction";
import { matchBashSpec } from "../../core/permissions/bash-spec";
import { matchOptionSpellings } from "../../core/permissions/option-spellings";
import { parseRule } from "../../core/permissions/rule-syntax";
import { literalWord, type Word } from "../../core/permissions/shell/words";
import { protectedEntry } from "../../core/protected-paths";
import { normalize, type ExecEvent, type FileEvent, type TraceEvent } from "./trace";

export type DisagreementClass = "exec not predicted" | "denied program ran" | "read-only command wrote" | "write not predicted" | "read of denied path" | "write to denied path";

export interface Disagreement {
  class: DisagreementClass;
  /** bypass: the gate allowed it; info: the gate asked or denied. */
  severity: "bypass" | "info";
  ruleSet: string;
  mode: PermissionMode;
  decision: PermissionDecision["decision"];
  detail: string;
}

/** One gate verdict with what the checker needs to judge a path on its own. */
export interface Verdict {
  ruleSet: string;
  mode: PermissionMode;
  decision: PermissionDecision;
  /** Deny rules of the rule set (`Bash(rm:*)`…), for the argv of programs that really ran. */
  bashDeny: string[];
  /** Allow rules of the rule set: what a rule-allowed part does is the rule's business (outside deny rules and protected paths). */
  bashAllow: string[];
  /** The gate's own answer for a file the command touched (Read / Write tool on that path, same rules and mode). */
  fileVerdict: (permission: "Read" | "Write", path: string) => Promise<Pick<PermissionDecision, "decision" | "by">>;
}

export interface CompareInput {
  command: string;
  prediction: BashPrediction;
  verdicts: Verdict[];
  events: TraceEvent[];
  parent: Map<number, number>;
  /** Paths outside these folders are the sandbox's own (private /tmp, /dev, /proc, system files): ignored for reads and writes. */
  watched: string[];
  /** The realpath of a path's folder, after the run (symlinks in predictions are resolved; trace paths of calls without a returned descriptor are not). */
  realDir?: (path: string) => string | undefined;
  /** The workspace the command ran in (its protected paths are read-only in Yoke's sandbox). */
  workspace?: string;
  /**
   * Other names the executed file answers to (session 21, check21): the program a symlink resolves to, and
   * the installed program whose bytes a copy carries (`cp /usr/bin/rm x; ./x -rf src`). A deny rule names a
   * program, not the file name it was started by.
   */
  aliasesOf?: (path: string) => string[];
}

const SHELLS = new Set(["bash", "sh", "dash", "rbash"]);
/** What the system's shell startup files run (Debian's /etc/profile and /etc/bash.bashrc). */
const STARTUP_PROGRAMS = new Set(["id", "tty", "dircolors", "lesspipe", "locale", "groups"]);
const basename = (p: string) => p.slice(p.lastIndexOf("/") + 1);
const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);

/** Whether Yoke's sandbox keeps `p` read-only for every command: a protected path of the workspace (core/protected-paths). */
function sandboxHeld(p: string, roots: readonly string[]): boolean {
  const root = roots.find((r) => within(p, r) && p !== r);
  return root !== undefined && protectedEntry(p.slice(root.replace(/\/+$/, "").length + 1)) !== undefined;
}

/** Programs that are many programs, chosen by their first argument or by the name they were started as. */
const MULTICALL = new Set(["busybox", "toybox", "coreutils"]);

/**
 * Every way the argv that really ran can be read as a program's words: its file's name, the names the file
 * answers to (a symlink's target, an installed program copied), and for a multi-call binary the applet it
 * runs (`busybox rm -rf src`, `coreutils --coreutils-prog=rm -rf src`, a busybox started as `rm`).
 */
function execViews(e: ExecEvent, aliases: readonly string[]): Word[][] {
  const rest = e.argv.slice(1);
  const names = new Set([basename(e.path), ...aliases]);
  const views: string[][] = [...names].map((n) => [n, ...rest]);
  if ([...names].some((n) => MULTICALL.has(n))) {
    const argv0 = basename(e.argv[0] ?? "");
    if (argv0 && !MULTICALL.has(argv0)) views.push([argv0, ...rest]);
    const prog = /^--coreutils-prog=(.+)$/.exec(rest[0] ?? "");
    if (prog) views.push([prog[1]!, ...rest.slice(1)]);
    else if (rest[0] && !rest[0].startsWith("-")) views.push(rest);
  }
  // The dynamic loader runs the program it is given without an execve of its own (`ld-linux-x86-64.so.2
  // /usr/bin/rm -f x`): that program is a reading too (red team I, session 24).
  if ([...names].some((n) => DYNAMIC_LOADER.test(n))) {
    let i = 0;
    while (i < rest.length && rest[i]!.startsWith("--")) i += LOADER_VALUE_OPTIONS.has(rest[i]!) ? 2 : 1;
    const prog = rest[i];
    if (prog) views.push([basename(prog), ...rest.slice(i + 1)]);
  }
  return views.map((v) => v.map((a) => literalWord(a)));
}

/** grep with -r/-R (or --recursive, --directories=recurse), and rg: readers of every file below a folder. */
function recursiveReader(argv: readonly string[]): boolean {
  const name = basename(argv[0] ?? "");
  if (name === "rg") return true;
  if (!/^[ef]?grep$/.test(name)) return false;
  return argv.slice(1).some((a, i, rest) => /^-[a-zA-Z]*[rR]/.test(a) || /^--(recursive|dereference-recursive|directories=recurse)$/.test(a) || (a === "-d" && rest[i + 1] === "recurse"));
}

/** glibc's dynamic loader, under its installed names. */
const DYNAMIC_LOADER = /^ld(-linux[\w.-]*)?\.so(\.\d+)*$/;
/** Its options that take a value (ld.so --help). */
const LOADER_VALUE_OPTIONS = new Set(["--library-path", "--preload", "--argv0", "--audit", "--inhibit-rpath", "--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"]);

/** A path reached through a process's descriptor or folder links that the trace could not resolve (`/proc/self/fd/3/x`). */
export const DESCRIPTOR_PATH = /^\/(proc\/(self|thread-self|\d+)(\/task\/\d+)?\/(fd\/\d+|cwd|root)|dev\/fd\/\d+)(\/|$)/;

const SCRIPT_WRAPPERS: Record<string, string[]> = { egrep: ["grep"], fgrep: ["grep"], zcat: ["gzip"], gunzip: ["gzip"], bzcat: ["bzip2"], xzcat: ["xz"] };

/** Programs that run their own helpers (not a prediction failure when the helper is theirs). */
function impliedHelper(parentProgram: string, exec: ExecEvent): boolean {
  // git runs a `!` alias and a command-valued setting (core.pager, diff.external…) with `sh -c`; the analysis parsed
  // that script (shell/unwrap.ts gitStep), and what the shell runs is still compared (session 16: `git -c alias.x='!touch pwned' x`).
  if (parentProgram === "git") return exec.path.startsWith("/usr/lib/git-core/") || basename(exec.path) === "git" || SHELLS.has(basename(exec.path));
  // watch runs its command line with `sh -c`; the analysis parsed that line into parts of their own.
  if (parentProgram === "watch") return SHELLS.has(basename(exec.path));
  // Debian's egrep, fgrep, zcat, gunzip, bzcat and xzcat are scripts that exec the real tool.
  const wrapped = SCRIPT_WRAPPERS[parentProgram];
  return !!wrapped && wrapped.includes(basename(exec.path));
}

/**
 * Writes a program does as its own bookkeeping, which the sandbox's allow-list inside `.git`
 * permits: git's index refresh, the temporary object folders it makes and removes
 * (`objects/tmp_objdir-*`, `git log --remerge-diff`), and the state of a rebase in progress
 * (`rebase-merge/`, `rebase-apply/`). None of them is configuration git reads as code.
 */
function bookkeepingWrite(program: string | undefined, path: string): boolean {
  return program === "git" && /\/\.git\/(index(\.lock)?$|objects\/tmp_objdir-[^/]+(\/|$)|rebase-(merge|apply)(\/|$))/.test(path);
}

export async function compareRun(input: CompareInput): Promise<Disagreement[]> {
  const { prediction, events, parent } = input;
  // Programs each process ran, in order (a process's program is the last exec before an event).
  const programsOf = new Map<number, string[]>();
  const programAt = new Map<TraceEvent, string | undefined>();
  const ancestryAt = new Map<TraceEvent, string[]>();
  /** The program that started each exec (the process's previous program, else its parent's), with its argv. */
  const runnerAt = new Map<TraceEvent, { name: string; argv: string[] } | undefined>();
  const lastExec = new Map<number, ExecEvent>();
  /** The argv of the program each event's process was running. */
  const argvAt = new Map<TraceEvent, string[]>();
  /** Paths written earlier in the run (a file the command made is not one Yoke's sandbox hid). */
  const writtenBefore = new Map<TraceEvent, Set<string>>();
  const written = new Set<string>();
  for (const e of events) {
    if (e.kind !== "exec") {
      writtenBefore.set(e, new Set(written));
      if (e.kind === "write") for (const p of e.paths) written.add(p);
    }
    if (e.kind === "exec") {
      let by: ExecEvent | undefined = lastExec.get(e.pid);
      for (let p = parent.get(e.pid), i = 0; !by && p !== undefined && i < 200; p = parent.get(p), i++) by = lastExec.get(p);
      runnerAt.set(e, by ? { name: basename(by.path), argv: by.argv } : undefined);
      lastExec.set(e.pid, e);
      const chain = programsOf.get(e.pid) ?? [];
      chain.push(basename(e.path));
      programsOf.set(e.pid, chain);
    }
    const own = programsOf.get(e.pid) ?? [];
    programAt.set(e, own[own.length - 1]);
    argvAt.set(e, lastExec.get(e.pid)?.argv ?? []);
    // Every program this process and its ancestors ran before the event (the event's own exec excluded).
    const anc: string[] = [...(e.kind === "exec" ? own.slice(0, -1) : own)];
    for (let p = parent.get(e.pid), i = 0; p !== undefined && i < 200; p = parent.get(p), i++) anc.push(...(programsOf.get(p) ?? []));
    ancestryAt.set(e, anc);
  }
  const partsNaming = (program: string) => prediction.parts.filter((p) => p.programs.includes(program));

  const predictedWrite = (paths: string[]) =>
    paths.every((p) => {
      const real = input.realDir?.(p);
      return prediction.writes.some((w) => w.paths.some((x) => p === x || real === x || (w.region && (within(p, x) || (real !== undefined && within(real, x))))));
    });
  // A write through a descriptor link the trace could not resolve is somewhere the checker cannot name: watched.
  const watched = (p: string) => input.watched.some((d) => within(p, d)) || DESCRIPTOR_PATH.test(p);

  const out: Disagreement[] = [];
  for (const v of input.verdicts) {
    const allowed = v.decision.decision === "allow";
    const readOnly = !!v.decision.confine?.readOnly;
    const writable = v.decision.confine?.writable ?? [];
    const sev = (bypass: boolean): Disagreement["severity"] => (allowed && bypass ? "bypass" : "info");
    const add = (cls: DisagreementClass, bypass: boolean, detail: string) => out.push({ class: cls, severity: sev(bypass), ruleSet: v.ruleSet, mode: v.mode, decision: v.decision.decision, detail });
    const denyRules = v.bashDeny.map((r) => parseRule(r)).filter((r): r is Exclude<ReturnType<typeof parseRule>, { error: string }> => !("error" in r));
    const allowRules = v.mode === "plan" ? [] : v.bashAllow.map((r) => parseRule(r)).filter((r): r is Exclude<ReturnType<typeof parseRule>, { error: string }> => !("error" in r));
    /** A non-shell program of a part an allow rule covers: what it runs and writes is the rule's business. */
    const ruleProgram = (program: string) =>
      !SHELLS.has(program) && partsNaming(program).some((p: PredictedPart) => !p.wrapper && p.views.some((words) => allowRules.some((r) => matchBashSpec(r.specifier, words, p.extraArgs) === "yes")));
    for (const e of events) {
      const anc = ancestryAt.get(e) ?? [];
      if (e.kind === "exec") {
        const name = basename(e.path);
        // The argv that really ran, under every spelling of the rule's options and values (`rm
        // --interactive=never` is `rm -f`), and under every name its file answers to: whatever the gate's
        // analysis marked (a part that "runs another command", a wrapper), a denied program that ran where
        // the gate's final answer was allow is a bypass (session 21: `capsh --shell=/bin/rm -- -rf src`).
        const views = execViews(e, input.aliasesOf?.(e.path) ?? []);
        const denied = denyRules.find((r) => views.some((words) => matchBashSpec(r.specifier, words, false) === "yes" || matchOptionSpellings(r.specifier, words) === "yes"));
        if (denied) add("denied program ran", true, `${e.argv.join(" ")} ran${e.argv[0] && basename(e.argv[0]) !== name ? ` (file ${e.path})` : ""} (deny rule Bash(${denied.specifier ?? ""}))`);
        // Predicted under its own name or under one its file answers to (`exec -a ls busybox` is ls).
        if (prediction.programs.includes(name) || views.some((w) => prediction.programs.includes(w[0]?.value ?? ""))) continue;
        const by = runnerAt.get(e);
        const runner = by?.name ?? "";
        if (impliedHelper(runner, e)) continue;
        // A login or interactive shell runs the user's and the system's startup files (/etc/profile,
        // ~/.bashrc) before its command: not the workspace's code, and not what the analysis is about.
        // Only the programs Debian's startup files run (/etc/profile: `id -u`), so a payload run by such a shell still counts.
        if (by && SHELLS.has(runner) && STARTUP_PROGRAMS.has(basename(e.path)) && by.argv.slice(1).some((a) => a === "--login" || /^-[a-zA-Z]*[li]/.test(a))) continue;
        // Only an allow rule excuses what a part runs: a part the analysis marked "runs another command"
        // (opaque) that the gate still allowed without a rule has named nothing (session 21, check21).
        const excused = anc.some((p) => ruleProgram(p));
        add(
          "exec not predicted",
          !excused && v.mode !== "bypassPermissions",
          `${e.path} (${e.argv.join(" ")}) ran${runner ? `, started by ${runner}` : ""}; the analysis named ${prediction.programs.join(", ") || "nothing"}`,
        );
        continue;
      }
      const fe = e as FileEvent;
      // A connection attempt is counted (CheckResult.connects), not compared: the network is the sandbox's to allow.
      if (fe.kind === "connect") continue;
      const paths = fe.paths.filter(watched);
      if (!paths.length) continue;
      const program = programAt.get(e);
      if (fe.kind === "read") {
        if (fe.directory || !fe.ok) continue;
        for (const p of paths) {
          const f = await v.fileVerdict("Read", p);
          if (f.decision !== "deny" || f.by !== "rule") continue;
          // A recursive reader (`grep -r x .`, `rg x`) may read denied files below the folder it is given: Yoke's
          // sandbox hides the paths the rules deny (docs/security.md, what the gate does not model). This run's
          // sandbox is the checker's own, without those mounts: held, unless the command wrote the file itself.
          const hidden = recursiveReader(argvAt.get(e) ?? []) && !writtenBefore.get(e)?.has(p);
          add("read of denied path", !hidden, `${program ?? "bash"} read ${p}${hidden ? " (a recursive reader: Yoke's sandbox hides the paths the rules deny)" : ""}`);
        }
        continue;
      }
      if (paths.every((p) => bookkeepingWrite(program, p) || bookkeepingWrite(anc[anc.length - 1], p))) continue;
      const what = `${program ?? "bash"} ${fe.call} ${paths.join(" → ")}${fe.ok ? "" : ` (failed: ${fe.errno})`}`;
      for (const p of paths) {
        const f = await v.fileVerdict("Write", p);
        if (f.decision === "deny" && f.by === "rule") add("write to denied path", true, what);
      }
      if (readOnly) {
        add("read-only command wrote", true, what);
        continue;
      }
      if (predictedWrite(paths) || paths.every((p) => writable.includes(p))) continue;
      const byRule = [program ?? "", ...anc].some((p) => ruleProgram(p));
      let harmless = true;
      for (const p of paths) if (DESCRIPTOR_PATH.test(p) || (await v.fileVerdict("Write", p)).decision !== "allow") harmless = false;
      // A protected path of the workspace (`.yoke/settings.json`, `.git/config`…) is a read-only mount in
      // every command's sandbox (the mount plan; tested through sessions by the red-team suites): a write
      // to it the analysis did not name — git rewriting every tracked file (`reset --hard`,
      // `checkout-index -f -a`) — fails there. This run's sandbox is the checker's own, without those
      // mounts, so such a write is counted as held by the second layer, not as a bypass.
      // Removing a repository marker (`HEAD`, `commondir` outside .git: protected so that no command makes a folder a
      // repository) is not what the protection is about: `git clean -fd` deleting an untracked bare layout's HEAD.
      const unmarks = /^unlink/.test(fe.call) && paths.every((p) => /^(HEAD|commondir)$/i.test(basename(p)) && !p.includes("/.git/"));
      // A rename or link touching a read-only mount fails as a whole (`os.rename("README.md", ".git/config")`: EBUSY), so
      // one held path holds it; any other write must have every path held.
      const whole = /^(rename|link)/.test(fe.call);
      const heldPath = (p: string) => input.workspace !== undefined && sandboxHeld(p, [input.workspace]);
      const held = !harmless && (unmarks || (whole ? paths.some(heldPath) : paths.every(heldPath)));
      add("write not predicted", !byRule && !harmless && !held, held ? `${what} (${unmarks ? "a repository marker removed" : "a protected path: read-only in Yoke's sandbox"})` : what);
    }
  }
  return out;
}

/** The folder of `p`, symlinks resolved, joined with its name (for trace paths of calls that return no descriptor). */
export function realDirWith(realpath: (p: string) => string | undefined): (p: string) => string | undefined {
  return (p: string) => {
    const n = normalize(p);
    const dir = n.slice(0, n.lastIndexOf("/")) || "/";
    const r = realpath(dir);
    return r === undefined ? undefined : `${r === "/" ? "" : r}/${basename(n)}`;
  };
}
