// Claude Code's MCP_TIMEOUT and MCP_TOOL_TIMEOUT environment variables (red team S's audit): the start
// limit of every server and the call limit of those whose definition names none. Real processes.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mcpTimeoutsFromEnv } from "../../../src/core/mcp/config";
import { createNodeMcp } from "../../../src/node/mcp/setup";
import { formatResult, mcpOutputBound, mcpOutputTokensFromEnv } from "../../../src/core/mcp/adapter";
import { spillPreview } from "../../../src/core/compaction/render";
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

describe("MAX_MCP_OUTPUT_TOKENS", () => {
  it("reads whole positive tokens and says what it ignores", () => {
    expect(mcpOutputTokensFromEnv({ MAX_MCP_OUTPUT_TOKENS: " 25000 " })).toEqual({ tokens: 25_000, problems: [] });
    expect(mcpOutputTokensFromEnv({})).toEqual({ problems: [] });
    for (const bad of ["0", "-1", "2.5", "25k", "1e4", "9999999999"]) {
      const r = mcpOutputTokensFromEnv({ MAX_MCP_OUTPUT_TOKENS: bad });
      expect(r.tokens, bad).toBeUndefined();
      expect(r.problems[0], bad).toMatch(/^MAX_MCP_OUTPUT_TOKENS=.* is not a number of tokens: ignored$/);
    }
  });

  it("a result is cut to the bound, notes included, and handed whole for the spill; within it, it is as sent", () => {
    const text = Array.from({ length: 3000 }, (_, i) => `row ${i}`).join("\n");
    for (const tokens of [1, 50, 500, 2000]) {
      const bound = mcpOutputBound(tokens);
      const out = formatResult({ content: [{ type: "text", text }] }, bound);
      if (tokens > 10) expect(out.text.length, String(tokens)).toBeLessThanOrEqual(bound.chars);
      expect(out.full).toBe(text);
      expect(out.text).toContain("ask the tool for less");
      const spilled = spillPreview(text, "r1", bound);
      if (tokens >= 500) {
        expect(spilled.length).toBeLessThanOrEqual(bound.chars);
        expect(spilled).toContain("row 0\n");
        expect(spilled.endsWith("row 2999")).toBe(true);
      }
      expect(spilled).toContain(`MAX_MCP_OUTPUT_TOKENS=${tokens}`);
    }
    const small = formatResult({ content: [{ type: "text", text: "x".repeat(100_000) }] }, mcpOutputBound(25_000));
    expect(small).toEqual({ text: "x".repeat(100_000), isError: false });
  });
});

describe("MAX_MCP_OUTPUT_TOKENS cuts", () => {
  it("never half a surrogate pair, at any bound", () => {
    const text = "😀".repeat(3000);
    for (let tokens = 20; tokens < 60; tokens++) {
      const out = formatResult({ content: [{ type: "text", text }] }, mcpOutputBound(tokens)).text;
      expect(out, String(tokens)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      expect(spillPreview(text, "r", mcpOutputBound(tokens * 10)), String(tokens)).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});
