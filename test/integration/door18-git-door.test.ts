/**
 * Issue 18, session 17 (door18) item 1: the git door's window. FULL SESSIONS (the built CLI's
 * `yoke run --trust`, scripted model over HTTP), root and user × bwrap and firejail,
 * bypassPermissions with no rule at all.
 *
 * Session 16's door let exactly one `git submodule …` line write the repository's `.git/config`, and
 * checked the file as it changed (inotify) and when the line ended, putting it back when anything
 * but submodule entries changed. Between a bad write and its check the file was on the host's disk,
 * and the user's own git (VS Code polls `git status`) read it then: a program running inside the
 * door — here a git wrapper of the user's own (a folder on PATH listed read-only in the user's sandbox
 * settings: the sandbox cannot write it, so the door opens) that rewrites `.git/config` with a core.fsmonitor in a loop before running git — got the
 * host poller to run the planted command (shown on the old build: see the report of door18).
 *
 * Now the command never writes the repository's `.git/config` (a read-only mount point, as for any
 * other command): it works on a private copy (its GIT_COMMON_DIR), checked when it has ended and
 * renamed into place only when git's submodule entries are all that changed. The poller runs
 * nothing, the file keeps no fsmonitor, and the ordinary submodule add / update --init / deinit and
 * worktree add / remove still work.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, spawnAs, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

/**
 * A git wrapper (outside the workspace, so the door opens): in a command Yoke runs whose arguments name "evil", it
 * rewrites the config git will read — the repository's `.git/config` and, inside the door, the one
 * GIT_COMMON_DIR names — with a core.fsmonitor appending to `marker`, in a loop for 4 s, then runs
 * git. Otherwise it is plain git.
 */
function wrapperGit(marker: string): string {
  return [
    "#!/bin/bash",
    // Only in a command Yoke runs for the agent (YOKE_RUN): Yoke's own reads on the host run the
    // person's git too (git-runs-from.ts asks each nested repository, \`libs/evil\` among them), and the
    // person's own wrapper is trusted there — what this wrapper stands for is code inside the door.
    'case "${YOKE_RUN:-}:$*" in',
    "  ?*:*evil*)",
    '    cfgs=".git/config"; [ -n "$GIT_COMMON_DIR" ] && cfgs="$cfgs $GIT_COMMON_DIR/config"',
    "    end=$(( $(date +%s) + 4 ))",
    '    while [ "$(date +%s)" -lt "$end" ]; do',
    "      for c in $cfgs; do",
    '        orig=$(cat "$c")',
    `        printf '%s\\n[core]\\n\\tfsmonitor = "echo pwned >> ${marker}; false"\\n' "$orig" > "$c.x" 2>/dev/null && mv -f "$c.x" "$c" 2>/dev/null`,
    "      done",
    "      sleep 0.005",
    "    done",
    "    echo loop-done > evil-ran;;",
    "esac",
    'exec /usr/bin/git "$@"',
    "",
  ].join("\n");
}

/** The user's git on the host, polling `git status` in `ws` as `id` until `stop` exists (an editor's poller: no optional locks). */
function hostPoller(id: Identity, home: string, ws: string, stop: string, polls: string): Promise<void> {
  const child = spawn("bash", ["-c", `while [ ! -e '${stop}' ]; do git --no-optional-locks status --short >/dev/null 2>&1; echo >> '${polls}'; sleep 0.02; done`], {
    cwd: ws,
    stdio: "ignore",
    ...spawnAs(id, { HOME: home }),
  });
  return new Promise((resolve) => child.on("close", () => resolve()));
}

function hostGit(id: Identity, home: string, cwd: string, args: string[]): { status: number | null; out: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", ...spawnAs(id, { HOME: home }) });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "a program inside the door rewriting .git/config in a loop: the user's polling git status runs nothing, the file is never unchecked; ordinary submodule and worktree work still goes through",
      async () => {
        // The wrapper's folder, outside the workspace, listed read-only in the user's own sandbox settings.
        const { base, home } = cellFolder(`yoke-door18-${backend}-`, id, temps, (b: string) => ({ sandbox: { backend, paths: [{ path: join(b, "fakebin"), mode: "ro" }] } }));
        const marker = join(base, "fsmonitor-ran");
        const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
        const src = committedWorkspace(join(ws, "vendor-src", "lib"), { "lib.txt": "lib\n" }, id);
        const fakebin = join(base, "fakebin");
        mkdirSync(fakebin);
        writeFileSync(join(fakebin, "git"), wrapperGit(marker));
        chmodSync(join(fakebin, "git"), 0o755);
        chownTree(base, id);
        const configBefore = readFileSync(join(ws, ".git", "config"), "utf8");
        const listBefore = hostGit(id, home, ws, ["config", "--local", "--list"]).out.split("\n");
        const stop = join(base, "stop-polling");
        const polls = join(base, "polls");
        const poller = hostPoller(id, home, ws, stop, polls);
        let r: Awaited<ReturnType<typeof sessionAs>>;
        try {
          r = await sessionAs(
            id,
            home,
            ws,
            join(base, "sessions"),
            [
              bash(`git -c protocol.file.allow=always submodule add ${src} libs/evil`),
              bash(`git -c protocol.file.allow=always submodule add ${src} libs/lib`),
              bash("git submodule deinit -f libs/lib"),
              bash("git -c protocol.file.allow=always submodule update --init libs/lib"),
              bash("git worktree add -q wt1 -b b1"),
              bash("git worktree remove wt1"),
            ],
            { env: { PATH: `${fakebin}:${process.env.PATH ?? "/usr/bin:/bin"}` } },
          );
        } finally {
          writeFileSync(stop, "");
          await poller;
        }
        expect(r.code, r.stderr).toBe(0);
        // The loop did run inside the door (the first line), while the user's git polled.
        expect(readFileSync(join(ws, "evil-ran"), "utf8"), r.told.slice(-2000)).toContain("loop-done");
        expect(readFileSync(polls, "utf8").length).toBeGreaterThan(10);
        // …and the user's git, polling all along, ran nothing; the file never held the planted entry.
        expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
        const config = readFileSync(join(ws, ".git", "config"), "utf8");
        expect(config).not.toMatch(/fsmonitor/);
        expect(config.startsWith(configBefore)).toBe(true);
        // The model is told the first line's config was kept out (and why).
        expect(r.told).toMatch(/core\.fsmonitor[^]*\.git\/config was left as it was/);
        expect(config).not.toContain('[submodule "libs/evil"]');
        // The ordinary lines went through the door: only git's submodule entries were added.
        expect(config, r.told.slice(-2000)).toContain('[submodule "libs/lib"]');
        const added = hostGit(id, home, ws, ["config", "--local", "--list"])
          .out.split("\n")
          .filter((l) => l && !listBefore.includes(l));
        expect(added.length).toBeGreaterThan(0);
        for (const l of added) expect(l).toMatch(/^submodule\./);
        expect(readFileSync(join(ws, ".gitmodules"), "utf8")).toContain("path = libs/lib");
        expect(readFileSync(join(ws, "libs", "lib", "lib.txt"), "utf8")).toBe("lib\n");
        expect(hostGit(id, home, ws, ["submodule", "status", "libs/lib"]).out).toMatch(/^ ?[0-9a-f]{40} libs\/lib/m);
        expect(existsSync(join(ws, "wt1")), r.told.slice(-3000)).toBe(false);
        expect(hostGit(id, home, ws, ["worktree", "list"]).out.trim().split("\n")).toHaveLength(1);
        // No scratch folder of the door is left in .git.
        expect(readdirSync(join(ws, ".git")).filter((n) => n.startsWith("yoke-door-"))).toEqual([]);
        hostGit(id, home, ws, ["status"]);
        expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
      },
    );

    it.skipIf(!!unusable)(
      "an ordinary command rewriting a submodule's .git/modules/…/config in a loop: the user's polling git status (which runs git in each submodule) runs nothing; the file is unchanged",
      async () => {
        const { base, home } = cellFolder(`yoke-door18-mod-${backend}-`, id, temps, { sandbox: { backend } });
        const marker = join(base, "fsmonitor-ran");
        const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
        const src = committedWorkspace(join(ws, "vendor-src", "lib"), { "lib.txt": "lib\n" }, id);
        expect(hostGit(id, home, ws, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "libs/lib"]).status).toBe(0);
        expect(hostGit(id, home, ws, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sub"]).status).toBe(0);
        const modConfig = join(ws, ".git", "modules", "libs", "lib", "config");
        const before = readFileSync(modConfig, "utf8");
        writeFileSync(
          join(ws, "loop.sh"),
          [
            "c=.git/modules/libs/lib/config",
            'orig=$(cat "$c")',
            "end=$(( $(date +%s) + 4 ))",
            'while [ "$(date +%s)" -lt "$end" ]; do',
            `  printf '%s\\n[core]\\n\\tfsmonitor = "echo pwned >> ${marker}; false"\\n' "$orig" > "$c.x" 2>/dev/null && mv -f "$c.x" "$c" 2>/dev/null`,
            "  sleep 0.005",
            "done",
            "echo loop-ended",
            "",
          ].join("\n"),
        );
        chownTree(base, id);
        const stop = join(base, "stop-polling");
        const polls = join(base, "polls");
        const poller = hostPoller(id, home, ws, stop, polls);
        let r: Awaited<ReturnType<typeof sessionAs>>;
        try {
          r = await sessionAs(id, home, ws, join(base, "sessions"), [bash("bash loop.sh"), bash("git -C libs/lib log --oneline | wc -l")]);
        } finally {
          writeFileSync(stop, "");
          await poller;
        }
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("loop-ended");
        expect(readFileSync(polls, "utf8").length).toBeGreaterThan(10);
        expect(existsSync(marker), "a submodule's core.fsmonitor ran on the host").toBe(false);
        expect(readFileSync(modConfig, "utf8")).toBe(before);
        hostGit(id, home, ws, ["status"]);
        expect(existsSync(marker), "a submodule's core.fsmonitor ran on the host").toBe(false);
      },
    );
  });
});
