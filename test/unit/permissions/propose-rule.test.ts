import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

describe("proposeRules", () => {
  const w = createPermissionWorkspace();
  const gate = w.gate();
  const bash = (command: string) => gate.proposeRules(call("run_command", { command }));

  it("proposes a prefix rule with the subcommand or script name", async () => {
    expect(await bash("npm run test -- --watch")).toEqual(["Bash(npm run test:*)"]);
    expect(await bash("git commit -m 'x'")).toEqual(["Bash(git commit:*)"]);
    expect(await bash("cargo build --release")).toEqual(["Bash(cargo build:*)"]);
    expect(await bash("python3 -m pytest -x")).toEqual(["Bash(python3 -m pytest:*)"]);
    expect(await bash("./scripts/deploy.sh staging")).toEqual(["Bash(./scripts/deploy.sh:*)"]);
  });

  it("proposes one rule per part that is not read-only, skipping wrappers", async () => {
    expect(await bash("ls && npm install && FOO=1 timeout 60 make build")).toEqual(["Bash(npm install:*)", "Bash(make build:*)"]);
  });

  it("proposes only the exact command for interpreters and destructive programs", async () => {
    expect(await bash("node scripts/gen.js --fast")).toEqual(["Bash(node scripts/gen.js --fast)"]);
    expect(await bash("rm -rf dist")).toEqual(["Bash(rm -rf dist)"]);
    expect(await bash("curl 'https://x.test/a b'")).toEqual(["Bash(curl 'https://x.test/a b')"]);
  });

  it("proposes nothing for a command it cannot analyse", async () => {
    expect(await bash("$CMD x")).toEqual([]);
    expect(await gate.proposeRule(call("run_command", { command: 'eval "$x"' }))).toBeNull();
  });

  it("proposes a folder rule for edits, the file itself at the root or for sensitive files", async () => {
    expect(await gate.proposeRules(call("edit_file", { file_path: "src/utils/x.ts" }))).toEqual(["Edit(src/utils/**)"]);
    expect(await gate.proposeRules(call("write_file", { file_path: "README.md" }))).toEqual(["Edit(./README.md)"]);
    expect(await gate.proposeRules(call("edit_file", { file_path: ".env" }))).toEqual(["Edit(./.env)"]);
    expect(await gate.proposeRules(call("edit_file", { file_path: join(w.outside, "o.txt") }))).toEqual([`Edit(/${w.outside}/**)`]);
  });

  it("proposes nothing for agent settings files", async () => {
    expect(await gate.proposeRules(call("edit_file", { file_path: ".yoke/settings.json" }))).toEqual([]);
  });

  it("proposes read rules for the folder outside the workspace, from home with ~", async () => {
    expect(await gate.proposeRules(call("read_file", { file_path: "/etc/hosts" }))).toEqual(["Read(//etc/**)"]);
    expect(await gate.proposeRules(call("read_file", { file_path: join(w.home, "notes/a.md") }))).toEqual(["Read(~/notes/**)"]);
  });

  it("proposes the tool or server name for other tools", async () => {
    expect(await gate.proposeRules(call("mcp__github__create_issue", {}))).toEqual(["mcp__github__create_issue"]);
    expect(await gate.proposeRules(call("Task", { subagent_type: "reviewer" }))).toEqual(["Task(reviewer)"]);
  });

  it("produces rules that allow the call they were proposed for", async () => {
    const w2 = createPermissionWorkspace();
    const g = w2.gate();
    for (const req of [call("run_command", { command: "npm run build -- --watch" }), call("edit_file", { file_path: "src/utils/x.ts" }), call("read_file", { file_path: "/etc/hosts" })]) {
      const [rule] = await g.proposeRules(req);
      g.addSessionRule(rule!);
      expect((await g.check(req, "default")).decision, rule).toBe("allow");
    }
  });
});
