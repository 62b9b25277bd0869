/**
 * What the Bash analysis predicts a command line will do, in a form that can be compared with what
 * bash really does (src/bench/diffcheck): the programs it runs (every view of every part, wrappers
 * unwrapped), the paths it writes and reads, and the parts whose behaviour Yoke admits it cannot
 * see. It is the same analysis evaluateBash decides on (buildInstances, collectTouches), not a copy.
 */
import { checkCommandPath, type EvalContext } from "./context";
import { buildInstances, collectTouches } from "./evaluate-bash";
import { markScriptsTheLineWrites } from "./line-scripts";
import { DEFAULT_BUDGET, type ExpandEnv } from "./shell/expand";
import { analyseCommand } from "./shell/extract";
import type { Word } from "./shell/words";

export interface PredictedPart {
  /** The simple command as written. */
  text: string;
  /** Programs it runs, as named by each view's first word (the wrapper, then what it wraps). */
  programs: string[];
  /** A view's first word is only known when it runs. */
  dynamicProgram: boolean;
  /**
   * Yoke says it cannot see what this part runs (code in a string it cannot read, a program that
   * runs another command at an unknown position): programs it starts are not predictions.
   */
  opaque: string[];
  /** `bash -c`/`eval`: its inner commands are parts of their own. */
  wrapper: boolean;
  /** How it was reached (`bash -c`, `xargs`, `find -exec`…). */
  via: string[];
  /** Classified as a read-only command. */
  readOnly: boolean;
  /** Receives arguments at run time (xargs, find -exec). */
  extraArgs: boolean;
  /** Each view's words (as written, then expanded), for matching allow rules against the part. */
  views: Word[][];
}

export interface PredictedPath {
  /** Absolute, as written (lexical) and as resolved. */
  paths: string[];
  /** The folder and everything below it. */
  region: boolean;
}

export interface BashPrediction {
  parts: PredictedPart[];
  /** Every program named by any part (basenames). */
  programs: string[];
  writes: PredictedPath[];
  /** Writes only known when the command runs (a pattern; the analysis names why). */
  unknownWrites: string[];
  reads: PredictedPath[];
  unknownReads: string[];
  /** Why the analysis is not confident (the gate asks for these). */
  problems: string[];
}

const basename = (p: string) => p.slice(p.lastIndexOf("/") + 1);

export async function predictBash(command: string, ctx: EvalContext): Promise<BashPrediction> {
  if (!ctx.parser) throw new Error(`the shell parser is not available (${ctx.parserError ?? "not loaded"})`);
  const analysis = analyseCommand(ctx.parser, command, { cwd: [ctx.cwd], home: ctx.home });
  const env: ExpandEnv = { home: ctx.home, listDir: ctx.listDir, budget: DEFAULT_BUDGET(), cache: new Map() };
  const instances = await buildInstances(analysis, ctx, env);
  const touches = await collectTouches(instances, ctx, (base, written) => checkCommandPath(ctx, base, written));
  markScriptsTheLineWrites(instances, touches, ctx.home);
  const parts: PredictedPart[] = [];
  const programs = new Set<string>();
  for (const inst of instances) {
    const { part } = inst;
    const names = new Set<string>();
    let dynamicProgram = false;
    for (const { words } of inst.expanded) {
      const first = words[0];
      if (!first) continue;
      if (first.dynamic) dynamicProgram = true;
      else names.add(basename(first.value));
    }
    for (const n of names) programs.add(n);
    const opaque = [...part.hidden, ...inst.effects.hidden];
    if (part.runsUnknown) opaque.push(`${inst.effective.words[0]?.value ?? "it"} runs another command`);
    parts.push({
      text: part.text,
      programs: [...names],
      dynamicProgram,
      opaque,
      wrapper: part.wrapper,
      via: part.via,
      readOnly: inst.cls.ok,
      extraArgs: part.extraArgs,
      views: inst.expanded.flatMap((v) => [v.view.words, v.words]),
    });
  }
  const writes: PredictedPath[] = [];
  const reads: PredictedPath[] = [];
  const unknownWrites: string[] = [];
  const unknownReads: string[] = [];
  for (const t of touches) {
    if ("exact" in t) (t.kind === "write" ? writes : reads).push({ paths: [...new Set([t.exact.lexical, t.exact.real])], region: !!t.region });
    else (t.kind === "write" ? unknownWrites : unknownReads).push(t.why);
  }
  const problems = [...analysis.problems, ...instances.flatMap((i) => i.part.problems)];
  return { parts, programs: [...programs].sort(), writes, unknownWrites, reads, unknownReads, problems };
}
