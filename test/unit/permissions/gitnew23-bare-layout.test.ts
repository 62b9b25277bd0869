/**
 * Session 23 (gitnew23, issue 18; red team A of session 22 left it open): a person's own bare repository layout in
 * the workspace (`HEAD`, `objects`, `refs`, `config`) with `core.bare = false` and `core.worktree` gets a working
 * tree, and the person's `git status` in that folder runs its `core.fsmonitor` from there. The gate's Node port
 * (src/node/git-runs-from.ts) read only `.git` repositories: the script it names was an ordinary file. Shown with real
 * git (the script runs), then through the folder's real gate (folderGate): the write asks.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { folderGate } from "../../../src/node/permission-check";

const G = ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"];
const git = (cwd: string, ...args: string[]) => execFileSync("git", [...G, ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-gitnew23-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a bare layout with a working tree", () => {
  it("protects what its configuration runs, as for a .git repository", async () => {
    const ws = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(join(ws, "tools"), { recursive: true });
    mkdirSync(home);
    git(ws, "init", "-q");
    git(ws, "init", "-q", "--bare", "lay");
    git(ws, "--git-dir=lay", "config", "core.bare", "false");
    git(ws, "--git-dir=lay", "config", "core.worktree", "..");
    git(ws, "--git-dir=lay", "config", "core.fsmonitor", "tools/x.sh");
    git(ws, "--git-dir=lay", "config", "core.hooksPath", "githooks");
    git(ws, "--git-dir=lay", "config", "alias.fmt", "!scripts/fmt.sh");
    // Real git: the person's `git status` in the layout's folder runs tools/x.sh from the working tree.
    const ran = join(root, "ran");
    writeFileSync(join(ws, "tools/x.sh"), `#!/bin/sh\necho ran > '${ran}'\n`, { mode: 0o755 });
    spawnSync("git", ["status"], { cwd: join(ws, "lay"), env: { PATH: process.env.PATH, HOME: home }, stdio: "ignore" });
    expect(existsSync(ran), "git status in lay/ ran core.fsmonitor").toBe(true);
    const gate = folderGate({ cwd: ws, home, managedDir: null });
    const answer = async (path: string) => {
      const d = await gate.check({ tool: "write_file", permission: "Write", input: { path, content: "x\n" }, mutates: true }, "acceptEdits");
      return `${d.decision}${d.decision === "ask" ? `: ${d.reason}` : ""}`;
    };
    for (const p of ["tools/x.sh", "githooks/pre-commit", "scripts/fmt.sh"]) expect(await answer(p), p).toMatch(/^ask: .*git configuration/);
    // Control: an ordinary file of the working tree.
    expect(await answer("src/a.ts")).toBe("allow");
  });
});
