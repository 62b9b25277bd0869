/**
 * Issue 18, `git checkout X` (one operand, no `--`) and the operations' `--abort`/`--skip` under a
 * `Bash(git reset:*)` deny rule — through FULL SESSIONS (the built CLI's `yoke run --trust`, a
 * scripted model over real HTTP), as root and as the unprivileged user, with bwrap and firejail, in
 * bypassPermissions. The gate alone decides these (git writes only what the sandbox lets it: the
 * work tree is the workspace), so the outcome is the user's uncommitted work, asserted on disk:
 * - `git checkout a.txt`, `git checkout "$(echo a.txt)"`, `git -C . checkout a.txt` are denied
 *   (a tracked file), `git checkout feature` runs (a branch: HEAD moves, the work stays);
 * - with a merge conflict in progress and the user's resolution typed in, `git merge --abort` is
 *   denied and the resolution stays; `git merge --quit` runs.
 * A plain-bash control shows each denied command really throws the work away.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const WORK = "the user's uncommitted work\n";
const RESOLUTION = "the user's resolution\n";
const DISCARDS = ["git checkout a.txt", 'git checkout "$(echo a.txt)"', "git -C . checkout a.txt", "cd lib && git checkout x.ts"];

const gitIn = (ws: string, ...args: string[]) => spawnSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { encoding: "utf8" });

/** A repository at `ws` (a.txt, lib/x.ts committed on main), then `then` (as root, before the folder is given away). */
function repoAt(ws: string, then: (ws: string) => void): string {
  mkdirSync(join(ws, "lib"), { recursive: true });
  writeFileSync(join(ws, "a.txt"), "committed\n");
  writeFileSync(join(ws, "lib/x.ts"), "x\n");
  execFileSync("git", ["init", "-q", "-b", "main", ws]);
  gitIn(ws, "add", "-A");
  gitIn(ws, "commit", "-qm", "init");
  then(ws);
  return ws;
}

/** A merge of `side` into main stopped on a conflict in a.txt, the resolution typed in. */
function mergeInProgress(ws: string): void {
  gitIn(ws, "checkout", "-q", "-b", "side");
  writeFileSync(join(ws, "a.txt"), "side\n");
  gitIn(ws, "commit", "-qam", "side");
  gitIn(ws, "checkout", "-q", "main");
  writeFileSync(join(ws, "a.txt"), "main\n");
  gitIn(ws, "commit", "-qam", "main");
  gitIn(ws, "merge", "side");
  writeFileSync(join(ws, "a.txt"), RESOLUTION);
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    const cell = () => cellFolder(`yoke-i18co-${backend}-`, id, temps, { sandbox: { backend } });
    const denyFile = (base: string) => {
      const f = join(base, "deny.json");
      writeFileSync(f, JSON.stringify({ permissions: { deny: ["Bash(git reset:*)"] } }));
      chownTree(f, id);
      return f;
    };
    const run = (base: string, home: string, ws: string, commands: string[]) =>
      sessionAs(id, home, ws, join(base, `s-${Math.random().toString(36).slice(2, 8)}`), commands.map(bash), { settings: denyFile(base), env: { OPENAI_API_KEY: "sk-i18co" } });

    it.skipIf(!!unusable)("git checkout of a tracked file (as written, dynamic, through -C, from a subfolder) is denied; git checkout of a branch runs and keeps the work", async () => {
      const { base, home } = cell();
      const ws = repoAt(join(base, "ws"), (w) => {
        gitIn(w, "branch", "feature");
        writeFileSync(join(w, "a.txt"), WORK);
        writeFileSync(join(w, "lib/x.ts"), WORK);
      });
      chownTree(ws, id);
      const r = await run(base, home, ws, [...DISCARDS, "git checkout feature && git branch --show-current > branch.txt"]);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "a.txt"), "utf8"), r.told.slice(0, 3000)).toBe(WORK);
      expect(readFileSync(join(ws, "lib/x.ts"), "utf8")).toBe(WORK);
      expect(readFileSync(join(ws, "branch.txt"), "utf8")).toBe("feature\n");
      expect(r.told.match(/Bash\(git reset:\*\)/g)?.length ?? 0).toBeGreaterThanOrEqual(DISCARDS.length);
    });

    it.skipIf(!!unusable)("a merge conflict with the user's resolution: git merge --abort is denied, git merge --quit runs", async () => {
      const { base, home } = cell();
      const ws = repoAt(join(base, "ws"), mergeInProgress);
      chownTree(ws, id);
      const r = await run(base, home, ws, ["git merge --abort", "git merge --quit && echo quit > quit.txt"]);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "a.txt"), "utf8"), r.told.slice(0, 3000)).toBe(RESOLUTION);
      expect(readFileSync(join(ws, "quit.txt"), "utf8")).toBe("quit\n");
      expect(r.told).toMatch(/Bash\(git reset:\*\)/);
    });
  });
});

describe("control: the same commands in plain bash", () => {
  it("each denied command throws the work away; git checkout feature keeps it", () => {
    const fresh = () => {
      const ws = mkdtempSync(join(tmpdir(), "yoke-i18co-ctl-"));
      temps.push(ws);
      return repoAt(ws, (w) => {
        gitIn(w, "branch", "feature");
        writeFileSync(join(w, "a.txt"), WORK);
        writeFileSync(join(w, "lib/x.ts"), WORK);
      });
    };
    const kept: string[] = [];
    for (const c of DISCARDS) {
      const ws = fresh();
      spawnSync("bash", ["-c", c], { cwd: ws, stdio: "ignore" });
      if (readFileSync(join(ws, c.startsWith("cd lib") ? "lib/x.ts" : "a.txt"), "utf8") === WORK) kept.push(c);
      rmSync(ws, { recursive: true, force: true });
    }
    expect(kept).toEqual([]);
    const ws = fresh();
    spawnSync("bash", ["-c", "git checkout feature"], { cwd: ws, stdio: "ignore" });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe(WORK);
    mergeInProgress(ws);
    spawnSync("bash", ["-c", "git merge --abort"], { cwd: ws, stdio: "ignore" });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).not.toBe(RESOLUTION);
  });
});
