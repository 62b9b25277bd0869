/**
 * Issue 18, session 18 (door18b) item 1: the git door's intermittent `git submodule add` failure.
 * FULL SESSIONS (the built CLI's `yoke run --trust`, scripted model over HTTP), root and user ×
 * bwrap and firejail, bypassPermissions with no rule.
 *
 * Seen once in five CI runs of door18-git-door (root × bwrap, at load): the ordinary `git submodule
 * add` failed with "fatal: could not get submodule directory for 'libs/lib'", and the new
 * `libs/lib/.git` was quarantined as "a .git that names no git folder". The cause is git's own order
 * of work, not the door's GIT_COMMON_DIR: `git clone --separate-git-dir` (which git submodule
 * add/update runs) writes the new `libs/lib/.git` file ("gitdir: …/.git/modules/libs/lib", the real
 * path through the door's `modules` link) BEFORE it makes the folder it names (init_db:
 * separate_git_dir, then safe_create_dir). The repository watch (repository-watch.ts) checks a
 * folder 10 ms after a `.git` appears there; when git was descheduled for longer between those two
 * steps (a loaded machine), the check found a `.git` naming nothing, moved it to quarantine while
 * git was still running, and git then could not find the submodule's git folder.
 *
 * Here the window is made wide on purpose: the user's git (a folder on PATH listed read-only in the
 * user's sandbox settings, so the door opens) runs the real git with a preloaded library that
 * sleeps 3 s before making a folder whose path ends in `/modules/libs/slow`. A plain control shows
 * that git itself copes with the sleep. On the old build the session's `git submodule add` failed
 * in every cell; now the `.git` naming nothing is not judged while the command runs (a `.git`
 * naming nothing runs nothing: git stops there), only when the folder it names appears (watched)
 * and when the command ends.
 *
 * The second test attacks that change: a command writes a `.git` naming nothing, then makes the
 * folder it names with a core.fsmonitor and keeps rewriting it. The `.git` goes to quarantine while
 * the command still runs (the folder it names is watched; the 1 s walk and the end check remain),
 * and the user's git there afterwards runs nothing. (Between the write and the check the host could
 * read the planted entry: the watch's latency, as for any repository a command creates — see
 * docs/security.md, "Session 18: git door".)
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { buildSlowMkdir } from "../support/slow-mkdir";

const { who, backends, temps } = securityMatrix();

/** The user's git: the real one, slowed where it makes the folder a `.git` file already names. */
function slowGit(fakebin: string): void {
  const so = buildSlowMkdir(fakebin);
  writeFileSync(join(fakebin, "git"), ["#!/bin/bash", `export LD_PRELOAD=${so} SLOW_MKDIR_SUFFIX=/modules/libs/slow`, 'exec /usr/bin/git "$@"', ""].join("\n"));
  chmodSync(join(fakebin, "git"), 0o755);
}

function hostGit(id: Identity, home: string, cwd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "git submodule add while git is descheduled between writing the new .git file and making the folder it names: the submodule is added, nothing is quarantined (plain control: git copes too)",
      async () => {
        const { base, home } = cellFolder(`yoke-door18b-${backend}-`, id, temps, (b: string) => ({ sandbox: { backend, paths: [{ path: join(b, "fakebin"), mode: "ro" }] } }));
        const fakebin = join(base, "fakebin");
        slowGit(fakebin);
        const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
        const src = committedWorkspace(join(ws, "vendor-src", "lib"), { "lib.txt": "lib\n" }, id);
        const plain = join(base, "plain");
        cpSync(ws, plain, { recursive: true });
        chownTree(base, id);
        const PATH = `${fakebin}:${process.env.PATH ?? "/usr/bin:/bin"}`;
        const add = `git -c protocol.file.allow=always submodule add ${src} libs/slow`;

        // Control: plain bash, the same slowed git: the submodule is added.
        const c = spawnSync("bash", ["-c", add], { cwd: plain, encoding: "utf8", ...spawnAs(id, { HOME: home, PATH }) });
        expect(c.status, `${c.stdout}${c.stderr}`).toBe(0);
        expect(readFileSync(join(plain, "libs", "slow", ".git"), "utf8")).toMatch(/^gitdir: \.\.\/\.\.\/\.git\/modules\/libs\/slow/);
        expect(readFileSync(join(plain, "libs", "slow", "lib.txt"), "utf8")).toBe("lib\n");

        const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash(add)], { env: { PATH } });
        expect(r.code, r.stderr).toBe(0);
        expect(r.told, r.told.slice(-3000)).toMatch(/\[Exit code 0 /);
        expect(r.told).not.toMatch(/could not get submodule directory|names no git folder/);
        expect(readFileSync(join(ws, "libs", "slow", ".git"), "utf8")).toMatch(/^gitdir: \.\.\/\.\.\/\.git\/modules\/libs\/slow/);
        expect(readFileSync(join(ws, "libs", "slow", "lib.txt"), "utf8")).toBe("lib\n");
        expect(readFileSync(join(ws, ".git", "config"), "utf8")).toContain('[submodule "libs/slow"]');
        expect(hostGit(id, home, ws, ["submodule", "status", "libs/slow"]).out).toMatch(/^ ?[0-9a-f]{40} libs\/slow/m);
      },
    );

    it.skipIf(!!unusable)(
      "a .git naming nothing, then the folder it names made with a core.fsmonitor and rewritten in a loop: moved to quarantine while the command still runs, the model told, the host's git there runs nothing (plain control: it runs)",
      async () => {
        const { base, home } = cellFolder(`yoke-door18b-ptr-${backend}-`, id, temps, { sandbox: { backend } });
        const marker = join(base, "fsmonitor-ran");
        const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
        writeFileSync(
          join(ws, "plant.sh"),
          [
            "mkdir -p x && printf 'gitdir: ../.git/modules/x\\n' > x/.git",
            "sleep 1.5",
            "git init -q --bare .git/modules/x && git config -f .git/modules/x/config core.bare false",
            "end=$(( $(date +%s) + 3 ))",
            'while [ "$(date +%s)" -lt "$end" ]; do',
            `  git config -f .git/modules/x/config core.fsmonitor "echo pwned >> ${marker}; false" 2>/dev/null`,
            "  sleep 0.01",
            "done",
            // Seen from inside, before the command ends: is the .git still there?
            '[ -e x/.git ] && echo "pointer-still-there" || echo "pointer-moved-while-running"',
            "",
          ].join("\n"),
        );
        const plain = join(base, "plain");
        cpSync(ws, plain, { recursive: true });
        chownTree(base, id);
        // Control: plain bash, then the user's git in x runs the planted fsmonitor.
        const c = spawnSync("bash", ["plant.sh"], { cwd: plain, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
        expect(c.stdout).toContain("pointer-still-there");
        hostGit(id, home, join(plain, "x"), ["status"]);
        expect(existsSync(marker), "the attack did not work in plain bash").toBe(true);
        rmSync(marker);

        const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash("bash plant.sh")]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told, r.told.slice(-3000)).toContain("pointer-moved-while-running");
        expect(r.told).toMatch(/x\/\.git[^]*quarantine/);
        expect(existsSync(join(ws, "x", ".git"))).toBe(false);
        hostGit(id, home, join(ws, "x"), ["status"]);
        hostGit(id, home, ws, ["status"]);
        expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
      },
    );
  });
});
