/** The sandbox protection view: deny rules and protected paths as absolute paths to hide and keep read-only (real files). */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mergeSettings } from "../../../src/core/permissions/merge-settings";
import { programNameMatches, sandboxProtection } from "../../../src/core/permissions/sandbox-view";
import { nodeListDir } from "../../../src/node/settings/files";
import { PROTECTED_WORKSPACE_PATHS } from "../../../src/core/protected-paths";
import { createPermissionWorkspace } from "../../support/permission-workspace";

describe("sandboxProtection", () => {
  it("hides the files and folders deny rules forbid reading, expanded against the workspace", async () => {
    const w = createPermissionWorkspace({
      permissions: { deny: ["Read(./.env)", "Read(**/.env*)", "Read(secrets/**)", "Read(~/.aws/**)", "Read(*.pem)", "Read(//etc/hostname)", "Read(./missing.txt)"] },
    });
    for (const f of ["secrets/a.key", "services/api/secrets/token", "services/api/.env.production", "certs/server.pem", "node_modules/pkg/.env.example"]) w.write(f, "x\n");
    w.write(join(w.home, ".aws/credentials"), "x\n");
    const view = await w.gate().sandboxProtection();
    expect(view.hide).toEqual(
      [
        "/etc/hostname",
        join(w.home, ".aws"),
        join(w.ws, ".env"),
        join(w.ws, "certs/server.pem"),
        join(w.ws, "secrets"),
        join(w.ws, "services/api/.env.production"),
        join(w.ws, "services/api/secrets"),
      ].sort(),
    );
    // Dependency folders are not walked (no secrets of the user's there).
    expect(view.hide).not.toContain(join(w.ws, "node_modules/pkg/.env.example"));
    expect(view.notes).toEqual([]);
  });

  it("keeps the protected paths of every workspace folder read-only, existing or not, and paths denied for editing", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Edit(./dist/**)", "Write(**/*.lock)", "Read(./.env)"], additionalDirectories: ["../shared"] } });
    w.write("yarn.lock", "x\n");
    w.write("packages/a/yarn.lock", "x\n");
    mkdirSync(join(w.root, "shared"), { recursive: true });
    const view = await w.gate().sandboxProtection();
    for (const root of [w.ws, join(w.root, "shared")])
      for (const e of PROTECTED_WORKSPACE_PATHS.filter((p) => !p.checkedAfter)) expect(view.readOnly, `${root}/${e.path}`).toContain(`${root}/${e.path}`);
    expect(view.readOnly).toContain(join(w.ws, "dist"));
    expect(view.readOnly).toContain(join(w.ws, "yarn.lock"));
    expect(view.readOnly).toContain(join(w.ws, "packages/a/yarn.lock"));
    // .env is hidden (a Read deny rule also forbids editing it, but hiding covers that).
    expect(view.hide).toEqual([join(w.ws, ".env")]);
    expect(view.readOnly).not.toContain(join(w.ws, ".env"));
  });

  it("finds protected paths of nested projects and repositories", async () => {
    const w = createPermissionWorkspace();
    w.write("vendor/lib/.git/config", "[core]\n");
    w.write("vendor/lib/.git/hooks/post-checkout", "#!/bin/sh\n");
    w.write("packages/web/.envrc", "use node\n");
    w.write("packages/web/.vscode/tasks.json", "{}\n");
    w.write("modules/sub/.git", "gitdir: ../../.git/modules/sub\n");
    const view = await w.gate().sandboxProtection();
    for (const p of ["vendor/lib/.git/config", "vendor/lib/.git/hooks", "packages/web/.envrc", "packages/web/.vscode", "modules/sub/.git"]) expect(view.readOnly, p).toContain(join(w.ws, p));
    expect(view.readOnly).not.toContain(join(w.ws, "packages/web/.vscode/tasks.json"));
  });

  it("does not follow symlinks while walking, and hides a symlink a deny rule matches", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Read(**/id_rsa)"] } });
    w.write(join(w.outside, "loop/id_rsa"), "k\n");
    symlinkSync(w.outside, join(w.ws, "out"));
    symlinkSync(join(w.outside, "loop/id_rsa"), join(w.ws, "id_rsa"));
    const view = await w.gate().sandboxProtection();
    expect(view.hide).toEqual([join(w.ws, "id_rsa")]);
  });

  it("stops at its bound and says so", async () => {
    const w = createPermissionWorkspace();
    for (let i = 0; i < 30; i++) w.write(`many/f${i}.txt`, "x\n");
    w.write("many/.env.local", "x\n");
    const settings = mergeSettings([{ info: { kind: "user", label: "~/.yoke/settings.json", baseDir: w.home }, text: JSON.stringify({ permissions: { deny: ["Read(**/.env*)"] } }) }]);
    const view = await sandboxProtection(settings, { cwd: w.ws, home: w.home, roots: [w.ws], realHome: w.home }, nodeListDir, { maxEntries: 10 });
    expect(view.notes).toEqual([
      `the walk of the workspace stopped after 10 entries or at depth 32; files matching Read(**/.env*) deeper down may not be hidden or read-only in the sandbox (the gate still checks them)`,
    ]);
  });

  it("notes what cannot become a mount: a bare Read deny rule, a worktree's .git file", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Read"] } });
    w.write(".git", "gitdir: /elsewhere/.git/worktrees/ws\n");
    const view = await w.gate().sandboxProtection();
    expect(view.notes).toEqual([
      `${w.ws}/.git is a file (a linked worktree or submodule): the git folder it names, with its hooks and config, is outside this view`,
      "the deny rule Read (.yoke/settings.local.json) covers every path; the gate denies those calls, the sandbox cannot hide everything",
    ]);
    expect(view.readOnly).toContain(join(w.ws, ".git"));
    expect(view.readOnly).not.toContain(join(w.ws, ".git/hooks"));
    expect(view.hide).toEqual([]);
  });
});

describe("programDenials: programs the sandbox must make impossible to start", () => {
  it("takes the deny and ask rules that name a program with any arguments, not those on some arguments, an exact line, or allow rules", async () => {
    const w = createPermissionWorkspace({
      permissions: {
        deny: ["Bash(rm:*)", "Bash(curl *)", "Bash(git push:*)", "Bash(rm -rf:*)", "Bash(shutdown)", "Bash(python3:*)", "Bash(bash:*)", "Bash(r?:*)", "Read(./.env)"],
        ask: ["Bash(wget:*)", "Bash(rm *)"],
        allow: ["Bash(npm:*)"],
      },
    });
    const view = await w.gate().sandboxProtection();
    expect(view.programs.map((p) => `${p.list} ${p.name}`).sort()).toEqual(["ask wget", "deny curl", "deny python3", "deny rm"]);
    // A deny rule wins over an ask rule of the same program.
    expect(view.programs.find((p) => p.name === "rm")).toMatchObject({ rule: "Bash(rm:*)", list: "deny" });
    // A shell commands run in cannot be taken away; the note says the gate alone enforces that rule.
    expect(view.notes.join("\n")).toMatch(/Bash\(bash:\*\).*gate enforces it/);
  });

  it("takes Bash(NAME*) Bash(NAME **) and Bash(/ABS/PATH:*), which the gate enforces on NAME too (red team round 7: `sh x.sh` ran rm under Bash(rm*))", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Bash(rm*)", "Bash(curl **)", "Bash(*rm:*)", "Bash(/usr/bin/perl:*)", "Bash(./tool:*)"], ask: ["Bash(wget*)"] } });
    const view = await w.gate().sandboxProtection();
    expect(view.programs.map((p) => `${p.list} ${p.name} ${p.rule}`).sort()).toEqual([
      "ask wget Bash(wget*)",
      "deny *rm Bash(*rm:*)",
      "deny /usr/bin/perl Bash(/usr/bin/perl:*)",
      "deny curl Bash(curl **)",
      "deny rm Bash(rm*)",
    ]);
  });

  it("a leading wildcard names a pattern of program names (red team round 7: Bash(*rm:*) left rm to the gate alone)", async () => {
    const w = createPermissionWorkspace({ permissions: { deny: ["Bash(*rm:*)", "Bash(*curl *)", "Bash(*mk*)", "Bash(*sh:*)", "Bash(*rm)", "Bash(* rm:*)"] } });
    const view = await w.gate().sandboxProtection();
    expect(view.programs.map((p) => `${p.name} ${p.rule}`).sort()).toEqual(["*curl Bash(*curl *)", "*mk* Bash(*mk*)", "*rm Bash(*rm:*)", "*sh Bash(*sh:*)"]);
    expect(view.notes.join("\n")).toMatch(/Bash\(\*sh:\*\).*names a shell commands run in/);
    expect(programNameMatches("*rm", "rm")).toBe(true);
    expect(programNameMatches("*rm", "xterm")).toBe(true);
    expect(programNameMatches("*rm", "rmdir")).toBe(false);
    expect(programNameMatches("*mk*", "mkdir")).toBe(true);
    expect(programNameMatches("*mk*", "make")).toBe(false);
    expect(programNameMatches("*c++", "g++")).toBe(false);
    expect(programNameMatches("*c++", "c++")).toBe(true);
    expect(programNameMatches("rm", "rmdir")).toBe(false);
  });
});
