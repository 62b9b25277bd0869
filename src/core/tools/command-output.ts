/** command_output: reads the output of a command (background or finished) from its log. */
import { z } from "zod";
import { formatDuration } from "../commands/output";
import { endedText } from "../commands/result-text";
import { renderTerminalText } from "../commands/terminal-text";
import type { CommandRunner, RunningCommand } from "../commands/types";
import { commandMeta, requireRunner } from "./run-command";
import { defineTool, field, ToolError } from "./types";
import { builtinSchema } from "./schema-table";

export const PAGE_LINES = 400;
export const PAGE_BYTES = 30_000;
/** Without `since`, at most this many of the newest lines are shown when there are more. */
export const NEW_LINES_SHOWN = 200;

const schema = builtinSchema("command_output", () =>
  z.object({
    id: z.string().min(1).describe('The command id run_command gave (e.g. "c2").'),
    since: z.number().int().min(1).optional().describe("First line to show (1-based). Default: the lines after those already shown by command_output."),
  }),
);

/** Where the next command_output without `since` starts, per command. */
const nextLine = new WeakMap<RunningCommand, number>();

export function findCommand(runner: CommandRunner, id: string): RunningCommand {
  const cmd = runner.get(id.trim());
  if (cmd) return cmd;
  const all = runner.list();
  const known = all.length ? ` Commands of this session: ${all.map((c) => `${c.id} (${c.result ? "finished" : "running"})`).join(", ")}.` : " No command has been run in this session.";
  throw new ToolError(`No command with id "${id}".${known}`);
}

function state(cmd: RunningCommand): string {
  const r = cmd.result;
  if (!r) return `Command ${cmd.id} is still running (for ${formatDuration(Date.now() - cmd.startedAt)}).`;
  return `Command ${cmd.id} ${endedText(r)}.`;
}

export const commandOutputTool = defineTool({
  name: "command_output",
  description:
    "Read the output of a command started by run_command (a background one while it runs, or the full output of a finished one). " +
    "Without since, shows the output after what you have already read; with since, shows lines from that line on.",
  deferred: true,
  brief: "read a command's output (a background one, or all of a long one)",
  schema,
  permission: "Bash",
  permissionClass: "command",
  // Claude Code's own tool for this, so a hook matching "Bash" does not get {id} for a command.
  hookName: "BashOutput",
  capabilities: { reads: true },
  kind: "execute",
  summarize: (i) => field(i, "id") ?? "",
  timeoutMs: 30_000,
  hookInput: (a) => ({ id: a.id }),
  async run(args, ctx) {
    const cmd = findCommand(requireRunner(ctx), args.id);
    const limits = { maxLines: PAGE_LINES, maxBytes: PAGE_BYTES };
    const from = args.since ?? nextLine.get(cmd) ?? 1;
    let page = await cmd.outputSince(from, limits);
    let skipped = "";
    if (args.since === undefined && page.more) {
      const start = Math.max(from, page.totalLines - NEW_LINES_SHOWN + 1);
      page = await cmd.outputSince(start, limits);
      if (start > from) {
        skipped = `[... lines ${from}-${start - 1} not shown. Read them with command_output {"id":"${cmd.id}","since":${from}} ...]\n`;
      }
    }
    nextLine.set(cmd, Math.max(from, page.to + 1));
    const meta = commandMeta(cmd, ctx.commands!.info.sandbox);
    const header = `$ ${cmd.command}\n`;
    if (page.lines.length === 0) {
      const where = from > page.totalLines + 1 ? `Line ${from} is past the end: the output has ${page.totalLines} line${page.totalLines === 1 ? "" : "s"}.` : `No new output after line ${from - 1}.`;
      return { text: `${header}(${where})\n[${state(cmd)}]`, meta };
    }
    const lines = renderTerminalText(page.lines.join("\n"));
    const more = page.more ? ` More: command_output {"id":"${cmd.id}","since":${page.to + 1}}.` : "";
    const later = !cmd.result && !page.more ? ` Later output: command_output {"id":"${cmd.id}"}.` : "";
    const footer = `[Lines ${page.from}-${page.to} of ${page.totalLines}. ${state(cmd)}${more}${later}]`;
    return { text: `${header}${skipped}${lines.join("\n")}\n${footer}`, meta };
  },
});
