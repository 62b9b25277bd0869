// Red team A, session 22 (issue 18): repositories a command hides from the sandbox's new-repository
// sweep (src/node/commands/new-repositories.ts), each with a planted core.fsmonitor that the person's
// own `git status` there would run on the host:
// - R45-01: a bare layout whose `objects` and `refs` are links (or executable files): git asks only
//   access(X_OK), the walk looked for folders;
// - R45-02: a `.git` file whose path ends in a blank: git keeps it, the walk trimmed it and checked
//   a harmless folder of the same name without the blank;
// - R45-03/04: a layout in the workspace's own .git/refs (or .git/worktrees/<id>/logs), which is
//   writable for git's work and was not walked, reached through a link in the working tree;
// - R45-06: the same in a nested repository's .git/refs.
// Full sessions of the built CLI against the scripted model (bypassPermissions), root and the
// unprivileged user × bwrap and firejail, one session per cell. Outcome: after the session the
// person's `git status` in each folder (on the host, as the workspace's owner) runs nothing; the
// model was told. Control in the same session: an ordinary `git init` + commit in a nested folder
// stays, and its git status works.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("under %s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "linked objects/refs, a .git file naming 'x ', and layouts in .git/refs, .git/worktrees/<id>/logs and a nested .git/refs run nothing at the person's git status",
      async () => {
        const { base, home } = cellFolder(`yoke-red22a-${backend}-`, id, temps, { sandbox: { backend } });
        const ws = join(base, "ws");
        committedWorkspace(ws, { "src/a.js": "export const a = 1;\n" }, id);
        const mark = join(base, "ran");
        // A layout with a planted fsmonitor; `$1` the folder, `$2` "link" for linked objects/refs.
        const layout = [
          "lay() {",
          '  mkdir -p "$1"',
          '  if [ "$2" = link ]; then ln -s /usr "$1/objects"; ln -s /usr "$1/refs"; else mkdir -p "$1/objects" "$1/refs"; fi',
          '  echo "ref: refs/heads/main" > "$1/HEAD"',
          `  printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = "echo %s >> ${mark}; false"\\n' "$1" > "$1/config"`,
          "}",
          "lay linked link",
          "mkdir -p .git/refs/d/objects .git/refs/d/refs && lay '.git/refs/d ' && mkdir sp && printf 'gitdir: %s/.git/refs/d \\n' \"$PWD\" > sp/.git",
          "lay .git/refs/x && ln -s .git/refs/x vendor",
          "lay .git/worktrees/w/logs/z && ln -s .git/worktrees/w/logs/z wt",
          "git init -q fresh && lay fresh/.git/refs/x && ln -s fresh/.git/refs/x nested",
          "git init -q ok && git -C ok -c user.name=t -c user.email=t@t commit -q --allow-empty -m ok",
          "echo PLANT-END",
        ].join("\n");
        const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash(layout)]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("PLANT-END");
        // The person's own git status in each folder, on the host, as the workspace's owner.
        const status = (dir: string) => spawnSync("git", ["status", "--short"], { cwd: dir, uid: id.uid, gid: id.gid, env: { ...process.env, HOME: home }, encoding: "utf8" });
        for (const d of ["linked", "sp", "vendor", "wt", "nested"]) if (existsSync(join(ws, d))) status(join(ws, d));
        expect(existsSync(mark) ? execFileSync("cat", [mark], { encoding: "utf8" }) : "", "a planted fsmonitor ran on the host").toBe("");
        expect(r.told, "the model is told what went to quarantine").toContain("core.fsmonitor");
        // Control: ordinary work (a nested repository with a commit) stays and works.
        expect(status(join(ws, "ok")).status).toBe(0);
        expect(existsSync(join(ws, "ok/.git/HEAD"))).toBe(true);
      },
    );
  });
});
