// MCP in a real VS Code (code-server, extension host on the server): a real stdio server from the
// npm registry (@modelcontextprotocol/server-everything), defined by the workspace's .mcp.json and
// approved through Claude Code's .claude/settings.local.json, used by the scripted model through
// the permission card; the panel lists the server and its tools; no server process is left after
// the window goes away (a reload ends the extension host).
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const TAG = `--yoke-e2e=${process.pid}-${Math.random().toString(36).slice(2)}`;
const ARGV = [process.execPath, EVERYTHING, "stdio", TAG];
const TOOL = "mcp__everything__echo";

/** Live processes whose command line is ARGV. */
function serverPids(): number[] {
  const want = ARGV.join("\0");
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, "utf8").replace(/\0$/, "") === want && readFileSync(`/proc/${n}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
      } catch {
        return false;
      }
    })
    .map(Number);
}

function script(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const ex = readExchange(req);
  const step = ex.steps.find((s) => s.name === TOOL);
  if (!step) return { text: "Calling the MCP tool.", toolCalls: [{ name: TOOL, input: { message: "hi from e2e" } }] };
  return { text: `The server said: ${step.output}` };
}

describe("MCP in code-server", () => {
  const vs = useYokeVscode({
    name: "mcp",
    model: { script },
    files: {
      ".mcp.json": JSON.stringify({ mcpServers: { everything: { command: ARGV[0], args: ARGV.slice(1) } } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["everything"] }),
    },
  });

  it("the model calls a stdio MCP tool through the permission card; the panel lists it; nothing is left after the window goes", async () => {
    const { llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    await sendPrompt(frame, "echo something through MCP");
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 90_000 });
    expect(await card.getAttribute("data-tool")).toBe(TOOL);
    expect(serverPids()).toHaveLength(1);
    await shot("mcp-ask");
    await frame.locator("[data-testid=allow-once]").click();
    await waitForAssistantText(frame, "The server said: Echo: hi from e2e", 90_000);
    await waitForState(frame, "done");
    expect(readExchange(llm.requests[0]!).tools).toContain(TOOL);

    const panel = frame.locator("[data-testid=mcp-servers]");
    await panel.locator("summary").first().click();
    const row = panel.locator("[data-testid=mcp-server][data-name=everything]");
    expect(await row.getAttribute("data-state")).toBe("running");
    await row.locator("summary").click();
    expect(await row.locator("[data-testid=mcp-tool]").allTextContents()).toContain("echo");
    await shot("mcp-panel");

    // A reload ends this window's extension host: its server must go with it.
    await vs.reloadWindow();
    const deadline = Date.now() + 20_000;
    while (serverPids().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(serverPids()).toEqual([]);
  });
});
