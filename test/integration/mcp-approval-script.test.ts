// A workspace MCP server's approval covers the workspace files its command line names
// (`node server.cjs`): the person approved the script as it was. Before, only the command line was
// approved, so a script rewritten after the approval (by the agent, by a pull) ran at the next
// start on the host, outside any sandbox (red team Y, session 21). Real CLI, real stdio server.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { McpServerConfig } from "../../src/core/mcp/config";
import { namedWorkspaceFiles } from "../../src/node/mcp/approvals";
import { ensureBuilt, repoRoot, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

type Row = { name: string; state: string; detail?: string };

describe("a workspace MCP server's approval covers the scripts its command line names", () => {
  it("a rewritten script is not started until approved again; other workspace files and user servers are untouched", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcp-script-"));
    temps.push(base);
    const cwd = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(join(cwd, "tools"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const marker = join(base, "planted-ran");
    const probe = join(repoRoot, "test/support/mcp-probe-server.cjs");
    writeFileSync(join(cwd, "tools", "server.cjs"), `require(${JSON.stringify(probe)});\n`);
    writeFileSync(join(cwd, "README.md"), "notes\n");
    mkdirSync(join(cwd, "data"));
    writeFileSync(join(cwd, "data", "state.sqlite"), "SQLite format 3\0");
    writeFileSync(join(cwd, "data", "memory.json"), "{}\n");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ permissions: { allow: ["mcp__local"] } }));
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: { local: { command: "node", args: ["tools/server.cjs", `approval-script-${process.pid}`, "--db=./data/state.sqlite"], env: { MEMORY_FILE_PATH: "./data/memory.json" } } },
      }),
    );
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const list = async (): Promise<Row> => {
      const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { servers: Row[] }).servers.find((s) => s.name === "local")!;
    };

    // What the model got back from one call of the server's tool in a real `yoke run`.
    let round = 0;
    const call = async (): Promise<string> => {
      const llm = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "mcp__local__lines", input: { n: 1 } }] }, { text: "done" }] });
      try {
        const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, `sessions-${round++}`)), "use the tool"], { env });
        expect(r.code, r.stderr).toBe(0);
        const last = llm.requests[llm.requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
        return String(last.find((m) => m.role === "tool")?.content ?? "");
      } finally {
        await llm.close();
      }
    };

    expect((await list()).state).toBe("not_approved");
    const approve = await runCli(["mcp", "approve", "local", "--cwd", cwd], { env });
    expect(approve.code, approve.stderr).toBe(0);
    expect(await call()).toMatch(/^line 1 of 1:/);
    // A file the command line does not name changes nothing, nor do the data files it names (a
    // server's own database and memory file change at every use: hashing them asked at every start).
    appendFileSync(join(cwd, "README.md"), "more\n");
    appendFileSync(join(cwd, "data", "state.sqlite"), "rows");
    writeFileSync(join(cwd, "data", "memory.json"), '{"entities":[]}\n');
    expect(await call()).toMatch(/^line 1 of 1:/);

    // The script is rewritten after the approval: the new code is not run, and the person is told why.
    writeFileSync(join(cwd, "tools", "server.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nrequire(${JSON.stringify(probe)});\n`);
    const changed = await list();
    expect(changed.state).toBe("not_approved");
    expect(changed.detail).toMatch(/workspace files it runs changed/);
    expect(await call()).not.toMatch(/line 1 of 1/);
    expect(existsSync(marker), "the rewritten script ran before being approved again").toBe(false);

    // Approved again as it is now, it runs.
    expect((await runCli(["mcp", "approve", "local", "--cwd", cwd], { env })).code).toBe(0);
    expect(await call()).toMatch(/^line 1 of 1:/);
    expect(existsSync(marker)).toBe(true);

    // Red team Z: the script rewritten in the session itself, after the start's check and before the
    // server's first use (its tools come from the cache: it starts at the first call), is not started.
    const late = join(base, "late-ran");
    const llm = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "read_file", input: { path: "tools/server.cjs" } }] },
        {
          toolCalls: [{ name: "write_file", input: { path: "tools/server.cjs", content: `require("node:fs").writeFileSync(${JSON.stringify(late)}, "ran");\nrequire(${JSON.stringify(probe)});\n` } }],
        },
        { toolCalls: [{ name: "mcp__local__lines", input: { n: 1 } }] },
        { text: "done" },
      ],
    });
    try {
      const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions-late")), "--permission-mode", "acceptEdits", "use the tool"], { env });
      expect(r.code, r.stderr).toBe(0);
      const last = llm.requests[llm.requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
      const results = last.filter((m) => m.role === "tool").map((m) => String(m.content));
      expect(results[1]).not.toMatch(/refused|error|denied/i);
      expect(results[2]).toMatch(/workspace files it runs changed/);
    } finally {
      await llm.close();
    }
    expect(existsSync(late), "a script rewritten during the session ran at the server's first use").toBe(false);
  }, 120_000);

  // Red team Z: command lines whose script Yoke did not find — the program's own resolution (`node x`
  // runs x.js, `node .` its package.json's main), a `sh -c` string, NODE_OPTIONS in `env`, the install `npx -y PKG` runs. Each
  // rewritten after the approval, a new session does not start it.
  it("scripts named through the program's own resolution, a sh -c string, NODE_OPTIONS or npx's workspace install are approved as they are", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcp-script-"));
    temps.push(base);
    const cwd = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(join(cwd, "tools"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const probe = join(repoRoot, "test/support/mcp-probe-server.cjs");
    const body = (marker?: string) => `${marker ? `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n` : ""}require(${JSON.stringify(probe)});\n`;
    const tag = `approval-script-z-${process.pid}`;
    writeFileSync(join(cwd, "tools", "noext.js"), body());
    writeFileSync(join(cwd, "tools", "main.js"), body());
    writeFileSync(join(cwd, "package.json"), JSON.stringify({ name: "ws", main: "tools/main.js" }));
    writeFileSync(join(cwd, "tools", "plain.cjs"), body());
    writeFileSync(join(cwd, "tools", "pre.cjs"), "\n");
    const servers = {
      shc: { command: "sh", args: ["-c", `exec node tools/noext ${tag}`] },
      dot: { command: "node", args: [".", tag] },
      opts: { command: "node", args: ["tools/plain.cjs", tag], env: { NODE_OPTIONS: "--require ./tools/pre.cjs" } },
      // Approved while npx would fetch the package; npx runs an install in the workspace first.
      npx: { command: "npx", args: ["-y", "--offline", "yoke-z-planted", tag] },
    };
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ permissions: { allow: Object.keys(servers).map((name) => `mcp__${name}`) } }));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    for (const name of Object.keys(servers)) expect((await runCli(["mcp", "approve", name, "--cwd", cwd], { env })).code).toBe(0);
    const states = async () => {
      // (Exit code 1 while a server fails to start: npx's, before its package is there.)
      const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
      return Object.fromEntries((JSON.parse(r.stdout) as { servers: Row[] }).servers.map((s) => [s.name, s.state]));
    };
    // Approved as they are, they start (the files below are what they run).
    expect(await states()).toEqual({ shc: "running", dot: "running", opts: "running", npx: "failed" });

    const markers = { shc: join(base, "shc-ran"), dot: join(base, "dot-ran"), opts: join(base, "opts-ran"), npx: join(base, "npx-ran") };
    const planted = join(cwd, "node_modules", "yoke-z-planted");
    mkdirSync(planted, { recursive: true });
    mkdirSync(join(cwd, "node_modules", ".bin"));
    writeFileSync(join(planted, "package.json"), JSON.stringify({ name: "yoke-z-planted", version: "1.0.0", bin: { "yoke-z-planted": "cli.js" } }));
    writeFileSync(join(planted, "cli.js"), `#!/usr/bin/env node\n${body(markers.npx)}`, { mode: 0o755 });
    symlinkSync("../yoke-z-planted/cli.js", join(cwd, "node_modules", ".bin", "yoke-z-planted"));
    writeFileSync(join(cwd, "tools", "noext.js"), body(markers.shc));
    writeFileSync(join(cwd, "tools", "main.js"), body(markers.dot));
    writeFileSync(join(cwd, "tools", "pre.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(markers.opts)}, "ran");\n`);
    // A session whose model calls a tool of each (their tools are known from the first start): none starts.
    const llm = await startScriptedLlmServer({ script: [{ toolCalls: Object.keys(servers).map((name) => ({ name: `mcp__${name}__lines`, input: { n: 1 } })) }, { text: "done" }] });
    try {
      const run = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "use the tools"], { env });
      expect(run.code, run.stderr).toBe(0);
      const last = llm.requests[llm.requests.length - 1]!.body.messages as { role: string; content?: unknown }[];
      expect(
        last
          .filter((m) => m.role === "tool")
          .map((m) => String(m.content))
          .filter((c) => /line 1 of 1/.test(c)),
      ).toEqual([]);
    } finally {
      await llm.close();
    }
    expect(
      Object.entries(markers)
        .filter(([, marker]) => existsSync(marker))
        .map(([name]) => name),
      "rewritten scripts that ran without a new approval",
    ).toEqual([]);
    expect(await states()).toEqual({ shc: "not_approved", dot: "not_approved", opts: "not_approved", npx: "not_approved" });
    // Approved again as it is now, the planted package is what npx runs (the case is real).
    expect((await runCli(["mcp", "approve", "npx", "--cwd", cwd], { env })).code).toBe(0);
    expect((await states()).npx).toBe("running");
    expect(existsSync(markers.npx)).toBe(true);
  }, 120_000);

  // A data extension does not spare a file the server runs as code (`node server.txt`, `sh run.md`,
  // `NODE_OPTIONS=--require ./hook.log`): each ran rewritten without a new approval (red team F).
  it("a script with a data file's extension is still covered", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcp-datascript-"));
    temps.push(base);
    const cwd = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(join(cwd, "tools"), { recursive: true });
    mkdirSync(home, { recursive: true });
    const probe = join(repoRoot, "test/support/mcp-probe-server.cjs");
    writeFileSync(join(cwd, "tools", "server.txt"), `require(${JSON.stringify(probe)});\n`);
    writeFileSync(join(cwd, "run.md"), `exec node ${JSON.stringify(probe)}\n`);
    writeFileSync(join(cwd, "hook.log"), "\n");
    const servers = {
      txt: { command: "node", args: ["tools/server.txt"] },
      md: { command: "sh", args: ["run.md"] },
      hook: { command: "node", args: [probe], env: { NODE_OPTIONS: "--require ./hook.log" } },
    };
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: servers }));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    for (const name of Object.keys(servers)) expect((await runCli(["mcp", "approve", name, "--cwd", cwd], { env })).code).toBe(0);
    for (const f of ["tools/server.txt", "run.md", "hook.log"]) appendFileSync(join(cwd, f), "\n// rewritten\n");
    const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const states = Object.fromEntries((JSON.parse(r.stdout) as { servers: Row[] }).servers.map((s) => [s.name, s.state]));
    expect(states).toEqual({ txt: "not_approved", md: "not_approved", hook: "not_approved" });
  }, 60_000);
  it("npm run SCRIPT: the package.json script and the files it names are approved as they are; a rewritten script or its file is not run, another package.json change asks nothing", async () => {
    const base = mkdtempSync(join(tmpdir(), "yoke-mcp-script-npm-"));
    temps.push(base);
    const cwd = join(base, "ws");
    const home = join(base, "home");
    mkdirSync(join(cwd, "tools"), { recursive: true });
    mkdirSync(join(home, ".yoke"), { recursive: true });
    const probe = join(repoRoot, "test/support/mcp-probe-server.cjs");
    const marker = join(base, "npm-planted-ran");
    const plant = `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\nrequire(${JSON.stringify(probe)});\n`;
    writeFileSync(join(cwd, "tools", "server.cjs"), `require(${JSON.stringify(probe)});\n`);
    writeFileSync(join(cwd, "tools", "other.cjs"), plant);
    const pkg = (script: string, version = "1.0.0") => JSON.stringify({ name: "ws", version, scripts: { mcp: script } });
    const tag = `approval-npm-${process.pid}`;
    writeFileSync(join(cwd, "package.json"), pkg(`node tools/server.cjs ${tag}`));
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { viaNpm: { command: "npm", args: ["run", "--silent", "mcp"] } } }));
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const state = async (): Promise<Row> => {
      const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env });
      return (JSON.parse(r.stdout) as { servers: Row[] }).servers.find((s) => s.name === "viaNpm")!;
    };
    expect((await runCli(["mcp", "approve", "viaNpm", "--cwd", cwd], { env })).code).toBe(0);
    expect((await state()).state).toBe("running");
    // Another key of package.json (a version, a dependency) is not what runs: still approved.
    writeFileSync(join(cwd, "package.json"), pkg(`node tools/server.cjs ${tag}`, "1.0.1"));
    // ("configured": approved, its tools known from the first start, so `yoke mcp list` does not start it again.)
    expect((await state()).state).toBe("configured");
    // The script is rewritten to run another file: not started, the file not run.
    writeFileSync(join(cwd, "package.json"), pkg(`node tools/other.cjs ${tag}`, "1.0.1"));
    const rewritten = await state();
    expect(rewritten.state).toBe("not_approved");
    expect(rewritten.detail).toMatch(/workspace files it runs changed/);
    // What the approval question lists (src/node/mcp/hub.ts): the script and the file it names.
    const server = { name: "viaNpm", transport: "stdio", command: "npm", args: ["run", "--silent", "mcp"], env: {}, workspace: true } as unknown as McpServerConfig;
    expect(Object.keys(namedWorkspaceFiles(cwd, server)).sort()).toEqual(["package.json (scripts: mcp)", "tools/other.cjs"]);
    // The script as approved, but the file it names rewritten: not started either.
    writeFileSync(join(cwd, "package.json"), pkg(`node tools/server.cjs ${tag}`, "1.0.1"));
    writeFileSync(join(cwd, "tools", "server.cjs"), plant);
    expect((await state()).state).toBe("not_approved");
    expect(existsSync(marker), "the rewritten code ran").toBe(false);
  }, 90_000);
});
