/**
 * Rules read the way Claude Code documents them (code.claude.com/docs/en/permissions), and the
 * stricter way where Yoke must choose: Read deny rules also block edits, a relative deny pattern
 * also matches at any depth, tool-name patterns, parameter rules, protected paths, dontAsk and
 * disableBypassPermissionsMode. Real files in a temporary workspace, through the gate.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pathSpecMatches, type PathSpecContext } from "../../../src/core/permissions/path-spec";
import { readRule, ruleAppliesTo } from "../../../src/core/permissions/rule-syntax";
import { sensitivity } from "../../../src/core/permissions/sensitive";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });
const edit = (file_path: string) => call("edit_file", { file_path });
const write = (file_path: string) => call("write_file", { file_path, content: "x" });
const read = (file_path: string) => call("read_file", { file_path });
const mcp = (name: string) => ({ tool: name, permission: name, input: {}, mutates: true });

describe("readRule", () => {
  it("accepts tool-name patterns in deny and ask rules, and in allow rules only after mcp__<server>__", () => {
    expect(readRule("*", "deny")).toEqual({ use: { tool: "*" }, tools: ["*"] });
    expect(readRule("mcp__*", "ask")).toEqual({ use: { tool: "mcp__*" }, tools: ["mcp__*"] });
    expect(readRule("mcp__github__*", "allow")).toEqual({ use: { tool: "mcp__github__*" }, tools: ["mcp__github__*"] });
    expect(readRule("mcp__plugin_backlog_tasks__get_*", "allow")).toMatchObject({ use: { tool: "mcp__plugin_backlog_tasks__get_*" } });
    for (const r of ["*", "mcp__*", "B*", "mcp__git*__x"])
      expect(readRule(r, "allow")).toEqual({ error: `rule "${r}": an allow rule may use a tool-name pattern only after mcp__<server>__ (as in Claude Code)` });
  });

  it("stores a Read or Write deny rule under Edit too, and reads Claude Code's other editing tools as Edit in deny and ask rules", () => {
    expect(readRule("Read(./.env)", "deny")).toMatchObject({ tools: ["Read", "Edit"] });
    expect(readRule("Read(./.env)", "ask")).toMatchObject({ tools: ["Read", "Edit"] });
    expect(readRule("Read(./.env)", "allow")).toMatchObject({ tools: ["Read"] });
    expect(readRule("Write(docs/**)", "deny")).toMatchObject({ tools: ["Write", "Edit"] });
    expect(readRule("MultiEdit(src/**)", "deny")).toMatchObject({ use: { tool: "Edit", specifier: "src/**" } });
    expect(readRule("NotebookEdit", "deny")).toMatchObject({ use: { tool: "Edit" } });
    expect(readRule("LS(secrets)", "deny")).toMatchObject({ use: { tool: "Read", specifier: "secrets" } });
    expect(readRule("MultiEdit(src/**)", "allow")).toEqual({ claudeOnly: "MultiEdit" });
    expect(readRule("Agent(Explore)", "allow")).toEqual({ use: { tool: "Task", specifier: "Explore" }, tools: ["Task"] });
    expect(readRule("WebFetch(domain:github.com)", "deny")).toEqual({ claudeOnly: "WebFetch" });
  });

  it("fails closed for a deny rule it cannot read, for the tool it names", () => {
    expect(readRule("Bash(rm -rf", "deny")).toEqual({ error: 'rule "Bash(rm -rf" has no closing parenthesis', askFor: "Bash" });
    expect(readRule("bash(rm:*)", "deny")).toEqual({ error: 'rule "bash(rm:*)" names an unknown tool "bash"', askFor: "Bash" });
    expect(readRule("run_command(rm:*)", "deny")).toMatchObject({ askFor: "Bash" });
    expect(readRule("Read ./.env", "deny")).toMatchObject({ askFor: "Read" });
    expect(readRule("(rm -rf)", "deny")).toMatchObject({ askFor: "*" });
    expect(readRule("!Read(.env.example)", "deny")).toMatchObject({ askFor: "*" });
    expect(readRule("Bash(rm -rf", "allow")).toEqual({ error: 'rule "Bash(rm -rf" has no closing parenthesis' });
    expect(readRule("# Bash(rm:*)", "deny")).toEqual({ unused: '"# Bash(rm:*)" looks like a comment, not a rule; it is not used' });
    expect(readRule("__ Secrets __", "deny")).toMatchObject({ unused: expect.stringContaining("never matches a Yoke tool") });
    expect(readRule("Shell(ls)", "deny")).toEqual({ unused: 'rule "Shell(ls)" names an unknown tool "Shell"; it never matches a Yoke tool' });
  });

  it("applies tool-name patterns like the names they match (Edit patterns cover Write, Read patterns Glob and Grep)", () => {
    expect(ruleAppliesTo("*", "TodoWrite")).toBe(true);
    expect(ruleAppliesTo("mcp__*", "mcp__github__create_issue")).toBe(true);
    expect(ruleAppliesTo("mcp__*", "Bash")).toBe(false);
    expect(ruleAppliesTo("E*", "Write")).toBe(true);
    expect(ruleAppliesTo("R*", "Grep")).toBe(true);
    expect(ruleAppliesTo("mcp__github__get_*", "mcp__github__get_issue")).toBe(true);
    expect(ruleAppliesTo("mcp__github__get_*", "mcp__github__create_issue")).toBe(false);
  });
});

describe("path specifiers", () => {
  const ctx = (list: PathSpecContext["list"]): PathSpecContext => ({ cwd: "/w", home: "/h", baseDir: "/w", list });
  it("matches a relative deny pattern with a slash at any depth, an allow pattern only at the workspace root", () => {
    expect(pathSpecMatches("secrets/**", ["/w/secrets/k"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("secrets/**", ["/w/services/api/secrets/k"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("secrets/**", ["/w/services/api/secrets"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("secrets/**", ["/w/services/api/secrets/k"], ctx("allow"))).toBe(false);
    expect(pathSpecMatches("./secrets/**", ["/w/services/api/secrets/k"], ctx("deny"))).toBe(false);
    expect(pathSpecMatches("config/*.json", ["/w/apps/web/config/prod.json"], ctx("ask"))).toBe(true);
  });

  it("ignores case in deny rules only", () => {
    expect(pathSpecMatches(".env", ["/w/.ENV"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("**/*.PEM", ["/w/certs/server.pem"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("src/**", ["/w/SRC/a.ts"], ctx("allow"))).toBe(false);
  });

  it("keeps Claude Code's anchors: //abs, ~/home, /settings-source, bare names at any depth", () => {
    expect(pathSpecMatches("//etc/**", ["/etc/passwd"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("~/.aws/**", ["/h/.aws/credentials"], ctx("deny"))).toBe(true);
    expect(pathSpecMatches("/src/**", ["/w/src/a.ts"], ctx("allow"))).toBe(true);
    expect(pathSpecMatches("/src/**", ["/src/a.ts"], ctx("allow"))).toBe(false);
    expect(pathSpecMatches(".env*", ["/w/a/b/.env.production"], ctx("deny"))).toBe(true);
  });
});

describe("rules through the gate", () => {
  it("lets a Read deny rule block Edit and Write of the path, by tool and by redirection, in every mode", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Read(./.env)", "Read(secrets/**)"], allow: ["Edit", "Write", "Bash"] } });
    w.write("services/api/secrets/token.txt", "t\n");
    const gate = w.gate();
    for (const mode of ["default", "acceptEdits", "bypassPermissions"] as const) {
      expect(await gate.check(edit(".env"), mode)).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
      expect(await gate.check(write(".env"), mode)).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
      expect(await gate.check(write("services/api/secrets/token.txt"), mode)).toMatchObject({ decision: "deny", rule: "Read(secrets/**)" });
      expect(await gate.check(bash("echo x > .env"), mode)).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
    }
    expect(await gate.check(read("services/api/secrets/token.txt"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Read(secrets/**)" });
    expect(await gate.deniedBy("Read", "services/api/secrets/token.txt")).toBe("Read(secrets/**)");
  });

  it("matches mcp__*, mcp__server__* and * rules instead of skipping them", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["mcp__*"], allow: ["mcp__github__*"] } });
    expect(await w.gate().check(mcp("mcp__github__create_issue"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "mcp__*" });
    const allow = createPermissionWorkspace({ permissions: { allow: ["mcp__github__*", "*"] } });
    const gate = allow.gate();
    expect(await gate.check(mcp("mcp__github__create_issue"), "default")).toMatchObject({ decision: "allow", rule: "mcp__github__*" });
    expect(await gate.check(mcp("mcp__slack__post"), "default")).toMatchObject({ decision: "ask" });
    expect((await gate.problems()).map((p) => p.message)).toContain(
      `${join(allow.ws, ".yoke/settings.local.json")}: permissions.allow: rule "*": an allow rule may use a tool-name pattern only after mcp__<server>__ (as in Claude Code); this rule is skipped (it allows nothing)`,
    );
    const all = createPermissionWorkspace({ permissions: { deny: ["*"] } }).gate();
    expect(await all.check(read("README.md"), "default")).toMatchObject({ decision: "deny", rule: "*" });
    expect(await all.check(bash("ls"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "*" });
  });

  it("matches deny rules on an input parameter (Tool(param:value)) and Agent as Task", async () => {
    const gate = createPermissionWorkspace({ permissions: { deny: ["Task(model:opus)", "Agent(Explore)"] } }).gate();
    const task = (input: Record<string, unknown>) => ({ tool: "task", permission: "Task", input, mutates: false });
    expect(await gate.check(task({ subagent_type: "general", model: "opus" }), "default")).toMatchObject({ decision: "deny", rule: "Task(model:opus)" });
    expect(await gate.check(task({ subagent_type: "general" }), "default")).toMatchObject({ decision: "allow" });
    expect(await gate.check(task({ subagent_type: "Explore" }), "default")).toMatchObject({ decision: "deny", rule: "Agent(Explore)" });
  });

  it("makes the tool of an unreadable deny rule ask, even in bypassPermissions and under allow rules, and leaves other tools alone", async () => {
    const gate = createPermissionWorkspace({ permissions: { deny: ["Bash(rm -rf"], allow: ["Bash(npm test)"] } }).gate();
    expect(await gate.check(bash("npm test"), "default")).toEqual({
      decision: "ask",
      by: "mode",
      rule: null,
      reason: 'Yoke asks because the deny rule "Bash(rm -rf" in .yoke/settings.local.json cannot be read, so it cannot tell whether this call is allowed; fix the settings to stop these questions.',
    });
    expect((await gate.check(bash("rm -rf src"), "bypassPermissions")).decision).toBe("ask");
    expect((await gate.check(read("README.md"), "default")).decision).toBe("allow");
    // Polling a command Yoke already started is not a new command.
    expect((await gate.check(call("command_output", { id: "c1" }), "default")).decision).toBe("allow");
  });

  it("denies what would ask in dontAsk mode, and only while the session is in default mode", async () => {
    const gate = createPermissionWorkspace({ permissions: { defaultMode: "dontAsk", allow: ["Bash(npm test)"] } }).gate();
    expect(await gate.defaultMode()).toBe("default");
    expect(await gate.check(bash("npm test"), "default")).toMatchObject({ decision: "allow" });
    expect(await gate.check(edit("src/a.ts"), "default")).toEqual({
      decision: "deny",
      by: "mode",
      rule: null,
      reason: "Editing files needs approval in default mode. Yoke is in dontAsk mode (.yoke/settings.local.json), which denies whatever would need approval.",
    });
    expect((await gate.check(edit("src/a.ts"), "acceptEdits")).decision).toBe("allow");
  });

  it("never enters bypassPermissions when disableBypassPermissionsMode is set, even by a checked-in file", async () => {
    const w = createPermissionWorkspace({ permissions: { defaultMode: "bypassPermissions" } });
    w.write(".claude/settings.json", JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }));
    const gate = w.gate();
    expect(await gate.defaultMode()).toBe("default");
    expect(await gate.modeAllowed("bypassPermissions")).toBe(false);
    expect(await gate.modeAllowed("acceptEdits")).toBe(true);
    expect(await gate.check(edit("src/a.ts"), "bypassPermissions")).toEqual({
      decision: "ask",
      by: "mode",
      rule: null,
      reason: "Editing files needs approval in default mode. (bypassPermissions mode is disabled by .claude/settings.json, so default mode applies.)",
    });
    expect(await createPermissionWorkspace().gate().modeAllowed("bypassPermissions")).toBe(true);
  });
});

describe("protected paths", () => {
  const PROTECTED = [
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".husky/pre-commit",
    ".gitattributes",
    ".gitmodules",
    ".git/hooks/pre-commit",
    ".git/config",
    ".git/info/attributes",
    ".devcontainer/devcontainer.json",
    ".envrc",
    ".mcp.json",
    ".claude/commands/x.md",
    ".yoke/hooks/a.sh",
    ".githooks/pre-push",
    ".cursor/mcp.json",
    "packages/web/.envrc",
    "vendor/lib/.git/hooks/post-checkout",
    "sub/.git",
    "apps/x/.vscode/launch.json",
    ".npmrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    "packages/ui/.npmrc",
    "app.code-workspace",
    "tools/Team.Code-Workspace",
    ".idea/workspace.xml",
    ".github/workflows/ci.yml",
  ];

  it.each(["default", "acceptEdits", "bypassPermissions"] as const)("asks before a file tool writes one in %s mode, despite allow rules", async (mode) => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Edit", "Write", "Edit(**)"] } });
    const gate = w.gate();
    for (const p of PROTECTED) {
      for (const req of [edit(p), write(p)]) {
        const d = await gate.check(req, mode);
        expect(d, `${req.tool} ${p}`).toMatchObject({ decision: "ask", by: "mode" });
        expect(d.reason).toMatch(new RegExp(`^Changing ${p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} needs approval in every mode: `));
      }
    }
    expect(await gate.check(edit("src/a.ts"), mode)).toMatchObject({ decision: "allow" });
  });

  it("asks before a command writes one too, in bypassPermissions (through the shell analysis' settings check)", async () => {
    const gate = createPermissionWorkspace({ permissions: { allow: ["Bash"] } }).gate();
    // Protected paths that are also secrets (.envrc, .git/config, ~/.ssh) carry `sensitive.protected`; asking for those in commands is the shell analysis' part.
    for (const p of [".vscode/tasks.json", ".husky/pre-commit", ".gitattributes", ".git/hooks/pre-commit", "sub/.vscode/settings.json"]) {
      expect((await gate.check(bash(`echo x > ${p}`), "bypassPermissions")).decision, p).toBe("ask");
    }
  });

  it("names why in the question, and denies in plan mode", async () => {
    const gate = createPermissionWorkspace().gate();
    expect((await gate.check(write(".git/hooks/pre-commit"), "bypassPermissions")).reason).toBe("Changing .git/hooks/pre-commit needs approval in every mode: git hooks run on later git commands.");
    expect((await gate.check(write(".vscode/tasks.json"), "acceptEdits")).reason).toBe(
      "Changing .vscode/tasks.json needs approval in every mode: VS Code settings, tasks and launch configurations run programs.",
    );
    expect((await gate.check(write(".husky/pre-commit"), "plan")).decision).toBe("deny");
  });

  it("lets reading them go on as before: protected non-secrets are readable, .git internals still ask", async () => {
    const w = createPermissionWorkspace();
    for (const p of [".vscode/tasks.json", ".husky/pre-commit", ".gitattributes"]) w.write(p, "x\n");
    w.write(".claude/settings.json", "{}\n");
    const gate = w.gate();
    for (const p of [".vscode/tasks.json", ".husky/pre-commit", ".gitattributes", ".claude/settings.json"]) expect((await gate.check(read(p), "default")).decision, p).toBe("allow");
    // .git/config can hold credentials (actions/checkout writes its token there): reading it asks, as before.
    expect((await gate.check(read(".git/config"), "default")).decision).toBe("ask");
    expect((await gate.check(read(".git/objects/ab/cdef"), "default")).decision).toBe("ask");
    expect((await gate.check(read(".git/hooks/pre-commit"), "default")).decision).toBe("allow");
    expect((await gate.check(read("vendor/lib/.git/modules/x/config"), "default")).decision).toBe("ask");
    expect((await gate.check(write(".git/objects/ab/cdef"), "acceptEdits")).decision).toBe("ask");
    expect((await gate.check(write(".git/objects/ab/cdef"), "bypassPermissions")).decision).toBe("allow");
  });

  it("protects the shell and git start-up files of the home folder", async () => {
    const w = createPermissionWorkspace();
    const gate = w.gate();
    for (const f of [".bashrc", ".profile", ".zshrc", ".gitconfig", ".config/git/config", ".config/systemd/user/x.service", ".ssh/authorized_keys", ".yoke/settings.json"]) {
      expect(await gate.check(write(join(w.home, f)), "bypassPermissions"), f).toMatchObject({ decision: "ask" });
    }
    expect(sensitivity("/h/.bashrc", "/h")).toEqual({ kind: "config", why: "~/.bashrc", protected: "~/.bashrc is read by shells, git or the desktop and can run programs" });
    expect(sensitivity("/h/notes.txt", "/h")).toBeUndefined();
  });
});
