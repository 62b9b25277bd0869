/**
 * Trust comes from who wrote a setting (mergeSettings): what loosens counts only from the user's own
 * sources; what restricts counts from every source; what cannot be read fails closed.
 */
import { describe, expect, it } from "vitest";
import { isCheckedIn, mergeSettings } from "../../../src/core/permissions/merge-settings";
import type { LoadedSource, SettingsSourceInfo } from "../../../src/core/permissions/types";

type Kind = SettingsSourceInfo["kind"];
const LABELS: Record<Kind, string> = {
  vscode: "VS Code setting yoke.permissions",
  "claude-user": "~/.claude/settings.json",
  user: "~/.yoke/settings.json",
  project: ".yoke/settings.json",
  "project-local": ".yoke/settings.local.json",
  claude: ".claude/settings.json",
  "claude-local": ".claude/settings.local.json",
  "vscode-workspace": "VS Code workspace setting yoke.permissions",
  extra: "--settings /s/extra.json",
  managed: "/etc/claude-code/managed-settings.json (managed settings)",
  session: "allowed for this session",
  "ignore-file": ".cursorignore:1, Cursor's ignore file",
};
const src = (kind: Kind, value: unknown, extra: Partial<SettingsSourceInfo> = {}): LoadedSource => ({
  info: { kind, label: LABELS[kind], path: `/w/${LABELS[kind]}`, baseDir: "/w", ...extra },
  text: typeof value === "string" ? value : JSON.stringify(value),
});
const HOSTILE = { permissions: { defaultMode: "bypassPermissions", additionalDirectories: ["/"], allow: ["Bash", "Edit"], deny: ["Bash(curl:*)"], ask: ["Bash(git push:*)"] } };
const messages = (m: ReturnType<typeof mergeSettings>) => m.problems.map((p) => p.message);
const rules = (m: ReturnType<typeof mergeSettings>) => m.rules.map((r) => `${r.list} ${r.raw}`);

describe("who may loosen", () => {
  it.each<Kind>(["project", "claude", "vscode-workspace", "ignore-file"])("a %s source may only restrict, whatever it says about itself", (kind) => {
    const merged = mergeSettings([src(kind, HOSTILE, { checkedIn: false })]);
    expect(merged.defaultMode).toBeUndefined();
    expect(merged.additionalDirectories).toEqual([]);
    expect([...new Set(rules(merged))]).toEqual(["deny Bash(curl:*)", "ask Bash(git push:*)"]);
    expect(messages(merged)).toHaveLength(1);
    expect(messages(merged)[0]).toMatch(
      /: 2 allow rules \(Bash, Edit\), defaultMode "bypassPermissions" and additionalDirectories \["\/"\] are ignored because .*shared with the repository.*; put them in /,
    );
  });

  it.each<Kind>(["project-local", "claude-local"])("a %s file git tracks is treated as checked in", (kind) => {
    const merged = mergeSettings([src(kind, HOSTILE, { checkedIn: true, checkedInWhy: "git tracks it" })]);
    expect(merged.defaultMode).toBeUndefined();
    expect(merged.additionalDirectories).toEqual([]);
    expect(merged.rules.some((r) => r.list === "allow")).toBe(false);
    const where =
      kind === "claude-local" ? "an untracked .claude/settings.local.json, ~/.claude/settings.json or ~/.yoke/settings.json" : "an untracked .yoke/settings.local.json or ~/.yoke/settings.json";
    expect(messages(merged)).toEqual([
      `${LABELS[kind]}: 2 allow rules (Bash, Edit), defaultMode "bypassPermissions" and additionalDirectories ["/"] are ignored because the file is shared with the repository (git tracks it), and a repository may only restrict what Yoke does; put them in ${where}`,
    ]);
  });

  it("treats a local file whose tracking is unknown as checked in (fail closed)", () => {
    expect(isCheckedIn({ kind: "claude-local", label: "x", baseDir: "/" })).toBe(true);
    const merged = mergeSettings([src("claude-local", { permissions: { defaultMode: "acceptEdits" } })]);
    expect(merged.defaultMode).toBeUndefined();
    expect(messages(merged)[0]).toContain("Yoke could not confirm that git does not track it");
  });

  it.each<Kind>(["project-local", "claude-local", "user", "claude-user", "vscode", "extra", "managed"])("a %s source the user owns may loosen", (kind) => {
    const merged = mergeSettings([src(kind, HOSTILE, { checkedIn: false })]);
    expect(merged.defaultMode).toMatchObject({ mode: "bypassPermissions" });
    expect(merged.additionalDirectories).toEqual(["/"]);
    expect(rules(merged)).toContain("allow Bash");
    expect(messages(merged)).toEqual([]);
  });

  it("keeps the lower-priority user mode when a shared file asks for a looser one, and lets a shared file restrict it", () => {
    const user = src("user", { permissions: { defaultMode: "plan" } });
    expect(mergeSettings([user, src("claude", { permissions: { defaultMode: "acceptEdits" } })]).defaultMode).toMatchObject({ mode: "plan", source: { kind: "user" } });
    const loose = src("user", { permissions: { defaultMode: "acceptEdits" } });
    expect(mergeSettings([loose, src("claude", { permissions: { defaultMode: "plan" } })]).defaultMode).toMatchObject({ mode: "plan", source: { kind: "claude" } });
    expect(mergeSettings([loose, src("claude", { permissions: { defaultMode: "dontAsk" } })]).defaultMode).toMatchObject({ mode: "default", dontAsk: true, declared: "dontAsk" });
  });

  it("keeps hooks of a checked-in file, marked as checked in (they may block, never allow), and drops them in an untrusted workspace", () => {
    const hooks = { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }] } };
    const merged = mergeSettings([src("claude-local", hooks, { checkedIn: true, checkedInWhy: "git tracks it" }), src("user", hooks)]);
    expect(merged.hooks.map((h) => [h.source.kind, isCheckedIn(h.source)])).toEqual([
      ["claude-local", true],
      ["user", false],
    ]);
    expect(mergeSettings([src("claude", hooks)], { trusted: false }).hooks).toEqual([]);
  });

  it("honours disableAllHooks only from the user's own files", () => {
    const guard = src("user", { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/guard.sh" }] }] } });
    const shared = mergeSettings([guard, src("claude", { disableAllHooks: true })]);
    expect(shared.hooks).toHaveLength(1);
    expect(messages(shared)).toEqual([
      '.claude/settings.json: "disableAllHooks" is ignored because the file is shared with the repository (it is the project\'s committed settings file): it would switch off your own hooks',
    ]);
    const own = mergeSettings([guard, src("claude-local", { disableAllHooks: true }, { checkedIn: false })]);
    expect(own.hooks).toEqual([]);
    expect(messages(own)).toEqual(['.claude/settings.local.json: "disableAllHooks" is set, so 1 hook group from other settings files does not run']);
  });
});

describe("restrictions count from every source", () => {
  it("takes disableBypassPermissionsMode from a checked-in file and then never starts in bypassPermissions", () => {
    const merged = mergeSettings([src("user", { permissions: { defaultMode: "bypassPermissions" } }), src("claude", { permissions: { disableBypassPermissionsMode: "disable" } })]);
    expect(merged.bypassDisabled).toMatchObject({ kind: "claude" });
    expect(merged.defaultMode).toMatchObject({ mode: "default", declared: "bypassPermissions" });
    expect(messages(merged)).toEqual([
      '~/.yoke/settings.json: defaultMode "bypassPermissions" is not used because .claude/settings.json disables bypassPermissions mode (disableBypassPermissionsMode); Yoke starts in default mode',
    ]);
  });

  it("reads any other value of disableBypassPermissionsMode as disable, with a warning", () => {
    const merged = mergeSettings([src("user", { permissions: { disableBypassPermissionsMode: true } })]);
    expect(merged.bypassDisabled).toBeDefined();
    expect(messages(merged)).toEqual(['/w/~/.yoke/settings.json: permissions.disableBypassPermissionsMode should be "disable" (found boolean true); Yoke disables bypassPermissions mode anyway']);
    expect(mergeSettings([src("user", { permissions: { disableBypassPermissionsMode: false } })]).bypassDisabled).toBeUndefined();
  });

  it("applies managed settings last; allowManagedPermissionRulesOnly drops the other files' allow rules but keeps their deny rules", () => {
    const merged = mergeSettings([
      src("user", { permissions: { allow: ["Bash(npm:*)"], deny: ["Read(~/.aws/**)"], defaultMode: "acceptEdits" } }),
      src("managed", { allowManagedPermissionRulesOnly: true, allowManagedHooksOnly: true, permissions: { allow: ["Bash(make:*)"], defaultMode: "default" } }),
    ]);
    expect([...new Set(rules(merged))]).toEqual(["allow Bash(make:*)", "deny Read(~/.aws/**)"]);
    expect(merged.defaultMode).toMatchObject({ mode: "default", source: { kind: "managed" } });
    expect(messages(merged)).toEqual([
      "/etc/claude-code/managed-settings.json (managed settings): allowManagedPermissionRulesOnly is set, so 1 allow rule from other settings files is not used (their deny and ask rules still apply)",
    ]);
  });

  it("ignores managed-only keys in other files", () => {
    const merged = mergeSettings([src("user", { permissions: { allow: ["Bash(ls)"] } }), src("claude-local", { allowManagedPermissionRulesOnly: true }, { checkedIn: false })]);
    expect(rules(merged)).toEqual(["allow Bash(ls)"]);
  });
});

describe("Claude Code's modes", () => {
  it.each([
    ["default", "default", undefined],
    ["manual", "default", undefined],
    ["acceptEdits", "acceptEdits", undefined],
    ["plan", "plan", undefined],
    ["bypassPermissions", "bypassPermissions", undefined],
    ["dontAsk", "default", true],
    ["auto", "default", undefined],
  ])("maps defaultMode %s to %s", (value, mode, dontAsk) => {
    const merged = mergeSettings([src("user", { permissions: { defaultMode: value } })]);
    expect(merged.defaultMode?.mode).toBe(mode);
    expect(merged.defaultMode?.dontAsk).toBe(dontAsk);
  });

  it("reports auto (no classifier in Yoke)", () => {
    expect(messages(mergeSettings([src("user", { permissions: { defaultMode: "auto" } })]))).toEqual([
      `/w/~/.yoke/settings.json: permissions.defaultMode: "auto" is Claude Code's classifier mode, which Yoke does not have; Yoke starts in default mode (it asks)`,
    ]);
  });

  it("reads an unknown defaultMode as default (it asks) and keeps the rest of the file: deny rules and hooks", () => {
    const merged = mergeSettings([
      src("user", { permissions: { defaultMode: "bypassPermissions" } }),
      src("claude", { permissions: { defaultMode: "yolo", deny: ["Bash(rm:*)"] }, hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./guard.sh" }] }] } }),
    ]);
    expect(merged.defaultMode).toMatchObject({ mode: "default", source: { kind: "claude" } });
    expect(rules(merged)).toEqual(["deny Bash(rm:*)"]);
    expect(merged.hooks).toHaveLength(1);
    expect(messages(merged)).toEqual([
      '/w/.claude/settings.json: permissions.defaultMode "yolo" is not a mode Yoke knows (default, acceptEdits, plan, bypassPermissions, manual, dontAsk, auto); Yoke uses default mode (it asks) instead',
    ]);
  });
});

describe("what Yoke cannot read fails closed", () => {
  it("makes a malformed deny or ask rule's tool ask, and skips a malformed allow rule", () => {
    const merged = mergeSettings([src("user", { permissions: { deny: ["Read(./.env", "Bash(curl:*)"], ask: ["mcp__github__push(x"], allow: ["Edit(src/**"] } })]);
    expect(merged.failClosed.map((f) => f.tool)).toEqual(["Read", "mcp__github__push"]);
    expect([...new Set(rules(merged))]).toEqual(["deny Bash(curl:*)"]);
    expect(messages(merged)).toEqual([
      '/w/~/.yoke/settings.json: permissions.deny: rule "Read(./.env" has no closing parenthesis; Yoke cannot read this rule, so every Read call asks until it is fixed',
      '/w/~/.yoke/settings.json: permissions.ask: rule "mcp__github__push(x" has no closing parenthesis; Yoke cannot read this rule, so every mcp__github__push call asks until it is fixed',
      '/w/~/.yoke/settings.json: permissions.allow: rule "Edit(src/**" has no closing parenthesis; this rule is skipped (it allows nothing)',
    ]);
  });

  it("makes every tool ask for a deny entry that is not a string or a permissions value of the wrong type", () => {
    expect(mergeSettings([src("user", { permissions: { deny: [{ tool: "Bash" }] } })]).failClosed.map((f) => f.tool)).toEqual(["*"]);
    expect(mergeSettings([src("user", { permissions: { deny: 7 } })]).failClosed.map((f) => f.tool)).toEqual(["*"]);
    const wrong = mergeSettings([src("user", { permissions: ["Bash(rm:*)"], hooks: { Stop: [{ hooks: [{ type: "command", command: "notify" }] }] } })]);
    expect(wrong.failClosed.map((f) => f.tool)).toEqual(["*"]);
    expect(wrong.hooks).toHaveLength(1);
  });

  it("reads a deny string as one rule, and legacy deniedTools as deny rules; allowedTools is ignored", () => {
    const merged = mergeSettings([src("user", { permissions: { deny: "Bash(git push:*)", deniedTools: ["Bash(rm:*)"], allowedTools: ["Bash"] } })]);
    expect(rules(merged)).toEqual(["deny Bash(git push:*)", "deny Bash(rm:*)"]);
    expect(messages(merged)).toEqual([
      "/w/~/.yoke/settings.json: permissions.deny must be an array of rule strings; Yoke reads the string as one rule",
      "/w/~/.yoke/settings.json: permissions.deniedTools is not a Claude Code key (write permissions.deny); Yoke uses its entries as deny rules",
      "/w/~/.yoke/settings.json: permissions.allowedTools is not a Claude Code key (write permissions.allow); it is ignored",
    ]);
  });

  it("reports unknown keys inside permissions but not Claude Code's many top-level keys", () => {
    const merged = mergeSettings([
      src("user", {
        $schema: "https://json.schemastore.org/claude-code-settings.json",
        model: "opus",
        env: { A: "1" },
        statusLine: {},
        permissions: { deny: ["Bash(rm:*)"], mode: "default", disableAutoMode: "disable" },
      }),
    ]);
    expect(messages(merged)).toEqual([
      "/w/~/.yoke/settings.json: permissions.mode is not a key Yoke knows (allow, ask, deny, defaultMode, additionalDirectories, disableBypassPermissionsMode, disableAutoMode, allowManagedPermissionRulesOnly); it is ignored",
    ]);
    expect(rules(merged)).toEqual(["deny Bash(rm:*)"]);
  });

  it("makes every tool ask for a file that is not valid JSON or cannot be read", () => {
    const bad = mergeSettings([src("user", '{"permissions": {"deny": ["Bash(rm:*)"] "ask": []}}')]);
    expect(bad.failClosed).toMatchObject([{ tool: "*", why: '~/.yoke/settings.json is not valid JSON (1:41: unexpected "\\"ask\\"" (a comma was expected))' }]);
    // Comments and trailing commas are JSONC, which every settings file may be: its rules are read, nothing fails closed.
    const jsonc = mergeSettings([src("user", '{\n  // no rm\n  "permissions": {"deny": ["Bash(rm:*)",],},\n}')]);
    expect(jsonc.failClosed).toEqual([]);
    expect(rules(jsonc)).toEqual(["deny Bash(rm:*)"]);
    expect(mergeSettings([src("user", "[1, 2]")]).failClosed.map((f) => f.tool)).toEqual(["*"]);
    expect(mergeSettings([{ info: { kind: "user", label: "~/.yoke/settings.json", baseDir: "/h" }, error: "EISDIR" }]).failClosed.map((f) => f.tool)).toEqual(["*"]);
  });

  it("makes every tool ask when the permissions object or a deny list is written twice (JSON keeps only the last)", () => {
    const twice = mergeSettings([src("user", '{\n  "permissions": {\n    "deny": ["Read(./.env)"],\n    "deny": []\n  },\n  "model": "a",\n  "model": "b"\n}')]);
    expect(twice.failClosed.map((f) => f.tool)).toEqual(["*"]);
    expect(messages(twice)).toEqual([
      '/w/~/.yoke/settings.json:4:5: "permissions.deny" is defined twice; JSON keeps only the last one, so the rules of the first are lost and every tool call asks until it is fixed (merge the two)',
      '/w/~/.yoke/settings.json:7:3: "model" is defined twice; only the last one is used',
    ]);
  });

  it("reports an empty file loudly (it might have held rules)", () => {
    const merged = mergeSettings([src("claude", "  \n")]);
    expect(merged.failClosed).toEqual([]);
    expect(messages(merged)).toEqual([
      "/w/.claude/settings.json: the file is empty, so it holds no rules; if it held rules before, they no longer apply — restore it (for example from git) or delete it",
    ]);
  });

  it("keeps the deny and ask rules of the committed version of an emptied or broken file, not its allow rules", () => {
    const committed = JSON.stringify({ permissions: { deny: ["Read(./.env)"], ask: ["Bash(git push:*)"], allow: ["Bash(npm:*)"], defaultMode: "acceptEdits" } });
    const emptied = mergeSettings([{ ...src("claude-local", "", { checkedIn: true }), fallback: { text: committed, from: "the committed version (git HEAD)" } }]);
    expect([...new Set(rules(emptied))]).toEqual(["deny Read(./.env)", "ask Bash(git push:*)"]);
    expect(emptied.defaultMode).toBeUndefined();
    expect(emptied.failClosed).toEqual([]);
    expect(messages(emptied)).toEqual([
      "/w/.claude/settings.local.json: the file is empty, so it holds no rules; the committed version (git HEAD) held 2 deny and ask rules, which keep applying until it is fixed (its allow rules, defaultMode, additionalDirectories and hooks do not)",
    ]);
    const broken = mergeSettings([{ ...src("claude-local", "{", { checkedIn: true }), fallback: { text: committed, from: "the committed version (git HEAD)" } }]);
    expect([...new Set(rules(broken))]).toEqual(["deny Read(./.env)", "ask Bash(git push:*)"]);
    expect(broken.failClosed.map((f) => f.tool)).toEqual(["*"]);
  });

  it("remembers the last good version across loads (the gate's memory) and forgets a deleted file", () => {
    const memory = new Map<string, string>();
    const good = src("user", { permissions: { deny: ["Bash(rm:*)"] } });
    mergeSettings([good], { memory });
    const truncated = mergeSettings([src("user", "")], { memory });
    expect(rules(truncated)).toEqual(["deny Bash(rm:*)"]);
    expect(messages(truncated)[0]).toContain("the version Yoke loaded before held 1 deny and ask rule, which keep applying");
    // Still remembered on the next load while the file stays empty.
    expect(rules(mergeSettings([src("user", "")], { memory }))).toEqual(["deny Bash(rm:*)"]);
    // The user deletes the file: nothing is kept any more.
    mergeSettings([{ info: good.info }], { memory });
    expect(rules(mergeSettings([src("user", "")], { memory }))).toEqual([]);
  });
});
