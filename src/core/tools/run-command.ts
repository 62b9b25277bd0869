/** run_command: runs a shell command in the sandbox; output is always captured and bounded. */
import { z } from "zod";
import { networkFor } from "../commands/network";
import { formatBoundedOutput } from "../commands/output";
import { formatCommandReport } from "../commands/result-text";
import type { CommandRunner, RunningCommand } from "../commands/types";
import { commandCard } from "./cards";
import { defineTool, field, ToolError, type ToolContext, type ToolDefinition } from "./types";
import { builtinSchema } from "./schema-table";

/** How long a background start waits to report a command that fails at once. */
export const BACKGROUND_SETTLE_MS = 500;

const backgroundHow = (output: boolean, kill: boolean) => {
  const how = [output ? "read its output with command_output" : "", kill ? "stop it with kill_command" : ""].filter(Boolean).join(", ");
  return how ? `; ${how}` : "";
};

/** The arguments, the background flag described with the tools the session has to read and stop such a command. */
const argsFor = (output: boolean, kill: boolean) =>
  z.object({
    command: z.string().min(1),
    timeout_s: z.number().positive().optional().describe("Seconds before a foreground command is killed (default 120)."),
    background: z
      .boolean()
      .optional()
      .describe(`Start it and return at once (servers, watchers, long jobs)${backgroundHow(output, kill)}.`),
  });
/** One schema per variant (the build's table has each: schema-table.ts), the same object each time it is asked for. */
const variants = new Map<string, z.ZodLazy<ReturnType<typeof argsFor>>>();
const schemaFor = (output = true, kill = true) => {
  const key = `run_command/${[output ? "output" : "", kill ? "kill" : ""].filter(Boolean).join(",")}`;
  let s = variants.get(key);
  if (!s) variants.set(key, (s = builtinSchema(key, () => argsFor(output, kill))));
  return s;
};
const schema = schemaFor();

/** What the model is told of the sandbox and the output; edit_file and command_output are named only where the session has them. */
const describe = (edit = true, output = true) =>
  "Run a shell command (bash) in the workspace root, in a sandbox: only the workspace is writable, and not its files that run code later " +
  `(.git/config, .git/hooks, .vscode…${edit ? ": change those with edit_file" : ""}); home folders and files the permission rules deny are hidden; ` +
  "the network is off unless the user allowed it; no credentials in the environment. " +
  `Returns the exit code and the output (stdout and stderr merged; long output keeps the first and last lines${output ? " and says how to read the rest" : ""}). ` +
  "Commands get no input: pass flags like --yes.";

export function requireRunner(ctx: ToolContext): CommandRunner {
  if (!ctx.commands) throw new ToolError(ctx.commandsUnavailable ?? "Running commands is not available in this host (no command runner). Tell the user.");
  return ctx.commands;
}

/** UI details of a command (never sent to the model). */
export function commandMeta(cmd: RunningCommand, sandbox: string): Record<string, unknown> {
  const r = cmd.result;
  return {
    id: cmd.id,
    command: cmd.command,
    background: cmd.background,
    network: cmd.network,
    sandbox,
    mode: cmd.mode,
    logPath: cmd.logPath,
    running: r === undefined,
    ...(r ? { exitCode: r.exitCode, signal: r.signal, timedOut: r.timedOut, cancelled: r.cancelled, durationMs: r.durationMs } : {}),
  };
}

export const runCommandTool = defineTool({
  name: "run_command",
  description: describe(),
  schema,
  // `yoke run --tools` without edit_file, command_output or kill_command: the texts name only the tools the session has.
  trimmed: (kept): ToolDefinition => {
    const has = new Set(kept.map((t) => t.name));
    if (has.has("edit_file") && has.has("command_output") && has.has("kill_command")) return runCommandTool;
    return { ...runCommandTool, description: describe(has.has("edit_file"), has.has("command_output")), schema: schemaFor(has.has("command_output"), has.has("kill_command")) };
  },
  permission: "Bash",
  permissionClass: "command",
  capabilities: { reads: true, writes: true, runs: true },
  kind: "execute",
  summarize: (i) => field(i, "command") ?? "",
  card: (o) => commandCard(o.meta),
  // A command that ran and exited non-zero is its result; the tool failed when it could not start or timed out.
  failed: (o) => {
    const m = (o.meta ?? {}) as { exitCode?: number | null; timedOut?: boolean; cancelled?: boolean };
    return o.meta === undefined || m.timedOut === true || (m.exitCode === null && m.cancelled !== true);
  },
  timeoutMs: 3_600_000,
  hookInput: (a) => ({
    command: a.command,
    timeout: a.timeout_s === undefined ? undefined : Math.round(a.timeout_s * 1000),
    run_in_background: a.background ?? false,
  }),
  // Claude Code's Bash response. Yoke merges stdout and stderr, so all output is in stdout.
  hookResponse: (a, out) => {
    const meta = (out.meta ?? {}) as { id?: string; exitCode?: number | null; cancelled?: boolean; interrupted?: boolean };
    let stdout = out.text;
    const status = /\n\n\[(?:Exit code|Killed after|Cancelled after|Interrupted by|Terminated by|The command could not be started)[^]*$/.exec(stdout);
    if (!a.background && status) stdout = stdout.slice(0, status.index);
    stdout = stdout.replace(/^\[timeout_s [^\n]*\]\n/, "");
    if (stdout === "(no output)") stdout = "";
    return {
      stdout,
      stderr: "",
      interrupted: meta.cancelled === true || meta.interrupted === true,
      isImage: false,
      ...(typeof meta.exitCode === "number" ? { exitCode: meta.exitCode } : {}),
      ...(a.background && meta.id ? { backgroundTaskId: meta.id } : {}),
    };
  },
  fromHookInput: (u) => ({
    ...(typeof u.command === "string" ? { command: u.command } : {}),
    ...(typeof u.timeout === "number" ? { timeout_s: u.timeout / 1000 } : u.timeout === null ? { timeout_s: undefined } : {}),
    ...(typeof u.run_in_background === "boolean" ? { background: u.run_in_background } : {}),
  }),
  async run(args, ctx) {
    const runner = requireRunner(ctx);
    const info = runner.info;
    const background = args.background ?? false;
    let timeoutMs = args.timeout_s === undefined ? Math.min(info.defaultTimeoutMs, info.maxTimeoutMs) : Math.round(args.timeout_s * 1000);
    let clamped = "";
    if (timeoutMs > info.maxTimeoutMs) {
      clamped = `[timeout_s ${args.timeout_s} is above the maximum of ${Math.round(info.maxTimeoutMs / 1000)} s; the maximum was used.]\n`;
      timeoutMs = info.maxTimeoutMs;
    }
    const network = networkFor(args.command, info);
    await runner.prepare?.();
    const cmd = runner.start({
      command: args.command,
      cwd: ctx.fs.root,
      background,
      network,
      ...(background ? {} : { timeoutMs, signal: ctx.signal }),
      ...(ctx.confine ? { confine: ctx.confine } : {}),
    });
    const report = () =>
      formatCommandReport({
        id: cmd.id,
        command: cmd.command,
        network,
        result: cmd.result!,
        output: cmd.bounded(),
        timeoutMs,
        maxTimeoutMs: info.maxTimeoutMs,
      });
    if (!background) {
      const result = await cmd.wait();
      const failed = result.exitCode !== 0;
      return { text: clamped + report(), isError: failed, meta: commandMeta(cmd, info.sandbox) };
    }
    const settled = await Promise.race([cmd.wait(), new Promise((r) => setTimeout(r, BACKGROUND_SETTLE_MS, undefined))]);
    if (settled !== undefined) {
      return {
        text: `Command ${cmd.id} finished at once:\n${report()}`,
        isError: cmd.result!.exitCode !== 0,
        meta: commandMeta(cmd, info.sandbox),
      };
    }
    const so = cmd.bounded();
    const first = so.totalLines > 0 ? `\nOutput so far:\n${formatBoundedOutput(so, cmd.id)}` : "";
    return {
      text:
        `Started command ${cmd.id} in the background: ${cmd.command}\n` +
        `Read its output with command_output {"id":"${cmd.id}"}; stop it with kill_command {"id":"${cmd.id}"}. ` +
        `It is stopped when the session ends.${first}`,
      meta: commandMeta(cmd, info.sandbox),
    };
  },
});
