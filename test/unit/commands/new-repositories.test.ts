/**
 * Repositories a command creates below a writable folder (new-repositories.ts): real git writes
 * them, the sweep checks them against the allow-list of what git init and git clone write, and
 * the user's own git, run afterwards in each folder, runs no planted program.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { newRepositoryKeyAllowed } from "../../../src/core/commands/new-repository";
import { repositoryMarkers, scanNewRepositories } from "../../../src/node/commands/new-repositories";
import { sweepGuards } from "../../../src/node/commands/quarantine";
import type { GuardedPath } from "../../../src/node/commands/sandbox/types";

let base: string;
let ws: string;
let q: string;
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-nr-")));
  ws = join(base, "ws");
  q = join(base, "quarantine");
  mkdirSync(join(ws, "src"), { recursive: true });
  writeFileSync(join(ws, "src", "a.js"), "keep\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "init");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/**
 * The guard the mount plan gives a writable folder, taken now (before "the command"). The plan
 * starts its window 50 ms early (clock grain); what the test set up before has to be older than
 * that, or a loaded machine makes the user's own files look written by the command.
 */
function startCommand(): GuardedPath {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120);
  const known = repositoryMarkers(ws);
  return { path: ws, root: ws, why: "w", before: { kind: "repositories", since: Date.now() - 50, known } };
}
const marker = (name: string) => join(base, `ran-${name}`);
/** The user's git status in `dir`, as VS Code's git extension runs it. */
const userStatus = (dir: string) => spawnSync("git", ["status", "--short"], { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
const plantFsmonitor = (gitDir: string, name: string) => execFileSync("git", ["config", "-f", join(gitDir, "config"), "core.fsmonitor", `touch ${marker(name)}`]);

describe("repositories a command creates", () => {
  it("quarantines a new .git folder, a .git file naming a new bare repository and a new bare layout, each with a planted fsmonitor; the user's git runs none", () => {
    const g = startCommand();
    mkdirSync(join(ws, "lib/deep/gd"), { recursive: true });
    git(ws, "init", "-q", "sub");
    plantFsmonitor(join(ws, "sub/.git"), "sub");
    git(ws, "init", "-q", "--bare", "lib/deep/gd/repo.git");
    plantFsmonitor(join(ws, "lib/deep/gd/repo.git"), "gd");
    writeFileSync(join(ws, "lib/deep/.git"), `gitdir: ${join(ws, "lib/deep/gd/repo.git")}\n`);
    git(ws, "init", "-q", "--bare", "tools");
    plantFsmonitor(join(ws, "tools"), "tools");
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1)).sort()).toEqual(["lib/deep/.git", "lib/deep/gd/repo.git", "sub/.git", "tools"]);
    expect(out.every((x) => x.movedTo && !x.error)).toBe(true);
    expect(out[0]!.why).toContain("core.fsmonitor");
    for (const d of ["sub", "lib/deep", "lib/deep/gd"]) expect(userStatus(join(ws, d)).status).toBe(0);
    expect(["sub", "gd", "tools"].filter((n) => existsSync(marker(n)))).toEqual([]);
  });

  // Red team A, session 22 (R45-01): git takes a folder for a bare repository when `objects` and
  // `refs` pass access(X_OK) — a link to any folder, or an executable regular file — not only when
  // they are folders (setup.c is_git_directory). The walk looked for folders only (Dirent), so such a
  // layout with core.bare=false, core.worktree and a core.fsmonitor was not seen, and the user's
  // git status in that folder ran the fsmonitor on the host.
  it("quarantines a new bare layout whose objects and refs are links or executable files (git takes them as one); the user's git runs none", () => {
    const plantBare = (dir: string, kind: "link" | "file") => {
      mkdirSync(dir, { recursive: true });
      if (kind === "link") {
        symlinkSync("/usr", join(dir, "objects"));
        symlinkSync("/usr", join(dir, "refs"));
      } else {
        for (const n of ["objects", "refs"]) {
          writeFileSync(join(dir, n), "");
          chmodSync(join(dir, n), 0o755);
        }
      }
      writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
      const name = dir.split("/").pop()!;
      writeFileSync(join(dir, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker(name)}; false"\n`);
    };
    // Control: outside any command, plain git runs what such a layout names.
    plantBare(join(base, "control"), "link");
    userStatus(join(base, "control"));
    expect(existsSync(marker("control")), "control: git did not take the linked layout for a repository").toBe(true);
    const g = startCommand();
    plantBare(join(ws, "linked"), "link");
    plantBare(join(ws, "lib/exec"), "file");
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1)).sort()).toEqual(["lib/exec", "linked"]);
    expect(out.every((x) => x.movedTo && !x.error)).toBe(true);
    expect(out[0]!.why).toContain("core.fsmonitor");
    for (const d of ["linked", "lib/exec"]) if (existsSync(join(ws, d))) userStatus(join(ws, d));
    expect(["linked", "exec"].filter((n) => existsSync(marker(n)))).toEqual([]);
  });

  // Red team A, session 22 (R45-02): git reads a `.git` file as "gitdir: " and the rest of the file
  // less its trailing newlines (setup.c read_gitfile_gently) — a trailing space, a tab, a second line
  // are part of the path. The walk took the first line and trimmed every blank, so it checked a
  // harmless folder `…/a` while git read `…/a ` (planted in the workspace's own .git/refs, which is
  // writable and not walked), and the user's git status ran that folder's core.fsmonitor.
  it("reads a .git file as git does: a trailing blank or a second line is part of the folder it names", () => {
    const plantGitDir = (dir: string, name: string) => {
      mkdirSync(join(dir, "objects"), { recursive: true });
      mkdirSync(join(dir, "refs"), { recursive: true });
      writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(dir, "config"), `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch ${marker(name)}; false"\n`);
    };
    // Control: outside any command, git reads the folder with its trailing blank or second line.
    for (const [name, real] of [
      ["ctl-space", "s "],
      ["ctl-tab", "t\t"],
      ["ctl-line", "l\nx"],
    ] as const) {
      plantGitDir(join(base, "ctl", real), name);
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, ".git"), `gitdir: ${join(base, "ctl", real)}\n`);
      userStatus(join(base, name));
    }
    expect(
      ["ctl-space", "ctl-tab", "ctl-line"].filter((n) => existsSync(marker(n))),
      "control: git read those folders",
    ).toEqual(["ctl-space", "ctl-tab", "ctl-line"]);
    const g = startCommand();
    // Outside the walked folder (the layouts themselves are R45-03's): only the .git files' reading is tested here.
    const refs = join(base, "outside");
    for (const [holder, real, decoy] of [
      ["space", "s ", "s"],
      ["tab", "t\t", "t"],
      ["line", "l\nx", "l"],
    ] as const) {
      mkdirSync(join(refs, decoy, "objects"), { recursive: true });
      mkdirSync(join(refs, decoy, "refs"), { recursive: true });
      plantGitDir(join(refs, real), holder);
      mkdirSync(join(ws, holder));
      writeFileSync(join(ws, holder, ".git"), `gitdir: ${join(refs, real)}\n`);
    }
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1)).sort()).toEqual(["line/.git", "space/.git", "tab/.git"]);
    expect(out[0]!.why).toContain("core.fsmonitor");
    for (const d of ["space", "tab", "line"]) userStatus(join(ws, d));
    expect(["space", "tab", "line"].filter((n) => existsSync(marker(n)))).toEqual([]);
  });

  // Red team A, session 22 (R45-03): the workspace's own .git/refs, logs and objects are writable for
  // git's ordinary work, and the walk did not go into the workspace's .git. A bare layout planted
  // there, reached through a link in the working tree, was no repository to the walk; the user's git
  // status in the link (git climbs the physical folders) ran its core.fsmonitor.
  it("quarantines a layout planted in the workspace's own .git/refs or .git/objects and reached through a link", () => {
    const plant = (dir: string, name: string) => {
      mkdirSync(join(dir, "objects"), { recursive: true });
      mkdirSync(join(dir, "refs"), { recursive: true });
      writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(dir, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker(name)}; false"\n`);
    };
    // Control: plain git runs what such a layout names, through the link.
    plant(join(base, "ctl/.git/refs/x"), "ctl");
    symlinkSync(join(base, "ctl/.git/refs/x"), join(base, "ctl-link"));
    userStatus(join(base, "ctl-link"));
    expect(existsSync(marker("ctl")), "control: git took the layout behind the link").toBe(true);
    const g = startCommand();
    plant(join(ws, ".git/refs/x"), "refs");
    plant(join(ws, ".git/objects/ab/y"), "objects");
    // R45-04: below a linked git folder checkOwnLinked looks at only by its top entries
    plant(join(ws, ".git/worktrees/w/logs/z"), "worktree");
    symlinkSync(".git/refs/x", join(ws, "vendor"));
    symlinkSync(".git/objects/ab/y", join(ws, "lib"));
    symlinkSync(".git/worktrees/w/logs/z", join(ws, "wt"));
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1)).sort()).toEqual([".git/objects/ab/y", ".git/refs/x", ".git/worktrees/w/logs/z"]);
    expect(out[0]!.why).toContain("core.fsmonitor");
    for (const d of ["vendor", "lib", "wt"]) if (existsSync(join(ws, d))) userStatus(join(ws, d));
    expect(["refs", "objects", "worktree"].filter((n) => existsSync(marker(n)))).toEqual([]);
    // The workspace's own repository still works.
    expect(userStatus(ws).status).toBe(0);
  });

  // R45-06: the same inside a nested repository's .git (one the user had, one the command made): the
  // walk did not go into any .git folder, and checkGitDir looks at a git folder's top entries only.
  it("quarantines a layout planted in a nested repository's .git/refs, new or the user's, reached through a link", () => {
    const plant = (dir: string, name: string) => {
      mkdirSync(join(dir, "objects"), { recursive: true });
      mkdirSync(join(dir, "refs"), { recursive: true });
      writeFileSync(join(dir, "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(dir, "config"), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch ${marker(name)}; false"\n`);
    };
    git(ws, "init", "-q", "old");
    // A nested repository of the user's with a submodule: its .git/modules/<name> is no planted layout.
    git(ws, "init", "-q", "--bare", "../sm.git");
    git(join(base, "sm.git"), "--work-tree=.", "commit", "-q", "--allow-empty", "-m", "sm");
    git(ws, "init", "-q", "withsub");
    git(join(ws, "withsub"), "-c", "protocol.file.allow=always", "submodule", "add", "-q", join(base, "sm.git"), "libs/sm");
    const g = startCommand();
    git(ws, "init", "-q", "fresh");
    plant(join(ws, "fresh/.git/refs/x"), "fresh");
    plant(join(ws, "old/.git/refs/y"), "old");
    symlinkSync("fresh/.git/refs/x", join(ws, "l1"));
    symlinkSync("old/.git/refs/y", join(ws, "l2"));
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1)).sort()).toEqual(["fresh/.git/refs/x", "old/.git/refs/y"]);
    for (const d of ["l1", "l2"]) if (existsSync(join(ws, d))) userStatus(join(ws, d));
    expect(["fresh", "old"].filter((n) => existsSync(marker(n)))).toEqual([]);
    expect(userStatus(join(ws, "withsub")).status).toBe(0);
  });

  it("checks every key git can run a program from, by allow-list (aliases, include.path, hooksPath, filters, sshCommand, pager, diff.external)", () => {
    for (const [k, v] of [
      ["alias.st", "!touch x"],
      ["include.path", "../x"],
      ["includeif.gitdir:/.path", "x"],
      ["core.hookspath", "h"],
      ["filter.x.clean", "sh"],
      ["core.sshcommand", "sh"],
      ["core.pager", "sh"],
      ["diff.external", "sh"],
      ["core.worktree", "/"],
      ["submodule.x.update", "!sh"],
      ["remote.origin.url", "ext::sh -c touch% x"],
      ["remote.origin.uploadpack", "sh"],
      ["credential.helper", "!sh"],
    ])
      expect(newRepositoryKeyAllowed(k!, v!), k).toBe(false);
    for (const [k, v] of [
      ["core.repositoryformatversion", "0"],
      ["remote.origin.url", "file:///srv/x.git"],
      ["remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"],
      ["branch.main.remote", "origin"],
      ["branch.feature/a.b.merge", "refs/heads/feature/a.b"],
      ["user.email", "a@b"],
    ])
      expect(newRepositoryKeyAllowed(k!, v!), k).toBe(true);
  });

  it("quarantines a new repository with a hook (only git's samples are allowed) or a commondir", () => {
    const g = startCommand();
    git(ws, "init", "-q", "h");
    writeFileSync(join(ws, "h/.git/hooks/pre-commit"), `#!/bin/sh\ntouch ${marker("hook")}\n`);
    chmodSync(join(ws, "h/.git/hooks/pre-commit"), 0o755);
    git(ws, "init", "-q", "c");
    writeFileSync(join(ws, "c/.git/commondir"), "../../elsewhere\n");
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1)).sort()).toEqual(["c/.git", "h/.git"]);
    expect(out.find((x) => x.path.endsWith("h/.git"))!.why).toContain("hooks/pre-commit");
    expect(out.find((x) => x.path.endsWith("c/.git"))!.why).toContain("commondir");
  });

  it("leaves what the user approved for the command (confine.writable) to the user: an approved config with hooksPath stays", () => {
    const g = startCommand();
    git(ws, "init", "-q", "tools");
    execFileSync("git", ["-C", join(ws, "tools"), "config", "core.hooksPath", ".githooks"]);
    const before = g.before as Extract<GuardedPath["before"], { kind: "repositories" }>;
    const approved: GuardedPath = { ...g, before: { ...before, approved: [join(ws, "tools/.git/config")] } };
    expect(sweepGuards([approved], q, new Set())).toEqual([]);
    expect(sweepGuards([g], q, new Set()).map((x) => x.path)).toEqual([join(ws, "tools/.git")]);
  });

  it("a folder renamed to .git (its birth time is old) is born all the same: it was not there when the command started", () => {
    mkdirSync(join(ws, "fixtures"));
    git(ws, "init", "-q", "--bare", "fixtures/evil");
    plantFsmonitor(join(ws, "fixtures/evil"), "renamed");
    rmSync(join(ws, "fixtures/evil/HEAD"));
    const g = startCommand();
    mkdirSync(join(ws, "sub"));
    renameSync(join(ws, "fixtures/evil"), join(ws, "sub/.git"));
    writeFileSync(join(ws, "sub/.git/HEAD"), "ref: refs/heads/main\n");
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => x.path.slice(ws.length + 1))).toEqual(["sub/.git"]);
    userStatus(join(ws, "sub"));
    expect(existsSync(marker("renamed"))).toBe(false);
  });

  // Red team A, session 22: `git clone --recurse-submodules` writes `submodule.active = .` (a pathspec, no
  // subsection), which was not on the list: the new clone's .git went to quarantine (over-block).
  it("leaves a git clone --recurse-submodules alone (submodule.active, the module's git folder)", () => {
    git(base, "init", "-q", "--bare", "sm.git");
    git(base, "clone", "-q", join(base, "sm.git"), "smw");
    git(join(base, "smw"), "commit", "-q", "--allow-empty", "-m", "s");
    git(join(base, "smw"), "push", "-q", "origin", "HEAD");
    git(base, "init", "-q", "up");
    git(join(base, "up"), "-c", "protocol.file.allow=always", "submodule", "add", "-q", join(base, "sm.git"), "libs/sm");
    git(join(base, "up"), "commit", "-q", "-m", "up");
    const g = startCommand();
    git(ws, "-c", "protocol.file.allow=always", "clone", "-q", "--recurse-submodules", join(base, "up"), "c");
    expect(execFileSync("git", ["config", "-f", join(ws, "c/.git/config"), "submodule.active"], { encoding: "utf8" }).trim()).toBe(".");
    const scan = scanNewRepositories(ws, (g.before as { since: number }).since, (g.before as { known: ReadonlyMap<string, number> }).known);
    expect(scan.findings).toEqual([]);
    expect(userStatus(join(ws, "c/libs/sm")).status).toBe(0);
  });

  // git clone --separate-git-dir (run for each submodule) writes description and hooks/*.sample before HEAD:
  // while the command runs such a folder is not judged (it runs nothing yet); when it has ended, as before.
  it("does not judge a submodule's git folder without HEAD while the command runs; does when it has ended", () => {
    const g = startCommand();
    git(ws, "init", "-q", "c");
    mkdirSync(join(ws, "c/.git/modules/libs/sm/hooks"), { recursive: true });
    writeFileSync(join(ws, "c/.git/modules/libs/sm/description"), "Unnamed repository\n");
    writeFileSync(join(ws, "c/.git/modules/libs/sm/hooks/pre-push.sample"), "#!/bin/sh\n");
    const { since, known } = g.before as { since: number; known: ReadonlyMap<string, number> };
    expect(scanNewRepositories(ws, since, known, [], { follow: () => undefined }).findings).toEqual([]);
    expect(scanNewRepositories(ws, since, known).findings.map((f) => f.path.slice(ws.length + 1))).toEqual(["c/.git"]);
  });

  // git worktree add writes `locked`, `gitdir` and the worktree's `.git` file before `commondir` and `HEAD`.
  it("does not judge a git folder without HEAD that a .git file names while the command runs; does when it has ended", () => {
    const g = startCommand();
    mkdirSync(join(ws, ".git/worktrees/p"), { recursive: true });
    writeFileSync(join(ws, ".git/worktrees/p/locked"), "initializing\n");
    mkdirSync(join(ws, ".worktrees/p"), { recursive: true });
    writeFileSync(join(ws, ".git/worktrees/p/gitdir"), `${join(ws, ".worktrees/p/.git")}\n`);
    writeFileSync(join(ws, ".worktrees/p/.git"), `gitdir: ${join(ws, ".git/worktrees/p")}\n`);
    const { since, known } = g.before as { since: number; known: ReadonlyMap<string, number> };
    const followed: string[] = [];
    const running = scanNewRepositories(ws, since, known, [], { follow: (d) => void followed.push(d) }).findings;
    expect(running.map((f) => f.path.slice(ws.length + 1))).toEqual([]);
    expect(followed).toContain(join(ws, ".git/worktrees/p"));
    expect(scanNewRepositories(ws, since, known).findings.map((f) => f.path.slice(ws.length + 1))).toContain(".worktrees/p/.git");
  });

  it("leaves ordinary work alone: git init, a file:// clone with its remote and branch, user settings, a commit and a new branch in a repository the user has, temporary repositories deleted", () => {
    git(ws, "init", "-q", "mine");
    execFileSync("git", ["-C", join(ws, "mine"), "config", "core.editor", "vim"]); // the user's own key, outside the list
    git(join(ws, "mine"), "commit", "-q", "--allow-empty", "-m", "i");
    const g = startCommand();
    git(ws, "init", "-q", "fresh");
    git(ws, "clone", "-q", `file://${join(ws, "mine")}`, "cl");
    git(join(ws, "cl"), "config", "user.name", "Someone");
    git(join(ws, "cl"), "config", "pull.rebase", "true");
    git(join(ws, "mine"), "checkout", "-q", "-b", "feature");
    git(join(ws, "mine"), "commit", "-q", "--allow-empty", "-m", "x");
    git(ws, "init", "-q", "--bare", "tmp-remote.git");
    git(join(ws, "cl"), "remote", "add", "local", join(ws, "tmp-remote.git"));
    git(join(ws, "cl"), "push", "-q", "local", "HEAD:refs/heads/main");
    git(ws, "init", "-q", "scratch");
    rmSync(join(ws, "scratch"), { recursive: true });
    writeFileSync(join(ws, "package.json"), "{}\n");
    // the walk while a clone runs sees git's temporary packed-refs.new before git renames it (CI, stop 35)
    writeFileSync(join(ws, "cl/.git/packed-refs.new"), "# pack-refs with: peeled fully-peeled sorted \n");
    const scan = scanNewRepositories(ws, (g.before as { since: number }).since, (g.before as { known: ReadonlyMap<string, number> }).known);
    expect(scan.findings).toEqual([]);
    expect([...scan.markers.keys()].map((m) => m.slice(ws.length + 1)).sort()).toEqual(["cl/.git", "fresh/.git", "mine/.git", "tmp-remote.git"]);
  });
});

// door18b: git clone --separate-git-dir (git submodule add) writes the `.git` file before the folder
// it names; a walk while the command runs judged that moment and moved the `.git` of a submodule
// git was still adding. A `.git` naming nothing runs nothing: judged when the command has ended.
describe("a .git naming nothing", () => {
  it("while the command runs (the 1 s walk): not moved; when it has ended: moved, as before", () => {
    const g = startCommand();
    mkdirSync(join(ws, "libs/lib"), { recursive: true });
    writeFileSync(join(ws, "libs/lib/.git"), "gitdir: ../../.git/modules/libs/lib\n");
    const running = sweepGuards([g], q, new Set(), false, true);
    expect(running).toEqual([]);
    expect(existsSync(join(ws, "libs/lib/.git"))).toBe(true);
    const ended = sweepGuards([g], q, new Set(), true);
    expect(ended.map((x) => [x.path.slice(ws.length + 1), x.why])).toEqual([["libs/lib/.git", expect.stringMatching(/names no git folder/)]]);
    expect(existsSync(join(ws, "libs/lib/.git"))).toBe(false);
  });

  it("while the command runs: once the folder it names holds a core.fsmonitor, moved at once", () => {
    const g = startCommand();
    mkdirSync(join(ws, "y"));
    writeFileSync(join(ws, "y/.git"), "gitdir: ../.git/modules/y\n");
    expect(sweepGuards([g], q, new Set(), false, true)).toEqual([]);
    git(ws, "init", "-q", "--bare", ".git/modules/y");
    plantFsmonitor(join(ws, ".git/modules/y"), "y");
    const out = sweepGuards([g], q, new Set(), false, true);
    expect(out.map((x) => x.path.slice(ws.length + 1))).toContain("y/.git");
    userStatus(join(ws, "y"));
    expect(existsSync(marker("y"))).toBe(false);
  });
});

// Red team 11 leftover: `.git/worktrees` and `.git/modules` of the workspace's own repository were
// read-only in the sandbox, so git worktree add and git submodule add failed. They are written now,
// and what git worktree / git submodule would not write there is quarantined when the command ends.
describe("the workspace's own .git/worktrees and .git/modules", () => {
  it("keeps what git worktree add writes, and the worktree works", () => {
    const g = startCommand();
    git(ws, "worktree", "add", "-q", ".worktrees/x", "-b", "x");
    git(ws, "worktree", "add", "-q", "--detach", "wt2");
    const scan = scanNewRepositories(ws, (g.before as { since: number }).since, (g.before as { known: ReadonlyMap<string, number> }).known);
    expect(scan.findings).toEqual([]);
    expect(userStatus(join(ws, ".worktrees/x")).status).toBe(0);
  });

  it("quarantines a commondir naming another folder, a config.worktree with core.fsmonitor, and a submodule git folder with one; the user's git runs none", () => {
    git(ws, "worktree", "add", "-q", "--detach", ".worktrees/old");
    const g = startCommand();
    git(ws, "worktree", "add", "-q", "--detach", ".worktrees/p");
    mkdirSync(join(base, "evil/objects"), { recursive: true });
    mkdirSync(join(base, "evil/refs"), { recursive: true });
    writeFileSync(join(base, "evil/HEAD"), "ref: refs/heads/main\n");
    plantFsmonitor(join(base, "evil"), "commondir");
    writeFileSync(join(ws, ".git/worktrees/p/commondir"), "../../../../evil\n");
    // An existing worktree's config.worktree, written by the command.
    writeFileSync(join(ws, ".git/worktrees/old/config.worktree"), `[core]\n\tfsmonitor = touch ${marker("worktree-config")}\n`);
    // A submodule git folder planted in .git/modules, and a gitfile naming it.
    git(ws, "init", "-q", "--bare", ".git/modules/sm");
    plantFsmonitor(join(ws, ".git/modules/sm"), "module");
    mkdirSync(join(ws, "sm"));
    writeFileSync(join(ws, "sm/.git"), "gitdir: ../.git/modules/sm\n");
    const moved = sweepGuards([g], q, new Set())
      .map((x) => x.path)
      .join("\n");
    expect(moved).toMatch(/worktrees\/p\/commondir/);
    expect(moved).toMatch(/worktrees\/old\/config\.worktree/);
    expect(moved).toMatch(/modules\/sm/);
    execFileSync("git", ["-C", ws, "config", "extensions.worktreeConfig", "true"]);
    for (const d of [".worktrees/p", ".worktrees/old", "sm"]) userStatus(join(ws, d));
    for (const n of ["commondir", "worktree-config", "module"]) expect({ n, ran: existsSync(marker(n)) }).toEqual({ n, ran: false });
  });
});
