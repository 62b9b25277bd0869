/**
 * `yoke` — the command line (contract section 3). Each subcommand lives in its own module,
 * loaded on demand; each returns the exit status: 0 success, 1 refused/failed, 2 bad usage.
 */
import { resolve } from "node:path";
import { NESTED_GUIDANCE_GLOBS } from "../core/guidance/nested-globs";
import { prefetchTracked } from "../node/git-ls-files";
import { keepWasmAtBaselineTier } from "../node/tree-sitter-wasm";
import { UsageError } from "./args";
import { enableCompileCache } from "./compile-cache";
import { warn } from "./printable";

type Command = (argv: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  run: async () => (await import("./commands/run")).runCommand,
  resume: async () => (await import("./commands/run")).resumeCommand,
  sessions: async () => (await import("./commands/sessions")).sessionsCommand,
  fork: async () => (await import("./commands/fork")).forkCommand,
  checkpoints: async () => (await import("./commands/checkpoints")).checkpointsCommand,
  compact: async () => (await import("./commands/compact")).compactCommand,
  edit: async () => (await import("./commands/edit")).editCommand,
  permissions: async () => (await import("./commands/permissions")).permissionsCommand,
  sandbox: async () => (await import("./commands/sandbox")).sandboxCommand,
  lessons: async () => (await import("./commands/lessons")).lessonsCommand,
  mcp: async () => (await import("./commands/mcp")).mcpCommand,
  plugins: async () => (await import("./commands/plugins")).pluginsCommand,
  trust: async () => (await import("./commands/trust")).trustCommand,
  agents: async () => {
    const [{ agentsCommand }, { runCommand, resumeCommand }] = await Promise.all([import("./commands/agents"), import("./commands/run")]);
    return (argv: string[]) => agentsCommand(argv, { runCommand, resumeCommand });
  },
  bench: async () => (await import("./commands/bench")).benchCommand,
  acp: async () => (await import("./commands/acp")).acpCommand,
};

const USAGE = `yoke — a coding agent (VS Code extension and command line)

Usage:
  yoke run [options] PROMPT            run the agent on a task in --cwd (default: .)
  yoke resume SESSION [options]        continue a session from its event log (in its own mode and model unless
                    --permission-mode / --model say otherwise; results its background agents kept for it are delivered)
  yoke run --background|--worktree [--carry none|tracked|all] [options] PROMPT
                    a background agent: its own git worktree and branch (--background: detached, prints its id)
  yoke agents [list] [--cwd DIR] [--json]   background agents: task, state, spend, changed files, last message
  yoke agents attach|stop|diff|discard ID   follow its transcript | stop its processes | its change (--patch) | remove worktree and branch
  yoke agents merge ID [--strategy apply|merge] [--hunks PATH[:N,N…]]...   bring its change into your tree (refused on conflicts)
  yoke agents note ID TEXT | resume ID      continue it in its worktree (with a note | after an interruption)
  yoke sessions [--session-dir DIR]    list sessions with their status (the panel's too)
  yoke fork SESSION [TURN]             a new session continuing a copy of SESSION (from TURN: files as they were then)
  yoke checkpoints list SESSION [--json]
  yoke checkpoints restore SESSION TURN [--files|--conversation|--both] [--dry-run]
                    (TURN: the state after that turn, 0 before the first; --undo instead of TURN undoes the last restore)
  yoke compact SESSION [--dry-run] [--json] [--trust]   compact a session's context (appends a compaction event)
  yoke edit view FILE [--offset N] [--limit M]
  yoke edit apply FILE [--format auto|search_replace|hashline|apply_patch|unified_diff] [--dry-run] [--truncated] < EDIT
  yoke permissions check --tool NAME --input JSON [--cwd DIR] [--mode MODE] [--settings FILE]...
  yoke sandbox exec [--backend auto|bwrap|firejail|docker|none] [--cwd DIR] [--network off|on] [--timeout S]
                    [--hide PATH]... [--read-only PATH]... [--read-only-workspace] [--writable PATH]... [--writes PATH]... -- COMMAND...
  yoke lessons list [--cwd DIR] [--json]   every lesson, skill, rule and memory file loaded, with problems
  yoke lessons match --message TEXT [--tool NAME]... [--file PATH]... [--cwd DIR] [--json]
  yoke mcp list [--cwd DIR] [--json]   configured MCP servers, their state and tools
  yoke mcp add [--scope local|user|project] [--transport stdio|http|sse] [-e KEY=VALUE]... [-H "Name: value"]...
               [--client-id ID] [--client-secret] [--callback-port PORT] NAME COMMAND [ARGS...] | NAME URL
                    add an MCP server as \`claude mcp add\` does (local: ~/.claude.json's entry for this folder; user:
                    ~/.yoke/settings.json; project: .mcp.json); --client-secret: from MCP_CLIENT_SECRET or a hidden prompt, kept with the tokens
  yoke mcp approve NAME [--deny] [--cwd DIR]   start (or never start) a workspace-defined MCP server
  yoke mcp login NAME [--client-secret] [--cwd DIR]   sign in to a remote MCP server (OAuth): prints the URL, waits for the browser; --client-secret keeps a pre-registered client's secret first (MCP_CLIENT_SECRET or a hidden prompt)
  yoke mcp logout NAME [--cwd DIR]   forget the sign-in kept for a remote MCP server
  yoke plugins marketplace add PATH|URL   add a Claude Code plugin marketplace (a folder, or a git URL cloned with git)
  yoke plugins list [--json]   marketplaces, their plugins, installed plugins and whether each is enabled
  yoke plugins install NAME@MARKETPLACE | enable NAME | disable NAME | remove NAME
  yoke plugins approve NAME [--deny]   let (or never let) a plugin's hooks and MCP servers run
  yoke trust [DIR] | --list | --revoke DIR   trust a folder (default .): yoke run may write, run commands, hooks, MCP servers there
  yoke bench [--only SECTION] [--json]
  yoke acp [--provider P] [--base-url URL] [--model NAME] [--api-key-env VAR] [--permission-mode MODE] [--trust]
           [--session-dir DIR] [--settings FILE]... [--fallback-model M]... [--max-turns N] [--max-cost USD] [--max-time S] [--no-stream]
                    Yoke as an Agent Client Protocol agent on stdin/stdout, for editors (Zed, JetBrains…; docs/acp.md):
                    the editor names the folder of each session; sessions are in the store \`yoke sessions\` lists

Run options:
  --provider anthropic|openai|openai-compatible   (default: anthropic)
  --base-url URL  --model NAME  --api-key-env VAR
  --permission-mode default|acceptEdits|plan|bypassPermissions
  --settings FILE (repeatable)  --add-dir DIR (another workspace folder, repeatable)
  --trust (trust the folders for this run: CI; else \`yoke trust DIR\`, or asked on a terminal)
  --session-dir DIR  --max-turns N  --no-stream  --json  --cwd DIR
  --fallback-model NAME|PROVIDER:NAME (repeatable: the next model when one is overloaded or failing)
  --max-cost USD  --max-time S (budgets of a task: the run stops with a report; resume to continue)
  --output-style NAME (a style of .claude/output-styles or ~/.claude/output-styles: it replaces the prose of the system prompt)
  --tools NAME[,NAME]... (only these tools are sent and callable, e.g. --tools run_command; default: all)
  PROMPT may be a custom slash command: yoke run "/name args" (.claude/commands, .github/prompts, .clinerules/workflows, .roo/commands)

Every command accepts --json for one JSON document on stdout.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(USAGE + "\n");
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    process.stdout.write(`${YOKE_VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (load && wantsHelp(rest)) {
    process.stdout.write(helpFor(name) + "\n");
    return 0;
  }
  if (!load) {
    warn(`yoke: unknown command "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  if (name === "lessons" && rest[0] === "list") prefetchLessons(rest.slice(1));
  try {
    return await (
      await load()
    )(rest);
  } catch (err) {
    // The command runs from its own bundle (esbuild.mjs), whose UsageError is another class: known by name.
    if (err instanceof UsageError || (err instanceof Error && err.name === "UsageError")) {
      warn(`yoke ${name}: ${err.message}\n`);
      return 2;
    }
    warn(`yoke ${name}: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/**
 * `yoke lessons list` finds nested AGENTS.md/CLAUDE.md in git's index: that git starts now, while
 * the command's bundle loads (at a million files both take seconds; they run side by side).
 */
function prefetchLessons(args: string[]): void {
  let cwd = ".";
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") break;
    if (args[i] === "--cwd" && args[i + 1] !== undefined) cwd = args[++i]!;
    else if (args[i]!.startsWith("--cwd=")) cwd = args[i]!.slice("--cwd=".length);
  }
  prefetchTracked(resolve(cwd), NESTED_GUIDANCE_GLOBS);
}

/** `--help` / `-h` among a command's own options (not in what follows `--`, which is another program's). */
function wantsHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** A command's lines of the usage, with the options that apply to it. */
function helpFor(name: string): string {
  const lines = USAGE.split("\n");
  const own: string[] = [];
  let inOwn = false;
  for (const l of lines) {
    if (l.startsWith("  yoke ")) inOwn = l.startsWith(`  yoke ${name} `);
    else if (!l.startsWith("      ")) inOwn = false;
    if (inOwn) own.push(l);
  }
  const runOptions = name === "run" || name === "resume" ? ["", ...lines.slice(lines.indexOf("Run options:"), lines.indexOf("Run options:") + 7)] : [];
  return ["Usage:", ...own, ...runOptions, "", "--json prints one JSON document on stdout. Exit status: 0 success, 1 refused or failed, 2 bad usage."].join("\n");
}

declare const YOKE_VERSION: string;

/**
 * A reader that stopped reading (`yoke … | head`): stop as a program killed by SIGPIPE would,
 * quietly, with its status (128 + 13); the exit hooks still stop what the command runs.
 */
function exitOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
      process.exit(141);
    });
  }
}

if (require.main === module) {
  // Before anything compiles WebAssembly: else the process waits seconds at exit for V8's background recompile of the shell grammar.
  keepWasmAtBaselineTier();
  // The command's bundle and the provider SDK load next: from V8's code cache after the first run.
  enableCompileCache(__dirname);
  exitOnBrokenPipe();
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      warn(`yoke: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
