// MCP sampling, elicitation and the servers view in a real VS Code (code-server): a real stdio
// server from the npm registry (@modelcontextprotocol/server-everything). A person approves the
// server's sampling request on the permission card (which shows the server, its system prompt,
// messages and max tokens), fills in the server's form in the panel (a required field left empty
// is refused with the reason, then filled) and sees the tools' results in the answer; then restarts
// the server from the MCP servers view (a new process, running again).
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const TAG = `--yoke-e2e=${process.pid}-${Math.random().toString(36).slice(2)}`;
const ARGV = [process.execPath, EVERYTHING, "stdio", TAG];
const SAMPLE = "mcp__everything__trigger-sampling-request";
const ELICIT = "mcp__everything__trigger-elicitation-request";

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
  const first = (req.body.messages as Array<{ role: string; content?: unknown }> | undefined)?.[0];
  // The server's sampling request: its own system prompt, no tools.
  if (first?.role === "system" && first.content === "You are a helpful test server.") return { text: "Paris, sampled for the server." };
  const ex = readExchange(req);
  const sampled = ex.steps.find((s) => s.name === SAMPLE);
  const elicited = ex.steps.find((s) => s.name === ELICIT);
  if (!sampled) return { text: "Asking the server.", toolCalls: [{ name: SAMPLE, input: { prompt: "capital of France?", maxTokens: 40 } }] };
  if (!elicited) return { text: "Now the form.", toolCalls: [{ name: ELICIT, input: {} }] };
  const name = /- Name: (.*)/.exec(elicited.output)?.[1] ?? "?";
  return { text: `Sampling gave: ${sampled.output.includes("Paris, sampled for the server.") ? "Paris" : "nothing"}. The form gave: ${name}.` };
}

describe("MCP sampling, elicitation and the servers view in code-server", () => {
  const vs = useYokeVscode({
    name: "mcp-sampling",
    model: { script },
    files: {
      ".mcp.json": JSON.stringify({ mcpServers: { everything: { command: ARGV[0], args: ARGV.slice(1) } } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["everything"] }),
    },
  });

  it("a person approves a sampling request, fills in a form, sees the results; then restarts the server from the MCP view", async () => {
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(600);
    await sendPrompt(frame, "ask the server to sample and then fill its form");
    const card = (tool: string) => frame.locator(`[data-testid=permission-card][data-tool="${tool}"]`);

    await card(SAMPLE).waitFor({ timeout: 90_000 });
    await frame.locator("[data-testid=allow-once]").click();
    // The sampling request: the server, its system prompt, its message and the max tokens are on the card.
    const sampling = card("sampling for MCP server everything");
    await sampling.waitFor({ timeout: 60_000 });
    const summary = await sampling.locator(".permission-summary").textContent();
    expect(summary).toContain('The MCP server "everything" asks');
    expect(summary).toContain("at most 40 tokens");
    expect(summary).toContain("System prompt: You are a helpful test server.");
    expect(summary).toContain("user: Resource trigger-sampling-request context: capital of France?");
    await shot("sampling-card");
    await frame.locator("[data-testid=allow-once]").click();

    await card(ELICIT).waitFor({ timeout: 90_000 });
    await frame.locator("[data-testid=allow-once]").click();
    const form = frame.locator("[data-testid=elicitation-card][data-server=everything]");
    await form.waitFor({ timeout: 60_000 });
    // Defaults are filled in; the required name is empty: Accept shows why it is refused.
    expect(await form.locator("[data-testid=elicit-integer]").inputValue()).toBe("42");
    await form.locator("[data-testid=elicit-accept]").click();
    await form.locator("[data-field=name] [data-testid=elicit-error]").waitFor({ timeout: 10_000 });
    expect(await form.locator("[data-field=name] [data-testid=elicit-error]").textContent()).toBe("required");
    await form.locator("[data-testid=elicit-name]").fill("Ada Lovelace");
    await form.locator("[data-testid=elicit-check]").check();
    await shot("elicitation-form");
    await form.locator("[data-testid=elicit-accept]").click();

    await waitForAssistantText(frame, "Sampling gave: Paris. The form gave: Ada Lovelace.", 90_000);
    await waitForState(frame, "done");
    expect(await frame.locator("[data-testid=elicitation-card]").count()).toBe(0);

    // The MCP servers view: restart the server; a new process runs it.
    const before = serverPids();
    expect(before).toHaveLength(1);
    const view = frame.locator("[data-testid=mcp-servers]");
    await view.locator("summary").first().click();
    const row = view.locator("[data-testid=mcp-server][data-name=everything]");
    await row.locator("summary").click();
    await row.locator("[data-testid=mcp-restart]").click();
    const deadline = Date.now() + 30_000;
    let after = serverPids();
    while ((after.length !== 1 || after[0] === before[0]) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      after = serverPids();
    }
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before[0]);
    await frame.locator("[data-testid=mcp-server][data-name=everything][data-state=running]").waitFor({ timeout: 30_000 });
    await shot("mcp-restarted");
  });
});
