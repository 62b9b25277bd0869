// Claude Code's MCP_TIMEOUT and MCP_TOOL_TIMEOUT environment variables (red team S's audit): the start
// limit of every server and the call limit of those whose definition names none. Real processes.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpTimeoutsFromEnv } from "../../../src/core/mcp/config";
import { createNodeMcp } from "../../../src/node/mcp/setup";
import { createWorkspaceWithHome } from "../../support/workspace";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("MCP_TIMEOUT and MCP_TOOL_TIMEOUT", () => {
  it("reads whole positive milliseconds and says what it ignores", () => {
    expect(mcpTimeoutsFromEnv({ MCP_TIMEOUT: "10000", MCP_TOOL_TIMEOUT: " 2500 " })).toEqual({ startMs: 10_000, toolMs: 2_500, problems: [] });
    expect(mcpTimeoutsFromEnv({})).toEqual({ problems: [] });
    for (const bad of ["0", "-5", "1.5", "10s", "1e4", "99999999999"]) {
      const r = mcpTimeoutsFromEnv({ MCP_TIMEOUT: bad });
      expect(r.startMs, bad).toBeUndefined();
      expect(r.problems[0], bad).toMatch(/^MCP_TIMEOUT=.* is not a number of milliseconds: ignored$/);
    }
  });

  it("a server that never answers fails at MCP_TIMEOUT; a server without its own timeout gets MCP_TOOL_TIMEOUT, one with its own keeps it", async () => {
    const { cwd, home } = createWorkspaceWithHome("yoke-mcp-timeouts-", {}, temps);
    mkdirSync(join(home, ".yoke"), { recursive: true });
    const silent = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { silent, own: { ...silent, timeout: 7000 } } }));
    const logged: string[] = [];
    const mcp = createNodeMcp({ cwd, home, trusted: true, env: { ...process.env, HOME: home, MCP_TIMEOUT: "1500", MCP_TOOL_TIMEOUT: "4321", MCP_BOGUS: "x" }, log: (m) => logged.push(m) });
    try {
      expect(mcp.servers.map((s) => [s.name, s.timeoutMs])).toEqual([
        ["silent", 4321],
        ["own", 7000],
      ]);
      const cat = await mcp.hub.catalog();
      const silentStatus = cat.find((s) => s.config.name === "silent");
      expect(silentStatus?.state).toBe("failed");
      expect(silentStatus?.detail).toContain('starting the MCP server "silent" took longer than 1500 ms');
    } finally {
      await mcp.dispose();
    }
    expect(logged.join("\n")).not.toMatch(/MCP_TIMEOUT|MCP_TOOL_TIMEOUT/);
  }, 60_000);
});
