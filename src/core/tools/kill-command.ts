/** kill_command: stops a command started by run_command, with all of its child processes. */
import { z } from "zod";
import { formatDuration } from "../commands/output";
import { endedText } from "../commands/result-text";
import { findCommand } from "./command-output";
import { commandMeta, requireRunner } from "./run-command";
import { defineTool, field } from "./types";
import { builtinSchema } from "./schema-table";

const schema = builtinSchema("kill_command", () =>
  z.object({
    id: z.string().min(1).describe('The command id run_command gave (e.g. "c2").'),
  }),
);

export const killCommandTool = defineTool({
  name: "kill_command",
  description:
    "Stop a command started by run_command (usually a background one), with all of its child processes: " +
    "SIGTERM first, SIGKILL if it has not exited after 2 seconds. Its output stays readable with command_output.",
  deferred: true,
  brief: "stop a background command",
  schema,
  permission: "Bash",
  permissionClass: "command",
  // Claude Code's own tool for this, so a hook matching "Bash" does not get {id} for a command.
  hookName: "KillShell",
  capabilities: { runs: true },
  kind: "execute",
  summarize: (i) => field(i, "id") ?? "",
  timeoutMs: 30_000,
  hookInput: (a) => ({ id: a.id }),
  async run(args, ctx) {
    const runner = requireRunner(ctx);
    const cmd = findCommand(runner, args.id);
    if (cmd.result) {
      return {
        text: `Command ${cmd.id} had already finished (it ${endedText(cmd.result)}); nothing to stop.`,
        meta: commandMeta(cmd, runner.info.sandbox),
      };
    }
    await cmd.kill();
    const r = await cmd.wait();
    const lines = cmd.bounded().totalLines;
    return {
      text:
        `Stopped command ${cmd.id} (${cmd.command}) after ${formatDuration(r.durationMs)}; it and its child processes are gone. ` +
        `Its ${lines} line${lines === 1 ? "" : "s"} of output can still be read with command_output {"id":"${cmd.id}","since":1}.`,
      meta: commandMeta(cmd, runner.info.sandbox),
    };
  },
});
