// MCP prompts in the panel's composer (code-server, extension host on the server), with the real
// server-everything from the npm registry: typing `/mcp__` lists the server's prompts with their
// arguments and descriptions (prompts/list), the arguments are completed by the server
// (completion/complete, the first argument narrowing the second), and the prompt's text is what
// reaches the model, while the transcript shows what was typed.
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const ARGV = [process.execPath, EVERYTHING, "stdio", `--yoke-e2e=${process.pid}-${Math.random().toString(36).slice(2)}`];
const PROMOTE = "Please promote Bob to the head of the Engineering team.";

const allText = (req: RecordedRequest) => JSON.stringify(req.body.messages);

function script(req: RecordedRequest): ScriptedTurn {
  if (allText(req).includes(PROMOTE)) return { text: "Bob is promoted." };
  return { text: "Hello there." };
}

describe("MCP prompts in the composer (code-server)", () => {
  const vs = useYokeVscode({
    name: "mcp-prompts",
    model: { script },
    files: {
      ".mcp.json": JSON.stringify({ mcpServers: { everything: { command: ARGV[0], args: ARGV.slice(1) } } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["everything"] }),
    },
  });

  it("/mcp__ lists the prompts; the arguments are completed by the server; the prompt's text reaches the model", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("mcp-prompts");
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    // A first message starts the session (and its MCP servers).
    await sendPrompt(frame, "hello");
    await waitForAssistantText(frame, "Hello there.", 90_000);
    await waitForState(frame, "done");

    const input = frame.locator("[data-testid=prompt-input]");
    await input.click();
    await input.pressSequentially("/mcp__everything__comp");
    const item = frame.locator("[data-testid=mention-item]", { hasText: "/mcp__everything__completable-prompt" });
    await item.waitFor({ state: "visible", timeout: 30_000 });
    expect(await item.textContent()).toContain("<department> <name> — First argument choice narrows values for second argument. — (MCP: everything)");
    await shot("prompt-completion");
    await input.press("Enter");
    await expect.poll(() => input.inputValue()).toBe("/mcp__everything__completable-prompt ");

    await input.pressSequentially("Eng");
    const dept = frame.locator("[data-testid=mention-item]", { hasText: "Engineering" });
    await dept.waitFor({ state: "visible", timeout: 30_000 });
    await shot("argument-completion");
    await input.press("Enter");
    await expect.poll(() => input.inputValue()).toBe("/mcp__everything__completable-prompt Engineering ");

    // The second argument's values depend on the first (the server gets it as context).
    await input.pressSequentially("B");
    const name = frame.locator("[data-testid=mention-item]", { hasText: "Bob" });
    await name.waitFor({ state: "visible", timeout: 30_000 });
    expect(await frame.locator("[data-testid=mention-item]").allTextContents()).toEqual([expect.stringContaining("Bob")]);
    await input.press("Enter");
    await expect.poll(() => input.inputValue()).toBe("/mcp__everything__completable-prompt Engineering Bob ");
    await input.press("Enter");

    await waitForAssistantText(frame, "Bob is promoted.", 60_000);
    await waitForState(frame, "done");
    await frame.locator("[data-testid=message-user]", { hasText: "/mcp__everything__completable-prompt Engineering Bob" }).waitFor({ timeout: 10_000 });
    await shot("answered");
    const req = llm.requests.find((r) => allText(r).includes(PROMOTE));
    expect(req).toBeDefined();
  });
});
