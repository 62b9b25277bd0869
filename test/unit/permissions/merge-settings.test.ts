import { describe, expect, it } from "vitest";
import { mergeSettings } from "../../../src/core/permissions/merge-settings";
import type { LoadedSource, SettingsSourceInfo } from "../../../src/core/permissions/types";

const info = (kind: SettingsSourceInfo["kind"], label: string, checkedIn?: boolean): SettingsSourceInfo => ({
  kind,
  label,
  path: `/w/${label}`,
  baseDir: "/w",
  ...(checkedIn === undefined ? {} : { checkedIn }),
});
const src = (kind: SettingsSourceInfo["kind"], label: string, value: unknown, checkedIn?: boolean): LoadedSource => ({
  info: info(kind, label, checkedIn),
  text: typeof value === "string" ? value : JSON.stringify(value),
});

describe("mergeSettings", () => {
  it("lists rules of higher-priority sources first and takes defaultMode from the highest", () => {
    const merged = mergeSettings([
      src("user", "~/.yoke/settings.json", { permissions: { allow: ["Bash(ls)"], defaultMode: "plan" } }),
      // An untracked local file (the loader found git does not track it): it may loosen.
      src("claude-local", ".claude/settings.local.json", { permissions: { deny: ["Bash(rm:*)"], defaultMode: "acceptEdits" } }, false),
    ]);
    expect(merged.rules.map((r) => `${r.list} ${r.raw} ${r.source.label}`)).toEqual(["deny Bash(rm:*) .claude/settings.local.json", "allow Bash(ls) ~/.yoke/settings.json"]);
    expect(merged.defaultMode?.mode).toBe("acceptEdits");
  });

  it("ignores bypassPermissions from a shared project file, with a warning", () => {
    const merged = mergeSettings([src("claude", ".claude/settings.json", { permissions: { defaultMode: "bypassPermissions" } })]);
    expect(merged.defaultMode).toBeUndefined();
    expect(merged.problems.map((p) => p.message)).toEqual([
      '.claude/settings.json: defaultMode "bypassPermissions" is ignored because the file is shared with the repository (it is the project\'s committed settings file), and a repository may only restrict what Yoke does; put it in an untracked .claude/settings.local.json, ~/.claude/settings.json or ~/.yoke/settings.json',
    ]);
  });

  // Was: the invalid deny rule was skipped silently apart from the message (a hole: its tool was no longer guarded).
  it("keeps the rest of the file around an invalid deny rule, and makes that rule's tool ask", () => {
    const merged = mergeSettings([src("project", ".yoke/settings.json", { permissions: { deny: ["Bash(rm", "Bash(curl:*)"] } })]);
    expect(merged.rules.map((r) => r.raw)).toEqual(["Bash(curl:*)"]);
    expect(merged.failClosed.map((f) => [f.tool, f.why])).toEqual([["Bash", 'the deny rule "Bash(rm" in .yoke/settings.json cannot be read']]);
    expect(merged.problems.map((p) => p.message)).toEqual([
      '/w/.yoke/settings.json: permissions.deny: rule "Bash(rm" has no closing parenthesis; Yoke cannot read this rule, so every Bash call asks until it is fixed',
    ]);
  });

  // Was: the whole file counted as absent (its deny rules too).
  it("ignores only the key of the wrong shape and keeps the rest of the file", () => {
    const merged = mergeSettings([src("claude-local", ".claude/settings.local.json", { permissions: { allow: "Bash", deny: ["Read(./.env)"] } }, false)]);
    expect(merged.rules.map((r) => `${r.list} ${r.tool} ${r.raw}`)).toEqual(["deny Read Read(./.env)", "deny Edit Read(./.env)"]);
    expect(merged.problems.map((p) => p.message)).toEqual(['/w/.claude/settings.local.json: permissions.allow must be an array of rule strings (found "Bash"); it is ignored (it allows nothing)']);
  });

  it("reads hook groups and reports bad ones", () => {
    const merged = mergeSettings([
      src("claude", ".claude/settings.json", {
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash|Edit",
              hooks: [
                { type: "command", command: "./check.sh", timeout: 10 },
                { type: "prompt", prompt: "x" },
              ],
            },
          ],
          Stop: [{ hooks: [{ type: "command", command: "notify" }] }],
          BeforeEverything: [],
          PostToolUse: [{ matcher: "(", hooks: [{ type: "command", command: "x" }] }],
        },
      }),
    ]);
    expect(merged.hooks.map((h) => [h.event, h.matcher, h.hooks])).toEqual([
      ["PreToolUse", "Bash|Edit", [{ type: "command", command: "./check.sh", timeout: 10 }]],
      ["Stop", "", [{ type: "command", command: "notify", timeout: undefined }]],
    ]);
    expect(merged.problems.map((p) => p.message)).toEqual([
      '/w/.claude/settings.json: hooks.PreToolUse[0].hooks[1]: hooks of type "prompt" cannot run in Yoke (only "command" hooks do); tool calls it matches will ask for approval instead',
      expect.stringMatching(/^\/w\/\.claude\/settings\.json: hooks\.BeforeEverything: unknown hook event \(Claude Code's events are SessionStart, Setup, .*\); skipped$/),
      '/w/.claude/settings.json: hooks.PostToolUse[0].matcher "(" is not a valid regular expression, so this group never runs; fix it (Claude Code ignores it too)',
    ]);
  });

  it("takes the VS Code setting as an object", () => {
    const merged = mergeSettings([{ info: { kind: "vscode", label: "VS Code setting yoke.permissions", baseDir: "/w" }, value: { permissions: { allow: ["Read"] } } }]);
    expect(merged.rules.map((r) => r.raw)).toEqual(["Read"]);
  });

  // Was: the file was ignored (its deny rules with it); now every tool asks until it can be read.
  it("reports an unreadable file and asks for every tool", () => {
    const merged = mergeSettings([{ info: info("project", ".yoke/settings.json"), error: "EACCES" }]);
    expect(merged.problems.map((p) => p.message)).toEqual([
      "/w/.yoke/settings.json: the file cannot be read (EACCES); Yoke cannot know which rules it holds, so every tool call asks until it is fixed",
    ]);
    expect(merged.failClosed).toMatchObject([{ tool: "*", why: ".yoke/settings.json cannot be read (EACCES)" }]);
  });
});
