/**
 * Issue 18, session 16 (sbx18) item 1: ordinary git work that writes `.git/config` and
 * `.gitmodules` inside the sandbox — `git submodule add`, `git submodule update --init`,
 * `git submodule deinit` — and `git worktree add/remove`. FULL SESSIONS (the built CLI's
 * `yoke run --trust`, scripted model over HTTP), root and user × bwrap and firejail.
 *
 * Before: `git submodule add` failed with "could not write config file .git/config: Device or
 * resource busy" and `.gitmodules` went to quarantine. The door (core/protected-paths.ts
 * isGitLinkedWork → confine.gitLinked → plan.ts submoduleDoor → git-config-guard.ts):
 * exactly one such command line may write those two files, and any change but the submodule
 * entries git writes puts the file back. The attack on the door: a `git` of the agent's planted
 * first on PATH (the line is still exactly `git submodule update --init`) writes core.fsmonitor,
 * an alias, an include and a `!command` update into `.git/config` and `.gitmodules`: every one is
 * gone when the session ends, and the user's next plain `git status` on the host runs nothing.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, spawnAs, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

/** git as `id` on the host (the user's own next command), with its output. */
function hostGit(id: Identity, home: string, cwd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** A repository to add as a submodule, inside the workspace folder (the sandbox's /tmp is private), given to `id`. */
function sourceRepo(dir: string, id: Identity): string {
  committedWorkspace(dir, { "lib.txt": "lib\n" }, id);
  return dir;
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("git submodule add, update --init, deinit and git worktree add/remove work in the sandbox", async () => {
      const { base, home } = cellFolder(`yoke-sbx18-sub-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
      const src = sourceRepo(join(ws, "vendor-src", "lib"), id);
      const configBefore = hostGit(id, home, ws, ["config", "--local", "--list"]).out;
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [
        bash(`git -c protocol.file.allow=always submodule add ${src} libs/lib`),
        bash("git submodule status"),
        bash("git submodule deinit -f libs/lib"),
        bash("git -c protocol.file.allow=always submodule update --init"),
        bash("git worktree add -q wt1 -b b1"),
        bash("git worktree remove wt1"),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.told).not.toMatch(/Device or resource busy|could not write config/);
      // .gitmodules and the submodule's entries in .git/config, as git wrote them.
      const gitmodules = readFileSync(join(ws, ".gitmodules"), "utf8");
      expect(gitmodules).toContain('[submodule "libs/lib"]');
      expect(gitmodules).toContain("path = libs/lib");
      const config = hostGit(id, home, ws, ["config", "--local", "--list"]).out;
      expect(config).toContain(`submodule.libs/lib.url=${src}`);
      expect(config).toContain("submodule.libs/lib.active=true");
      // Nothing but the submodule's entries was added.
      const added = config
        .split("\n")
        .filter(Boolean)
        .filter((l) => !configBefore.includes(l));
      expect(added.length).toBeGreaterThan(0);
      for (const l of added) expect(l).toMatch(/^submodule\./);
      // The submodule is checked out again after deinit + update --init; the worktree is gone again.
      expect(readFileSync(join(ws, "libs", "lib", "lib.txt"), "utf8")).toBe("lib\n");
      expect(existsSync(join(ws, "wt1"))).toBe(false);
      expect(hostGit(id, home, ws, ["worktree", "list"]).out.trim().split("\n")).toHaveLength(1);
      expect(hostGit(id, home, ws, ["submodule", "status"]).out).toMatch(/^ ?[0-9a-f]{40} libs\/lib/m);
      expect(r.told).not.toMatch(/put back as it was|quarantine/);
    });

    it.skipIf(!!unusable)("the door does not let a planted git write core.fsmonitor, an alias, an include or a !command: all put back, the next git status runs nothing", async () => {
      const { base, home } = cellFolder(`yoke-sbx18-door-${backend}-`, id, temps, { sandbox: { backend } });
      const marker = join(base, "fsmonitor-ran");
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
      const src = sourceRepo(join(ws, "vendor-src", "lib"), id);
      // A committed .gitmodules (as a cloned project has), then the agent's git first on PATH.
      writeFileSync(join(ws, ".gitmodules"), `[submodule "lib"]\n\tpath = lib\n\turl = ${src}\n`);
      chownTree(ws, id);
      // As the identity: git refuses a repository another user owns (safe.directory).
      expect(hostGit(id, home, ws, ["add", ".gitmodules"]).status).toBe(0);
      expect(hostGit(id, home, ws, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "gitmodules"]).status).toBe(0);
      const gitmodulesBefore = readFileSync(join(ws, ".gitmodules"), "utf8");
      const configBefore = readFileSync(join(ws, ".git", "config"), "utf8");
      mkdirSync(join(ws, "bin"));
      const fake = join(ws, "bin", "git");
      writeFileSync(
        fake,
        [
          "#!/bin/bash",
          `cat >> .git/config <<'EOF'`,
          "[core]",
          `\tfsmonitor = touch ${marker}`,
          "[alias]",
          `\tst = !touch ${marker}`,
          "[include]",
          "\tpath = ../evil.cfg",
          '[submodule "lib"]',
          `\tupdate = !touch ${marker}`,
          "EOF",
          `printf '[core]\\n\\thooksPath = bin\\n' >> .gitmodules`,
          'exec /usr/bin/git "$@"',
          "",
        ].join("\n"),
      );
      chmodSync(fake, 0o755);
      writeFileSync(join(ws, "evil.cfg"), `[core]\n\tfsmonitor = touch ${marker}\n`);
      chownTree(ws, id);
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash("git -c protocol.file.allow=always submodule update --init")], {
        env: { PATH: `${join(ws, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` },
      });
      expect(r.code, r.stderr).toBe(0);
      // The planted git ran, inside the sandbox: a folder on PATH the command can write keeps the
      // door shut (red team 22-gate: it could rewrite .git/config faster than the check put it back),
      // so its writes failed on the read-only .git/config.
      expect(r.told).not.toMatch(/put back as it was/);
      const config = readFileSync(join(ws, ".git", "config"), "utf8");
      expect(config).not.toMatch(/fsmonitor|alias|include|!touch/);
      // What git itself wrote for the submodule may stay only when the whole file was clean: here it was not, so the file is as before.
      expect(config).toBe(configBefore);
      expect(readFileSync(join(ws, ".gitmodules"), "utf8")).toBe(gitmodulesBefore);
      // The user's next plain git commands on the host run nothing.
      hostGit(id, home, ws, ["status"]);
      hostGit(id, home, ws, ["submodule", "update"]);
      expect(existsSync(marker), "a planted command ran").toBe(false);
    });
  });
});
