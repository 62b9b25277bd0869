// MCP logging (notifications/message) with the real server-everything from the npm registry: its
// toggle-simulated-logging tool makes it send a log message at once and every 5 s, at random
// RFC 5424 levels. Yoke keeps a server's last messages in its status (`logs`, what `yoke mcp list
// --json` and the MCP view read) and gives each to the host's log (VS Code: Yoke's output channel,
// at its level); none of it reaches the model (the tool's own answer is all the call returns).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { MCP_LOG_CHARS, MCP_LOG_KEPT, MCP_LOG_PER_MINUTE, mcpLogText, type McpLogEntry } from "../../src/core/mcp/types";
import { everythingArgv, everythingSettings } from "../support/mcp-fixtures";
import { pidsOf } from "../support/processes";

const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-logging-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a server's log messages", () => {
  it("are kept in its status and given to the host's log, not to the model", async () => {
    const argv = everythingArgv("logging");
    const settings = join(dir, "settings.json");
    writeFileSync(settings, everythingSettings(argv, []));
    const seen: Array<{ server: string; entry: McpLogEntry }> = [];
    const mcp = createNodeMcp({
      cwd: dir,
      home: dir,
      storageDir: join(dir, ".yoke"),
      trusted: true,
      extraSettings: [settings],
      env: { PATH: process.env.PATH },
      serverLog: (server, entry) => seen.push({ server, entry }),
    });
    try {
      await mcp.hub.catalog();
      const r = await mcp.hub.call("everything", "toggle-simulated-logging", {}, { signal: new AbortController().signal, timeoutMs: 30_000 });
      // What the call returns (what the model gets) is the tool's answer alone.
      expect(JSON.stringify(r.content)).toContain("Started simulated");
      expect(JSON.stringify(r.content)).not.toMatch(/level[- ]message/i);
      const simulated = () => seen.filter((s) => /level[- ]message/i.test(s.entry.text));
      const deadline = Date.now() + 30_000;
      while (simulated().length < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
      // The first at once, the next 5 s later (the server also logs its own events, e.g. "Roots updated").
      expect(simulated().length).toBeGreaterThanOrEqual(2);
      for (const { server, entry } of seen) {
        expect(server).toBe("everything");
        expect(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]).toContain(entry.level);
      }
      const status = mcp.hub.status().find((s) => s.config.name === "everything");
      expect(status?.logs?.map((l) => l.text)).toEqual(seen.map((s) => s.entry.text).slice(-20));
    } finally {
      await mcp.dispose();
    }
    expect(pidsOf(argv)).toEqual([]);
  }, 60_000);

  it("a server flooding its log: the host's log gets at most MCP_LOG_PER_MINUTE a minute and one line saying so; the status keeps the last MCP_LOG_KEPT", async () => {
    // A server made of the MCP SDK's own McpServer: its flood tool sends 300 log messages.
    const script = join(dir, "flood-server.mjs");
    const sdk = (p: string) => pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${p}`)).href;
    writeFileSync(
      script,
      `import { McpServer } from ${JSON.stringify(sdk("server/mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(sdk("server/stdio.js"))};
const server = new McpServer({ name: "flood", version: "1.0.0" }, { capabilities: { logging: {} } });
server.registerTool("flood", { description: "logs a lot" }, async () => {
  for (let i = 1; i <= 300; i++) await server.sendLoggingMessage({ level: "info", logger: "flood", data: "line " + i });
  return { content: [{ type: "text", text: "flooded" }] };
});
await server.connect(new StdioServerTransport());
`,
    );
    const settings = join(dir, "flood-settings.json");
    writeFileSync(settings, JSON.stringify({ mcpServers: { flood: { command: process.execPath, args: [script] } } }));
    const seen: McpLogEntry[] = [];
    const mcp = createNodeMcp({
      cwd: dir,
      home: dir,
      storageDir: join(dir, ".yoke-flood"),
      trusted: true,
      extraSettings: [settings],
      env: { PATH: process.env.PATH },
      serverLog: (_s, e) => seen.push(e),
    });
    try {
      await mcp.hub.catalog();
      const r = await mcp.hub.call("flood", "flood", {}, { signal: new AbortController().signal, timeoutMs: 30_000 });
      expect(JSON.stringify(r.content)).toContain("flooded");
      const deadline = Date.now() + 20_000;
      while (
        mcp.hub
          .status()
          .find((s) => s.config.name === "flood")
          ?.logs?.at(-1)?.text !== "flood: line 300" &&
        Date.now() < deadline
      )
        await new Promise((res) => setTimeout(res, 100));
      const logs = mcp.hub.status().find((s) => s.config.name === "flood")?.logs ?? [];
      expect(logs).toHaveLength(MCP_LOG_KEPT);
      expect(logs.at(-1)?.text).toBe("flood: line 300");
      expect(seen).toHaveLength(MCP_LOG_PER_MINUTE + 1);
      expect(seen.at(-2)?.text).toBe(`flood: line ${MCP_LOG_PER_MINUTE}`);
      expect(seen.at(-1)).toMatchObject({ level: "warning", text: expect.stringContaining(`more than ${MCP_LOG_PER_MINUTE} log messages in a minute`) });
    } finally {
      await mcp.dispose();
    }
  }, 60_000);

  it("a message of any JSON is written out, after its logger, and bounded", () => {
    expect(mcpLogText({ data: { a: 1 }, logger: "db" })).toBe('db: {"a":1}');
    expect(mcpLogText({ data: "plain" })).toBe("plain");
    const long = mcpLogText({ data: "x".repeat(MCP_LOG_CHARS + 50) });
    expect(long.length).toBeLessThan(MCP_LOG_CHARS + 40);
    expect(long).toContain("(50 more characters)");
  });
});
