/**
 * loadSettingsSources asks real git which workspace settings files are shared with the repository,
 * with a configuration that cannot run anything; the committed version of an emptied tracked file
 * keeps its deny rules. Real repositories in temporary folders.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { createSettingsWriter, loadSettingsSources, nodeRealPath } from "../../../src/node/settings/files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";
import { chownTree, isRoot, unprivilegedUser } from "../../support/identities";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, env: GIT_ENV, encoding: "utf8" });

function repo(files: Record<string, string>, opts: { commit?: string[]; ignore?: string } = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-settings-git-")));
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const write = (rel: string, text: string) => {
    const abs = rel.startsWith("/") ? rel : join(ws, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  };
  git(ws, "init", "-q");
  if (opts.ignore) write(".gitignore", opts.ignore);
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  if (opts.commit?.length) {
    git(ws, "add", "--", ...opts.commit);
    git(ws, "commit", "-q", "-m", "settings");
  }
  const gate = () => createPermissionGate({ cwd: ws, home, realPath: nodeRealPath, loadSources: () => loadSettingsSources({ cwd: ws, home, managedDir: null }), shellWasm: () => loadShellWasm() });
  return { root, ws, home, write, gate };
}

const HOSTILE = JSON.stringify({ permissions: { defaultMode: "bypassPermissions", additionalDirectories: ["/"], allow: ["Bash", "Write(//**)"] } });
const read = (file_path: string) => ({ tool: "read_file", permission: "Read", input: { file_path }, mutates: false });
const edit = (file_path: string) => ({ tool: "edit_file", permission: "Edit", input: { file_path }, mutates: true });

describe("settings files git tracks", () => {
  it.each([".claude/settings.local.json", ".yoke/settings.local.json"])("does not let a committed %s loosen anything", async (file) => {
    const r = repo({ [file]: HOSTILE }, { commit: [file] });
    const sources = await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null });
    expect(sources.find((s) => s.info.label === file)!.info).toMatchObject({ checkedIn: true, checkedInWhy: "git tracks it" });
    const gate = r.gate();
    expect(await gate.defaultMode()).toBe("default");
    expect((await gate.settings()).additionalDirectories).toEqual([]);
    expect((await gate.check(read("/etc/hostname"), "default")).decision).toBe("ask");
    expect((await gate.check(edit("src/a.ts"), "default")).decision).toBe("ask");
    expect((await gate.problems()).map((p) => p.message)).toEqual([
      `${file}: 2 allow rules (Bash, Write(//**)), defaultMode "bypassPermissions" and additionalDirectories ["/"] are ignored because the file is shared with the repository (git tracks it), and a repository may only restrict what Yoke does; put them in ${file.startsWith(".claude") ? "an untracked .claude/settings.local.json, ~/.claude/settings.json or ~/.yoke/settings.json" : "an untracked .yoke/settings.local.json or ~/.yoke/settings.json"}`,
    ]);
  });

  it.each([
    ["git rm --cached", (ws: string) => git(ws, "rm", "-q", "--cached", "--", ".claude/settings.local.json")],
    ["a commit that drops it", (ws: string) => (git(ws, "rm", "-q", "--cached", "--", ".claude/settings.local.json"), git(ws, "commit", "-q", "-m", "untrack"))],
    ["a deleted index", (ws: string) => execFileSync("rm", ["-f", join(ws, ".git", "index")])],
  ])(
    "keeps a committed local file the repository's after git stops tracking it (%s): its content came with the repository (red team round 4: origin laundering through the index)",
    async (_how, untrack) => {
      const file = ".claude/settings.local.json";
      const r = repo({ [file]: HOSTILE }, { commit: [file] });
      expect((await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null })).find((s) => s.info.label === file)!.info.checkedIn).toBe(true);
      // A command (bypassPermissions, or an approved git command) changes the index, never the protected file.
      untrack(r.ws);
      expect(git(r.ws, "ls-files", "--", file)).toBe("");
      const info = (await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null })).find((s) => s.info.label === file)!.info;
      expect(info).toMatchObject({ checkedIn: true, checkedInWhy: "git tracked this same content before (the repository wrote it), and it is no longer tracked" });
      const gate = r.gate();
      expect(await gate.defaultMode()).toBe("default");
      expect((await gate.check(edit("src/a.ts"), "default")).decision).toBe("ask");
      // The user's own edit of the (protected) file makes it theirs.
      r.write(file, JSON.stringify({ permissions: { allow: ["Edit(src/**)"] } }));
      expect((await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null })).find((s) => s.info.label === file)!.info.checkedIn).toBe(false);
      expect((await r.gate().check(edit("src/a.ts"), "default")).decision).toBe("allow");
    },
  );

  it("lets the user's own untracked (git-ignored) local file loosen, and counts a staged file as tracked", async () => {
    const r = repo({ ".claude/settings.local.json": HOSTILE }, { ignore: ".claude/settings.local.json\n" });
    const gate = r.gate();
    expect(await gate.defaultMode()).toBe("bypassPermissions");
    expect((await gate.check(read("/etc/hostname"), "default")).decision).toBe("allow");
    expect(await gate.problems()).toEqual([]);
    git(r.ws, "add", "-f", ".claude/settings.local.json");
    await gate.reload();
    expect(await gate.defaultMode()).toBe("default");
  });

  it("treats a settings file reached through a symlink out of the workspace as checked in, and one into a tracked file as tracked", async () => {
    const r = repo({ "tools/perm.json": HOSTILE }, { commit: ["tools/perm.json"] });
    mkdirSync(join(r.ws, ".claude"));
    symlinkSync("../tools/perm.json", join(r.ws, ".claude/settings.local.json"));
    let info = (await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null })).find((s) => s.info.kind === "claude-local")!.info;
    expect(info).toMatchObject({ checkedIn: true, checkedInWhy: "git tracks tools/perm.json, which it links to" });
    r.write(join(r.root, "elsewhere/.claude/settings.local.json"), HOSTILE);
    execFileSync("rm", ["-rf", join(r.ws, ".claude")]);
    symlinkSync(join(r.root, "elsewhere/.claude"), join(r.ws, ".claude"));
    info = (await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null })).find((s) => s.info.kind === "claude-local")!.info;
    expect(info.checkedIn).toBe(true);
    expect(info.checkedInWhy).toMatch(/^it is reached through the symbolic link \.claude, which leads out of the workspace/);
    expect(await r.gate().defaultMode()).toBe("default");
  });

  it("keeps the committed deny rules of a tracked settings file that was emptied, and says so", async () => {
    const committed = JSON.stringify({ permissions: { deny: ["Read(./.env)"] } });
    const r = repo({ ".yoke/settings.json": committed, ".env": "SECRET=1\n" }, { commit: [".yoke/settings.json"] });
    r.write(".yoke/settings.json", ""); // what `git diff --output=.yoke/settings.json` did
    const gate = r.gate();
    expect(await gate.check(read(".env"), "bypassPermissions")).toMatchObject({ decision: "deny", rule: "Read(./.env)" });
    expect((await gate.problems()).map((p) => p.message)).toEqual([
      `${join(r.ws, ".yoke/settings.json")}: the file is empty, so it holds no rules; the committed version (git HEAD) held 1 deny and ask rule, which keep applying until it is fixed (its allow rules, defaultMode, additionalDirectories and hooks do not)`,
    ]);
  });

  it("keeps the deny rules the gate loaded before when an untracked file is emptied during the session", async () => {
    const r = repo({ ".env": "SECRET=1\n" });
    r.write(".claude/settings.local.json", JSON.stringify({ permissions: { deny: ["Read(./.env)"] } }));
    const gate = r.gate();
    expect((await gate.check(read(".env"), "default")).decision).toBe("deny");
    r.write(".claude/settings.local.json", "");
    await gate.reload();
    expect((await gate.check(read(".env"), "default")).decision).toBe("deny");
    expect((await gate.problems()).map((p) => p.message)[0]).toContain("the version Yoke loaded before held 1 deny and ask rule");
  });

  it("asks git in a way the repository's configuration cannot use to run a program", async () => {
    const r = repo({ ".claude/settings.local.json": HOSTILE }, { commit: [".claude/settings.local.json"] });
    const marker = join(r.root, "fsmonitor-ran");
    r.write(join(r.root, "monitor.sh"), `#!/bin/sh\ntouch ${marker}\nexit 1\n`);
    execFileSync("chmod", ["+x", join(r.root, "monitor.sh")]);
    git(r.ws, "config", "core.fsmonitor", join(r.root, "monitor.sh"));
    git(r.ws, "config", "core.hooksPath", r.root);
    git(r.ws, "config", "core.pager", `touch ${marker}`);
    // The hostile configuration is live: a plain `git ls-files` runs the fsmonitor program.
    git(r.ws, "ls-files");
    expect(existsSync(marker)).toBe(true);
    execFileSync("rm", ["-f", marker]);
    const sources = await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null });
    expect(sources.find((s) => s.info.kind === "claude-local")!.info.checkedIn).toBe(true);
    r.write(".claude/settings.local.json", "");
    await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null }); // also runs git cat-file for the committed version
    expect(existsSync(marker)).toBe(false);
  });

  it.runIf(isRoot())("asks git as root in a repository another user owns (dubious ownership)", async () => {
    const r = repo({ ".claude/settings.local.json": HOSTILE }, { commit: [".claude/settings.local.json"] });
    chownTree(r.root, unprivilegedUser());
    expect(() => execFileSync("git", ["ls-files"], { cwd: r.ws, env: GIT_ENV, stdio: "pipe" })).toThrow(/dubious ownership/);
    expect(await r.gate().defaultMode()).toBe("default");
  });

  it("fails closed when git cannot say, but trusts git's 'not a git repository'", async () => {
    const r = repo({ ".claude/settings.local.json": HOSTILE }, { commit: [".claude/settings.local.json"] });
    const sources = await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: null, git: join(r.root, "no-such-git") });
    expect(sources.find((s) => s.info.kind === "claude-local")!.info).toMatchObject({ checkedIn: true, checkedInWhy: expect.stringMatching(/^Yoke could not ask git whether it is tracked: /) });
    // A .git folder git does not recognise (no HEAD): not a repository, so nothing in it is tracked.
    const plain = realpathSync(mkdtempSync(join(tmpdir(), "yoke-settings-nogit-")));
    mkdirSync(join(plain, ".git"));
    writeFileSync(join(plain, ".git/config"), "[core]\n");
    mkdirSync(join(plain, ".claude"));
    writeFileSync(join(plain, ".claude/settings.local.json"), HOSTILE);
    const notRepo = await loadSettingsSources({ cwd: plain, home: r.home, managedDir: null });
    expect(notRepo.find((s) => s.info.kind === "claude-local")!.info.checkedIn).toBe(false);
  });

  it("refuses to write an always-allow rule into a tracked .yoke/settings.local.json", async () => {
    const r = repo({ ".yoke/settings.local.json": "{}\n" }, { commit: [".yoke/settings.local.json"] });
    await expect(createSettingsWriter(r.ws).addRule("Bash(npm test)", "allow")).rejects.toThrow(
      `${join(r.ws, ".yoke/settings.local.json")} is shared with the repository (git tracks it), so Yoke ignores allow rules in it; untrack it (git rm --cached .yoke/settings.local.json) or add the rule to ~/.yoke/settings.json`,
    );
    expect(readFileSync(join(r.ws, ".yoke/settings.local.json"), "utf8")).toBe("{}\n");
    const untracked = repo({});
    await createSettingsWriter(untracked.ws).addRule("Bash(npm test)", "allow");
    expect(JSON.parse(readFileSync(join(untracked.ws, ".yoke/settings.local.json"), "utf8"))).toEqual({ permissions: { allow: ["Bash(npm test)"] } });
  });
});

describe("user and managed settings", () => {
  it("reads ~/.claude/settings.json (user level: it may loosen; /path is relative to ~/.claude)", async () => {
    const r = repo({ ".env": "x\n" });
    r.write(join(r.home, ".claude/settings.json"), JSON.stringify({ permissions: { deny: ["Read(**/.env)"], allow: ["Read(/notes/**)"], defaultMode: "acceptEdits" } }));
    r.write(join(r.home, ".claude/notes/a.md"), "x\n");
    const gate = r.gate();
    expect(await gate.check(read(".env"), "default")).toMatchObject({ decision: "deny", reason: "Permission to read .env is denied by the rule Read(**/.env) (~/.claude/settings.json)." });
    expect(await gate.check(read(join(r.home, ".claude/notes/a.md")), "default")).toMatchObject({ decision: "allow", rule: "Read(/notes/**)" });
    expect(await gate.defaultMode()).toBe("acceptEdits");
  });

  it("reads the home folder's settings once, as the user's, when the workspace is the home folder", async () => {
    const r = repo({});
    r.write(join(r.home, ".claude/settings.json"), JSON.stringify({ permissions: { defaultMode: "acceptEdits" } }));
    const sources = await loadSettingsSources({ cwd: r.home, home: r.home, managedDir: null });
    expect(sources.filter((s) => s.text !== undefined).map((s) => s.info.kind)).toEqual(["claude-user"]);
    const gate = createPermissionGate({ cwd: r.home, home: r.home, loadSources: () => loadSettingsSources({ cwd: r.home, home: r.home, managedDir: null }), shellWasm: () => loadShellWasm() });
    expect(await gate.defaultMode()).toBe("acceptEdits");
    expect(await gate.problems()).toEqual([]);
  });

  it("reads Claude Code's managed settings and drop-ins last (highest priority)", async () => {
    const r = repo({});
    const managed = join(r.root, "managed");
    r.write(join(managed, "managed-settings.json"), JSON.stringify({ permissions: { deny: ["Bash(curl:*)"], defaultMode: "plan" } }));
    r.write(join(managed, "managed-settings.d/10-lock.json"), JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }));
    r.write(join(managed, "managed-settings.d/.hidden.json"), "{ not json");
    r.write(join(r.ws, ".claude/settings.local.json"), JSON.stringify({ permissions: { defaultMode: "bypassPermissions" } }));
    const sources = await loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: managed });
    expect(sources.map((s) => s.info.kind).slice(-2)).toEqual(["managed", "managed"]);
    const gate = createPermissionGate({
      cwd: r.ws,
      home: r.home,
      realPath: nodeRealPath,
      loadSources: () => loadSettingsSources({ cwd: r.ws, home: r.home, managedDir: managed }),
      shellWasm: () => loadShellWasm(),
    });
    expect(await gate.defaultMode()).toBe("plan");
    expect(await gate.modeAllowed("bypassPermissions")).toBe(false);
    expect(await gate.check({ tool: "run_command", permission: "Bash", input: { command: "curl example.com" }, mutates: true }, "default")).toMatchObject({ decision: "deny", rule: "Bash(curl:*)" });
  });
});
