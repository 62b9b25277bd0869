// MCP through the real CLI: a real stdio server from the npm registry
// (@modelcontextprotocol/server-everything) and HTTP servers built on the SDK's own server
// classes, called by a scripted model through `yoke run`, gated by the permission rules; no
// server process left afterwards; orphans of a killed CLI reaped by the next start.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { startRecordingMcpServer } from "../support/mcp-http-server";
import { pidsOf } from "../support/processes";
import { scriptedRunArgs } from "../support/scripted-run";
import { EVERYTHING, everythingArgv } from "../support/mcp-fixtures";
import { createWorkspaceWithHome } from "../support/workspace";

const STUBBORN = join(__dirname, "../support/mcp-stubborn-server.cjs");

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** A workspace and a HOME of its own (so ~/.yoke approvals and caches are the test's). */
function workspace(files: Record<string, string>): { cwd: string; home: string } {
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-", files, temps);
  return { cwd, home };
}

function everythingServer(argv: string[]) {
  return { command: argv[0], args: argv.slice(1) };
}

async function run(cwd: string, home: string, script: ScriptedTurn[], extra: string[] = []) {
  const llm = await startScriptedLlmServer({ script });
  try {
    const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), ...extra, "use the tool"], {
      env: { HOME: home },
    });
    return { ...r, requests: llm.requests };
  } finally {
    await llm.close();
  }
}

type Msg = { role: string; content?: unknown; tool_call_id?: string };
function toolResults(requests: { body: Record<string, unknown> }[]): string[] {
  const last = requests[requests.length - 1]!.body.messages as Msg[];
  return last.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}
function toolNames(req: { body: Record<string, unknown> }): string[] {
  return ((req.body.tools as { function: { name: string } }[]) ?? []).map((t) => t.function.name);
}

describe("a stdio MCP server from the npm registry, through yoke run and the permission gate", () => {
  it("an allow rule mcp__everything__echo: the model calls the tool and sees its result; no server process is left", async () => {
    const argv = everythingArgv("allow");
    const { cwd, home } = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv) }, permissions: { allow: ["mcp__everything__echo"] } }),
    });
    const r = await run(cwd, home, [{ toolCalls: [{ name: "mcp__everything__echo", input: { message: "hello from the model" } }] }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(toolNames(r.requests[0]!)).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum"]));
    expect(toolResults(r.requests)).toEqual(["Echo: hello from the model"]);
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);

  it("no rule: the call asks; with no one to ask it is refused and the model is told", async () => {
    const argv = everythingArgv("ask");
    const { cwd, home } = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv) } }) });
    const r = await run(cwd, home, [{ toolCalls: [{ name: "mcp__everything__echo", input: { message: "x" } }] }, { text: "ok" }]);
    expect(r.code, r.stderr).toBe(0);
    const [result] = toolResults(r.requests);
    expect(result).toContain("no one to ask");
    expect(result).not.toContain("Echo:");
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);

  it("a deny rule mcp__everything (the whole server) wins over an allow of one tool", async () => {
    const argv = everythingArgv("deny");
    const { cwd, home } = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv) }, permissions: { allow: ["mcp__everything__echo"], deny: ["mcp__everything"] } }),
    });
    const r = await run(cwd, home, [{ toolCalls: [{ name: "mcp__everything__echo", input: { message: "x" } }] }, { text: "ok" }]);
    expect(r.code, r.stderr).toBe(0);
    const [result] = toolResults(r.requests);
    expect(result).toMatch(/denied|deny/i);
    expect(result).toContain("mcp__everything");
    expect(result).not.toContain("Echo:");
  }, 90_000);
});

describe("HTTP MCP servers (the SDK's own server classes)", () => {
  it("streamable HTTP: an allowed call reaches the server with the configured header; a denied one never does", async () => {
    const mcp = await startRecordingMcpServer("streamable");
    try {
      const { cwd, home } = workspace({
        ".mcp.json": JSON.stringify({ mcpServers: { "rec.db": { type: "http", url: mcp.url, headers: { Authorization: "Bearer ${REC_TOKEN}" } } } }),
        "~/.claude/settings.json": JSON.stringify({ enabledMcpjsonServers: ["rec.db"] }),
        "~/.yoke/settings.json": JSON.stringify({ permissions: { allow: ["mcp__rec_db__add"], deny: ["mcp__rec_db__delete_everything"] } }),
      });
      const llm = await startScriptedLlmServer({
        script: [
          {
            toolCalls: [
              { name: "mcp__rec_db__delete_everything", input: { confirm: true } },
              { name: "mcp__rec_db__add", input: { a: 2, b: "3" } },
            ],
          },
          { text: "done" },
        ],
      });
      try {
        const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "s")), "go"], {
          env: { HOME: home, REC_TOKEN: "s3cret" },
        });
        expect(r.code, r.stderr).toBe(0);
        const results = toolResults(llm.requests);
        expect(results[0]).toMatch(/denied/i);
        expect(results[1]).toBe("sum=5");
      } finally {
        await llm.close();
      }
      expect(mcp.calls.map((c) => c.tool)).toEqual(["add"]);
      expect(mcp.calls[0]!.headers.authorization).toBe("Bearer s3cret");
    } finally {
      await mcp.close();
    }
  }, 90_000);

  it("an older HTTP+SSE server: a `type: http` entry falls back to SSE", async () => {
    const mcp = await startRecordingMcpServer("sse");
    try {
      const { cwd, home } = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { legacy: { url: mcp.url } }, permissions: { allow: ["mcp__legacy"] } }) });
      const r = await run(cwd, home, [{ toolCalls: [{ name: "mcp__legacy__add", input: { a: 1, b: 1 } }] }, { text: "ok" }]);
      expect(r.code, r.stderr).toBe(0);
      expect(toolResults(r.requests)).toEqual(["sum=2"]);
      expect(mcp.calls).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  }, 90_000);
});

describe("yoke mcp list", () => {
  it("lists servers, source, state and tools as JSON; a bad entry is a problem of that server only", async () => {
    const argv = everythingArgv("list");
    const { cwd, home } = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv), broken: { type: "stdio", url: "http://x" } } }),
      ".mcp.json": JSON.stringify({ mcpServers: { repo: { command: "node", args: ["-e", "1"] } } }),
    });
    const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env: { HOME: home } });
    expect(r.code).toBe(1); // a configuration problem
    const out = JSON.parse(r.stdout) as { servers: { name: string; state: string; source: string; tools: { name: string }[] }[]; problems: { server: string; message: string }[] };
    const everything = out.servers.find((s) => s.name === "everything")!;
    expect(everything.state).toBe("running");
    expect(everything.source).toBe(join(home, ".yoke", "settings.json"));
    expect(everything.tools.map((t) => t.name)).toContain("mcp__everything__echo");
    const repo = out.servers.find((s) => s.name === "repo")!;
    expect(repo.state).toBe("not_approved");
    expect(out.problems).toEqual([expect.objectContaining({ server: "broken", message: expect.stringContaining('"type": "stdio" needs a "command"') })]);
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);
});

describe("deferred tools behind mcp_search", () => {
  it("beyond the budget, tools are not listed but the model finds one with mcp_search and calls it", async () => {
    const servers: Record<string, unknown> = {};
    for (const n of ["e1", "e2", "e3", "e4"]) servers[n] = everythingServer(everythingArgv(`defer-${n}`));
    const { cwd, home } = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: servers, permissions: { allow: ["mcp__e4"] } }) });
    // 4 × 13 tools: the default budget (40 listed) defers the last of them, mcp__e4__get-sum among them.
    const r = await run(cwd, home, [{ toolCalls: [{ name: "mcp_search", input: { query: "e4 sum" } }] }, { toolCalls: [{ name: "mcp__e4__get-sum", input: { a: 2, b: 3 } }] }, { text: "ok" }]);
    expect(r.code, r.stderr).toBe(0);
    const listed = toolNames(r.requests[0]!);
    expect(listed).toContain("mcp_search");
    expect(listed).toContain("mcp__e1__echo");
    expect(listed).not.toContain("mcp__e4__get-sum");
    const search = (r.requests[0]!.body.tools as { function: { name: string; description: string } }[]).find((t) => t.function.name === "mcp_search")!;
    expect(search.function.description).toMatch(/e4 \(\d+ tools\)/);
    const results = toolResults(r.requests);
    expect(results[0]).toContain("mcp__e4__get-sum");
    expect(results[0]).toContain('"a"');
    expect(results[1]).toContain("5");
    // The listed tool set is the same in every request (the cached prefix).
    expect(toolNames(r.requests[2]!)).toEqual(listed);
  }, 120_000);

  it("--tools keeps mcp_search and one deferred tool: mcp_search describes and finds only that tool, which stays behind it; the dropped ones are unknown", async () => {
    const servers: Record<string, unknown> = {};
    for (const n of ["e1", "e2", "e3", "e4"]) servers[n] = everythingServer(everythingArgv(`trim-${n}`));
    const { cwd, home } = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: servers, permissions: { allow: ["mcp__e4", "mcp__e1"] } }) });
    const r = await run(
      cwd,
      home,
      [
        { toolCalls: [{ name: "mcp_search", input: { query: "" } }] },
        { toolCalls: [{ name: "mcp__e4__get-sum", input: { a: 2, b: 3 } }] },
        { toolCalls: [{ name: "mcp__e4__echo", input: { message: "dropped" } }] },
        { text: "ok" },
      ],
      ["--tools", "mcp__e1__echo,mcp_search,mcp__e4__get-sum"],
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(4);
    for (const q of r.requests) {
      // get-sum is deferred and named with mcp_search: it stays behind the search (not listed whole).
      expect(toolNames(q)).toEqual(["mcp__e1__echo", "mcp_search"]);
      const search = (q.body.tools as { function: { name: string; description: string } }[]).find((t) => t.function.name === "mcp_search")!;
      expect(search.function.description.startsWith("Finds MCP tools that are available but not listed here (1 tool from: e4 (1 tool)).")).toBe(true);
    }
    const results = toolResults(r.requests);
    expect(results[0]!.startsWith("1 tool found; call one by its exact name:\n\nmcp__e4__get-sum\n")).toBe(true);
    expect(results[0]).not.toContain("mcp__e4__echo");
    expect(results[1]).toContain("5");
    expect(results[2]).toBe('Unknown tool "mcp__e4__echo". Available tools: mcp__e1__echo, mcp__e4__get-sum, mcp_search. Call one of these by its exact name.');
  }, 120_000);

  it("--tools keeps mcp_search but none of the deferred tools: refused before any request, saying why", async () => {
    const servers: Record<string, unknown> = {};
    for (const n of ["e1", "e2", "e3", "e4"]) servers[n] = everythingServer(everythingArgv(`trim0-${n}`));
    const { cwd, home } = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: servers }) });
    const r = await run(cwd, home, [{ text: "never" }], ["--tools", "mcp__e1__echo,mcp_search"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"mcp_search": the tools kept include none of those it describes');
    expect(r.requests).toHaveLength(0);
  }, 120_000);
});

describe("orphans of a killed Yoke process", () => {
  it("a server left by a CLI killed with SIGKILL is stopped at the next start; an unrelated process is not", async () => {
    const tag = `--yoke-test=orphan-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const argv = [process.execPath, STUBBORN, tag];
    const grandchild = [process.execPath, EVERYTHING, "stdio", tag];
    const { cwd, home } = workspace({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv) } }) });
    const llm = await startScriptedLlmServer({ script: [{ hang: true }] });
    let orphan: number | undefined;
    try {
      const cli = startCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "s")), "go"], {
        env: { HOME: home },
      });
      // The model request hangs, so the session is past setup: the server runs.
      for (let i = 0; i < 300 && llm.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(pidsOf(argv)).toHaveLength(1);
      orphan = pidsOf(argv)[0];
      cli.kill("SIGKILL");
      await cli.result;
      await new Promise((r) => setTimeout(r, 300));
      expect(pidsOf(argv)).toEqual([orphan]); // survived its parent (its own process group)
      expect(pidsOf(grandchild)).toHaveLength(1);
    } finally {
      await llm.close();
    }
    // A registry entry whose pid now belongs to another process (other start time): left alone.
    const { spawn } = await import("node:child_process");
    const bystander = spawn("sleep", ["30"], { stdio: "ignore" });
    const registryFile = join(home, ".yoke", "mcp-processes.json");
    const registry = JSON.parse(readFileSync(registryFile, "utf8")) as {
      entries: { child: { pid: number; start: string; cmdline: string }; owner: { pid: number; start: string; cmdline: string }; server: string }[];
    };
    registry.entries.push({ server: "ghost", child: { pid: bystander.pid!, start: "1", cmdline: "sleep 30" }, owner: { pid: 999_999, start: "1", cmdline: "gone" } });
    writeFileSync(registryFile, JSON.stringify(registry));
    try {
      const r = await runCli(["mcp", "list", "--cwd", cwd, "--json"], { env: { HOME: home } });
      expect(r.code, r.stderr).toBe(0);
      for (let i = 0; i < 40 && pidsOf(argv).includes(orphan!); i++) await new Promise((r) => setTimeout(r, 100));
      expect(pidsOf(argv)).toEqual([]);
      for (let i = 0; i < 40 && pidsOf(grandchild).length; i++) await new Promise((r) => setTimeout(r, 100));
      expect(pidsOf(grandchild)).toEqual([]); // the whole process group
      expect(bystander.exitCode).toBeNull();
      expect(bystander.signalCode).toBeNull();
    } finally {
      bystander.kill();
    }
  }, 120_000);
});

describe("MCP resources through yoke run: list, templates, read, and a resource link a tool returned", () => {
  it("lists the server's resources and templates, reads a static and a templated one, and describes binary content", async () => {
    const argv = everythingArgv("resources");
    const { cwd, home } = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv) }, permissions: { allow: ["ListMcpResourcesTool", "ReadMcpResourceTool"] } }),
    });
    const r = await run(cwd, home, [
      { toolCalls: [{ name: "list_mcp_resources", input: {} }] },
      { toolCalls: [{ name: "read_mcp_resource", input: { server: "everything", uri: "demo://resource/dynamic/text/7" } }] },
      { toolCalls: [{ name: "read_mcp_resource", input: { server: "everything", uri: "demo://resource/dynamic/blob/3" } }] },
      { toolCalls: [{ name: "read_mcp_resource", input: { server: "nowhere", uri: "x://y" } }] },
      { text: "done" },
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(toolNames(r.requests[0]!)).toEqual(expect.arrayContaining(["list_mcp_resources", "read_mcp_resource"]));
    const [listed, text, blob, unknown] = toolResults(r.requests);
    expect(listed).toMatch(/^Server "everything": \d+ resources?, \d+ templates?/);
    expect(listed).toContain("demo://resource/dynamic/text/{resourceId}");
    expect(text).toMatch(/^Resource 7: This is a plaintext resource created at /);
    expect(blob).toMatch(/demo:\/\/resource\/dynamic\/blob\/3 \(text\/plain\): binary content, \d+ bytes, not shown to the model/);
    expect(unknown).toContain('There is no MCP server "nowhere" in this session. Servers: "everything".');
    expect(pidsOf(argv)).toEqual([]);
  }, 120_000);

  it("asks before reading a resource when no rule allows it (refused with no one to ask), and a deny rule on the tool holds", async () => {
    const argv = everythingArgv("resources-deny");
    const { cwd, home } = workspace({
      "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: everythingServer(argv) }, permissions: { deny: ["ListMcpResourcesTool"] } }),
    });
    const r = await run(cwd, home, [
      { toolCalls: [{ name: "read_mcp_resource", input: { server: "everything", uri: "demo://resource/dynamic/text/1" } }] },
      { toolCalls: [{ name: "list_mcp_resources", input: {} }] },
      { text: "done" },
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [read, list] = toolResults(r.requests);
    expect(read).toContain("no one to ask");
    expect(read).not.toContain("plaintext resource");
    expect(list).toMatch(/denied/i);
    expect(list).not.toContain("demo://");
  }, 120_000);
});
