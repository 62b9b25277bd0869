import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { READ_ONLY_HINT } from "../../../src/core/commands/result-text";
import { commandOutputTool } from "../../../src/core/tools/command-output";
import { killCommandTool } from "../../../src/core/tools/kill-command";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { runCommandTool } from "../../../src/core/tools/run-command";
import { isReadOnly, ToolError } from "../../../src/core/tools/types";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace;
let runner: NodeCommandRunner;

beforeEach(() => {
  ws = createTempWorkspace();
  // The tools' texts do not depend on the backend: "none" (chosen explicitly) keeps these unit tests fast and portable.
  runner = createNodeCommandRunner({
    workspace: ws.root,
    logDir: join(ws.root, ".yoke-logs"),
    sandbox: createNoSandbox(),
    pty: false,
    maxTimeoutMs: 5_000,
    killGraceMs: 500,
    outputLimits: { headLines: 3, tailLines: 3 },
  });
});

afterEach(async () => {
  await runner.dispose();
  ws.cleanup();
});

const ctx = () => ws.context({ commands: runner });
const DUR = String.raw`\d+(\.\d)? m?s`;

describe("run_command", () => {
  it("returns the output, the exit code and the duration when the command finishes", async () => {
    const out = await runCommandTool.run({ command: "echo hello; echo oops >&2; exit 3" }, ctx());
    expect(out.text).toMatch(new RegExp(`^hello\\noops\\n\\n\\[Exit code 3 after ${DUR}\\.\\]$`));
    expect(out.isError).toBe(true);
    expect(out.meta).toMatchObject({ id: "c1", exitCode: 3, sandbox: "none", running: false });
  });

  it("runs in the workspace root", async () => {
    const out = await runCommandTool.run({ command: "pwd" }, ctx());
    expect(out.text.split("\n")[0]).toBe(ws.root);
  });

  it("keeps the head and tail of long output and says how to read the middle", async () => {
    const out = await runCommandTool.run({ command: "seq 1 100" }, ctx());
    expect(out.text).toMatch(
      new RegExp(`^1\\n2\\n3\\n\\[\\.\\.\\. 94 lines omitted \\(lines 4-97\\)\\. Read them with command_output \\{"id":"c1","since":4\\} \\.\\.\\.\\]\\n98\\n99\\n100\\n\\n\\[Exit code 0`),
    );
    const page = await commandOutputTool.run({ id: "c1", since: 4 }, ctx());
    const lines = page.text.split("\n");
    expect(lines[0]).toBe("$ seq 1 100");
    expect(lines[1]).toBe("4");
    expect(lines.at(-2)).toBe("100");
    expect(lines.at(-1)).toMatch(new RegExp(`^\\[Lines 4-100 of 100\\. Command c1 exited with code 0 after ${DUR}\\.\\]$`));
  });

  it("says it killed the command after N s and how to run it in the background when it times out", async () => {
    const out = await runCommandTool.run({ command: "echo before; sleep 30", timeout_s: 1 }, ctx());
    expect(out.text).toBe(
      "before\n\n[Killed after 1 s: the command did not finish within its timeout (timeout_s: 1), so it and its child processes were stopped. " +
        "If it is a server, a watcher or another long-running job, run it with background: true and read its output with command_output; " +
        "otherwise run it again with a longer timeout_s (at most 5).]",
    );
    expect(out.isError).toBe(true);
  });

  it("uses the maximum timeout and says so when timeout_s is above it", async () => {
    const out = await runCommandTool.run({ command: "true", timeout_s: 999 }, ctx());
    expect(out.text.split("\n")[0]).toBe("[timeout_s 999 is above the maximum of 5 s; the maximum was used.]");
  });

  it("stops the command when the call is cancelled", async () => {
    const ac = new AbortController();
    const running = runCommandTool.run({ command: "sleep 30" }, ws.context({ commands: runner, signal: ac.signal }));
    setTimeout(() => ac.abort(), 200);
    const out = await running;
    expect(out.text).toMatch(new RegExp(`^\\(no output\\)\\n\\n\\[Cancelled after ${DUR}: the command and its child processes were stopped\\.\\]$`));
  });

  it("reports a background command that fails at once like a foreground one", async () => {
    const out = await runCommandTool.run({ command: "echo no such thing; exit 4", background: true }, ctx());
    expect(out.text).toMatch(new RegExp(`^Command c1 finished at once:\\nno such thing\\n\\n\\[Exit code 4 after ${DUR}\\.\\]$`));
  });

  it("tells the model what the sandbox keeps from it: protected files, denied paths, the network, credentials", () => {
    const d = runCommandTool.description;
    expect(d).toContain("only the workspace is writable, and not its files that run code later (.git/config, .git/hooks, .vscode…: change those with edit_file)");
    expect(d).toContain("home folders and files the permission rules deny are hidden");
    expect(d).toContain("the network is off unless the user allowed it");
    expect(d).toContain("no credentials in the environment");
  });

  it("names the protected files in full when a command hits the read-only file system, once", async () => {
    const out = await runCommandTool.run({ command: "echo 'bash: .git/hooks/pre-commit: Read-only file system' >&2; exit 1" }, ctx());
    expect(out.text).toMatch(new RegExp(`^bash: \\.git/hooks/pre-commit: Read-only file system\\n\\n\\[Exit code 1 after ${DUR}\\.\\]\\n\\[Read-only file system: `));
    expect(out.text.endsWith(`.]\n${READ_ONLY_HINT}`)).toBe(true);
    expect(READ_ONLY_HINT).toBe(
      "[Read-only file system: in the sandbox a command writes only in the workspace (and, when it was allowed for the files it names, only those), " +
        "never the workspace's files that run code later (.git/config, .git/hooks, .vscode, .husky, agent settings…): change those with edit_file, which asks the user. " +
        "For anything else, ask the user.]",
    );
    const ok = await runCommandTool.run({ command: "echo fine" }, ctx());
    expect(ok.text).not.toContain("Read-only");
  });

  it("maps its arguments to Claude Code's Bash hook input", () => {
    expect(runCommandTool.hookInput({ command: "ls", timeout_s: 2, background: true })).toEqual({ command: "ls", timeout: 2000, run_in_background: true });
    expect(runCommandTool.hookInput({ command: "ls" })).toEqual({ command: "ls", timeout: undefined, run_in_background: false });
    expect(runCommandTool.permission).toBe("Bash");
    expect(isReadOnly(runCommandTool.capabilities)).toBe(false);
  });

  it("refuses with a clear message when the host has no command runner", async () => {
    await expect(runCommandTool.run({ command: "ls" }, ws.context())).rejects.toThrow(new ToolError("Running commands is not available in this host (no command runner). Tell the user."));
  });

  it("gives the host's reason when commands are unavailable (e.g. the sandbox is not installed)", async () => {
    const reason = "Commands cannot run: The bwrap sandbox is not available: bubblewrap is not installed.";
    await expect(runCommandTool.run({ command: "ls" }, ws.context({ commandsUnavailable: reason }))).rejects.toThrow(new ToolError(reason));
  });
});

describe("background commands", () => {
  it("starts, reads new output with command_output, and stops with kill_command", async () => {
    const started = await runCommandTool.run({ command: "echo started; sleep 0.7; echo later; sleep 30", background: true }, ctx());
    expect(started.text).toBe(
      'Started command c1 in the background: echo started; sleep 0.7; echo later; sleep 30\nRead its output with command_output {"id":"c1"}; ' +
        'stop it with kill_command {"id":"c1"}. It is stopped when the session ends.\nOutput so far:\nstarted',
    );
    await new Promise((r) => setTimeout(r, 700));
    const first = await commandOutputTool.run({ id: "c1" }, ctx());
    expect(first.text).toMatch(
      new RegExp(
        `^\\$ echo started; sleep 0.7; echo later; sleep 30\\nstarted\\nlater\\n\\[Lines 1-2 of 2\\. Command c1 is still running \\(for ${DUR}\\)\\. Later output: command_output \\{"id":"c1"\\}\\.\\]$`,
      ),
    );
    const again = await commandOutputTool.run({ id: "c1" }, ctx());
    expect(again.text).toMatch(/^\$ .*\n\(No new output after line 2\.\)\n\[Command c1 is still running/);

    const killed = await killCommandTool.run({ id: "c1" }, ctx());
    expect(killed.text).toMatch(
      new RegExp(
        `^Stopped command c1 \\(echo started; sleep 0.7; echo later; sleep 30\\) after ${DUR}; it and its child processes are gone\\. Its 2 lines of output can still be read with command_output \\{"id":"c1","since":1\\}\\.$`,
      ),
    );
    const twice = await killCommandTool.run({ id: "c1" }, ctx());
    expect(twice.text).toMatch(new RegExp(`^Command c1 had already finished \\(it was stopped after ${DUR}\\); nothing to stop\\.$`));
  });

  it("shows the newest lines and says what it skipped when much new output arrived", async () => {
    await runCommandTool.run({ command: "seq 1 500" }, ctx());
    const out = await commandOutputTool.run({ id: "c1" }, ctx());
    const lines = out.text.split("\n");
    expect(lines[1]).toBe('[... lines 1-300 not shown. Read them with command_output {"id":"c1","since":1} ...]');
    expect(lines[2]).toBe("301");
  });

  it("names the known commands when the id is wrong", async () => {
    await runCommandTool.run({ command: "true" }, ctx());
    await expect(commandOutputTool.run({ id: "c9" }, ctx())).rejects.toThrow('No command with id "c9". Commands of this session: c1 (finished).');
    await expect(killCommandTool.run({ id: "x" }, ctx())).rejects.toThrow('No command with id "x". Commands of this session: c1 (finished).');
  });

  it("says when since is past the end of the output", async () => {
    await runCommandTool.run({ command: "echo one" }, ctx());
    const out = await commandOutputTool.run({ id: "c1", since: 9 }, ctx());
    expect(out.text).toMatch(/^\$ echo one\n\(Line 9 is past the end: the output has 1 line\.\)\n\[Command c1 exited with code 0 after /);
  });
});

describe("run_command's texts under `yoke run --tools`", () => {
  const spec = (names: string[]) => {
    const r = new ToolRegistry(createBuiltinTools());
    r.keepOnly(names);
    return r.specs().find((s) => s.name === "run_command")!;
  };
  const background = (s: { inputSchema: Record<string, unknown> }) => (s.inputSchema.properties as Record<string, { description?: string }>).background!.description;

  it("alone: names no tool the session lacks (edit_file, command_output, kill_command)", () => {
    const s = spec(["run_command"]);
    for (const name of ["edit_file", "command_output", "kill_command"]) expect(JSON.stringify(s)).not.toContain(name);
    expect(s.description).toBe(
      "Run a shell command (bash) in the workspace root, in a sandbox: only the workspace is writable, and not its files that run code later " +
        "(.git/config, .git/hooks, .vscode…); home folders and files the permission rules deny are hidden; " +
        "the network is off unless the user allowed it; no credentials in the environment. " +
        "Returns the exit code and the output (stdout and stderr merged; long output keeps the first and last lines). " +
        "Commands get no input: pass flags like --yes.",
    );
    expect(background(s)).toBe("Start it and return at once (servers, watchers, long jobs).");
  });

  it("with some of them: names those; with all of them: the whole definition, unchanged", () => {
    const some = spec(["run_command", "kill_command"]);
    expect(background(some)).toBe("Start it and return at once (servers, watchers, long jobs); stop it with kill_command.");
    expect(some.description).not.toContain("edit_file");
    const all = spec(["run_command", "edit_file", "command_output", "kill_command"]);
    const whole = new ToolRegistry(createBuiltinTools()).specs().find((s) => s.name === "run_command")!;
    expect(all).toEqual(whole);
    expect(whole.description).toContain(".vscode…: change those with edit_file)");
    expect(whole.description).toContain("long output keeps the first and last lines and says how to read the rest");
    expect(background(whole)).toBe("Start it and return at once (servers, watchers, long jobs); read its output with command_output, stop it with kill_command.");
  });
});

describe("the built-in tools beside apply_patch (GPT-5 models)", () => {
  it("name no edit_file in their definitions; with edit_file they are the tools as defined", () => {
    const specs = new ToolRegistry(createBuiltinTools("apply_patch")).specs();
    expect(specs.map((s) => s.name)).toContain("apply_patch");
    for (const s of specs) expect(JSON.stringify(s), s.name).not.toContain("edit_file");
    expect(specs.find((s) => s.name === "read_file")!.description.startsWith("Read a text file, each line shown as LINE#HASH|text. At most")).toBe(true);
    expect(specs.find((s) => s.name === "grep")!.description).toContain("Matching lines are shown as LINE#HASH|text, grouped by file;");
    expect(specs.find((s) => s.name === "write_file")!.description).toBe(
      "Create a file, or replace the whole of a file you have read with read_file in this session (for part of a file use apply_patch).",
    );
    expect(createBuiltinTools().find((t) => t.name === "write_file")!.description).toBe(
      "Create a file, or replace the whole of a file you have read with read_file in this session (for part of a file use edit_file).",
    );
    const defaults = createBuiltinTools();
    expect(defaults.find((t) => t.name === "run_command")).toBe(runCommandTool);
    expect(defaults.find((t) => t.name === "read_file")!.description).toContain("LINE#HASH|text (the anchors edit_file takes).");
    expect(defaults.find((t) => t.name === "grep")!.description).toContain("LINE#HASH|text (the anchors edit_file takes), grouped by file;");
  });
});
