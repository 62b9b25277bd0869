// MCP resource subscriptions with the real server-everything from the npm registry: a resource the
// user @-mentions is subscribed to (resources/subscribe; the server offers `subscribe`), and when
// the server says it changed (notifications/resources/updated; its toggle-subscriber-updates tool
// sends one every 5 s for what a client subscribed to), the model is told once, before its next
// request, in a message appended after the conversation (the cached prefix unchanged); each change once.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { ensureBuilt, runCli } from "../support/cli";
import { pidsOf } from "../support/processes";
import { everythingArgv } from "../support/mcp-fixtures";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const URI = "demo://resource/dynamic/text/2";

function workspace(tag: string, allow: string[] = []) {
  const argv = everythingArgv(tag);
  const settings = JSON.stringify({ mcpServers: { everything: { command: argv[0], args: argv.slice(1) } }, permissions: { allow } });
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-subs-", { "~/.yoke/settings.json": settings }, temps);
  return { cwd, home, argv };
}

describe("resource subscriptions", () => {
  it("the hub subscribes where the server offers it and reports the server's updates of what it subscribed to", async () => {
    const ws = workspace("hub");
    const mcp = createNodeMcp({ cwd: ws.cwd, home: ws.home, trusted: true, env: { PATH: process.env.PATH, HOME: ws.home } });
    const updates: string[] = [];
    const sub = mcp.hub.onResourceUpdated((server, uri) => updates.push(`${server} ${uri}`));
    try {
      await mcp.hub.catalog();
      await mcp.hub.readResource("everything", URI, new AbortController().signal);
      expect(await mcp.hub.subscribeResource("everything", URI)).toBe(true);
      await mcp.hub.call("everything", "toggle-subscriber-updates", {}, { signal: new AbortController().signal, timeoutMs: 30_000 });
      const deadline = Date.now() + 30_000;
      while (updates.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(updates[0]).toBe(`everything ${URI}`);
      // Only what was subscribed to.
      expect(updates.every((u) => u === `everything ${URI}`)).toBe(true);
    } finally {
      sub.dispose();
      await mcp.dispose();
    }
    expect(pidsOf(ws.argv)).toEqual([]);
  }, 90_000);

  it("in a session: a mentioned resource that changes is told to the model before its next request, once per change", async () => {
    const ws = workspace("session", ["mcp__everything__toggle-subscriber-updates", "mcp__everything__trigger-long-running-operation"]);
    const script: ScriptedTurn[] = [
      { toolCalls: [{ name: "mcp__everything__toggle-subscriber-updates", input: {} }] },
      // Time passes (the server's updates come every 5 s).
      { toolCalls: [{ name: "mcp__everything__trigger-long-running-operation", input: { duration: 7, steps: 2 } }] },
      { text: "Noted." },
    ];
    const llm = await startScriptedLlmServer({ script, apiKey: "sk-test" });
    try {
      const r = await runCli(
        [
          "run",
          "--trust",
          "--provider",
          "openai-compatible",
          "--base-url",
          llm.openaiBaseUrl,
          "--model",
          "m",
          "--cwd",
          ws.cwd,
          "--session-dir",
          join(ws.home, "sessions"),
          `Watch @everything:${URI} for me.`,
        ],
        {
          env: { HOME: ws.home, OPENAI_API_KEY: "sk-test" },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const texts = llm.requests.map((q) => (q.body.messages as Array<{ role: string; content: unknown }>).map((m) => String(m.content)));
      const note = `changed since (the server said so): @everything:${URI}`;
      // Not before the server said so; each change is told once, appended when it is new (the
      // server sends one at once and then every 5 s: the 7 s operation leaves one for the last request).
      const counts = texts.map((t) => t.filter((m) => m.includes(note)).length);
      expect(counts[0]).toBe(0);
      for (let i = 1; i < counts.length; i++) expect(counts[i]! - counts[i - 1]!).toBeGreaterThanOrEqual(0);
      for (let i = 1; i < counts.length; i++) expect(counts[i]! - counts[i - 1]!).toBeLessThanOrEqual(1);
      const last = texts.at(-1)!;
      expect(counts.at(-1)! - counts.at(-2)!).toBe(1);
      expect(last.at(-1)).toContain(note);
      expect(last.at(-1)).toContain("read it again with read_mcp_resource");
      // The earlier messages are as they were (the cached prefix): the first request's messages start the last one.
      expect(last.slice(0, texts[0]!.length)).toEqual(texts[0]);
    } finally {
      await llm.close();
    }
    expect(pidsOf(ws.argv)).toEqual([]);
  }, 120_000);
});
