/**
 * Every invariant of docs/security.md ("Invariants, and the layer that enforces each"), attacked
 * through a FULL SESSION: the built CLI's `yoke run --trust` with a scripted model over real HTTP,
 * as root and as the unprivileged user, with the bwrap and the firejail backend (set in that
 * user's own ~/.yoke/settings.json). The assertions are on outcomes only: files on disk unchanged,
 * a marker program not run, a secret in no request the model received — whichever layer stopped
 * the attack. One session per row × identity × backend; a control command in each session shows
 * that commands do run there (so a survivor is not a broken setup).
 *
 * Rows: 1 shell analysis · 2 read-only / listed writes (incl. a repository's verification command)
 * · 3 nothing written runs later (protected paths, .git allow-list, rebase todo, hook managers,
 * *.code-workspace, .idea, .github/workflows, a .vscode that is a link) · 4 the quarantine (a
 * read-only folder, a loop that would fill the disk) · 5 descriptors · 6 file tools vs a link
 * swapped by a running command · 7 trust (project settings only tighten; Restricted Mode) · 8
 * provider keys never reach commands or hooks. Also: a planted `.git` file cannot redirect the
 * checkpoints' index seeding.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { QUARANTINE_MAX_KEPT } from "../../src/node/commands/quarantine";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, sandboxBackends } from "../support/sandbox-matrix";
import { toldOf } from "../support/scripted-run";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 180_000 });
const tag = Math.random().toString(36).slice(2, 8);
const { list: who, missing } = identities();
const temps: string[] = [];
const SECRET = `SECRET=tok-${tag}`;
const KEY_FILE = `TOP-SECRET-KEY-${tag}`;
const API_KEY = `sk-yoke-invariants-${tag}`;

const backends = sandboxBackends();

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

it("runs as root and as an unprivileged user, with bwrap and firejail (or says why it cannot)", () => {
  if (missing) console.warn(missing);
  for (const [b, why] of backends) if (why) console.warn(`${b}: ${why}`);
  expect(who.map((w) => w.label)).toEqual(missing ? ["user"] : ["root", "user"]);
});

/** Every entry of a tree: type, mode and content (files), target (links); `skip` names left out. */
function snapshot(root: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
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

const run = (cmd: string, args: string[], cwd: string, id: Identity, env: Record<string, string> = {}) =>
  spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    ...spawnAs(id, { GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t", ...env }),
  });

const tool = (name: string, input: unknown): ScriptedTurn => ({ toolCalls: [{ name, input }] });

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    let n = 0;

    beforeAll(() => {
      // The user's own settings choose the backend (and hold a hook of the user's, for row 8).
      ({ base, home } = cellFolder(
        `yoke-invs-${backend}-`,
        id,
        temps,
        (b: string) => ({ sandbox: { backend }, hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `env > ${join(b, "user-hook-env.txt")}` }] }] } }),
        { "secret.txt": `HIDDEN-HOME-SECRET-${tag}\n` },
      ));
    });

    /** A git workspace owned by the identity: src/a.js, a committed .env, a denied secrets/ folder, hook-manager and CI files. */
    const workspace = (name: string, extra: Record<string, string> = {}) => {
      const ws = join(base, name);
      const files: Record<string, string> = {
        "src/a.js": "keep\n",
        "a.txt": "one\n",
        ".env": `${SECRET}\n`,
        "secrets/key.txt": `${KEY_FILE}\n`,
        ".pre-commit-config.yaml": "repos: []\n",
        ".github/workflows/ci.yml": "on: push\njobs: {}\n",
        "app.code-workspace": '{"folders":[{"path":"."}]}\n',
        ...extra,
      };
      return committedWorkspace(ws, files, id);
    };

    const settingsFile = (name: string, value: unknown) => {
      const p = join(base, `${name}.json`);
      writeFileSync(p, JSON.stringify(value));
      chownTree(p, id);
      return p;
    };
    const DENY = () => settingsFile("deny", { permissions: { deny: ["Read(**/.env)", "Read(./secrets/**)", "Bash(rm:*)", "Bash(curl:*)"] } });

    /**
     * One `yoke run` session as the identity, with descriptor 3 (and 40) open on the hidden home, the
     * provider key in the environment. Returns the exit, stderr and every request body the model got.
     */
    const session = async (ws: string, script: ScriptedTurn[], o: { mode?: string; settings?: string; trust?: boolean; env?: Record<string, string>; timeoutMs?: number }) => {
      const sessions = join(base, `sessions-${++n}`);
      mkdirSync(sessions, { recursive: true });
      chownTree(sessions, id);
      const server = await startScriptedLlmServer({ script: [...script, { text: "done" }] });
      const fd = openSync(home, "r");
      try {
        const args = [
          cliPath,
          "run",
          ...(o.trust === false ? [] : ["--trust"]),
          "--provider",
          "openai-compatible",
          "--base-url",
          server.openaiBaseUrl,
          "--model",
          "m",
          "--cwd",
          ws,
          "--session-dir",
          sessions,
          ...(o.mode ? ["--permission-mode", o.mode] : []),
          ...(o.settings ? ["--settings", o.settings] : []),
          "go",
        ];
        const stdio: Array<"pipe" | "ignore" | number> = ["pipe", "pipe", "pipe", fd];
        while (stdio.length < 40) stdio.push("ignore");
        stdio.push(fd);
        const child = spawn(process.execPath, args, { cwd: ws, stdio, ...spawnAs(id, { HOME: home, OPENAI_API_KEY: API_KEY, ...o.env }) });
        closeSync(fd);
        let stdout = "";
        let stderr = "";
        child.stdout!.on("data", (d) => (stdout += d));
        child.stderr!.on("data", (d) => (stderr += d));
        child.stdin!.end();
        const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 200_000);
        const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
        clearTimeout(timer);
        const bodies = JSON.stringify(server.requests.map((q) => q.body));
        const told = toldOf(server.requests);
        const sessionId = readdirSync(sessions)
          .find((f) => f.endsWith(".jsonl"))
          ?.replace(/\.jsonl$/, "");
        return { code, stdout, stderr, bodies, told, requests: server.requests.length, sessions, sessionId };
      } finally {
        await server.close();
      }
    };

    /** The secrets no request may contain. */
    const noSecrets = (bodies: string) => {
      for (const s of [SECRET, `tok-${tag}`, KEY_FILE, `HIDDEN-HOME-SECRET-${tag}`, API_KEY]) expect(bodies, s).not.toContain(s);
    };

    it.skipIf(!!unusable)("row 1 — the shell analysis: code in data, abbreviations, option-driven programs and history dumps do nothing under the deny rules (bypassPermissions)", async () => {
      const ws = workspace("row1");
      const attacks = [
        "test -v 'a[$(rm -rf src)]'",
        "x='a[$(rm -rf src)]'; echo $((x))",
        "env --spl='rm -rf src'",
        "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm -rf src' src",
        "man -P 'rm -rf src' ls",
        "vim -es -c '!rm -rf src' -c q",
        "setarch x86_64 rm -rf src",
        "sed --exp='1e rm -rf src' a.txt",
        "git log --binary",
        "git log -c",
        "git show --textconv HEAD:.env",
        "git archive HEAD | tar -xO",
        "git fast-export HEAD",
        "date -f secrets/key.txt",
        "cat s?crets/k* .e?v",
        // Shell escapes in other programs' own languages (red team round 5): each ran rm before.
        // Each names src in its own way: the same refusal three times ends the session (the stuck
        // detector), and the control command below shows every attack was tried.
        "ed -s a.txt <<< '!rm -rf src'",
        "echo '!rm -rf ./src' | ed -s a.txt",
        "echo 'syscmd(rm -rf src/)' | m4",
        "m4 <<< 'esyscmd(rm -fr src)'",
        "ex -s a.txt <<< '!rm -r -f src'",
      ];
      const r = await session(ws, [...attacks.map(bash), bash("echo ran > control.txt")], { mode: "bypassPermissions", settings: DENY() });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8"), "the control command runs in this setup").toBe("ran\n");
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
      noSecrets(r.bodies);
    });

    it.skipIf(!!unusable)("row 1b — a misread is harmless: a program a deny rule forbids cannot start in the sandbox, whatever the analysis allowed (bypassPermissions)", async () => {
      const ws = workspace("row1b", {
        "x.ed": "!rm -rf src\nq\n",
        "x.sed": "1e rm -rf src\n",
        "x.awk": 'BEGIN { system("rm -rf src") }\n',
        "x.sh": "rm -rf src\n",
      });
      // Each of these is allowed by the gate (the name `rm` is built inside data it does not read, or
      // sits in a file the command reads) and ran rm before the sandbox enforced the deny rule.
      const misread = ["m4 -D X=r <<< 'esyscmd(X`'\"'\"'m -rf src)'", "ed -s a.txt < x.ed", "dc <<< '!rm -rf src'", "sed -f x.sed a.txt", "awk -f x.awk", "sh x.sh", "/usr/bin/env -S 'sh x.sh'"];
      const r = await session(ws, [...misread.map(bash), bash("cp /bin/rm ./myrm; ./myrm -rf src; echo copied"), bash("echo ran > control.txt")], {
        mode: "bypassPermissions",
        settings: DENY(),
      });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8"), "the control command runs in this setup").toBe("ran\n");
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
      // The model is told why: bwrap puts a script naming the rule in the program's place; firejail makes it unreadable.
      if (backend === "bwrap") expect(r.told).toContain("yoke: rm is denied by the permission rule Bash(rm:*)");
      else expect(r.told).toMatch(/rm: Permission denied/);
      noSecrets(r.bodies);
    });

    it.skipIf(!!unusable)("row 1d — every escape of the attacks corpus (R049–R071: names built inside ed, m4 and shell text, input the scan never saw) runs nothing under Bash(rm:*)", async () => {
      const corpus = JSON.parse(readFileSync(join(__dirname, "../fixtures/permissions-attacks.json"), "utf8")) as { cases: Array<{ id: string; input: { command?: string } }> };
      const escapes = corpus.cases.filter((c) => c.id >= "R049" && c.id <= "R071" && /-rf src/.test(c.input.command ?? "")).map((c) => c.input.command!);
      expect(escapes.length).toBeGreaterThanOrEqual(20);
      const ws = workspace("row1d", { f: "one\n", "README.md": "readme\n" });
      // Sessions of at most 6 calls (a session ends at 20 turns, or after a run of refusals), each with a control first.
      for (let k = 0; k < escapes.length; k += 6) {
        rmSync(join(ws, "control.txt"), { force: true });
        const r = await session(ws, [bash("echo ran > control.txt"), ...escapes.slice(k, k + 6).map(bash)], { mode: "bypassPermissions", settings: DENY() });
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8"), "the control command runs in this setup").toBe("ran\n");
        expect(r.requests, "every escape was tried").toBe(Math.min(6, escapes.length - k) + 2);
        expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
        noSecrets(r.bodies);
      }
    });

    it.skipIf(!!unusable)("row 1c — an ask rule holds in bypassPermissions too: a command the mode alone allowed cannot start the program the rule asks about", async () => {
      const ws = workspace("row1c", { "x.ed": "!rm -rf src\nq\n", "x.sh": "rm -rf src\n" });
      const ask = settingsFile("ask", { permissions: { ask: ["Bash(rm:*)"] } });
      const r = await session(ws, [bash("ed -s a.txt < x.ed"), bash("sh x.sh"), bash("dc <<< '!rm -rf src'"), bash("echo ran > control.txt")], { mode: "bypassPermissions", settings: ask });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8"), "the control command runs in this setup").toBe("ran\n");
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
      if (backend === "bwrap") expect(r.told).toContain("yoke: rm needs the user's approval (the permission rule Bash(rm:*) asks before it runs)");
      else expect(r.told).toMatch(/rm: Permission denied/);
    });

    it.skipIf(!!unusable)("row 2 — read-only means nothing written (plan mode), and a repository's verification command runs with the gate's read-only confinement", async () => {
      const ws = workspace("row2", { ".yoke/settings.json": JSON.stringify({ verification: { command: "git status --short >/dev/null; echo VERIFIED" } }) });
      const skip = (rel: string) => rel === "sessions" || rel.startsWith(".git/");
      const before = snapshot(ws, skip);
      const misread = [
        "seq 1 5000 | sed 's/.*/rm -rf src; touch pwned; exit 0/' | sort -S 64K --compress-prog=sh >/dev/null 2>&1; true",
        "sort --o=pwned a.txt",
        "sed --in s/keep/PWNED/ src/a.js",
        "printf -v 'a[$(touch pwned)]' y",
        "git stash -q; git config core.fsmonitor 'touch pwned'",
        "git status --short",
      ];
      const plan = await session(ws, misread.map(bash), { mode: "plan" });
      expect(plan.code, plan.stderr).toBe(0);
      expect(snapshot(ws, skip)).toEqual(before);
      expect(readFileSync(join(ws, ".git/config"), "utf8")).not.toContain("fsmonitor");
      // acceptEdits: the model edits a file; the repository's verification command (git status: read-only
      // for the gate) runs at the end — with the gate's confinement, whose git runs nothing a configuration
      // names. The repository's configuration names an fsmonitor program.
      const ran = join(ws, "fsmonitor-ran");
      writeFileSync(join(ws, ".git/config"), `${readFileSync(join(ws, ".git/config"), "utf8")}[core]\n\tfsmonitor = "touch ${ran}; false"\n`);
      const edit = await session(ws, [tool("write_file", { path: "notes.md", content: "n\n" })], { mode: "acceptEdits" });
      expect(edit.code, edit.stderr).toBe(0);
      expect(readFileSync(join(ws, "notes.md"), "utf8")).toBe("n\n");
      // It did run (its output is in the session's record of the check) …
      const log = readdirSync(edit.sessions)
        .filter((f) => f.endsWith(".jsonl"))
        .map((f) => readFileSync(join(edit.sessions, f), "utf8"))
        .join("");
      expect(log).toMatch(/"type":"verification"[^\n]*"status":"passed"/);
      // … and the planted program did not.
      expect(existsSync(ran)).toBe(false);
      // Control: the same git status, unconfined (as the user's own command would run), runs it.
      run("git", ["status", "--short"], ws, id);
      expect(existsSync(ran)).toBe(true);
    });

    it.skipIf(!!unusable)(
      "row 3 — nothing a command or file tool writes runs later: protected paths, .git internals, a rebase todo, hook managers, *.code-workspace, .idea, CI workflows, a .vscode that is a link (and its target under its own name)",
      async () => {
        const ws = workspace("row3", { "cfg/tasks.json": "{}\n" });
        symlinkSync("cfg", join(ws, ".vscode"));
        chownTree(ws, id);
        const marker = join(base, `ran-later-${tag}-${n}`);
        const keep = ["cfg/tasks.json", ".pre-commit-config.yaml", ".github/workflows/ci.yml", "app.code-workspace", ".git/config"];
        const before = Object.fromEntries(keep.map((k) => [k, readFileSync(join(ws, k), "utf8")]));
        // perl: code the gate cannot see, allowed in bypassPermissions with no deny rule — the sandbox must hold.
        const perl = (code: string) => bash(`perl -e '${code}'; echo tried`);
        const script = [
          perl(`open(my $f, ">", "cfg/tasks.json") or print "refused\\n"; print $f "{\\"tasks\\":[{\\"command\\":\\"touch ${marker}\\"}]}"`),
          perl(`open(my $f, ">", ".vscode/settings.json") or print "refused\\n"; print $f "{}"`),
          perl(`unlink ".vscode"; symlink "/tmp", ".vscode"`),
          perl(`open(my $f, ">", "evil.code-workspace"); print $f "{}"; open(my $g, ">", "app.code-workspace") or print "refused\\n"; print $g "{}"`),
          perl(`mkdir ".idea"; open(my $f, ">", ".idea/workspace.xml"); print $f "x"`),
          perl(
            `open(my $f, ">", ".github/workflows/ci.yml") or print "refused\\n"; print $f "on: push\\njobs: {x: {runs-on: x, steps: [{run: env}]}}"; open(my $g, ">", ".github/workflows/new.yml") or print "refused\\n";`,
          ),
          perl(
            `open(my $f, ">", ".pre-commit-config.yaml") or print "refused\\n"; print $f "repos: [{repo: local, hooks: [{id: x, name: x, entry: touch ${marker}, language: system}]}]"; open(my $g, ">", "lefthook.yml"); print $g "x"`,
          ),
          perl(`open(my $f, ">", ".devcontainer.json"); print $f "{\\"initializeCommand\\":\\"touch ${marker}\\"}"`),
          bash(`echo "$PWD/evil" > .git/commondir; echo '[core]' > .git/config.worktree; echo tried`),
          bash(
            `mkdir -p .git/rebase-merge && cd .git/rebase-merge && touch interactive && echo refs/heads/main > head-name && git rev-parse HEAD > onto && git rev-parse HEAD > orig-head && echo "exec touch ${marker}" > git-rebase-todo && : > done && echo 1 > end && echo 0 > msgnum; echo planted`,
          ),
          // The file tools, under the link's other name (cfg/ is .vscode/): the gate asks (no one to answer here).
          tool("write_file", { path: "cfg/tasks.json", content: `{"tasks":[{"command":"touch ${marker}"}]}` }),
          tool("write_file", { path: "cfg/settings.json", content: "{}" }),
          bash("echo ran > control.txt"),
        ];
        const r = await session(ws, script, { mode: "bypassPermissions", settings: settingsFile("empty", {}) });
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        for (const k of keep) expect(readFileSync(join(ws, k), "utf8"), k).toBe(before[k]);
        expect(readlinkSync(join(ws, ".vscode"))).toBe("cfg");
        for (const gone of [
          "cfg/settings.json",
          "evil.code-workspace",
          ".idea",
          ".github/workflows/new.yml",
          "lefthook.yml",
          ".devcontainer.json",
          ".git/commondir",
          ".git/config.worktree",
          ".git/rebase-merge",
        ])
          expect(existsSync(join(ws, gone)), gone).toBe(false);
        // The model was told the protected paths were moved out.
        expect(r.told).toMatch(/evil\.code-workspace[^\n]*moved to/);
        // The user's next git status and rebase --continue on the host, the folder opened again: nothing runs.
        expect(run("git", ["status", "--short"], ws, id).status).toBe(0);
        run("git", ["rebase", "--continue"], ws, id);
        expect(existsSync(marker)).toBe(false);
      },
    );

    it.skipIf(!!unusable)("row 3 — a protected name that is a dangling link (.yoke -> conf, .vscode -> vs): creating its target is creating the protected path", async () => {
      const ws = workspace("row3-dangling");
      symlinkSync("conf", join(ws, ".yoke"));
      symlinkSync("vs", join(ws, ".vscode"));
      chownTree(ws, id);
      const marker = join(base, `ran-later-dangling-${tag}-${n}`);
      const perl = (code: string) => bash(`perl -e '${code}'; echo tried`);
      const script = [
        // The untracked .yoke/settings.local.json would count as the user's own, and allow everything.
        perl(`mkdir "conf"; open(my $f, ">", "conf/settings.local.json") or print "refused\\n"; print $f "{\\"permissions\\":{\\"allow\\":[\\"Bash(*)\\"]}}"`),
        perl(`mkdir "vs"; open(my $f, ">", "vs/tasks.json"); print $f "{\\"tasks\\":[{\\"command\\":\\"touch ${marker}\\"}]}"`),
        tool("write_file", { path: "conf/settings.json", content: '{"permissions":{"defaultMode":"bypassPermissions"}}' }),
        bash("echo ran > control.txt"),
      ];
      const r = await session(ws, script, { mode: "bypassPermissions", settings: settingsFile("empty", {}) });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      for (const gone of ["conf", "vs", ".yoke/settings.local.json", ".vscode/tasks.json"]) expect(existsSync(join(ws, gone)), gone).toBe(false);
      expect(readlinkSync(join(ws, ".yoke"))).toBe("conf");
      expect(r.told).toMatch(/conf[^\n]*moved to/);
      expect(existsSync(marker)).toBe(false);
    });

    it.skipIf(!!unusable)("row 4 — the quarantine: a read-only folder does not defeat it, and a loop creating a protected path cannot fill the disk", async () => {
      const ws = workspace("row4");
      const r = await session(
        ws,
        [
          // Built aside, put in place and made read-only at once (perl: the gate cannot see it write a protected path).
          bash(
            `perl -e 'mkdir "t"; mkdir "t/.vscode"; mkdir "t/.vscode/sub"; open(my $f, ">", "t/.vscode/tasks.json"); print $f "{}\\n"; close $f; chmod 0555, "t/.vscode/sub"; rename "t/.vscode", ".vscode" or die; chmod 0555, ".vscode"; rmdir "t"'; echo end`,
          ),
          bash(`for i in $(seq 1 150); do perl -e 'mkdir ".idea"; open(my $f, ">", ".idea/x"); print $f "y" x 4096; chmod 0555, ".idea"' 2>/dev/null; sleep 0.005; done; echo loop-done`),
          bash("echo ran > control.txt"),
        ],
        { mode: "bypassPermissions", settings: settingsFile("empty", {}) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
      expect(existsSync(join(ws, ".vscode"))).toBe(false);
      expect(existsSync(join(ws, ".idea"))).toBe(false);
      expect(r.told).not.toContain("could NOT");
      // Where the quarantine is (the model is told), and what it holds: the first command's .vscode, and at most the budget of the loop's.
      const q = /moved to (\S+?\/quarantine\/[^/\s]+)\/\.vscode/.exec(r.told)?.[1];
      expect(q, r.told).toBeDefined();
      expect(readFileSync(join(q!, ".vscode", "tasks.json"), "utf8")).toBe("{}\n");
      const quarantineRoot = dirname(q!);
      const kept = readdirSync(quarantineRoot).flatMap((c) => readdirSync(join(quarantineRoot, c)).filter((e) => e.startsWith(".idea")));
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThanOrEqual(QUARANTINE_MAX_KEPT);
      // Nothing kept in the quarantine carries a mode bit the command chose (it is 0700 when it had to be unlocked).
      for (const c of readdirSync(quarantineRoot)) for (const e of readdirSync(join(quarantineRoot, c))) expect(lstatSync(join(quarantineRoot, c, e)).mode & 0o7000, e).toBe(0);
    });

    it.skipIf(!!unusable)("row 5 — descriptors: the ones the CLI inherited never reach a command", async () => {
      const ws = workspace("row5");
      const probe = [
        "ls -l /proc/$$/fd > /tmp/self-fds 2>&1; sed 's/^/SELF /' /tmp/self-fds",
        "for k in 3 4 5 9 40 41; do cat /proc/self/fd/$k/secret.txt /proc/1/fd/$k/secret.txt 2>/dev/null; echo pwned > /proc/self/fd/$k/pwned-$k 2>/dev/null; done",
        "echo PROBE-END",
      ].join("; ");
      const r = await session(ws, [bash(probe)], { mode: "bypassPermissions" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.bodies).toContain("PROBE-END");
      const self = [...r.bodies.matchAll(/SELF [^\\]* (\d+) -> /g)].map((m) => Number(m[1]));
      expect(self.sort((a, b) => a - b)).toEqual([0, 1, 2]);
      noSecrets(r.bodies);
      expect(readdirSync(home).filter((x) => x.startsWith("pwned"))).toEqual([]);
    });

    it.skipIf(!!unusable)("row 6 — file tools act on what was checked: a running command flips a link to the secret and to .git/config; nothing leaks, nothing is overwritten", async () => {
      const ws = workspace("row6", { "ok.txt": "ok\n", "w/ok.txt": "ok\n" });
      const gitConfig = readFileSync(join(ws, ".git/config"), "utf8");
      // The flipper runs beside the session as the same user (the gate refuses to start it as a command
      // under these deny rules; a build watcher or an earlier background command is the same race).
      const flip = "while :; do ln -sfn secrets/key.txt link; ln -sfn ok.txt link; ln -sfn ../.git/config w/t; ln -sfn ok.txt w/t; done";
      const flipper = spawn("bash", ["-c", flip], { cwd: ws, stdio: "ignore", ...spawnAs(id) });
      const script: ScriptedTurn[] = [tool("read_file", { path: "ok.txt" })];
      for (let i = 0; i < 12; i++) {
        script.push(tool("read_file", { path: "link", force: true }));
        script.push(tool("write_file", { path: "w/t", content: `[core]\n\tfsmonitor = touch pwned-${i}\n` }));
      }
      const r = await session(ws, script, { mode: "bypassPermissions", settings: DENY() }).finally(() => flipper.kill("SIGKILL"));
      expect(r.code, r.stderr + r.told.slice(0, 3000)).toBe(0);
      noSecrets(r.bodies);
      expect(readFileSync(join(ws, ".git/config"), "utf8")).toBe(gitConfig);
      // Ordinary reads work in the same session, and the race was real: some calls were refused or denied.
      expect(r.told).toMatch(/\|ok$/m);
      expect(r.told).toMatch(/denied|changed|refused|link/i);
    });

    it.skipIf(!!unusable)("row 7 — trust: committed settings cannot loosen (allow rules, a mode) even with --trust; without trust nothing of the repository's runs", async () => {
      const marker = join(base, `hook-ran-${tag}-${n}`);
      const ws = workspace("row7", {
        ".yoke/settings.json": JSON.stringify({ permissions: { allow: ["Bash(rm:*)", "Bash(perl:*)"], defaultMode: "bypassPermissions" }, verification: { command: `touch ${marker}-verify` } }),
        ".claude/settings.local.json": JSON.stringify({ permissions: { allow: ["Bash(*)", "Write(**)"] } }),
      });
      // No --permission-mode: the committed defaultMode must not apply either.
      const trusted = await session(ws, [bash("rm -rf src"), bash("perl -e 'unlink \"a.txt\"'"), tool("write_file", { path: "x.txt", content: "x\n" })], {});
      expect(trusted.code, trusted.stderr).toBe(0);
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
      expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\n");
      expect(existsSync(`${marker}-verify`)).toBe(false);
      expect(existsSync(join(ws, "x.txt"))).toBe(false);
      // Not trusted (no terminal to ask): Restricted Mode — not the hook, not a command, not a write.
      const ws2 = workspace("row7-untrusted", {
        ".claude/settings.json": JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }] } }),
      });
      const restricted = await session(ws2, [bash(`touch ${marker}-cmd`), tool("write_file", { path: "x.txt", content: "x\n" })], { mode: "bypassPermissions", trust: false });
      expect(restricted.code, restricted.stderr).toBe(0);
      expect(restricted.stderr).toContain("Restricted Mode");
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(`${marker}-cmd`)).toBe(false);
      expect(existsSync(join(ws2, "x.txt"))).toBe(false);
    });

    it.skipIf(!!unusable)("row 8 — the provider key never reaches a command (environment, /proc) nor a hook", async () => {
      const ws = workspace("row8");
      rmSync(join(base, "user-hook-env.txt"), { force: true });
      const r = await session(ws, [bash("env; tr '\\0' '\\n' < /proc/self/environ; tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' '\\n' < /proc/1/environ; echo ENV-END")], {
        mode: "bypassPermissions",
        env: { ANTHROPIC_API_KEY: API_KEY, YOKE_API_KEY: API_KEY },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.bodies).toContain("ENV-END");
      noSecrets(r.bodies);
      // The user's own PreToolUse hook ran (confined; the file its command line writes is kept writable) without the key in its environment.
      const hookEnv = readFileSync(join(base, "user-hook-env.txt"), "utf8");
      expect(hookEnv).toContain("PATH=");
      expect(hookEnv).not.toContain(API_KEY);
    });

    it.skipIf(!!unusable)("a replace ref a command planted under .git/refs/replace is quarantined, so git never substitutes its object", async () => {
      const ws = workspace("replace");
      const blob = run("git", ["rev-parse", "HEAD:src/a.js"], ws, id).stdout.trim();
      // A valid new object (it hashes to its name) plus refs/replace/<blob>: git then serves it for <blob>.
      const plant = `new=$(printf 'evil\\n' | git hash-object -w --stdin) && mkdir -p .git/refs/replace && echo $new > .git/refs/replace/${blob}; echo planted`;
      const r = await session(ws, [bash(plant)], { mode: "bypassPermissions" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.bodies, "the command ran").toContain("planted");
      expect(r.told).toContain("git reads the object a ref under .git/refs/replace names in place of the object it replaces");
      expect(existsSync(join(ws, ".git/refs/replace"))).toBe(false);
      const shown = run("git", ["show", "HEAD:src/a.js"], ws, id);
      expect(shown.status).toBe(0);
      expect(shown.stdout).not.toContain("evil");
    });

    it.skipIf(!!unusable)("a replace ref a command wrote into .git/packed-refs is taken out when it ends, and the refs git's own work packs stay", async () => {
      const ws = workspace("packed-replace");
      const blob = run("git", ["rev-parse", "HEAD:src/a.js"], ws, id).stdout.trim();
      // packed-refs is git's to rewrite (pack-refs, gc), so it is writable for commands: the plant is a
      // line in it, written by code the gate cannot see (a redirection to it asks).
      const plant = `git pack-refs --all && new=$(printf 'evil\\n' | git hash-object -w --stdin) && node -e 'require("fs").appendFileSync(".git/packed-refs", process.argv[1] + "\\n")' "$new refs/replace/${blob}" && git show HEAD:src/a.js && git branch kept && git pack-refs --all; echo planted`;
      const r = await session(ws, [bash(plant)], { mode: "bypassPermissions" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.bodies, "the plant worked while the command ran (control)").toMatch(/evil[\s\S]*planted/);
      expect(r.told).toContain(`refs/replace/${blob} taken out`);
      const packed = readFileSync(join(ws, ".git/packed-refs"), "utf8");
      expect(packed).not.toContain("refs/replace/");
      expect(packed).toContain("refs/heads/kept");
      const shown = run("git", ["show", "HEAD:src/a.js"], ws, id);
      expect(shown.status).toBe(0);
      expect(shown.stdout).toBe("keep\n");
    });

    it.skipIf(!!unusable)(
      "a pack a command forged (valid checksums, an index that names another blob) is quarantined, and a multi-pack index taken away, so the user's next checkout writes the real file",
      async () => {
        const ws = workspace("forged-pack", { "forge.js": readFileSync(join(__dirname, "../fixtures/git/forge-pack.js"), "utf8") });
        const blob = run("git", ["rev-parse", "HEAD:src/a.js"], ws, id).stdout.trim();
        // While the command runs the plant works (git shows "evil" for the trusted name): the control.
        const plant = `git gc -q 2>/dev/null; node forge.js ${blob} && git cat-file -p ${blob} && git multi-pack-index write && echo planted`;
        const r = await session(ws, [bash(plant), bash("git status --short >/dev/null && echo status-ok")], { mode: "bypassPermissions" });
        expect(r.code, r.stderr).toBe(0);
        expect(r.told, "the plant worked while the command ran (control)").toMatch(/evil[\s\S]*planted/);
        expect(r.told).toContain("its index gives objects names their content does not hash to");
        expect(r.told).toContain("multi-pack index, which git reads without checking");
        expect(r.bodies).toContain("status-ok");
        // The user's next ordinary git work writes the committed content.
        rmSync(join(ws, "src/a.js"));
        const co = run("git", ["checkout", "--", "src/a.js"], ws, id);
        expect(co.status, co.stderr).toBe(0);
        expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
        expect(run("git", ["fsck", "--no-dangling"], ws, id).status).toBe(0);
      },
    );

    it.skipIf(!!unusable)("a commit-graph a command forged is quarantined, so the user's next git revert never writes its tree", async () => {
      const ws = workspace("commit-graph");
      const sh = (c: string) => run("bash", ["-c", c], ws, id);
      expect(sh("echo n > g && git add g && git -c user.name=u -c user.email=u@e commit -qm second").status).toBe(0);
      const first = sh("git rev-parse HEAD~1").stdout.trim();
      // The forged graph lists HEAD~1 under its own name with the tree of another commit (src/a.js = evil).
      const forge = [
        'const cp=require("child_process"),fs=require("fs"),h=require("crypto");const H=process.argv[2];const g=(a,i,e)=>cp.execFileSync("git",a,{input:i,env:{...process.env,...e}}).toString().trim();',
        'const ev=g(["hash-object","-w","--stdin"],"evil\\n");const sub=g(["mktree"],"100644 blob "+ev+"\\ta.js\\n");',
        'const top=g(["mktree"],g(["ls-tree","HEAD~1"]).split("\\n").filter(l=>!l.endsWith("\\tsrc")).concat("040000 tree "+sub+"\\tsrc").join("\\n")+"\\n");',
        'const c2=g(["commit-tree",top,"-m","x"],undefined,{GIT_AUTHOR_NAME:"a",GIT_AUTHOR_EMAIL:"a@b",GIT_COMMITTER_NAME:"a",GIT_COMMITTER_EMAIL:"a@b"});',
        'g(["commit-graph","write","--stdin-commits","--no-progress"],c2+"\\n");const p=".git/objects/info/commit-graph";const d=fs.readFileSync(p);',
        'const a=Buffer.from(c2,"hex"),b=Buffer.from(H,"hex");const at=d.indexOf(a);b.copy(d,at);',
        'let f=0;for(let i=0;i<d[6];i++){const e=8+12*i;if(d.toString("latin1",e,e+4)==="OIDF")f=Number(d.readBigUInt64BE(e+4));}',
        'for(let x=0;x<256;x++)d.writeUInt32BE(x>=b[0]?1:0,f+4*x);h.createHash("sha1").update(d.subarray(0,d.length-20)).digest().copy(d,d.length-20);',
        'fs.writeFileSync(p+".t",d);fs.renameSync(p+".t",p);console.log("forged")',
      ].join("");
      writeFileSync(join(ws, "forge.js"), forge);
      const r = await session(ws, [bash(`node forge.js ${first}; echo ran`)], { mode: "bypassPermissions" });
      expect(r.code, r.stderr).toBe(0);
      expect(r.bodies, "the command ran").toContain("ran");
      expect(r.told).toContain("git takes commits' trees and parents from .git/objects/info/commit-graph");
      // The user's next ordinary git work: reverting "second" must give back HEAD~1's real src/a.js.
      const before = readFileSync(join(ws, "src/a.js"), "utf8");
      sh("git -c user.name=u -c user.email=u@e revert --no-edit HEAD");
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe(before);
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).not.toContain("evil");
    });

    it.skipIf(!!unusable)("an object a command rewrote in .git/objects is quarantined when it ends, and undo never writes such an object's content", async () => {
      const ws = workspace("objects");
      const blob = run("git", ["rev-parse", "HEAD:src/a.js"], ws, id).stdout.trim();
      const object = `.git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`;
      // git never rewrites an object it has, nor checks a hash when it reads: the command replaces the
      // file of src/a.js's blob with other content (allowed: commands may add objects there).
      const rewrite = `node -e 'const fs=require("fs"),z=require("zlib");const f=process.argv[1];fs.chmodSync(f,0o644);fs.writeFileSync(f,z.deflateSync(Buffer.from("blob 5\\0evil\\n")));console.log("rewrote")' ${object}`;
      const r = await session(
        ws,
        [
          bash(rewrite),
          bash("echo /tmp/elsewhere > .git/objects/info/alternates; echo planted"),
          tool("read_file", { path: "src/a.js" }),
          tool("write_file", { path: "src/a.js", content: "changed\n" }),
        ],
        { mode: "bypassPermissions" },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.bodies, "the command ran").toContain("rewrote");
      // The sandbox layer: the rewritten object was moved out when the command ended, and the model told.
      expect(r.told).toContain(`${object} (a git object file whose content is not what its name says`);
      expect(r.told).toContain(".git/objects/info/alternates (git reads objects from the folders .git/objects/info/alternates names");
      expect(existsSync(join(ws, ".git/objects/info/alternates"))).toBe(false);
      const served = run("git", ["cat-file", "blob", blob], ws, id);
      expect(served.stdout).not.toContain("evil");
      expect(served.status, "git now reports the object missing instead of serving the command's content").not.toBe(0);
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("changed\n");
      const restore = () =>
        spawnSync(process.execPath, [cliPath, "checkpoints", "restore", r.sessionId!, "0", "--files", "--session-dir", r.sessions, "--cwd", ws], {
          cwd: ws,
          encoding: "utf8",
          timeout: 60_000,
          ...spawnAs(id, { HOME: home }),
        });
      // The restore layer: a blob that is missing or does not hash to its name is never written; the
      // restore refuses as a whole and says why (before this check it wrote "evil" and reported success).
      const first = restore();
      expect(first.status).toBe(1);
      expect(first.stderr).toContain(`Nothing was restored: the saved content of a file (object ${blob.slice(0, 12)}) is missing from the repository's .git/objects`);
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("changed\n");
      // Control: the same rewrite run unconfined (as the user's own command) — git serves it, the restore still refuses.
      const control = spawnSync("bash", ["-c", rewrite.replace("fs.chmodSync(f,0o644);", 'fs.mkdirSync(require("path").dirname(f),{recursive:true});')], {
        cwd: ws,
        encoding: "utf8",
        ...spawnAs(id, {}),
      });
      expect(control.stdout, control.stderr).toContain("rewrote");
      expect(run("git", ["cat-file", "blob", blob], ws, id).stdout).toBe("evil\n");
      const second = restore();
      expect(second.status).toBe(1);
      expect(second.stderr).toContain("Nothing was restored: the saved content of src/a.js no longer matches its hash");
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("changed\n");
    });

    it.skipIf(!!unusable)("a planted .git file (gitdir: a folder of the workspace) does not steer the checkpoints' index seeding: the session completes and undo restores the file", async () => {
      const ws = join(base, "planted-gitdir");
      mkdirSync(join(ws, "src"), { recursive: true });
      writeFileSync(join(ws, "src/a.js"), "keep\n");
      // The "repository" the .git file names is the workspace's own folder: its index a FIFO (a copy
      // would block forever), its objects and excludes the attacker's.
      mkdirSync(join(ws, ".cache/evil/objects"), { recursive: true });
      mkdirSync(join(ws, ".cache/evil/info"), { recursive: true });
      writeFileSync(join(ws, ".cache/evil/info/exclude"), "src/\n");
      execFileSync("mkfifo", [join(ws, ".cache/evil/index")]);
      writeFileSync(join(ws, ".git"), "gitdir: .cache/evil\n");
      chownTree(ws, id);
      // (Before the guard, the first checkpoint's copy of that index blocked forever: the session never ended.)
      const r = await session(ws, [tool("read_file", { path: "src/a.js" }), tool("write_file", { path: "src/a.js", content: "changed\n" })], { mode: "acceptEdits", timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("changed\n");
      // Undo the turn: the file the model changed comes back (the excludes the attacker planted were not used).
      const restore = spawnSync(process.execPath, [cliPath, "checkpoints", "restore", r.sessionId!, "0", "--files", "--session-dir", r.sessions, "--cwd", ws], {
        cwd: ws,
        encoding: "utf8",
        timeout: 60_000,
        ...spawnAs(id, { HOME: home }),
      });
      expect(restore.status, restore.stderr + restore.stdout).toBe(0);
      expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("keep\n");
    });
  });
});
