/**
 * The command sandbox with the real bwrap (and firejail where it works) on this machine:
 * home hidden, writes confined to the workspace, network off by default, secrets scrubbed,
 * timeouts that leave no process behind, background commands, and the `yoke sandbox exec` CLI.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, realpathSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { READ_ONLY_HINT } from "../../src/core/commands/result-text";
import { commandOutputTool } from "../../src/core/tools/command-output";
import { killCommandTool } from "../../src/core/tools/kill-command";
import { runCommandTool } from "../../src/core/tools/run-command";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../src/node/commands/runner";
import { createSandbox } from "../../src/node/commands/sandbox/create";
import type { SandboxChoice } from "../../src/node/commands/sandbox/create";
import { SandboxUnavailableError } from "../../src/node/commands/sandbox/types";
import { createSessionCommandRunner } from "../../src/node/commands/session-runner";
import { ensureBuilt, runCli } from "../support/cli";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace";
import { pidsOf } from "../support/processes";
import { firejailUsable } from "../support/sandbox-matrix";

/** Outside /tmp on purpose: /tmp is private in the sandbox anyway, which would hide a wrong result. */
const OUTSIDE_ROOT = "/var/tmp";

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end("hello from the host"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const backends: Array<[SandboxChoice, string | undefined]> = [
  ["bwrap", undefined],
  ["firejail", firejailUsable()],
];

describe.each(backends)("sandbox %s", (backend, unusable) => {
  let ws: TempWorkspace;
  let home: string;
  let outside: string;
  let logRoot: string;
  let runners = 0;
  let runner: NodeCommandRunner;
  const tag = Math.random().toString(36).slice(2, 8);
  const secretName = `yoke-secret-${tag}.txt`;
  const allowedName = `yoke-allowed-${tag}.txt`;

  const make = (over: { network?: "off" | "on"; networkCommands?: string[]; env?: Record<string, string | undefined>; pty?: boolean } = {}) =>
    createNodeCommandRunner({
      workspace: ws.root,
      logDir: join(logRoot, `runner-${++runners}`),
      sandbox: createSandbox(backend, { workspace: ws.root, home, paths: [{ path: `~/${allowedName}`, mode: "ro" }], exposeToolchains: false }),
      env: over.env ?? { ...process.env, HOME: home },
      pty: over.pty ?? false,
      killGraceMs: 1000,
      ...(over.network ? { network: over.network } : {}),
      ...(over.networkCommands ? { networkCommands: over.networkCommands } : {}),
    });

  const run = async (command: string, r = runner) => {
    const cmd = r.start({ command, cwd: ws.root, background: false, network: r.info.network, timeoutMs: 20_000 });
    const result = await cmd.wait();
    return { result, text: [...cmd.bounded().head, ...cmd.bounded().tail].join("\n") };
  };

  beforeAll(() => {
    if (unusable) return;
    ws = createTempWorkspace({ "hello.txt": "hi\n" });
    // firejail always hides the user's real home (from the password database), whatever $HOME says.
    home = backend === "firejail" ? realpathSync(homedir()) : realpathSync(mkdtempSync(join(OUTSIDE_ROOT, "yoke-home-")));
    outside = realpathSync(mkdtempSync(join(OUTSIDE_ROOT, "yoke-outside-")));
    logRoot = mkdtempSync(join(tmpdir(), "yoke-cmd-logs-"));
    writeFileSync(join(home, secretName), "TOP SECRET\n");
    writeFileSync(join(home, allowedName), "visible\n");
  });
  afterEach(async () => {
    await runner?.dispose();
  });
  afterAll(() => {
    if (unusable) return;
    ws.cleanup();
    if (backend === "firejail") for (const f of [secretName, allowedName]) rmSync(join(home, f), { force: true });
    else rmSync(home, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
    rmSync(logRoot, { recursive: true, force: true });
  });

  it.skipIf(!!unusable)("cannot read a file planted in $HOME, but can read a path the user listed", async () => {
    runner = make();
    const r = await run(`cat "$HOME/${secretName}"; echo "rc=$?"; cat "$HOME/${allowedName}"; echo listed > "$HOME/${allowedName}"; echo "write-rc=$?"`);
    expect(r.text).not.toContain("TOP SECRET");
    expect(r.text).toMatch(/No such file or directory\nrc=1/);
    expect(r.text).toContain("visible");
    expect(r.text).toContain("write-rc=1");
    expect(readFileSync(join(home, allowedName), "utf8")).toBe("visible\n");
  });

  it.skipIf(!!unusable)("writes in the workspace but not outside it, nor to /etc", async () => {
    runner = make();
    const r = await run(`echo ok > made.txt; echo x > "${outside}/escape.txt"; echo "out=$?"; echo y > /etc/yoke-escape; echo "etc=$?"`);
    expect(ws.read("made.txt")).toBe("ok\n");
    expect(r.text).toContain("out=1");
    expect(r.text).toContain("etc=1");
    expect(r.text).toMatch(/Read-only file system|No such file or directory/);
    expect(existsSync(join(outside, "escape.txt"))).toBe(false);
    expect(existsSync("/etc/yoke-escape")).toBe(false);
  });

  it.skipIf(!!unusable)("run_command names what is writable when a command hits the read-only file system", async () => {
    runner = make();
    const out = await runCommandTool.run({ command: "echo y > /etc/yoke-escape-hint" }, ws.context({ commands: runner }));
    expect(out.text).toMatch(/^bash: line 1: \/etc\/yoke-escape-hint: Read-only file system\n\n\[Exit code 1 after /);
    expect(out.text.endsWith(`.]\n${READ_ONLY_HINT}`)).toBe(true);
    expect(existsSync("/etc/yoke-escape-hint")).toBe(false);
    const ok = await runCommandTool.run({ command: "echo ok > made.txt" }, ws.context({ commands: runner }));
    expect(ok.text).not.toContain(READ_ONLY_HINT);
  });

  it.skipIf(!!unusable)("cannot reach a server on 127.0.0.1 when the network is off, and can when it is on", async () => {
    runner = make();
    const off = await run(`curl -s -m 3 http://127.0.0.1:${port}/; echo "rc=$?"`);
    expect(off.text).not.toContain("hello from the host");
    expect(off.text).toMatch(/rc=[1-9]/);
    await runner.dispose();
    runner = make({ networkCommands: ["curl"] });
    const out = await runCommandTool.run({ command: `curl -s -m 3 http://127.0.0.1:${port}/` }, ws.context({ commands: runner }));
    expect(out.text).toMatch(/^hello from the host\n\n\[Exit code 0 after /);
  });

  it.skipIf(!!unusable)("tells the model the network is off when a command fails for lack of it", async () => {
    runner = make();
    const out = await runCommandTool.run({ command: "curl -sS -m 3 https://registry.npmjs.org/" }, ws.context({ commands: runner }));
    expect(out.text).toContain("curl: (6) Could not resolve host: registry.npmjs.org");
    expect(out.text).toContain("[Network access is off in the sandbox, which is likely why this command failed.");
    expect(out.text).toContain('they can add "curl -sS" to "sandbox.networkCommands"');
  });

  it.skipIf(!!unusable)("passes only allowlisted variables: not ANTHROPIC_API_KEY, other secrets or unknown variables", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    process.env.ANTHROPIC_API_KEY = "sk-ant-should-not-leak";
    try {
      runner = make({ env: { ...process.env, HOME: home, GITHUB_TOKEN: "ghp_x", PLAIN: "dropped", JAVA_HOME: "/opt/jdk" } });
      const r = await run(`echo "key=[$ANTHROPIC_API_KEY] gh=[$GITHUB_TOKEN] plain=[$PLAIN] java=[$JAVA_HOME]"; env | grep -c sk-ant || true`);
      expect(r.text).toContain("key=[] gh=[] plain=[] java=[/opt/jdk]");
      expect(r.text.split("\n")).toContain("0");
    } finally {
      if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it.skipIf(!!unusable)("run_command passes the decision's confinement, and tells the model what went to quarantine", async () => {
    runner = make();
    const ro = await runCommandTool.run({ command: "echo x > ro-made.txt; echo rc=$?" }, ws.context({ commands: runner, confine: { readOnly: true } }));
    expect(ro.text).toContain("rc=1");
    expect(ws.exists("ro-made.txt")).toBe(false);
    const out = await runCommandTool.run({ command: "mkdir -p .vscode; echo '{}' > .vscode/settings.json; true" }, ws.context({ commands: runner }));
    expect(out.text).toMatch(
      /\[The command created protected paths, which only the user can approve: \.vscode \(VS Code settings, tasks and launch configurations run programs\): moved to \S+\/quarantine\/c2\/\.vscode\. They are not in the workspace\./,
    );
    expect(ws.exists(".vscode")).toBe(false);
    const ok = await runCommandTool.run({ command: "mkdir -p .vscode && echo '{}' > .vscode/settings.json" }, ws.context({ commands: runner, confine: { writable: [join(ws.root, ".vscode")] } }));
    expect(ok.text).not.toContain("protected paths");
    expect(ws.read(".vscode/settings.json")).toBe("{}\n");
    rmSync(join(ws.root, ".vscode"), { recursive: true, force: true });
  });

  it.skipIf(!!unusable)("kills a command and its children at the timeout, leaving no process behind", async () => {
    runner = make();
    const secs = `987.${Math.floor(Math.random() * 1e6)}`;
    const cmd = runner.start({ command: `sleep ${secs} & sleep ${secs}; echo never`, cwd: ws.root, background: false, network: "off", timeoutMs: 1500 });
    await new Promise((r) => setTimeout(r, 700));
    expect(pidsOf(["sleep", secs])).toHaveLength(2);
    const result = await cmd.wait();
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(1500 + 1000 + 1500);
    expect(pidsOf(["sleep", secs])).toEqual([]);
    expect(cmd.bounded().tail).not.toContain("never");
  });

  it.skipIf(!!unusable)("starts a background server, reads its output with command_output, and stops it with kill_command", async () => {
    // A server in a sandbox without network has its own loopback: nobody outside could reach it.
    runner = make({ network: "on" });
    const ctx = ws.context({ commands: runner });
    const srvPort = 20000 + Math.floor(Math.random() * 20000);
    const js = `require('http').createServer((q,s)=>{console.log('request', q.method, q.url); s.end('pong')}).listen(${srvPort}, '127.0.0.1', () => console.log('listening on ${srvPort}'))`;
    const started = await runCommandTool.run({ command: `node -e "${js}"`, background: true }, ctx);
    expect(started.text).toContain(`Started command c1 in the background: node -e`);
    let body = "";
    for (let i = 0; i < 50 && !body; i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = await fetch(`http://127.0.0.1:${srvPort}/ping`).then(
        (r) => r.text(),
        () => "",
      );
    }
    expect(body).toBe("pong");
    await new Promise((r) => setTimeout(r, 100));
    const out = await commandOutputTool.run({ id: "c1" }, ctx);
    expect(out.text).toContain(`listening on ${srvPort}\nrequest GET /ping`);
    expect(out.text).toMatch(/Command c1 is still running/);
    const killed = await killCommandTool.run({ id: "c1" }, ctx);
    expect(killed.text).toMatch(/^Stopped command c1 \(node -e/);
    expect(
      await fetch(`http://127.0.0.1:${srvPort}/`).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");
  });

  it.skipIf(!!unusable)("stops background commands when the session ends (killAll)", async () => {
    runner = make();
    const secs = `986.${Math.floor(Math.random() * 1e6)}`;
    runner.start({ command: `sleep ${secs}`, cwd: ws.root, background: true, network: "off" });
    // Running once the sandbox has started it (seconds under load, not a fixed 300 ms).
    for (let i = 0; i < 200 && pidsOf(["sleep", secs]).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(pidsOf(["sleep", secs])).toHaveLength(1);
    await runner.killAll();
    expect(pidsOf(["sleep", secs])).toEqual([]);
    expect(runner.list()[0]!.result?.cancelled).toBe(true);
  });

  it.skipIf(!!unusable)("runs on a pseudo-terminal: isatty is true, raw colours reach onData, the model gets plain text", async () => {
    runner = make({ pty: true });
    expect(runner.info.pty).toBe(true);
    const cmd = runner.start({ command: `test -t 1 && echo tty; printf '\\033[31mred\\033[0m\\n'`, cwd: ws.root, background: false, network: "off" });
    let raw = "";
    cmd.onData((c) => (raw += c));
    await cmd.wait();
    expect(cmd.mode).toBe("pty");
    expect(raw).toContain("\x1b[31mred\x1b[0m");
    expect(cmd.bounded().head).toEqual(["tty", "red"]);
    expect(readFileSync(cmd.logPath, "utf8")).toContain("\x1b[31mred");
  });

  it.skipIf(!!unusable)("delivers SIGINT to the command's processes on interrupt()", async () => {
    runner = make();
    const cmd = runner.start({ command: `trap 'echo got-int; exit 130' INT; echo ready; sleep 30 & wait`, cwd: ws.root, background: true, network: "off" });
    for (let i = 0; i < 50 && cmd.bounded().totalLines === 0; i++) await new Promise((r) => setTimeout(r, 20));
    cmd.interrupt();
    const result = await cmd.wait();
    expect(result.exitCode).toBe(130);
    expect([...cmd.bounded().head, ...cmd.bounded().tail]).toEqual(["ready", "got-int"]);
  });

  it.skipIf(!!unusable)("captures every byte of a fast command's output on a pseudo-terminal", async () => {
    runner = make({ pty: true });
    for (let i = 0; i < 15; i++) {
      const cmd = runner.start({ command: `head -c 300000 /dev/zero | tr '\\0' a; echo; echo END`, cwd: ws.root, background: false, network: "off" });
      await cmd.wait();
      const seen = cmd.bounded();
      expect([...seen.head, ...seen.tail].at(-1)).toBe("END");
      expect(readFileSync(cmd.logPath, "utf8").replace(/\r/g, "")).toBe("a".repeat(300_000) + "\nEND\n");
    }
  });
});

describe("missing backends", () => {
  let savedPath: string | undefined;
  const ws = { root: "" };
  beforeAll(() => {
    ws.root = mkdtempSync(join(tmpdir(), "yoke-ws-"));
    savedPath = process.env.PATH;
  });
  afterEach(() => {
    process.env.PATH = savedPath;
  });
  afterAll(() => rmSync(ws.root, { recursive: true, force: true }));

  it("says what to install when bwrap is missing, and never falls back to no sandbox", () => {
    const empty = mkdtempSync(join(tmpdir(), "yoke-empty-path-"));
    process.env.PATH = empty;
    expect(() => createSandbox("bwrap", { workspace: ws.root })).toThrow(
      "The bwrap sandbox is not available: bubblewrap is not installed. Install it (Debian/Ubuntu: sudo apt-get install bubblewrap; " +
        "Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or choose another backend.",
    );
    expect(() => createSandbox("auto", { workspace: ws.root })).toThrow(
      /^No sandbox is available for commands, so none will run\. Install bubblewrap \(Debian\/Ubuntu: sudo apt-get install bubblewrap\), or choose "none" explicitly/,
    );
    rmSync(empty, { recursive: true });
  });

  it("says no Docker engine is running when only the client exists", () => {
    if (!existsSync("/usr/local/bin/docker") && !existsSync("/usr/bin/docker")) {
      expect(() => createSandbox("docker", { workspace: ws.root })).toThrow(/the docker command is not installed/);
      return;
    }
    expect(() => createSandbox("docker", { workspace: ws.root })).toThrow(/no Docker engine is running or reachable/);
  });

  it("runs without a sandbox only when none is chosen, with a warning for the UI", () => {
    const r = createNodeCommandRunner({ workspace: ws.root, logDir: join(ws.root, "logs"), sandbox: createSandbox("none", { workspace: ws.root }) });
    expect(r.info.sandbox).toBe("none");
    expect(r.info.warning).toBe("Sandbox off: commands run with your full user rights — they can read your home folder and secrets, write anywhere you can, and use the network.");
    void r.dispose();
  });
});

describe("createSessionCommandRunner", () => {
  it("applies the sandbox settings and logs into the session folder", async () => {
    const ws = createTempWorkspace();
    const sessionDir = mkdtempSync(join(tmpdir(), "yoke-sessions-"));
    const runner = createSessionCommandRunner({
      workspace: ws.root,
      sessionDir,
      sessionId: "s1",
      settings: { backend: "bwrap", networkCommands: ["npm install"], timeoutS: 30, maxTimeoutS: 90, pty: false },
    });
    try {
      expect(runner.info).toEqual({
        sandbox: "bwrap",
        networkToggle: true,
        network: "off",
        networkCommands: ["npm install"],
        defaultTimeoutMs: 30_000,
        maxTimeoutMs: 90_000,
        pty: false,
      });
      const cmd = runner.start({ command: "echo logged", cwd: ws.root, background: false, network: "off" });
      await cmd.wait();
      expect(cmd.logPath).toBe(join(sessionDir, "s1.commands", "c1.log"));
      expect(readFileSync(cmd.logPath, "utf8")).toBe("logged\n");
    } finally {
      await runner.dispose();
      ws.cleanup();
      rmSync(sessionDir, { recursive: true, force: true });
    }
  });

  it("refuses to create a runner when the chosen backend is missing", () => {
    expect(() => createSessionCommandRunner({ workspace: tmpdir(), sessionDir: tmpdir(), sessionId: "s2", settings: { backend: "docker" } })).toThrow(SandboxUnavailableError);
  });
});

describe("yoke sandbox exec", () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), "yoke-cli-ws-"));
    mkdirSync(join(dir, "sub"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("streams the output and exits with the command's status", async () => {
    const r = await runCli(["sandbox", "exec", "--cwd", dir, "--", "echo out; echo err >&2; exit 7"]);
    expect(r.stdout).toBe("out\nerr\n");
    expect(r.code).toBe(7);
  });

  it("quotes several arguments as an argument vector", async () => {
    const r = await runCli(["sandbox", "exec", "--cwd", dir, "--", "printf", "[%s]\\n", "a b", "$HOME"]);
    expect(r.stdout).toBe("[a b]\n[$HOME]\n");
    expect(r.code).toBe(0);
  });

  it("exits 124 on timeout, like coreutils timeout", async () => {
    const r = await runCli(["sandbox", "exec", "--cwd", dir, "--timeout", "0.5", "--", "sleep 30"]);
    expect(r.code).toBe(124);
    expect(r.stderr).toContain("yoke sandbox: killed after 1 s (timeout)");
  });

  it("prints one JSON document with --json", async () => {
    const r = await runCli(["sandbox", "exec", "--json", "--backend", "bwrap", "--cwd", dir, "--", "echo hi; exit 3"]);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ ok: true, backend: "bwrap", network: "off", exitCode: 3, exitStatus: 3, timedOut: false, output: "hi" });
    expect(r.code).toBe(3);
    rmSync(join(doc.logPath, ".."), { recursive: true, force: true });
  });

  it("exits 1 when the backend is unavailable and 2 on bad usage", async () => {
    const docker = await runCli(["sandbox", "exec", "--backend", "docker", "--cwd", dir, "--", "true"]);
    expect(docker.code).toBe(1);
    expect(docker.stderr).toMatch(/^yoke sandbox: The docker sandbox is not available/);
    const bad = await runCli(["sandbox", "exec", "--network", "maybe", "--", "true"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('yoke sandbox: --network must be "off" or "on"; got "maybe"\n');
    const none = await runCli(["sandbox", "exec"]);
    expect(none.code).toBe(2);
  });
});
