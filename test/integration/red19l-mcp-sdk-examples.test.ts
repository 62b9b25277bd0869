// Red team L (session 19), issue 22's held-out run played before it happens: the MCP SDK's own
// example servers (node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server, the project's
// dependency — nothing new installed), which no other test runs, configured the way users write
// their files, through full `yoke run` sessions with the scripted model:
// - Streamable HTTP (simpleStreamableHttp): tools, notifications during a call, resource links
//   read back with read_mcp_resource, a form elicitation declined in a headless run; and, when the
//   session ends, the server is told so (HTTP DELETE with the session id — the spec's SHOULD): before,
//   Yoke only dropped the connection and the server kept every session (and its McpServer) for good.
// - The server closing its SSE stream mid-call (ssePollingExample, resumability with Last-Event-ID).
// - The old HTTP+SSE transport (`"type": "sse"`, simpleSseServer) from ~/.claude.json's local scope.
// - A server that fails at session start is said in `yoke run`'s output: before, the failure was
//   recorded in the log only (before the CLI listened), and the model got "Unknown tool" while the
//   user saw nothing at all.
// - A Streamable HTTP server restarted while the session runs (its sessions gone: HTTP 404 "Session
//   not found"): a new session is started and the call made again — before, every later call of
//   the session failed.
// - The ACP agent with the editor's servers (`session/new` `mcpServers`): values are literal in ACP;
//   a `${` in a header or an environment value was read as one of Yoke's variables and the server
//   refused (silently: the model got "Unknown tool") — now they reach the server as sent.
// - ~/.claude.json as Claude Code writes it: a server turned off for the project with Claude Code's
//   /mcp "Disable" (`disabledMcpServers` in the project's entry, keyed with a trailing slash) is not
//   started — before, Yoke started it and offered its tools.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { startAcpClient } from "../support/acp-client";
import { ensureBuilt, repoRoot, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const EXAMPLES = join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server");
const PORT_ZERO = join(repoRoot, "test/support/port-zero.cjs");

interface Example {
  proc: ChildProcess;
  port: number;
  /** What it printed so far (stdout and stderr). */
  out: () => string;
}
const examples = new Map<string, Example>();
const temps: string[] = [];

/** Starts an example server on a free port (it listens on a fixed one: port-zero.cjs moves it). */
function startExample(file: string): Promise<Example> {
  const proc = spawn(process.execPath, ["-r", PORT_ZERO, join(EXAMPLES, file)], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not listen: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /PORT_ZERO=(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]), out: () => out });
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`${file} exited (${code}): ${out}`)));
  });
}

beforeAll(async () => {
  ensureBuilt();
  for (const name of ["simpleStreamableHttp", "ssePollingExample", "simpleSseServer"]) examples.set(name, await startExample(`${name}.js`));
}, 120_000);

afterAll(() => {
  for (const e of examples.values()) {
    try {
      process.kill(-e.proc.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const port = (name: string) => examples.get(name)!.port;
type Msg = { role: string; content?: unknown };
const toolTexts = (body: Record<string, unknown>) => (body.messages as Msg[]).filter((m) => m.role === "tool").map((m) => String(m.content));

async function session(files: (cwd: string) => Record<string, string>, script: ScriptedTurn[], env: Record<string, string> = {}) {
  const { cwd, home } = createWorkspaceWithHome("yoke-red19l-", {}, temps, { realpath: true });
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const { dirname } = await import("node:path");
  for (const [rel, text] of Object.entries(files(cwd))) {
    const abs = rel.startsWith("~/") ? join(home, rel.slice(2)) : join(cwd, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
  const llm = await startScriptedLlmServer({ script });
  try {
    const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "go"], { env: { HOME: home, XDG_CONFIG_HOME: undefined, ...env } });
    return { ...r, cwd, home, requests: llm.requests };
  } finally {
    await llm.close();
  }
}

const terminations = (name: string) => examples.get(name)!.out().split("Received session termination request for session").length - 1;

describe("red team L: the MCP SDK's example servers, configured as users write it", () => {
  it("Streamable HTTP from VS Code's user mcp.json (comments, trailing commas, a password input in a header): tools, notifications, resource links read back, elicitation declined headless, resumed SSE stream; the server's session ended with DELETE", async () => {
    const mcpJson = `// MCP: Open User Configuration
{
  "inputs": [
    { "type": "promptString", "id": "demo-key", "description": "Demo key", "password": true },
  ],
  "servers": {
    "demo": {
      "type": "http",
      "url": "http://127.0.0.1:${port("simpleStreamableHttp")}/mcp",
      "headers": { "Authorization": "Bearer \${input:demo-key}" },
    },
    /* the server that closes its stream mid-call */
    "poll": { "type": "http", "url": "http://localhost:${port("ssePollingExample")}/mcp" },
    // "old": { "command": "npx", "args": ["-y", "gone"] },
  },
}
`;
    const before = terminations("simpleStreamableHttp");
    const r = await session(
      () => ({
        "~/.config/Code/User/mcp.json": mcpJson,
        "~/.yoke/settings.json": JSON.stringify({ permissions: { allow: ["mcp__demo", "mcp__poll", "ReadMcpResourceTool"] } }),
      }),
      [
        {
          toolCalls: [
            { name: "mcp__demo__greet", input: { name: "Ada" } },
            { name: "mcp__demo__multi-greet", input: { name: "Bo" } },
            { name: "mcp__demo__list-files", input: {} },
            { name: "mcp__demo__collect-user-info", input: { infoType: "contact" } },
            { name: "mcp__poll__long-task", input: {} },
          ],
        },
        { toolCalls: [{ name: "read_mcp_resource", input: { server: "demo", uri: "file:///example/file1.txt" } }] },
        { text: "done" },
      ],
      { YOKE_MCP_INPUT_DEMO_KEY: "k-123" },
    );
    expect(r.code, r.stderr).toBe(0);
    const [greet, multi, links, info, long] = toolTexts(r.requests[1]!.body);
    expect(greet).toBe("Hello, Ada!");
    expect(multi).toBe("Good morning, Bo!");
    expect(links).toContain('[resource link "Example File 1" file:///example/file1.txt (text/plain): First example file for ResourceLink demonstration — read it with read_mcp_resource]');
    // No one to ask in a headless run: declined, and the server says so.
    expect(info).toBe("No information was collected. User declined contact information request.");
    expect(r.stdout).toContain("MCP server demo asked you for input (elicitation): declined — no one to ask (not an interactive session)");
    // The server closed its SSE stream mid-call; the client reconnected and got the result.
    expect(long).toBe("Long task completed successfully!");
    expect(examples.get("ssePollingExample")!.out()).toContain("Closing SSE stream to trigger client polling");
    expect(toolTexts(r.requests[2]!.body).at(-1)).toBe("This is the content of file 1");
    // The session's end reached the server: DELETE with its session id (before: never sent).
    expect(terminations("simpleStreamableHttp")).toBe(before + 1);
  }, 120_000);

  it("`yoke mcp list` ends the session it opened to list the tools (DELETE)", async () => {
    const before = terminations("simpleStreamableHttp");
    const { cwd, home } = createWorkspaceWithHome(
      "yoke-red19l-list-",
      { "~/.claude.json": JSON.stringify({ mcpServers: { demo: { type: "http", url: `http://127.0.0.1:${port("simpleStreamableHttp")}/mcp` } } }) },
      temps,
      { realpath: true },
    );
    const r = await runCli(["mcp", "list"], { cwd, env: { HOME: home, XDG_CONFIG_HOME: undefined } });
    expect(r.stdout).toContain("mcp__demo__greet");
    expect(terminations("simpleStreamableHttp")).toBe(before + 1);
  }, 60_000);

  it('HTTP+SSE ("type": "sse") from ~/.claude.json\'s local scope works; a server that fails at session start is said in the output, not only in the log', async () => {
    const r = await session(
      (cwd) => ({
        "~/.claude.json": JSON.stringify({
          projects: {
            [cwd]: {
              mcpServers: {
                legacy: { type: "sse", url: `http://127.0.0.1:${port("simpleSseServer")}/mcp` },
                // The example's SSE endpoint is /mcp: /sse answers 404.
                wrongpath: { type: "sse", url: `http://127.0.0.1:${port("simpleSseServer")}/sse` },
              },
            },
          },
        }),
        "~/.yoke/settings.json": JSON.stringify({ permissions: { allow: ["mcp__legacy", "mcp__wrongpath"] } }),
      }),
      [{ toolCalls: [{ name: "mcp__legacy__start-notification-stream", input: { interval: 20, count: 3 } }] }, { text: "done" }],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(toolTexts(r.requests[1]!.body)).toEqual(["Completed sending 3 notifications every 20ms"]);
    expect(r.stdout).toContain("⚠ MCP server wrongpath failed: SSE error: Non-200 status code (404). Its tools are not available.");
    // Said once, before the answer.
    expect(r.stdout.split("MCP server wrongpath failed").length).toBe(2);
    expect(r.stdout.indexOf("MCP server wrongpath failed")).toBeLessThan(r.stdout.indexOf("done"));
  }, 120_000);

  it('~/.claude.json as Claude Code writes it: a server turned off with /mcp "Disable" (disabledMcpServers) is not started, in yoke run and yoke mcp list; the project\'s other servers are', async () => {
    const marker = `red19l-off-${process.pid}-${Date.now()}`;
    const claudeJson = (cwd: string) =>
      JSON.stringify({
        numStartups: 12,
        mcpServers: {
          everything: { type: "stdio", command: process.execPath, args: [EVERYTHING, "stdio", marker], env: {} },
          kept: { type: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"], env: {} },
        },
        projects: {
          [`${cwd}/`]: { allowedTools: [], mcpServers: {}, disabledMcpServers: ["everything"], enabledMcpjsonServers: [], disabledMcpjsonServers: [], hasTrustDialogAccepted: true },
          "/some/other/project": { disabledMcpServers: ["kept"] },
        },
      });
    const running = () =>
      readdirSync("/proc").filter((p) => {
        try {
          return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
    const r = await session(
      (cwd) => ({ "~/.claude.json": claudeJson(cwd), "~/.yoke/settings.json": JSON.stringify({ permissions: { allow: ["mcp__everything", "mcp__kept"] } }) }),
      [
        {
          toolCalls: [
            { name: "mcp__everything__echo", input: { message: "hi" } },
            { name: "mcp__kept__echo", input: { message: "kept" } },
          ],
        },
        { text: "done" },
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    const names = ((r.requests[0]!.body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);
    expect(names).toContain("mcp__kept__echo");
    expect(names.filter((n) => n.startsWith("mcp__everything__"))).toEqual([]);
    const [off, kept] = toolTexts(r.requests[1]!.body);
    expect(off).toContain('Unknown tool "mcp__everything__echo"');
    expect(kept).toBe("Echo: kept");
    expect(running()).toEqual([]);
    const list = await runCli(["mcp", "list", "--json", "--cwd", r.cwd], { env: { HOME: r.home, XDG_CONFIG_HOME: undefined } });
    const rows = (JSON.parse(list.stdout) as { servers: { name: string; state: string; detail?: string }[] }).servers;
    expect(rows.find((x) => x.name === "everything")).toMatchObject({ state: "disabled", detail: expect.stringContaining("disabledMcpServers") });
    // The other server is listed as usual (running, or offered from the tool cache the run wrote).
    expect(rows.find((x) => x.name === "kept")!.state).not.toBe("disabled");
    expect(running()).toEqual([]);
  }, 120_000);

  it("the ACP agent: the editor's servers keep their values as sent — a `${` in a header and in an environment value is not read as a variable", async () => {
    const { cwd, home } = createWorkspaceWithHome("yoke-red19l-acp-", {}, temps, { realpath: true });
    const llm = await startScriptedLlmServer({
      script: [
        {
          toolCalls: [
            { name: "mcp__demo__greet", input: { name: "Zed" } },
            { name: "mcp__env__get-env", input: {} },
          ],
        },
        { text: "done" },
      ],
    });
    const c = startAcpClient(
      ["--trust", "--provider", "openai-compatible", "--base-url", llm.openaiBaseUrl, "--model", "m", "--session-dir", join(home, "sessions"), "--permission-mode", "bypassPermissions"],
      {},
      { cwd, env: { HOME: home, XDG_CONFIG_HOME: undefined } },
    );
    try {
      await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await c.agent.request("session/new", {
        cwd,
        mcpServers: [
          { type: "http", name: "demo", url: `http://127.0.0.1:${port("simpleStreamableHttp")}/mcp`, headers: [{ name: "X-Token", value: "tok${en}" }] },
          { name: "env", command: process.execPath, args: [EVERYTHING, "stdio"], env: [{ name: "DB_PASSWORD", value: "p$w${x}d" }] },
        ],
      });
      expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
      const [greet, env] = toolTexts(llm.requests[1]!.body);
      expect(greet).toBe("Hello, Zed!");
      expect((JSON.parse(env!) as Record<string, string>).DB_PASSWORD).toBe("p$w${x}d");
    } finally {
      await c.close();
      await llm.close();
    }
  }, 120_000);

  it("a Streamable HTTP server restarted mid-session (HTTP 404 to the old session): a new session is started and the calls go on", async () => {
    // A free port the restarted server takes again (simpleStreamableHttp reads MCP_PORT).
    const free = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    let out = "";
    const startOne = () =>
      new Promise<ChildProcess>((resolve, reject) => {
        const proc = spawn(process.execPath, [join(EXAMPLES, "simpleStreamableHttp.js")], {
          cwd: repoRoot,
          env: { ...process.env, MCP_PORT: String(free) },
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
        const onData = (d: Buffer) => {
          out += d.toString();
          if (out.includes(`listening on port ${free}`)) resolve(proc);
        };
        proc.stdout!.on("data", onData);
        proc.stderr!.on("data", onData);
        proc.once("exit", (code) => reject(new Error(`simpleStreamableHttp exited (${code}): ${out}`)));
      });
    let srv = await startOne();
    const stop = (p: ChildProcess) =>
      new Promise<void>((r) => {
        p.removeAllListeners("exit");
        p.once("exit", () => r());
        process.kill(-p.pid!, "SIGKILL");
      });
    try {
      let turn = 0;
      const { cwd, home } = createWorkspaceWithHome(
        "yoke-red19l-restart-",
        {
          "~/.claude.json": JSON.stringify({ mcpServers: { demo: { type: "http", url: `http://127.0.0.1:${free}/mcp` } } }),
          "~/.yoke/settings.json": JSON.stringify({ permissions: { allow: ["mcp__demo"] } }),
        },
        temps,
        { realpath: true },
      );
      const llm = await startScriptedLlmServer({
        script: async () => {
          turn++;
          if (turn === 1) return { toolCalls: [{ name: "mcp__demo__greet", input: { name: "before" } }] };
          if (turn === 2) {
            // The server restarts between the two calls: every session it had is gone.
            await stop(srv);
            out = "";
            srv = await startOne();
            return { toolCalls: [{ name: "mcp__demo__greet", input: { name: "after" } }] };
          }
          if (turn === 3) return { toolCalls: [{ name: "mcp__demo__greet", input: { name: "again" } }] };
          return { text: "done" };
        },
      });
      try {
        const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "go"], { env: { HOME: home, XDG_CONFIG_HOME: undefined } });
        expect(r.code, r.stderr).toBe(0);
        expect(toolTexts(llm.requests[3]!.body)).toEqual(["Hello, before!", "Hello, after!", "Hello, again!"]);
      } finally {
        await llm.close();
      }
    } finally {
      await stop(srv);
    }
  }, 120_000);
});
