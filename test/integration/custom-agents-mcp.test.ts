// A custom agent's own MCP servers (`mcpServers` in Claude Code's sub-agent frontmatter: a list of
// configured servers' names and `{name: definition}` objects) through full `yoke run` sessions
// with the scripted model and a real MCP server from the npm registry
// (@modelcontextprotocol/server-everything). An inline server is the agent's only: its tools are
// offered to the agent's requests and never to the parent's, and it is stopped when the agent
// ends. A repository agent's server follows the approval rules of the workspace's .mcp.json
// servers: not started until the user approves that definition (`yoke mcp approve NAME`); the
// user's own agent's server is the user's and needs no approval.
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

type Json = Record<string, unknown>;
const system = (r: RecordedRequest) => String(((r.body.messages as Json[])[0] as { content?: unknown }).content ?? "");
const depthOf = (r: RecordedRequest) => Number(/You are a sub-agent \(depth (\d+)\)/.exec(system(r))?.[1] ?? 0);
const toolNames = (r: RecordedRequest) => ((r.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);
const toolResults = (r: RecordedRequest) => (r.body.messages as Json[]).filter((m) => m.role === "tool").map((m) => String(m.content));

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[depthOf(r)]?.shift() ?? { text: "(no more turns)" };
}

const argv = (tag: string) => [process.execPath, EVERYTHING, "stdio", `--yoke-test=${tag}-${process.pid}-${Math.random().toString(36).slice(2)}`];

/** An agent whose frontmatter defines one server inline (YAML flow style for the argument list). */
function echoAgent(name: string, serverName: string, cmd: string[], tools = `Read, mcp__${serverName}`) {
  return [
    "---",
    `name: ${name}`,
    "description: Echoes messages through its own server",
    `tools: ${tools}`,
    "mcpServers:",
    `  - ${serverName}:`,
    `      command: ${JSON.stringify(cmd[0])}`,
    `      args: ${JSON.stringify(cmd.slice(1))}`,
    "---",
    "You echo messages with your server's echo tool.",
    "",
  ].join("\n");
}

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-mcp-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  write(join(ws, "README.md"), "# app\n");
  // The user allows the servers' tools, so a call is decided by whether the tool exists at all.
  write(join(home, ".yoke", "settings.json"), JSON.stringify({ permissions: { allow: ["mcp__agentsrv", "mcp__reposrv"] } }));
  return { ws, home, sessions: join(dir, "sessions"), env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") } };
}

const run = (s: ReturnType<typeof setup>, url: string) =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "echo it"], { env: s.env });

const delegate = (agent: string, tool: string) =>
  byDepth({
    0: [{ toolCalls: [{ name: "task", input: { description: "Echo", prompt: "Echo 'from the agent'.", subagent_type: agent } }] }, { text: "Done." }],
    1: [{ toolCalls: [{ name: tool, input: { message: "from the agent" } }] }, { text: "Echoed." }],
  });

describe("a custom agent's own MCP servers", () => {
  it("the user's agent's inline server: its tools reach the agent's requests only, its call runs, and the server is stopped when the agent ends", async () => {
    const s = setup();
    const cmd = argv("user-agent");
    write(join(s.home, ".claude", "agents", "echoer.md"), echoAgent("echoer", "agentsrv", cmd));
    server = await startScriptedLlmServer({ script: delegate("echoer", "mcp__agentsrv__echo") });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(toolNames(child[0]!)).toEqual(expect.arrayContaining(["read_file", "mcp__agentsrv__echo"]));
    expect(toolNames(child[0]!)).not.toContain("run_command");
    expect(toolResults(child[1]!)).toEqual(["Echo: from the agent"]);
    for (const q of server.requests.filter((x) => depthOf(x) === 0)) expect(toolNames(q).filter((n) => n.startsWith("mcp__agentsrv"))).toEqual([]);
    expect(pidsOf(cmd)).toEqual([]);
  }, 120_000);

  it("a repository agent's inline server is not started until the user approves it (yoke mcp approve NAME); then it runs for the agent", async () => {
    const s = setup();
    const cmd = argv("repo-agent");
    write(join(s.ws, ".claude", "agents", "repo-echoer.md"), echoAgent("repo-echoer", "reposrv", cmd));
    server = await startScriptedLlmServer({ script: delegate("repo-echoer", "mcp__reposrv__echo") });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    let child = server.requests.filter((q) => depthOf(q) === 1);
    // Not approved: no tool of it reached the agent's model, its call was refused as unknown, it never ran.
    expect(toolNames(child[0]!).filter((n) => n.startsWith("mcp__reposrv"))).toEqual([]);
    expect(toolResults(child[1]!).join("\n")).not.toContain("Echo:");
    expect(r.stderr).toContain("yoke mcp approve reposrv");

    // `yoke mcp list` shows the agents' servers with their agent and approval, with no session running and nothing started.
    const userCmd = argv("listed-user-agent");
    write(join(s.home, ".claude", "agents", "mine.md"), echoAgent("mine", "minesrv", userCmd));
    const listAgents = async () => {
      const l = await runCli(["mcp", "list", "--cwd", s.ws, "--json"], { env: s.env });
      return (JSON.parse(l.stdout) as { agents: Array<{ agent: string; source: string; servers: Array<{ name: string; state: string; definition: string }> }> }).agents;
    };
    expect((await listAgents()).sort((x, y) => x.agent.localeCompare(y.agent))).toEqual([
      { agent: "mine", source: expect.stringContaining("mine.md"), servers: [expect.objectContaining({ name: "minesrv", state: "own" })], problems: [] },
      {
        agent: "repo-echoer",
        source: ".claude/agents/repo-echoer.md",
        servers: [expect.objectContaining({ name: "reposrv", state: "not_approved", definition: expect.stringContaining(cmd[3]!) })],
        problems: [],
      },
    ]);
    const text = await runCli(["mcp", "list", "--cwd", s.ws], { env: s.env });
    expect(text.stdout).toContain("agent repo-echoer (.claude/agents/repo-echoer.md): its own servers, started while it runs\n  reposrv  not_approved\n");
    expect(text.stdout).toContain("    approve: yoke mcp approve reposrv   deny: yoke mcp approve reposrv --deny\n");
    expect(pidsOf(cmd)).toEqual([]);
    expect(pidsOf(userCmd)).toEqual([]);

    const a = await runCli(["mcp", "approve", "reposrv", "--cwd", s.ws], { env: s.env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout).toContain('Approved the MCP server "reposrv"');
    expect((await listAgents()).find((x) => x.agent === "repo-echoer")!.servers[0]!.state).toBe("approved");

    await server.close();
    server = await startScriptedLlmServer({ script: delegate("repo-echoer", "mcp__reposrv__echo") });
    const again = await run(s, server.openaiBaseUrl);
    expect(again.code, again.stderr).toBe(0);
    child = server.requests.filter((q) => depthOf(q) === 1);
    expect(toolNames(child[0]!)).toContain("mcp__reposrv__echo");
    expect(toolResults(child[1]!)).toEqual(["Echo: from the agent"]);
    expect(pidsOf(cmd)).toEqual([]);
  }, 180_000);

  it("its own server's tools obey its tools list: a list that does not name them keeps them from the agent, and the server's other tools stay out when it names one", async () => {
    const s = setup();
    const cmd = argv("allow-list");
    write(join(s.home, ".claude", "agents", "narrow.md"), echoAgent("narrow", "agentsrv", cmd, "Read"));
    write(join(s.home, ".claude", "agents", "one.md"), echoAgent("one", "agentsrv", cmd, "Read, mcp__agentsrv__echo"));
    server = await startScriptedLlmServer({ script: delegate("narrow", "mcp__agentsrv__echo") });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    let child = server.requests.filter((q) => depthOf(q) === 1);
    expect(toolNames(child[0]!).filter((n) => n.startsWith("mcp__"))).toEqual([]);
    expect(toolResults(child[1]!).join("\n")).not.toContain("Echo:");

    await server.close();
    server = await startScriptedLlmServer({ script: delegate("one", "mcp__agentsrv__echo") });
    const again = await run(s, server.openaiBaseUrl);
    expect(again.code, again.stderr).toBe(0);
    child = server.requests.filter((q) => depthOf(q) === 1);
    // server-everything offers many tools: only the one the list names reaches the agent.
    expect(toolNames(child[0]!).filter((n) => n.startsWith("mcp__"))).toEqual(["mcp__agentsrv__echo"]);
    expect(toolResults(child[1]!)).toEqual(["Echo: from the agent"]);
    expect(pidsOf(cmd)).toEqual([]);
  }, 180_000);
});
