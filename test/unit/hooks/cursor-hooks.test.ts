/**
 * Cursor's hooks file through the settings merge and a real hook runner (real bash): the events
 * mapped, problems reported, Cursor's answers read (ask, a repository's allow that may not loosen,
 * continue:false, followup_message, failClosed), and the input Cursor documents.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHookRunner } from "../../../src/core/hooks/run-hooks";
import { mergeSettings } from "../../../src/core/permissions/merge-settings";
import type { SettingsSourceInfo } from "../../../src/core/permissions/types";
import { createNodeHookRunner } from "../../../src/node/hook-exec";
import { loadSettingsSources } from "../../../src/node/settings/files";

// As the settings loader gives them (the loader's own answer is checked below).
const PROJECT: SettingsSourceInfo = { kind: "project", label: ".cursor/hooks.json", path: "/w/.cursor/hooks.json", baseDir: "/w", format: "cursor-hooks", checkedIn: true };
const USER: SettingsSourceInfo = { kind: "user", label: "~/.cursor/hooks.json", path: "/h/.cursor/hooks.json", baseDir: "/h", format: "cursor-hooks" };

function runnerFor(info: SettingsSourceInfo, hooks: Record<string, unknown>) {
  const merged = mergeSettings([{ info, text: JSON.stringify({ version: 1, hooks, permissions: { allow: ["Bash"] }, model: "x" }) }], { trusted: true });
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cursor-hooks-unit-")));
  return { merged, runner: createHookRunner({ hooks: merged.hooks, runner: createNodeHookRunner(), cwd, sessionId: "s-1", transcriptPath: join(cwd, "t.jsonl") }) };
}

const answer = (json: unknown) => `cat >/dev/null; printf '%s' '${JSON.stringify(json)}'`;

describe("Cursor's hooks.json", () => {
  it("is read by the settings loader from the workspace (as the repository's: it may only restrict) and from the home", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cursor-hooks-load-")));
    for (const d of ["ws/.cursor", "home/.cursor"]) mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, "ws/.cursor/hooks.json"), '{"version":1,"hooks":{}}');
    writeFileSync(join(dir, "home/.cursor/hooks.json"), '{"version":1,"hooks":{}}');
    const sources = await loadSettingsSources({ cwd: join(dir, "ws"), home: join(dir, "home") });
    const cursor = sources.filter((s) => s.info.format === "cursor-hooks").map((s) => [s.info.kind, s.info.label, s.info.checkedIn === true]);
    expect(cursor).toEqual([
      ["user", "~/.cursor/hooks.json", false],
      ["project", ".cursor/hooks.json", true],
    ]);
  });

  it("maps Cursor's events onto Yoke's, reads no permissions from the file, and reports what it cannot run", () => {
    const { merged } = runnerFor(PROJECT, {
      beforeShellExecution: [{ command: "a" }],
      beforeMCPExecution: [{ command: "b", timeout: 5 }],
      afterFileEdit: [{ command: "c", failClosed: true }],
      beforeSubmitPrompt: [{ command: "d" }],
      stop: [{ command: "e" }],
      afterTabFileEdit: [{ command: "f" }],
      beforeReadFile: [{ type: "prompt", prompt: "p" }, { command: "" }],
    });
    expect(merged.rules).toEqual([]);
    expect(merged.hooks.map((h) => [h.event, h.matcher, h.hooks.map((x) => [x.command, x.cursor?.event, x.timeout, x.onFailure])])).toEqual([
      ["PreToolUse", "^Bash$", [["a", "beforeShellExecution", undefined, undefined]]],
      ["PreToolUse", "^mcp__", [["b", "beforeMCPExecution", 5, undefined]]],
      ["PostToolUse", "^(Edit|Write)$", [["c", "afterFileEdit", undefined, "block"]]],
      ["UserPromptSubmit", "", [["d", "beforeSubmitPrompt", undefined, undefined]]],
      ["Stop", "", [["e", "stop", undefined, undefined]]],
    ]);
    const messages = merged.problems.map((p) => p.message);
    expect(messages.some((m) => m.includes("hooks.afterTabFileEdit: a Cursor event Yoke does not fire"))).toBe(true);
    expect(messages.some((m) => m.includes('hooks.beforeReadFile[0]: hooks of type "prompt" cannot run in Yoke'))).toBe(true);
    expect(messages.some((m) => m.includes('hooks.beforeReadFile[1]: "command" must be a non-empty string'))).toBe(true);
  });

  it("reads permission ask with its agent_message; a repository's allow never loosens, the user's does", async () => {
    const ask = runnerFor(PROJECT, { beforeShellExecution: [{ command: answer({ permission: "ask", agent_message: "check with the team" }) }] });
    expect(await ask.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).toMatchObject({ decision: "ask", decisionReason: "check with the team" });
    const repoAllow = runnerFor(PROJECT, { beforeShellExecution: [{ command: answer({ permission: "allow" }) }] });
    expect((await repoAllow.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).decision).toBeUndefined();
    const userAllow = runnerFor(USER, { beforeShellExecution: [{ command: answer({ permission: "allow" }) }] });
    expect((await userAllow.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).decision).toBe("allow");
    // Not a shell command: beforeShellExecution does not run.
    const deny = runnerFor(PROJECT, { beforeShellExecution: [{ command: answer({ permission: "deny" }) }] });
    expect((await deny.runner.runHooks("PreToolUse", { tool_name: "Read", tool_input: { file_path: "/w/a" } })).blocked).toBe(false);
  });

  it("beforeSubmitPrompt's continue:false blocks the prompt with its user_message; stop's followup_message goes on", async () => {
    const prompt = runnerFor(PROJECT, { beforeSubmitPrompt: [{ command: answer({ continue: false, user_message: "no secrets in prompts" }) }] });
    expect(await prompt.runner.runHooks("UserPromptSubmit", { prompt: "here is my key" })).toMatchObject({ blocked: true, message: "no secrets in prompts" });
    const stop = runnerFor(PROJECT, { stop: [{ command: answer({ followup_message: "now run the tests" }) }] });
    expect(await stop.runner.runHooks("Stop", { stop_hook_active: false })).toMatchObject({ blocked: true, message: "now run the tests" });
  });

  it("failClosed: a guard that cannot run blocks; without it, a failing hook lets the call through", async () => {
    const closed = runnerFor(PROJECT, { beforeShellExecution: [{ command: "exit 1", failClosed: true }] });
    expect((await closed.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).blocked).toBe(true);
    const open = runnerFor(PROJECT, { beforeShellExecution: [{ command: "exit 1" }] });
    expect((await open.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).blocked).toBe(false);
  });

  it("reads an entry's matcher as Cursor does: tool type for preToolUse, command text for beforeShellExecution, subagent type for subagentStart", async () => {
    const deny = answer({ permission: "deny", agent_message: "not here" });
    const pre = runnerFor(PROJECT, {
      preToolUse: [
        { command: deny, matcher: "Shell|Write" },
        { command: answer({ permission: "ask" }), matcher: "MCP:(?!safe_)" },
      ],
    });
    expect((await pre.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).blocked).toBe(true);
    expect((await pre.runner.runHooks("PreToolUse", { tool_name: "Edit", tool_input: { file_path: "/w/a" } })).blocked).toBe(true);
    const read = await pre.runner.runHooks("PreToolUse", { tool_name: "Read", tool_input: { file_path: "/w/a" } });
    expect([read.blocked, read.decision]).toEqual([false, undefined]);
    expect((await pre.runner.runHooks("PreToolUse", { tool_name: "mcp__db__drop", tool_input: {} })).decision).toBe("ask");
    expect((await pre.runner.runHooks("PreToolUse", { tool_name: "mcp__db__safe_list", tool_input: {} })).decision).toBeUndefined();
    // A user's allow now counts for the calls its matcher names (it ran only for them).
    const shell = runnerFor(USER, { beforeShellExecution: [{ command: answer({ permission: "allow" }), matcher: "^git status$" }] });
    expect((await shell.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "git status" } })).decision).toBe("allow");
    expect((await shell.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "rm -rf data" } })).decision).toBeUndefined();
    const sub = runnerFor(PROJECT, { subagentStart: [{ command: deny, matcher: "^explore$" }] });
    expect((await sub.runner.runHooks("PreToolUse", { tool_name: "Task", tool_input: { subagent_type: "explore", prompt: "p" } })).blocked).toBe(true);
    expect((await sub.runner.runHooks("PreToolUse", { tool_name: "Task", tool_input: { subagent_type: "general-purpose", prompt: "p" } })).blocked).toBe(false);
    expect((await sub.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" } })).blocked).toBe(false);
    // A matcher that is no regular expression: reported, the entry skipped; a matcher on an event Cursor gives none: noted.
    const bad = runnerFor(PROJECT, { preToolUse: [{ command: "a", matcher: "(" }], stop: [{ command: "b", matcher: "x" }] });
    const messages = bad.merged.problems.map((p) => p.message);
    expect(messages.some((m) => m.includes('hooks.preToolUse[0]: "matcher" "(" is not a valid regular expression; skipped'))).toBe(true);
    expect(messages.some((m) => m.includes('hooks.stop[0]: "matcher" is not read for stop'))).toBe(true);
    expect(bad.merged.hooks.map((h) => h.event)).toEqual(["Stop"]);
  });

  // Red team E 23: a matcher is tested on the extension host's thread against the command text, which has no bound; a
  // repeated group holding a quantifier backtracks exponentially (`^(\\w+\\s?)*$`: 61 s on a 22-letter command ending in `!`, a
  // 40-letter one hours). Such a matcher is not read: the hook runs for every call, its deny holds, its allow is not taken.
  it("does not read a matcher that can take exponential time (the hook runs for every call; its allow is not taken)", async () => {
    const evil = "^(\\w+\\s?)*$";
    const repo = runnerFor(PROJECT, { beforeShellExecution: [{ command: answer({ permission: "deny", agent_message: "no" }), matcher: evil }] });
    expect(repo.merged.problems.map((p) => p.message).some((m) => m.includes('hooks.beforeShellExecution[0]: "matcher"') && m.includes("exponential time"))).toBe(true);
    expect((await repo.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: `${"a".repeat(40)}!` } })).blocked).toBe(true);
    const user = runnerFor(USER, { preToolUse: [{ command: answer({ permission: "allow" }), matcher: "(Shell|Write)+" }] });
    expect((await user.runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "rm -rf data" } })).decision).toBeUndefined();
    // Cursor's documented shapes are still read.
    for (const ok of ["Shell|Read", "^git ", "MCP:.*", "MCP:(?!safe_)", "^(git|npm) ", "curl|wget", "[a-z]+(-[a-z])?"])
      expect(
        runnerFor(USER, { preToolUse: [{ command: "x", matcher: ok }] }).merged.problems.map((p) => p.message),
        ok,
      ).toEqual([]);
  });

  it("fires preToolUse, postToolUse, subagentStart, subagentStop, preCompact and afterAgentResponse with Cursor's input and reads their answers", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cursor-events-")));
    const log = (name: string, json?: unknown) => `cat > ${join(dir, name)}${json ? `; printf '%s' '${JSON.stringify(json)}'` : ""}`;
    const { runner, merged } = runnerFor(PROJECT, {
      preToolUse: [{ command: log("pre.json", { updated_input: { command: "ls -la" } }) }],
      postToolUse: [{ command: log("post.json", { additional_context: "coverage 91%" }) }],
      subagentStart: [{ command: log("substart.json") }],
      subagentStop: [{ command: log("substop.json", { followup_message: "also check the README" }) }],
      preCompact: [{ command: log("compact.json") }],
      afterAgentResponse: [{ command: log("response.json", { followup_message: "ignored" }) }],
    });
    expect(merged.problems.filter((p) => p.level !== "info")).toEqual([]);
    const read = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as Record<string, unknown>;
    expect((await runner.runHooks("PreToolUse", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "c1" })).updatedInput).toEqual({ command: "ls -la" });
    expect(read("pre.json")).toMatchObject({ hook_event_name: "preToolUse", tool_name: "Shell", tool_input: { command: "ls" }, tool_use_id: "c1" });
    expect((await runner.runHooks("PostToolUse", { tool_name: "Read", tool_input: { file_path: "a" }, tool_response: { file: "x" }, tool_use_id: "c2" })).additionalContext).toEqual(["coverage 91%"]);
    expect(read("post.json")).toMatchObject({ hook_event_name: "postToolUse", tool_name: "Read", tool_use_id: "c2" });
    expect(typeof read("post.json").tool_output).toBe("string");
    await runner.runHooks("PreToolUse", { tool_name: "Task", tool_input: { subagent_type: "explore", prompt: "find the parser", description: "d" }, tool_use_id: "c3" });
    expect(read("substart.json")).toMatchObject({ hook_event_name: "subagentStart", subagent_type: "explore", task: "find the parser", tool_call_id: "c3" });
    expect(await runner.runHooks("SubagentStop", { agent_type: "explore", agent_id: "a1", last_assistant_message: "found it", stop_hook_active: false })).toMatchObject({
      blocked: true,
      message: "also check the README",
    });
    expect(read("substop.json")).toMatchObject({ hook_event_name: "subagentStop", subagent_type: "explore", summary: "found it", status: "completed" });
    await runner.runHooks("PreCompact", { trigger: "auto" });
    expect(read("compact.json")).toMatchObject({ hook_event_name: "preCompact", trigger: "auto" });
    // afterAgentResponse only observes: its answer changes nothing.
    expect((await runner.runHooks("Stop", { last_assistant_message: "All done." })).blocked).toBe(false);
    expect(read("response.json")).toMatchObject({ hook_event_name: "afterAgentResponse", text: "All done." });
  });
  it("replaces an MCP tool's result with postToolUse's updated_mcp_tool_output, as Cursor does: MCP tools only, never from afterMCPExecution", async () => {
    // Cursor's hooks docs: postToolUse may answer `updated_mcp_tool_output` (a string, or an MCP
    // result `{content: [{type: "text", text}]}`), which replaces what the model sees for an MCP tool;
    // afterMCPExecution's answer is not read.
    const redacted = { content: [{ type: "text", text: "[redacted by hook]" }] };
    const post = runnerFor(USER, { postToolUse: [{ command: answer({ updated_mcp_tool_output: redacted, additional_context: "scanned" }) }] });
    const mcp = await post.runner.runHooks("PostToolUse", {
      tool_name: "mcp__db__query",
      tool_input: { sql: "select 1" },
      tool_response: [{ type: "text", text: "API_TOKEN=abc" }],
      tool_use_id: "m1",
    });
    expect(mcp.updatedToolOutput).toBe("[redacted by hook]");
    expect(mcp.additionalContext).toEqual(["scanned"]);
    const asString = runnerFor(USER, { postToolUse: [{ command: answer({ updated_mcp_tool_output: "short summary" }) }] });
    expect((await asString.runner.runHooks("PostToolUse", { tool_name: "mcp__db__query", tool_input: {}, tool_response: "long", tool_use_id: "m2" })).updatedToolOutput).toBe("short summary");
    // A built-in tool's output is never replaced by it (Cursor: MCP tools only).
    const builtin = await post.runner.runHooks("PostToolUse", { tool_name: "Read", tool_input: { file_path: "a" }, tool_response: { file: "x" }, tool_use_id: "r1" });
    expect(builtin.updatedToolOutput).toBeUndefined();
    expect(builtin.additionalContext).toEqual(["scanned"]);
    // afterMCPExecution's answer is discarded by Cursor: neither the replacement nor context is taken.
    const after = runnerFor(USER, { afterMCPExecution: [{ command: answer({ updated_mcp_tool_output: "replaced?", additional_context: "ctx?" }) }] });
    const a = await after.runner.runHooks("PostToolUse", { tool_name: "mcp__db__query", tool_input: {}, tool_response: "orig", tool_use_id: "m3" });
    expect(a.updatedToolOutput).toBeUndefined();
    expect(a.additionalContext).toEqual([]);
  });
});
