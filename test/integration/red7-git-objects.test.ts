/**
 * Red team round 7, git object integrity (docs/security.md, the git objects paragraph): after a
 * sandboxed command ends, the user's next `git show`/`git checkout` must not write content the
 * command planted. Real `yoke run --trust --permission-mode bypassPermissions` sessions (scripted
 * model over real HTTP), root and the unprivileged user, bwrap and firejail; then the user's own git
 * on the host. Outcomes only: what the user's checkout writes.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { bash, bypassSessionAs, cellFolder, committedWorkspace, sandboxBackends } from "../support/sandbox-matrix";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const { list: who } = identities();
const temps: string[] = [];

const backends = sandboxBackends();

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    let n = 0;

    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-red7-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    const workspace = (name: string, extra: Record<string, string> = {}) => committedWorkspace(join(base, name), { "src/a.js": "keep\n", "src/b.js": "keep\n", "src/c.js": "keep\n", ...extra }, id);

    const session = (ws: string, script: ScriptedTurn[], settings?: string) => bypassSessionAs(id, home, ws, join(base, `sessions-${++n}`), script, settings);

    // Class: the object guard's bound was the attacker's to reach. Past OBJECT_FILES_MAX object files
    // (git-objects.ts) the plan listed nothing, so no object file was verified when the command ended;
    // one command writes 10,001 valid loose objects (a few seconds), the next rewrites the committed
    // blob's file (failed in all four combinations). Fixed: the guard verifies every object file whose
    // change time (ctime, which no process can set back) is after the command started, with no bound.
    it.skipIf(!!unusable)("an object rewritten after the store was pushed past the guard's old bound is still quarantined (the user's git never serves the planted content)", async () => {
      const ws = workspace("bound");
      const fill =
        "mkdir junk && seq 10001 | while read i; do echo \"junk $i\" > junk/$i; done && ls junk | sed 's|^|junk/|' | git hash-object -w --stdin-paths > /dev/null && rm -rf junk && echo filled";
      const plant =
        'b=$(git rev-parse HEAD:src/a.js); e=$(echo evil | git hash-object -w --stdin); f=.git/objects/${b:0:2}/${b:2}; chmod u+w "$f"; cp ".git/objects/${e:0:2}/${e:2}" "$f" && echo planted';
      const r = await session(ws, [bash(fill), bash(plant), bash("echo changed > src/a.js")]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.told).toContain("filled");
      expect(r.told).toContain("planted");
      expect(readFileSync(join(ws, "src/a.js"), "utf8"), "the session ran").toBe("changed\n");
      // The user's own git, on the host, after the session.
      const show = spawnSync("git", ["show", "HEAD:src/a.js"], { cwd: ws, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
      spawnSync("git", ["checkout", "--", "src/a.js"], { cwd: ws, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
      expect(show.stdout).not.toContain("evil");
      // The rewritten object was quarantined when the command ended (its committed content was destroyed by
      // the rewrite itself): git reports it missing rather than serving the planted content.
      expect(r.told).toContain("its content is not the content whose hash is its name");
      expect(show.status).not.toBe(0);
      const after = existsSync(join(ws, "src/a.js")) ? readFileSync(join(ws, "src/a.js"), "utf8") : "";
      expect(after, "the user's checkout never writes the planted content").not.toBe("evil\n");
    });

    // Class: `.git/shallow` is a writable .git entry (git's shallow fetches write it), and git takes
    // every commit it lists as having no parents. A command that listed HEAD there made the user's
    // next `git revert HEAD` (undo the agent's last commit) delete every file of the tree — the
    // commit-graph's class, through another file (failed in all four combinations before the fix).
    // Fixed: a line a command adds for a commit whose parents are in the store is taken out when it
    // ends (src/node/commands/shallow.ts); a real shallow fetch keeps its lines (the control).
    it.skipIf(!!unusable)(".git/shallow planted by a command does not change what the user's git revert of the agent's commit writes; a real shallow fetch keeps its lines", async () => {
      const ws = workspace("shallow");
      // Ordinary work: a shallow fetch (from a repository inside the workspace: the sandbox has no network).
      const up = join(ws, "up");
      execFileSync("git", ["init", "-q", "-b", "main", up]);
      for (const k of [1, 2, 3]) {
        writeFileSync(join(up, "u.txt"), `${k}\n`);
        execFileSync("git", ["-C", up, "add", "-A"]);
        execFileSync("git", ["-C", up, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", `u${k}`]);
      }
      const upTip = execFileSync("git", ["-C", up, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
      chownTree(ws, id);
      const r = await session(ws, [
        bash("git fetch -q --depth 1 file://$PWD/up main:refs/remotes/up/main && echo fetched"),
        bash("echo agent >> src/a.js && git -c user.name=a -c user.email=a@a commit -qam two && echo committed"),
        bash("git rev-parse HEAD >> .git/shallow && echo planted"),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.told).toContain("fetched");
      expect(r.told).toContain("committed");
      expect(r.told).toContain("planted");
      expect(readFileSync(join(ws, ".git/shallow"), "utf8"), "the shallow fetch's line stays, the planted one is gone").toBe(`${upTip}\n`);
      expect(r.told).toContain("taken out");
      const revert = spawnSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "revert", "--no-edit", "HEAD"], { cwd: ws, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
      expect(revert.status, revert.stderr).toBe(0);
      // Undoing the agent's commit gives back the committed file — and leaves the other files alone.
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
      expect(readFileSync(join(ws, "src/b.js"), "utf8")).toBe("keep\n");
    });
  });
});
