/**
 * Session 22 (gitcfg22, issue 18): what git runs from the working tree, read by the gate's Node port
 * (src/node/git-runs-from.ts) with real git, through the folder's real gate (folderGate):
 * - nested repositories' own configuration (`sub/.git/config`, a submodule's `.git/modules/x/config`,
 *   a linked worktree's `config.worktree`) names files git runs: before, only the workspace folder's own
 *   repository was asked, and `sub/tools/f.sh` (sub's core.fsmonitor) was an ordinary write;
 * - the configuration was read once per session: a key added during the session (by the person, or a
 *   command they approved) now protects its target at the next check, and so does one in a file an
 *   include names that did not exist when the session started.
 * A change of a permission's answer is shown on the gate; the session outcomes are in
 * test/integration/gitcfg22-session.test.ts.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { folderGate } from "../../../src/node/permission-check";
import { nodeGitRunsFrom } from "../../../src/node/git-runs-from";

const G = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"];
const git = (cwd: string, ...args: string[]) => execFileSync("git", [...G, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function folder(): { root: string; ws: string; home: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gitcfg22-")));
  dirs.push(root);
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  return { root, ws, home };
}

async function answer(gate: ReturnType<typeof folderGate>, path: string): Promise<string> {
  const d = await gate.check({ tool: "write_file", permission: "Write", input: { path, content: "x\n" }, mutates: true }, "acceptEdits");
  return `${d.decision}${d.decision === "ask" ? `: ${d.reason}` : ""}`;
}

describe("nested repositories' git configuration", () => {
  it("protects what a nested clone's, a submodule's and a linked worktree's configuration runs; ordinary files stay writable", async () => {
    const { root, ws, home } = folder();
    git(ws, "init", "-q");
    writeFileSync(join(ws, "README.md"), "r\n");
    git(ws, "add", "README.md");
    git(ws, "commit", "-qm", "init");
    // A nested clone (not a submodule) with its own fsmonitor and a `!` alias.
    const sub = join(ws, "sub");
    mkdirSync(join(sub, "tools"), { recursive: true });
    git(sub, "init", "-q");
    git(sub, "config", "core.fsmonitor", "tools/f.sh");
    git(sub, "config", "alias.fmt", "!scripts/fmt.sh --all");
    git(sub, "config", "filter.x.clean", "./bin/clean");
    // A submodule: its configuration lies in the workspace's .git/modules/mod/config.
    const up = join(root, "upstream");
    mkdirSync(up);
    git(up, "init", "-q");
    writeFileSync(join(up, "a"), "a\n");
    git(up, "add", "a");
    git(up, "commit", "-qm", "a");
    git(ws, "submodule", "add", "-q", up, "mod");
    git(join(ws, "mod"), "config", "core.hooksPath", "hooks");
    // A linked worktree inside the workspace, with a worktree-only include.
    git(ws, "commit", "-qam", "mod");
    git(ws, "worktree", "add", "-q", join(ws, "wt"));
    git(ws, "config", "extensions.worktreeConfig", "true");
    git(join(ws, "wt"), "config", "--worktree", "core.fsmonitor", "tools/wt-fsmon.sh");
    const gate = folderGate({ cwd: ws, home, managedDir: null });
    for (const p of ["sub/tools/f.sh", "sub/scripts/fmt.sh", "sub/bin/clean", "mod/hooks/pre-commit", "wt/tools/wt-fsmon.sh"]) expect(await answer(gate, p), p).toMatch(/^ask: .*git configuration/);
    // Control: ordinary files of the nested repositories.
    for (const p of ["sub/src/a.ts", "mod/a", "wt/README.md", "sub/--all"]) expect(await answer(gate, p), p).toBe("allow");
  });
});

describe("the git configuration is read again when it changes", () => {
  it("a key added during the session, and one in a file an include names that did not exist, protect their targets at the next check", async () => {
    const { ws, home } = folder();
    git(ws, "init", "-q");
    mkdirSync(join(ws, "sub"));
    git(join(ws, "sub"), "init", "-q");
    const gate = folderGate({ cwd: ws, home, managedDir: null });
    expect(await answer(gate, "tools/g.sh")).toBe("allow");
    expect(await answer(gate, "tools/h.sh")).toBe("allow");
    expect(await answer(gate, "sub/tools/n.sh")).toBe("allow");
    // The person (or an approved command) adds keys: the top repository's, a nested one's.
    git(ws, "config", "core.fsmonitor", "tools/g.sh");
    git(join(ws, "sub"), "config", "core.hooksPath", "tools");
    expect(await answer(gate, "tools/g.sh")).toMatch(/^ask: .*git configuration/);
    expect(await answer(gate, "sub/tools/n.sh")).toMatch(/^ask: .*git configuration/);
    // An include of a file not there yet: the include itself protects it, and what it names once written counts at once.
    git(ws, "config", "include.path", "../team.gitconfig");
    expect(await answer(gate, "team.gitconfig")).toMatch(/^ask: /);
    writeFileSync(join(ws, "team.gitconfig"), "[alias]\n\tlint = !tools/h.sh\n");
    expect(await answer(gate, "tools/h.sh")).toMatch(/^ask: .*git configuration/);
    // A key removed: its target is ordinary again.
    git(ws, "config", "--unset", "core.fsmonitor");
    expect(await answer(gate, "tools/g.sh")).toBe("allow");
    // The sandbox's view (before each command) reads it again too.
    git(ws, "config", "core.pager", "tools/p.sh");
    expect((await gate.sandboxProtection()).readOnly).toContain(join(ws, "tools/p.sh"));
  });

  it("keeps the last answer while git cannot read a changed configuration", async () => {
    const { ws, home } = folder();
    git(ws, "init", "-q");
    git(ws, "config", "core.fsmonitor", "tools/g.sh");
    const gate = folderGate({ cwd: ws, home, managedDir: null });
    expect(await answer(gate, "tools/g.sh")).toMatch(/^ask: .*git configuration/);
    appendFileSync(join(ws, ".git", "config"), "[broken\n");
    expect(() => git(ws, "status")).toThrow();
    expect(await answer(gate, "tools/g.sh")).toMatch(/^ask: .*git configuration/);
  });

  it("sees a change of the global file (~/.gitconfig, not there when first read)", async () => {
    const { ws, home } = folder();
    git(ws, "init", "-q");
    const before = process.env.HOME;
    process.env.HOME = home;
    try {
      const first = await nodeGitRunsFrom(ws);
      expect(first).not.toContain(join(ws, "githooks"));
      expect(await nodeGitRunsFrom(ws)).toEqual(first);
      writeFileSync(join(home, ".gitconfig"), `[core]\n\thooksPath = ${join(ws, "githooks")}\n`);
      expect(await nodeGitRunsFrom(ws)).toContain(join(ws, "githooks"));
    } finally {
      process.env.HOME = before;
    }
  });
});

describe("credential helpers", () => {
  it("a helper's name is not a file (git runs `git credential-NAME`); a `!` helper's or an absolute one's words are", async () => {
    const { ws } = folder();
    git(ws, "init", "-q");
    mkdirSync(join(ws, "scripts"));
    // As /etc/gitconfig on a cloud image has it: `credential.helper = gcloud.sh`.
    git(ws, "config", "--add", "credential.helper", "gcloud.sh");
    git(ws, "config", "--add", "credential.https://example.com.helper", "store --file .creds.txt");
    git(ws, "config", "--add", "credential.https://other.example.helper", "!scripts/cred.sh get");
    const runs = (await nodeGitRunsFrom(ws)) ?? [];
    expect(runs).not.toContain(join(ws, "gcloud.sh"));
    expect(runs).not.toContain(join(ws, "store"));
    // `store --file .creds.txt`: the helper reads and writes the named file; a word shaped like a file is protected.
    expect(runs).toContain(join(ws, ".creds.txt"));
    expect(runs).toContain(join(ws, "scripts/cred.sh"));
  });

  it("a helper's name with a `/` runs `git-credential-NAME` from the working tree's top (red team C): that file is protected", async () => {
    const { ws } = folder();
    git(ws, "init", "-q");
    mkdirSync(join(ws, "git-credential-x"));
    mkdirSync(join(ws, "sub"));
    const ran = join(ws, "ran.txt");
    writeFileSync(join(ws, "git-credential-x", "evil.sh"), `#!/bin/sh\necho ran >> '${ran}'\n`, { mode: 0o755 });
    git(ws, "config", "credential.helper", "x/evil.sh");
    // Real git, from a subfolder too: it runs the working tree's `git-credential-x/evil.sh`.
    try {
      execFileSync("git", ["credential", "fill"], {
        cwd: join(ws, "sub"),
        input: "protocol=https\nhost=example.com\n\n",
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
        stdio: ["pipe", "ignore", "ignore"],
      });
    } catch {
      // No username: git gives up after asking the helper.
    }
    expect(readFileSync(ran, "utf8")).toBe("ran\n");
    const gate = folderGate({ cwd: ws, home: join(ws, "..", "home"), managedDir: null });
    expect(await answer(gate, "git-credential-x/evil.sh")).toMatch(/^ask: .*git configuration/);
  }, 30_000);
});

describe("shell quoting in a command git runs (red team C)", () => {
  it("`core.fsmonitor = tools/f'o'o.sh` (or a backslash, or an unset ${VAR}) runs tools/foo.sh: that file is protected", async () => {
    const { ws } = folder();
    git(ws, "init", "-q");
    mkdirSync(join(ws, "tools"));
    const ran = join(ws, "ran.txt");
    writeFileSync(join(ws, "tools", "foo.sh"), `#!/bin/sh\necho ran >> '${ran}'\n`, { mode: 0o755 });
    const gate = folderGate({ cwd: ws, home: join(ws, "..", "home"), managedDir: null });
    for (const value of ["tools/f'o'o.sh", 'tools/f"o"o.sh', "tools/fo\\o.sh", "tools/fo${YOKE_REDC_UNSET}o.sh"]) {
      git(ws, "config", "core.fsmonitor", value);
      rmSync(ran, { force: true });
      // Real git runs the working tree's tools/foo.sh at `git status`.
      execFileSync("git", ["status"], { cwd: ws, stdio: "ignore" });
      expect(readFileSync(ran, "utf8"), value).toBe("ran\n");
      expect(await answer(gate, "tools/foo.sh"), value).toMatch(/^ask: .*git configuration/);
    }
  }, 30_000);
});

describe("the gate's own walk for nested repositories, in a workspace of more than 20,000 folders (red team C)", () => {
  it("walks node_modules last: a nested repository's core.fsmonitor script is protected though node_modules holds 20,000 folders", async () => {
    const { ws } = folder();
    git(ws, "init", "-q");
    for (let i = 0; i < 201; i++) for (let j = 0; j < 100; j++) mkdirSync(join(ws, "node_modules", `p${i}`, `d${j}`), { recursive: true });
    for (const n of ["aaa", "lib", "zzz"]) {
      mkdirSync(join(ws, n, "tools"), { recursive: true });
      git(join(ws, n), "init", "-q");
      git(join(ws, n), "config", "core.fsmonitor", "tools/fs.sh");
    }
    // Before the session's first command (no sandbox walk yet): the gate's own walk.
    const gate = folderGate({ cwd: ws, home: join(ws, "..", "home"), managedDir: null });
    for (const n of ["aaa", "lib", "zzz"]) expect(await answer(gate, `${n}/tools/fs.sh`), n).toMatch(/^ask: .*git configuration/);
  }, 60_000);
});

describe("a workspace folder holding the home (red team C)", () => {
  it("still reads its nested repositories (bounded by the walk's 20,000 folders): lib/'s core.fsmonitor script is protected", async () => {
    const { ws } = folder();
    git(ws, "init", "-q");
    mkdirSync(join(ws, "home"));
    mkdirSync(join(ws, "lib", "tools"), { recursive: true });
    git(join(ws, "lib"), "init", "-q");
    git(join(ws, "lib"), "config", "core.fsmonitor", "tools/fs.sh");
    const before = process.env.HOME;
    process.env.HOME = join(ws, "home");
    try {
      const gate = folderGate({ cwd: ws, home: join(ws, "home"), managedDir: null });
      expect(await answer(gate, "lib/tools/fs.sh")).toMatch(/^ask: .*git configuration/);
    } finally {
      process.env.HOME = before;
    }
  }, 30_000);
});
