import { describe, expect, it } from "vitest";
import { mergeSettings } from "../../../src/core/permissions/merge-settings";
import type { LoadedSource, SettingsSourceInfo } from "../../../src/core/permissions/types";

const info = (kind: SettingsSourceInfo["kind"], label: string): SettingsSourceInfo => ({ kind, label, path: `/w/${label}`, baseDir: "/w" });
const src = (kind: SettingsSourceInfo["kind"], label: string, value: unknown): LoadedSource => ({ info: info(kind, label), text: typeof value === "string" ? value : JSON.stringify(value) });

describe("mergeSettings", () => {
  it("lists rules of higher-priority sources first and takes defaultMode from the highest", () => {
    const merged = mergeSettings([
      src("user", "~/.yoke/settings.json", { permissions: { allow: ["Bash(ls)"], defaultMode: "plan" } }),
      src("claude-local", ".claude/settings.local.json", { permissions: { deny: ["Bash(rm:*)"], defaultMode: "acceptEdits" } }),
    ]);
    expect(merged.rules.map((r) => `${r.list} ${r.raw} ${r.source.label}`)).toEqual(["deny Bash(rm:*) .claude/settings.local.json", "allow Bash(ls) ~/.yoke/settings.json"]);
    expect(merged.defaultMode?.mode).toBe("acceptEdits");
  });

  it("ignores bypassPermissions from a shared project file, with a warning", () => {
    const merged = mergeSettings([src("claude", ".claude/settings.json", { permissions: { defaultMode: "bypassPermissions" } })]);
    expect(merged.defaultMode).toBeUndefined();
    expect(merged.problems.map((p) => p.message)).toEqual([
      '.claude/settings.json: defaultMode "bypassPermissions" is ignored in a shared project file; set it in ~/.yoke/settings.json, a settings.local.json file or the VS Code setting',
    ]);
  });

  it("skips an invalid rule but keeps the rest of the file", () => {
    const merged = mergeSettings([src("project", ".yoke/settings.json", { permissions: { deny: ["Bash(rm", "Bash(curl:*)"] } })]);
    expect(merged.rules.map((r) => r.raw)).toEqual(["Bash(curl:*)"]);
    expect(merged.problems.map((p) => p.message)).toEqual(['/w/.yoke/settings.json: permissions.deny: rule "Bash(rm" has no closing parenthesis; this rule is skipped']);
  });

  it("treats a file of the wrong shape as absent and says so", () => {
    const merged = mergeSettings([src("project", ".yoke/settings.json", { permissions: { allow: "Bash" } })]);
    expect(merged.rules).toEqual([]);
    expect(merged.problems.map((p) => p.message)).toEqual(['/w/.yoke/settings.json: "permissions.allow" must be an array of strings; the file is ignored until it is fixed (its rules do not apply)']);
  });

  it("reads hook groups and reports bad ones", () => {
    const merged = mergeSettings([
      src("claude", ".claude/settings.json", {
        hooks: {
          PreToolUse: [{ matcher: "Bash|Edit", hooks: [{ type: "command", command: "./check.sh", timeout: 10 }, { type: "prompt", prompt: "x" }] }],
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

  it("reports an unreadable file", () => {
    const merged = mergeSettings([{ info: info("project", ".yoke/settings.json"), error: "EACCES" }]);
    expect(merged.problems.map((p) => p.message)).toEqual(["/w/.yoke/settings.json: cannot be read (EACCES); the file is ignored (its rules do not apply)"]);
  });
});
