import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { loadSettingsSources, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const bash = (command: string) => call("run_command", { command });

describe("createPermissionGate", () => {
  it("denies a compound command when any part matches a deny rule, naming the rule and the part", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Bash(git push:*)"], allow: ["Bash(npm run test:*)"] } });
    expect(await w.gate().check(bash("npm run test && FOO=1 g'i't push origin"), "default")).toEqual({
      decision: "deny",
      by: "rule",
      rule: "Bash(git push:*)",
      reason: "Denied by the rule Bash(git push:*) (.yoke/settings.local.json): the command runs `FOO=1 g'i't push origin`.",
    });
  });

  it("allows a command only when every part is allowed, and names the rule", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Bash(npm run test:*)"] } });
    const gate = w.gate();
    expect(await gate.check(bash("npm run test -- --watch && ls src"), "default")).toEqual({
      decision: "allow",
      by: "rule",
      rule: "Bash(npm run test:*)",
      reason: "Allowed by the rule Bash(npm run test:*) (.yoke/settings.local.json); every other part is allowed too.",
    });
    expect(await gate.check(bash("npm run test && npm publish"), "default")).toEqual({
      decision: "ask",
      by: "mode",
      rule: null,
      reason: "`npm publish` needs approval (npm is not a known read-only command).",
    });
  });

  it("asks for what it cannot analyse, saying why", async () => {
    const gate = createPermissionWorkspace().gate();
    expect(await gate.check(bash("$CMD --force"), "default")).toEqual({
      decision: "ask",
      by: "mode",
      rule: null,
      reason: "Yoke cannot analyse this command confidently: `$CMD --force`: the command name $CMD is only known when it runs.",
    });
  });

  it("allows read-only commands inside the workspace and asks for sensitive or outside paths", async () => {
    const w = createPermissionWorkspace();
    const gate = w.gate();
    expect(await gate.check(bash("grep -rn TODO src | head -5"), "default")).toMatchObject({
      decision: "allow",
      by: "mode",
      reason: "Read-only commands inside the workspace, allowed in default mode.",
    });
    expect(await gate.check(bash("cat .env"), "default")).toMatchObject({ decision: "ask", reason: "`cat .env` needs approval (it reads .env, a sensitive file (environment file))." });
    expect(await gate.check(bash(`cat ${w.outside}/o.txt`), "default")).toMatchObject({
      decision: "ask",
      reason: `\`cat ${w.outside}/o.txt\` needs approval (it reads ${w.outside}/o.txt, outside the workspace).`,
    });
  });

  it("treats a redirection as a write of its target", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Write(//etc/**)"] } });
    const gate = w.gate();
    expect(await gate.check(bash("echo x > /etc/motd"), "bypassPermissions")).toMatchObject({
      decision: "deny",
      rule: "Write(//etc/**)",
      reason: "Denied by the rule Write(//etc/**) (.yoke/settings.local.json): the command writes to /etc/motd.",
    });
    expect(await gate.check(bash("ls > files.txt"), "default")).toMatchObject({ decision: "ask", reason: "`ls` writes to files.txt (writing files needs approval in default mode)." });
    expect(await gate.check(bash("ls > files.txt"), "acceptEdits")).toMatchObject({ decision: "allow" });
    expect(await gate.check(bash(`ls > ${w.outside}/f.txt`), "acceptEdits")).toMatchObject({ decision: "ask", reason: `\`ls\` writes to ${w.outside}/f.txt, outside the workspace.` });
  });

  it("resolves symlinks before matching path rules", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Edit(src/**)"], deny: ["Read(./.env)"] } });
    w.link("src/escape", w.outside);
    w.link("notes.txt", join(w.ws, ".env"));
    const gate = w.gate();
    expect(await gate.check(call("edit_file", { file_path: "src/escape/o.txt" }), "acceptEdits")).toMatchObject({
      decision: "ask",
      reason: "src/escape/o.txt is outside the workspace, so editing it needs approval even in acceptEdits mode.",
    });
    expect(await gate.check(call("read_file", { file_path: "notes.txt" }), "default")).toMatchObject({
      decision: "deny",
      rule: "Read(./.env)",
      reason: "Permission to read notes.txt is denied by the rule Read(./.env) (.yoke/settings.local.json).",
    });
    expect(await gate.check(call("edit_file", { file_path: "src/a.ts" }), "default")).toMatchObject({
      decision: "allow",
      rule: "Edit(src/**)",
      reason: "Allowed by the rule Edit(src/**) (.yoke/settings.local.json).",
    });
  });

  it("follows the modes: default asks for edits, acceptEdits allows them, plan denies them with a message for the model", async () => {
    const gate = createPermissionWorkspace().gate();
    const edit = call("edit_file", { file_path: "docs/guide.md" });
    expect(await gate.check(edit, "default")).toEqual({ decision: "ask", by: "mode", rule: null, reason: "Editing files needs approval in default mode." });
    expect(await gate.check(edit, "acceptEdits")).toEqual({ decision: "allow", by: "mode", rule: null, reason: "acceptEdits mode allows edits inside the workspace." });
    expect(await gate.check(edit, "plan")).toEqual({
      decision: "deny",
      by: "mode",
      rule: null,
      reason: "Yoke is in plan mode, which is read-only: edit docs/guide.md is not allowed. Investigate with read-only tools, then present your plan; the user leaves plan mode to carry it out.",
    });
    expect(await gate.check(edit, "bypassPermissions")).toEqual({ decision: "allow", by: "mode", rule: null, reason: "bypassPermissions mode allows everything no deny rule forbids." });
  });

  it("asks before agent settings files are changed, in every mode and despite allow rules", async () => {
    const gate = createPermissionWorkspace({ permissions: { allow: ["Edit", "Bash"] } }).gate();
    const expected = { decision: "ask", by: "mode", rule: null, reason: "Changing .claude/settings.json needs approval in every mode: it holds agent settings, which decide what Yoke may do." };
    expect(await gate.check(call("write_file", { file_path: ".claude/settings.json", content: "{}" }), "bypassPermissions")).toEqual(expected);
    expect(await gate.check(bash("echo '{}' > .yoke/settings.local.json"), "bypassPermissions")).toMatchObject({ decision: "ask" });
  });

  it("denies edits, commands and MCP calls in an untrusted workspace and ignores its allow rules", async () => {
    const w = createPermissionWorkspace({ permissions: { allow: ["Bash(ls:*)", "Read(//etc/**)"] } });
    const gate = w.gate({ trusted: false });
    expect(await gate.check(bash("ls"), "default")).toEqual({
      decision: "deny",
      by: "restricted",
      rule: null,
      reason: "The workspace is not trusted (VS Code Restricted Mode): running commands is not allowed. Ask the user to trust the workspace first.",
    });
    expect(await gate.check(call("read_file", { file_path: "/etc/hostname" }), "default")).toMatchObject({ decision: "ask" });
    expect((await gate.problems()).map((p) => p.message)).toEqual([
      ".yoke/settings.local.json: the workspace is not trusted, so its allow rules, defaultMode, additionalDirectories and hooks are ignored (deny and ask rules still apply)",
    ]);
  });

  it("writes an always-allow rule to .yoke/settings.local.json and applies it at once", async () => {
    const w = createPermissionWorkspace();
    w.write(".yoke/settings.local.json", JSON.stringify({ env: { KEEP: "1" } }));
    const gate = w.gate();
    const req = bash("npm run test -- --watch");
    expect((await gate.check(req, "default")).decision).toBe("ask");
    const rule = await gate.proposeRule(req);
    expect(rule).toBe("Bash(npm run test:*)");
    await gate.addLocalRule(rule!);
    expect(JSON.parse(readFileSync(join(w.ws, ".yoke/settings.local.json"), "utf8"))).toEqual({ env: { KEEP: "1" }, permissions: { allow: ["Bash(npm run test:*)"] } });
    expect(await gate.check(req, "default")).toMatchObject({ decision: "allow", rule: "Bash(npm run test:*)", reason: "Allowed by the rule Bash(npm run test:*) (.yoke/settings.local.json)." });
  });

  it("refuses to add an invalid rule and leaves a malformed local file untouched", async () => {
    const w = createPermissionWorkspace();
    const gate = w.gate();
    await expect(gate.addLocalRule("Bash(npm")).rejects.toThrow('rule "Bash(npm" has no closing parenthesis');
    w.write(".yoke/settings.local.json", "{ broken");
    await expect(gate.addLocalRule("Bash(ls)")).rejects.toThrow(/settings\.local\.json:1:3: invalid JSON .*; fix it before adding rules/);
    expect(readFileSync(join(w.ws, ".yoke/settings.local.json"), "utf8")).toBe("{ broken");
  });

  it("keeps session rules for the life of the gate only", async () => {
    const w = createPermissionWorkspace();
    const gate = w.gate();
    gate.addSessionRule("Edit(docs/**)");
    expect(await gate.check(call("edit_file", { file_path: "docs/guide.md" }), "default")).toMatchObject({
      decision: "allow",
      rule: "Edit(docs/**)",
      reason: "Allowed by the rule Edit(docs/**) (allowed for this session).",
    });
    expect((await w.gate().check(call("edit_file", { file_path: "docs/guide.md" }), "default")).decision).toBe("ask");
  });

  it("reports a malformed settings file and asks for every tool until it is fixed", async () => {
    const w = createPermissionWorkspace();
    w.write(".claude/settings.json", '{"permissions": {"allow": ["Bash(ls)"]\n  "deny": []}}');
    const gate = w.gate();
    expect((await gate.problems()).map((p) => p.message)).toEqual([
      `${join(w.ws, ".claude/settings.json")}: the file is not valid JSON (2:3: unexpected "\\"deny\\"" (a comma was expected)); Yoke cannot know which rules it holds, so every tool call asks until it is fixed`,
    ]);
    expect((await gate.check(bash("ls > x"), "default")).decision).toBe("ask");
    expect(await gate.check(call("read_file", { file_path: "README.md" }), "default")).toMatchObject({
      decision: "ask",
      reason:
        'Yoke asks because .claude/settings.json is not valid JSON (2:3: unexpected "\\"deny\\"" (a comma was expected)), so it cannot tell whether this call is allowed; fix the settings to stop these questions.',
    });
  });

  it("reads defaultMode from the settings", async () => {
    const w = createPermissionWorkspace();
    w.write(".claude/settings.local.json", JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
    expect(await w.gate().defaultMode()).toBe("acceptEdits");
  });

  it("takes rules from the VS Code setting and extra settings files", async () => {
    const w = createPermissionWorkspace();
    w.write(join(w.root, "extra.json"), JSON.stringify({ permissions: { deny: ["Bash(npm publish:*)"] } }));
    const gate = w.gate({ vscodePermissions: { allow: ["Bash(npm:*)"] }, extraFiles: [join(w.root, "extra.json")] });
    expect(await gate.check(bash("npm install"), "default")).toMatchObject({ decision: "allow", reason: "Allowed by the rule Bash(npm:*) (VS Code setting yoke.permissions)." });
    expect(await gate.check(bash("npm publish --tag next"), "default")).toMatchObject({
      decision: "deny",
      reason: `Denied by the rule Bash(npm publish:*) (--settings ${join(w.root, "extra.json")}): the command runs \`npm publish --tag next\`.`,
    });
  });

  it("allows reading and stopping a command already started", async () => {
    const gate = createPermissionWorkspace().gate();
    expect(await gate.check(call("command_output", { id: "c1" }), "plan")).toEqual({
      decision: "allow",
      by: "mode",
      rule: null,
      reason: "command_output only reads or stops a command Yoke already started.",
    });
  });
});

describe("createPermissionGate with a workspace reached through a symlink", () => {
  it("matches relative rules against resolved paths and proposes relative rules", async () => {
    const { symlinkSync } = await import("node:fs");
    const { createPermissionGate } = await import("../../../src/core/permissions/gate");
    const { loadSettingsSources, nodeRealPath } = await import("../../../src/node/settings/files");
    const { loadShellWasm } = await import("../../../src/node/tree-sitter-wasm");
    const w = createPermissionWorkspace({ permissions: { allow: ["Edit(src/**)"], deny: ["Read(./.env)"] } });
    const via = join(w.root, "ws-link");
    symlinkSync(w.ws, via);
    const gate = createPermissionGate({ cwd: via, home: w.home, realPath: nodeRealPath, loadSources: async () => loadSettingsSources({ cwd: via, home: w.home }), shellWasm: () => loadShellWasm() });
    expect(await gate.check(call("edit_file", { file_path: "src/a.ts" }), "default")).toMatchObject({ decision: "allow", rule: "Edit(src/**)" });
    expect(await gate.check(call("run_command", { command: "cat .env" }), "default")).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
    expect(await gate.check(call("run_command", { command: "cat src/a.ts" }), "default")).toMatchObject({ decision: "allow" });
    expect(await gate.proposeRules(call("edit_file", { file_path: "docs/guide.md" }))).toEqual(["Edit(docs/**)"]);
  });
});

describe("a protected name that is a symlink", () => {
  it("guards its target under the target's own name too (.vscode -> cfg: cfg/tasks.json asks in every mode)", async () => {
    const { mkdirSync, symlinkSync } = await import("node:fs");
    const w = createPermissionWorkspace({ permissions: { allow: ["Edit(**)"] } });
    mkdirSync(join(w.ws, "cfg"));
    symlinkSync("cfg", join(w.ws, ".vscode"));
    const gate = w.gate();
    for (const mode of ["acceptEdits", "bypassPermissions"] as const) {
      const d = await gate.check(call("write_file", { file_path: "cfg/tasks.json", content: "{}" }), mode);
      expect(d).toMatchObject({ decision: "ask" });
      expect(d.reason).toBe("Changing cfg/tasks.json needs approval in every mode: VS Code settings, tasks and launch configurations run programs.");
    }
    expect(await gate.check(call("write_file", { file_path: "src/a.ts", content: "x" }), "acceptEdits")).toMatchObject({ decision: "allow" });
    expect(await gate.check(call("run_command", { command: "echo {} > cfg/tasks.json" }), "bypassPermissions")).toMatchObject({ decision: "ask" });
  });
});

describe("deniedBy", () => {
  it("names the deny rule covering a path, for tools that touch many files", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Read(./.env)", "Edit(docs/**)"] } });
    const gate = w.gate();
    expect(await gate.deniedBy("Grep", join(w.ws, ".env"))).toBe("Read(./.env)");
    expect(await gate.deniedBy("Read", "src/a.ts")).toBeNull();
    expect(await gate.deniedBy("Write", "docs/guide.md")).toBe("Edit(docs/**)");
  });

  it("resolves no path when no deny rule applies to the permission, and still finds one reached through a link when one does", async () => {
    const resolved: string[] = [];
    const counting = (p: string) => (resolved.push(p), nodeRealPath(p));
    const none = createPermissionWorkspace({ permissions: { allow: ["Read(**)"], deny: ["Bash(rm:*)"] } });
    const gate = createPermissionGate({
      cwd: none.ws,
      home: none.home,
      realPath: counting,
      shellWasm: () => loadShellWasm(),
      loadSources: async () => loadSettingsSources({ cwd: none.ws, home: none.home, managedDir: null }),
    });
    expect(await gate.deniedBy("Read", join(none.ws, "packages/a/AGENTS.md"))).toBeNull();
    const before = resolved.length;
    for (let i = 0; i < 20; i++) expect(await gate.deniedBy("Read", join(none.ws, `p${i}/AGENTS.md`))).toBeNull();
    expect(resolved.length).toBe(before);

    const w = createPermissionWorkspace({ permissions: { deny: ["Read(./secret/**)"] } });
    w.write("secret/k.txt", "k");
    w.link("visible", "secret");
    const denying = createPermissionGate({
      cwd: w.ws,
      home: w.home,
      realPath: counting,
      shellWasm: () => loadShellWasm(),
      loadSources: async () => loadSettingsSources({ cwd: w.ws, home: w.home, managedDir: null }),
    });
    const n = resolved.length;
    expect(await denying.deniedBy("Read", join(w.ws, "visible/k.txt"))).toBe("Read(./secret/**)");
    expect(resolved.length).toBeGreaterThan(n);
    expect(await denying.deniedBy("Read", join(w.ws, "other.txt"))).toBeNull();
  });
});
