/**
 * Red team 22-gate — sbx18's git door (confine.gitLinked: `.git/config` and `.gitmodules` writable
 * for exactly one `git submodule …`/`git worktree …` line, checked as they change and when it ends).
 * FULL SESSIONS (the built CLI's `yoke run --trust`, scripted model over HTTP), root and user ×
 * bwrap and firejail, bypassPermissions with no rule at all.
 *
 * The door took `-c protocol.<any>.allow=always`. With `protocol.ext.allow=always` git runs an
 * `ext::` URL as a command — `ext::/ws/evil.sh` needs no quote or space, so the line still passed
 * isGitLinkedWork — and that program, running while the door was open, rewrote `.git/config` with a
 * core.fsmonitor in a loop faster than the check put it back: the user's own `git status` on the host
 * (VS Code's git extension runs one on every change) ran the planted command 106 times during one
 * such command (checked by hand with `yoke sandbox exec`, bwrap as root).
 *
 * Now the door opens only for the transports that fetch (file, git, http, https, ssh), so the ext
 * line runs with `.git/config` read-only: the user's git, polling all along, runs nothing. The plain
 * control shows what the line does without Yoke (git runs evil.sh), and the ordinary
 * `git -c protocol.file.allow=always submodule add` still goes through the door.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, spawnAs, type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

/** The ext:: program: rewrites .git/config with a core.fsmonitor that appends to `marker`, for 5 s. */
function evilScript(ws: string, marker: string): string {
  return [
    "#!/bin/sh",
    `cd '${ws}' || exit 1`,
    `echo ran >> '${ws}/evil-ran'`,
    "orig=$(cat .git/config)",
    "end=$(( $(date +%s) + 5 ))",
    'while [ "$(date +%s)" -lt "$end" ]; do',
    `  printf '%s\\n[core]\\n\\tfsmonitor = "echo pwned >> ${marker}; false"\\n' "$orig" > .git/cfg.x 2>/dev/null && mv -f .git/cfg.x .git/config 2>/dev/null`,
    "  sleep 0.005",
    "done",
    "exit 1",
    "",
  ].join("\n");
}

/**
 * The user's git on the host, polling `git status` in `ws` as `id` until `stop` exists. Without optional
 * locks, as an editor's poller runs it: a plain `git status` takes .git/index.lock to refresh the index, and
 * the session's own `git submodule add` then failed now and then with "index.lock: File exists" (CI, stop 32).
 * It still reads .git/config (and so would run a planted core.fsmonitor) on every poll.
 */
function hostPoller(id: Identity, home: string, ws: string, stop: string): Promise<void> {
  const child = spawn("bash", ["-c", `while [ ! -e '${stop}' ]; do git --no-optional-locks status --short >/dev/null 2>&1; sleep 0.02; done`], {
    cwd: ws,
    stdio: "ignore",
    ...spawnAs(id, { HOME: home }),
  });
  return new Promise((resolve) => child.on("close", () => resolve()));
}

describe("plain control (no Yoke)", () => {
  it("git -c protocol.ext.allow=always submodule add ext::…/evil.sh runs evil.sh", () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-red22g-plain-"));
    try {
      const ws = join(base, "ws");
      execFileSync("git", ["init", "-q", ws]);
      writeFileSync(join(ws, "evil.sh"), `#!/bin/sh\necho ran > '${ws}/evil-ran'\nexit 1\n`);
      chmodSync(join(ws, "evil.sh"), 0o755);
      spawnSync("git", ["-c", "protocol.ext.allow=always", "submodule", "add", `ext::${ws}/evil.sh`, "sub"], { cwd: ws, encoding: "utf8" });
      expect(existsSync(join(ws, "evil-ran"))).toBe(true);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("a git the agent planted in a folder on PATH (direnv's PATH_add bin) cannot race the door: the user's polling git status runs nothing", async () => {
      const { base, home } = cellFolder(`yoke-red22g-path-${backend}-`, id, temps, { sandbox: { backend } });
      const marker = join(base, "fsmonitor-ran");
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
      const src = committedWorkspace(join(ws, "vendor-src", "lib"), { "lib.txt": "lib\n" }, id);
      mkdirSync(join(ws, "bin"));
      // The planted git: the race loop, then the real git (the line is exactly `git submodule add …`).
      const evil = evilScript(ws, marker);
      writeFileSync(join(ws, "bin", "git"), `${evil.slice(0, evil.lastIndexOf("exit 1\n"))}exec /usr/bin/git "$@"\n`);
      chmodSync(join(ws, "bin", "git"), 0o755);
      chownTree(base, id);
      const stop = join(base, "stop-polling");
      const poller = hostPoller(id, home, ws, stop);
      let r: Awaited<ReturnType<typeof sessionAs>>;
      try {
        r = await sessionAs(id, home, ws, join(base, "sessions"), [bash(`git -c protocol.file.allow=always submodule add ${src} libs/lib`)], {
          env: { PATH: `${join(ws, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` },
        });
      } finally {
        writeFileSync(stop, "");
        await poller;
      }
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws, "evil-ran")), r.told).toBe(true);
      expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
      expect(readFileSync(join(ws, ".git", "config"), "utf8")).not.toMatch(/fsmonitor/);
      spawnSync("git", ["status"], { cwd: ws, ...spawnAs(id, { HOME: home }) });
      expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
    });

    it.skipIf(!!unusable)("an ext:: program run by the one git submodule line cannot race the door: the user's polling git status runs nothing; file:// submodule add still works", async () => {
      const { base, home } = cellFolder(`yoke-red22g-door-${backend}-`, id, temps, { sandbox: { backend } });
      const marker = join(base, "fsmonitor-ran");
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n" }, id);
      const src = committedWorkspace(join(ws, "vendor-src", "lib"), { "lib.txt": "lib\n" }, id);
      writeFileSync(join(ws, "evil.sh"), evilScript(ws, marker));
      chmodSync(join(ws, "evil.sh"), 0o755);
      chownTree(ws, id);
      chownTree(base, id);
      const configBefore = readFileSync(join(ws, ".git", "config"), "utf8");
      const stop = join(base, "stop-polling");
      const poller = hostPoller(id, home, ws, stop);
      let r: Awaited<ReturnType<typeof sessionAs>>;
      try {
        r = await sessionAs(id, home, ws, join(base, "sessions"), [
          bash(`git -c protocol.ext.allow=always submodule add ext::${ws}/evil.sh sub`),
          bash(`git -c protocol.file.allow=always submodule add ${src} libs/lib`),
        ]);
      } finally {
        writeFileSync(stop, "");
        await poller;
      }
      expect(r.code, r.stderr).toBe(0);
      // The ext:: program did run (inside the sandbox), so the attack was made…
      expect(existsSync(join(ws, "evil-ran")), r.told).toBe(true);
      // …and the user's git on the host, polling all along, ran nothing.
      expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
      const config = readFileSync(join(ws, ".git", "config"), "utf8");
      expect(config).not.toMatch(/fsmonitor/);
      // The ordinary submodule add still went through the door: only its entries were added.
      expect(config.startsWith(configBefore.trimEnd().split("\n")[0]!)).toBe(true);
      expect(config, r.told.slice(-1500)).toContain('[submodule "libs/lib"]');
      expect(readFileSync(join(ws, ".gitmodules"), "utf8")).toContain("path = libs/lib");
      expect(readFileSync(join(ws, "libs", "lib", "lib.txt"), "utf8")).toBe("lib\n");
      spawnSync("git", ["status"], { cwd: ws, ...spawnAs(id, { HOME: home }) });
      expect(existsSync(marker), "core.fsmonitor ran on the host").toBe(false);
    });
  });
});
