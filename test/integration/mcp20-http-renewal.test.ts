// Issue 22, open from session 19: after a Streamable HTTP server restarts (its sessions gone: HTTP
// 404 "Session not found"), a tool call renewed the session, but resources/list, resources/read,
// prompts/list and prompts/get failed once. The SDK's own example server (simpleStreamableHttp),
// killed and started again on the same port before each request; Yoke's MCP hub as sessions use it.
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { repoRoot } from "../support/cli";
import { createWorkspaceWithHome } from "../support/workspace";

const EXAMPLE = join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js");
const temps: string[] = [];
let srv: ChildProcess | undefined;
afterAll(() => {
  if (srv?.pid) process.kill(-srv.pid, "SIGKILL");
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });

function start(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    let out = "";
    const proc = spawn(process.execPath, [EXAMPLE], { cwd: repoRoot, env: { ...process.env, MCP_PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(`listening on port ${port}`)) resolve(proc);
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.once("exit", (code) => reject(new Error(`simpleStreamableHttp exited (${code}): ${out}`)));
  });
}

function stop(p: ChildProcess): Promise<void> {
  return new Promise((r) => {
    p.removeAllListeners("exit");
    p.once("exit", () => r());
    process.kill(-p.pid!, "SIGKILL");
  });
}

it("resources/list, resources/read, prompts/list and prompts/get after a server restart: a new session, the request made once more, the right answer", async () => {
  const port = await freePort();
  srv = await start(port);
  const { cwd, home } = createWorkspaceWithHome(
    "yoke-mcp20-renew-",
    { "~/.yoke/settings.json": JSON.stringify({ mcpServers: { demo: { type: "http", url: `http://127.0.0.1:${port}/mcp` } } }) },
    temps,
  );
  const notes: string[] = [];
  const mcp = createNodeMcp({ cwd, home, trusted: true, env: { PATH: process.env.PATH, HOME: home }, log: (m) => notes.push(m) });
  const signal = new AbortController().signal;
  const restart = async () => {
    await stop(srv!);
    srv = await start(port);
  };
  const renewals = () => notes.filter((n) => n.includes("no longer knows its session")).length;
  try {
    await mcp.hub.catalog();
    // A session with the first process.
    const first = await mcp.hub.resources("demo", signal);
    expect(first?.resources.map((r) => r.uri)).toContain("https://example.com/greetings/default");

    await restart();
    const read = await mcp.hub.readResource("demo", "https://example.com/greetings/default", signal);
    expect(read[0]).toMatchObject({ uri: "https://example.com/greetings/default", text: expect.stringContaining("Hello") });
    expect(renewals()).toBe(1);

    await restart();
    const prompts = await mcp.hub.prompts("demo", signal);
    expect(prompts?.map((p) => p.name)).toContain("greeting-template");

    await restart();
    const prompt = await mcp.hub.getPrompt("demo", "greeting-template", { name: "Ada" }, signal);
    expect(JSON.stringify(prompt.messages)).toContain("Ada");

    await restart();
    const again = await mcp.hub.resources("demo", signal);
    expect(again?.resources.map((r) => r.uri)).toContain("file:///example/file1.txt");
    // One renewal for each restart that a request met (a prompt list kept from the session before is not asked for again).
    expect(renewals()).toBeGreaterThanOrEqual(3);
  } finally {
    await mcp.hub.dispose();
  }
}, 120_000);
