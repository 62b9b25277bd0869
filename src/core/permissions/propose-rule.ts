/** Suggests the narrowest rule that would allow a call, for the "Always allow" answer. */
import type { PermissionCheck } from "../loop/types";
import { checkPath, type EvalContext } from "./context";
import { pathsOf } from "./evaluate-file";
import { dirnameOf, isWithin } from "./posix-path";
import { classifyReadOnly } from "./readonly-commands";
import { PATH_TOOLS } from "./rule-syntax";
import { analyseCommand } from "./shell/extract";
import type { Word } from "./shell/words";

/** Tools whose second word is a subcommand worth keeping in a prefix rule. */
const SUBCOMMAND_TOOLS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "pip",
  "pip3",
  "make",
  "npx",
  "uv",
  "poetry",
  "gradle",
  "mvn",
  "dotnet",
  "deno",
  "brew",
  "gh",
  "terraform",
  "helm",
  "rustup",
  "composer",
  "bundle",
  "rake",
  "mix",
  "swift",
  "nx",
  "turbo",
  "vitest",
  "jest",
  "tsc",
  "pytest",
]);
/** Programs that run arbitrary code or delete: only the exact command is proposed. */
const EXACT_ONLY = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "node",
  "python",
  "python3",
  "perl",
  "ruby",
  "php",
  "eval",
  "exec",
  "sudo",
  "doas",
  "env",
  "xargs",
  "find",
  "rm",
  "curl",
  "wget",
  "ssh",
  "scp",
  "rsync",
  "dd",
  "chmod",
  "chown",
  "mv",
  "cp",
  "source",
  ".",
]);

export async function proposeRules(req: PermissionCheck, ctx: EvalContext): Promise<string[]> {
  const perm = req.permission;
  if (perm === "Bash") return typeof req.input.command === "string" ? proposeBash(req.input.command, ctx) : [];
  if (PATH_TOOLS.has(perm)) {
    const tool = perm === "Write" || perm === "Edit" ? "Edit" : "Read";
    const fileArg = typeof req.input.file_path === "string";
    const out: string[] = [];
    for (const written of pathsOf(req)) {
      const p = await checkPath(ctx, ctx.cwd, written);
      if (p.sensitive?.kind === "config" && tool === "Edit") return [];
      let spec: string;
      if (p.sensitive) spec = anchoredSpec(p.real, ctx);
      else {
        const dir = fileArg ? dirnameOf(p.real) : p.real;
        const atRoot = dir === ctx.cwd || dir === ctx.roots[0];
        spec = tool === "Edit" && atRoot ? anchoredSpec(p.real, ctx) : atRoot ? "./**" : `${anchoredSpec(dir, ctx).replace(/^\.\//, "")}/**`;
      }
      const rule = `${tool}(${spec})`;
      if (!out.includes(rule)) out.push(rule);
    }
    return out;
  }
  for (const key of ["subagent_type", "name"]) {
    if ((perm === "Task" || perm === "Skill") && typeof req.input[key] === "string") return [`${perm}(${req.input[key]})`];
  }
  return [perm];
}

/** A specifier naming exactly `abs`: `./x` or `dir/x` in the workspace, `~/x` in the home folder, `//x` elsewhere. */
function anchoredSpec(abs: string, ctx: EvalContext): string {
  for (const root of [ctx.cwd, ctx.roots[0]!]) {
    if (isWithin(abs, root) && abs !== root) {
      const rel = abs.slice(root.length + 1);
      return rel.includes("/") ? rel : `./${rel}`;
    }
  }
  for (const home of [ctx.home, ctx.realHome]) if (isWithin(abs, home) && abs !== home) return `~/${abs.slice(home.length + 1)}`;
  return `/${abs}`;
}

function proposeBash(command: string, ctx: EvalContext): string[] {
  if (!ctx.parser) return [];
  const analysis = analyseCommand(ctx.parser, command);
  if (analysis.problems.length || analysis.parts.some((p) => p.problems.length)) return [];
  const out: string[] = [];
  for (const part of analysis.parts) {
    if (part.wrapper) continue;
    const views = part.views.filter((v) => v.allowable && !v.denyOnly);
    const words = (views[views.length - 1] ?? part.views[0]!).words;
    if (words.length === 0 || classifyReadOnly(words).ok) continue;
    const rule = `Bash(${bashSpec(words)})`;
    if (!out.includes(rule)) out.push(rule);
  }
  return out;
}

function bashSpec(words: Word[]): string {
  const name = words[0]!.value;
  const sub = (i: number) => words[i] && /^[A-Za-z][\w:.@/-]*$/.test(words[i]!.value);
  if ((name === "python" || name === "python3") && words[1]?.value === "-m" && sub(2)) return `${name} -m ${words[2]!.value}:*`;
  if (EXACT_ONLY.has(name) || words.some((w) => w.dynamic)) return words.map((w) => quote(w.value)).join(" ");
  let n = 1;
  if (["npm", "pnpm", "yarn", "bun"].includes(name) && (words[1]?.value === "run" || words[1]?.value === "run-script") && sub(2)) n = 3;
  else if (SUBCOMMAND_TOOLS.has(name) && sub(1)) n = 2;
  return `${words
    .slice(0, n)
    .map((w) => quote(w.value))
    .join(" ")}:*`;
}

function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
