// What the model is shown of a large MCP resource or tool result, and what the person is warned of,
// through full `yoke run` sessions with the scripted model: read_mcp_resource bounded by
// MAX_MCP_OUTPUT_TOKENS (the whole kept for recall) against server-everything from the npm registry
// and the SDK-built probe server; the warning past 10,000 tokens (Claude Code's) shown in the CLI's
// output and the panel's view model, never sent to the model.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest, Script } from "../../src/demo/types";
import { SessionViewModel } from "../../src/node/panel/view-model";
import { ensureBuilt, runCli } from "../support/cli";
import { EVERYTHING } from "../support/mcp-fixtures";
import { scriptedRunArgs, sessionEventsIn, toolResultTexts } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const PROBE = join(__dirname, "../support/mcp-probe-server.cjs");
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterAll(async () => {
  const { rmSync } = await import("node:fs");
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const STRUCTURE_URI = "demo://resource/static/document/structure.md";
// The document server-everything serves at STRUCTURE_URI, byte for byte.
const structureMd = readFileSync(join(dirname(createRequire(__filename).resolve("@modelcontextprotocol/server-everything/dist/index.js")), "docs", "structure.md"), "utf8");

function workspace(): { cwd: string; home: string } {
  const settings = JSON.stringify({
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] }, probe: { command: process.execPath, args: [PROBE] } },
    permissions: { allow: ["mcp__everything", "mcp__probe", "ReadMcpResourceTool"] },
  });
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp22-out-", { "~/.yoke/settings.json": settings }, temps);
  return { cwd, home };
}

const callIdOf = (req: RecordedRequest): string => {
  const msgs = req.body.messages as Array<{ tool_calls?: Array<{ id: string }> }>;
  return msgs.find((m) => m.tool_calls)!.tool_calls![0]!.id;
};

/** One call, then (when given) a recall of its result from `recallFrom`, then "done": one `yoke run` with `env`. */
async function session(w: { cwd: string; home: string }, call: { name: string; input: unknown }, recallFrom?: number, env: Record<string, string> = {}) {
  const script: Script = (req) => {
    const n = (req.body.messages as Array<{ role: string }>).filter((m) => m.role === "tool").length;
    if (n === 0) return { toolCalls: [call] };
    if (n === 1 && recallFrom !== undefined) return { toolCalls: [{ name: "recall", input: { ref: callIdOf(req), offset: recallFrom } }] };
    return { text: "done" };
  };
  const llm = await startScriptedLlmServer({ script });
  const sessions = join(w.home, "sessions");
  try {
    const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, w.cwd, sessions), "go"], { env: { HOME: w.home, ...env } });
    return { ...r, requests: llm.requests, events: sessionEventsIn(sessions) };
  } finally {
    await llm.close();
  }
}

/** What the person saw in the panel: the view model's notices for the session's events. */
function panelNotices(events: Parameters<SessionViewModel["apply"]>[0][]): string[] {
  const vm = new SessionViewModel();
  return events.flatMap((e) => vm.apply(e)).flatMap((i) => (i.kind === "notice" ? [(i as { text: string }).text] : []));
}

describe("read_mcp_resource under MAX_MCP_OUTPUT_TOKENS", () => {
  it("server-everything's 12 KB document at 500 tokens: the model sees at most 2,000 characters, saying why; recall returns it byte for byte; no warning (under 10,000 tokens)", async () => {
    const w = workspace();
    const r = await session(w, { name: "read_mcp_resource", input: { server: "everything", uri: STRUCTURE_URI } }, 0, { MAX_MCP_OUTPUT_TOKENS: "500" });
    expect(r.code, r.stderr).toBe(0);
    const [shown, recalled] = toolResultTexts(r.requests.at(-1));
    expect(structureMd.length).toBeGreaterThan(10_000);
    expect(shown!.length).toBeLessThanOrEqual(2000);
    expect(shown!.startsWith(`[This result is ${structureMd.length.toLocaleString("en-US")} characters`)).toBe(true);
    expect(shown).toContain("more than this tool's bound (MAX_MCP_OUTPUT_TOKENS=500, 2,000 characters shown at most)");
    expect(shown).toContain(structureMd.slice(0, 200));
    // The whole document, as the server sent it, from the spill (one page, no header: it is under 40,000 characters).
    expect(recalled === structureMd).toBe(true);
    expect(r.events.some((e) => e.type === "mcp_output")).toBe(false);
    expect(r.stdout + r.stderr).not.toContain("Large MCP output");
  }, 60_000);

  it("a 78,000-character resource at 2,000 tokens: bounded to 8,000 characters for the model; the person is warned (CLI and panel), the model is not", async () => {
    const w = workspace();
    const r = await session(w, { name: "read_mcp_resource", input: { server: "probe", uri: "probe://lines/900" } }, 40_000, { MAX_MCP_OUTPUT_TOKENS: "2000" });
    expect(r.code, r.stderr).toBe(0);
    const [shown, recalled] = toolResultTexts(r.requests.at(-1));
    expect(shown!.length).toBeLessThanOrEqual(8000);
    expect(shown).toContain("resource line 1 of 900:");
    expect(shown).toContain("resource line 900 of 900:");
    expect(shown).not.toContain("resource line 450 of 900:");
    // The rest is recallable (the second page begins past what was shown).
    expect(recalled).toContain("resource line 600 of 900:");
    // What the probe serves: 900 lines of "resource line i of 900: " and 60 characters.
    const length = Array.from({ length: 900 }, (_, i) => `resource line ${i + 1} of 900: ${"y".repeat(60)}`).join("\n").length;
    expect(shown!.startsWith(`[This result is ${length.toLocaleString("en-US")} characters (900 lines), more than this tool's bound (MAX_MCP_OUTPUT_TOKENS=2000`)).toBe(true);
    const warning = `Large MCP output: MCP resource probe: probe://lines/900 returned about ${Math.ceil(length / 4).toLocaleString("en-US")} tokens`;
    const all = r.requests.map((q) => JSON.stringify(q.body)).join("\n");
    expect(all).not.toContain("Large MCP output");
    expect(r.stdout + r.stderr).toContain(warning);
    expect(r.stdout + r.stderr).toContain("over 10,000: the model was shown at most 2,000 tokens of it (MAX_MCP_OUTPUT_TOKENS=2000); the whole is kept for recall.");
    expect(panelNotices(r.events).filter((t) => t.startsWith(warning))).toHaveLength(1);
  }, 60_000);
});

describe("the warning past 10,000 tokens for a tool result", () => {
  it("server-everything's echo of 44,000 characters, no MAX_MCP_OUTPUT_TOKENS: the model gets Yoke's preview (the whole recallable), the person a warning naming the tool", async () => {
    const w = workspace();
    const message = "z".repeat(44_000);
    const r = await session(w, { name: "mcp__everything__echo", input: { message } });
    expect(r.code, r.stderr).toBe(0);
    const [shown] = toolResultTexts(r.requests.at(-1));
    expect(shown!.startsWith("[This result is 44,006 characters (1 lines), too long for the context")).toBe(true);
    const warning = `Large MCP output: MCP tool everything: echo returned about ${Math.ceil(44_006 / 4).toLocaleString("en-US")} tokens, over 10,000: large results fill the context quickly`;
    expect(r.stdout + r.stderr).toContain(warning);
    expect(panelNotices(r.events).filter((t) => t.startsWith(warning))).toHaveLength(1);
    expect(r.requests.map((q) => JSON.stringify(q.body)).join("\n")).not.toContain("Large MCP output");
  }, 60_000);
});
