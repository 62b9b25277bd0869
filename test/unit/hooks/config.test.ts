import { describe, expect, it } from "vitest";
import { readHooks } from "../../../src/core/hooks/config";
import { FIRED_EVENTS, HOOK_EVENTS } from "../../../src/core/hooks/events";
import { mergeSettings } from "../../../src/core/permissions/merge-settings";
import type { SettingsProblem } from "../../../src/core/permissions/types";

const info = { kind: "claude" as const, label: ".claude/settings.json", path: "/w/.claude/settings.json", baseDir: "/w" };

function read(hooks: Record<string, unknown>) {
  const problems: SettingsProblem[] = [];
  return { groups: readHooks(hooks, info, problems), problems };
}

describe("readHooks", () => {
  it("reads every field of a command hook Claude Code documents", () => {
    const { groups, problems } = read({
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            { type: "command", command: "${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh", args: ["--strict"], if: "Bash(git *)", timeout: 30, statusMessage: "checking…", onFailure: "block" },
            { type: "command", command: "npx prettier --check", async: true, shell: "bash", description: "an unknown key is ignored" },
            { type: "command", command: "notify", asyncRewake: true, once: true },
          ],
        },
      ],
    });
    expect(problems).toEqual([]);
    expect(groups).toEqual([
      {
        event: "PreToolUse",
        matcher: "Bash",
        source: info,
        hooks: [
          { type: "command", command: "${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh", args: ["--strict"], if: "Bash(git *)", timeout: 30, statusMessage: "checking…", onFailure: "block" },
          { type: "command", command: "npx prettier --check", async: true, shell: "bash" },
          { type: "command", command: "notify", asyncRewake: true, once: true },
        ],
      },
    ]);
  });

  it('accepts "*", absent and null matchers, and lists', () => {
    const { groups, problems } = read({
      PostToolUse: [
        { matcher: "*", hooks: [{ type: "command", command: "a" }] },
        { hooks: [{ type: "command", command: "b" }] },
        { matcher: "Edit, Write", hooks: [{ type: "command", command: "c" }] },
      ],
      Stop: [{ matcher: null, hooks: [{ type: "command", command: "d" }] }],
    });
    expect(problems).toEqual([]);
    expect(groups.map((g) => [g.event, g.matcher])).toEqual([
      ["PostToolUse", "*"],
      ["PostToolUse", ""],
      ["PostToolUse", "Edit, Write"],
      ["Stop", ""],
    ]);
  });

  it("accepts every Claude Code event; those Yoke never fires are an info-level problem, not unknown", () => {
    const hooks = Object.fromEntries(HOOK_EVENTS.map((e) => [e, [{ hooks: [{ type: "command", command: "true" }] }]]));
    const { groups, problems } = read(hooks);
    expect(groups).toHaveLength(HOOK_EVENTS.length);
    expect(problems.every((p) => p.level === "info")).toBe(true);
    const never = HOOK_EVENTS.filter((e) => !FIRED_EVENTS.includes(e));
    expect(problems.map((p) => p.message.split(": ")[1])).toEqual(never.map((e) => `hooks.${e}`));
    for (const e of [
      "PermissionRequest",
      "PostToolUseFailure",
      "PreToolUse",
      "PostToolUse",
      "Stop",
      "UserPromptSubmit",
      "SessionStart",
      "SessionEnd",
      "Notification",
      "PreCompact",
      "PostCompact",
      "SubagentStart",
      "SubagentStop",
    ]) {
      expect(FIRED_EVENTS).toContain(e);
    }
    expect(problems.find((p) => p.message.includes("hooks.Elicitation"))!.message).toBe(
      "/w/.claude/settings.json: hooks.Elicitation: accepted, never fires in Yoke yet (Yoke's MCP client does not offer elicitation to servers)",
    );
    for (const e of ["Setup"]) expect(problems.some((p) => p.message.includes(`hooks.${e}: accepted, never fires in Yoke yet`))).toBe(true);
  });

  it("reports what it cannot use, and keeps hooks of types Yoke cannot run as asking guards", () => {
    const { groups, problems } = read({
      BeforeEverything: [],
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "prompt", prompt: "is this safe? $ARGUMENTS" }, { type: "command" }, { type: "command", command: "x", timeout: -1 }, { type: "wasm" }] }],
      Stop: [{ hooks: [{ type: "agent", prompt: "verify" }] }],
      PostToolUse: "echo hi",
    });
    expect(groups).toEqual([
      { event: "PreToolUse", matcher: "Bash", hooks: [], unsupported: [{ type: "prompt" }], source: info },
      { event: "Stop", matcher: "", hooks: [], unsupported: [{ type: "agent" }], source: info },
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^\/w\/\.claude\/settings\.json: hooks\.BeforeEverything: unknown hook event \(Claude Code's events are SessionStart, Setup, /),
      '/w/.claude/settings.json: hooks.PreToolUse[0].hooks[0]: hooks of type "prompt" cannot run in Yoke (only "command" hooks do); tool calls it matches will ask for approval instead',
      '/w/.claude/settings.json: hooks.PreToolUse[0].hooks[1]: "command" must be a non-empty string; skipped',
      '/w/.claude/settings.json: hooks.PreToolUse[0].hooks[2]: "timeout" must be a number of seconds above 0; skipped',
      '/w/.claude/settings.json: hooks.PreToolUse[0].hooks[3]: unknown hook type "wasm" (Claude Code\'s are command, http, mcp_tool, prompt, agent); skipped',
      '/w/.claude/settings.json: hooks.Stop[0].hooks[0]: hooks of type "agent" cannot run in Yoke (only "command" hooks do); skipped',
      '/w/.claude/settings.json: hooks.PostToolUse must be an array of {"matcher": string, "hooks": [...]}; skipped',
    ]);
  });

  it("is what mergeSettings uses, and an untrusted workspace still drops workspace hooks", () => {
    const source = { info, text: JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }] } }) };
    expect(mergeSettings([source]).hooks).toHaveLength(1);
    const untrusted = mergeSettings([source], { trusted: false });
    expect(untrusted.hooks).toEqual([]);
    expect(untrusted.problems.map((p) => p.message)).toEqual([expect.stringContaining("the workspace is not trusted, so its allow rules, defaultMode, additionalDirectories and hooks are ignored")]);
  });
});
