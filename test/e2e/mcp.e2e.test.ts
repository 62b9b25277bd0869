// MCP in a real VS Code (code-server, extension host on the server): a real stdio server from the
// npm registry (@modelcontextprotocol/server-everything), defined by the workspace's .mcp.json and
// approved through Claude Code's .claude/settings.local.json, used by the scripted model through
// the permission card; the panel lists the server and its tools; no server process is left after
// the window goes away (a reload ends the extension host).
// Then a server whose tool answers -32042 "URL elicitation required" and never says the user
// finished (test/support/mcp-url-required-server.cjs --silent): the person opens the URL from the
// modal, finishes in the browser, and presses Done on Yoke's notification; the call is retried at
// once and answers.
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
const LINKS = [process.execPath, require.resolve("../support/mcp-url-required-server.cjs"), "--silent"];
const ACCOUNT = "mcp__links__account";

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
  if (ex.userText.includes("account")) {
    const linked = ex.steps.find((s) => s.name === ACCOUNT);
    if (!linked) return { text: "Looking up the account.", toolCalls: [{ name: ACCOUNT, input: {} }] };
    return { text: `The account tool said: ${linked.output}` };
  }
  const step = ex.steps.find((s) => s.name === TOOL);
  if (!step) return { text: "Calling the MCP tool.", toolCalls: [{ name: TOOL, input: { message: "hi from e2e" } }] };
  return { text: `The server said: ${step.output}` };
}

describe("MCP in code-server", () => {
  const vs = useYokeVscode({
    name: "mcp",
    model: { script },
    files: {
      ".mcp.json": JSON.stringify({ mcpServers: { everything: { command: ARGV[0], args: ARGV.slice(1) }, links: { command: LINKS[0], args: LINKS.slice(1) } } }),
      ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["everything", "links"] }),
    },
    testsBuildOnEachOther: "the -32042 test uses the window the first test reloaded (its servers approved, the panel open)",
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

  it("-32042 from a server that never says the user finished: Open in the modal, finish in the browser, Done on the notification retries the call at once", async () => {
    const shot = vs.screenshots();
    const frame = await vs.openPanel();
    await sendPrompt(frame, "show my linked account");
    const card = frame.locator(`[data-testid=permission-card][data-tool="${ACCOUNT}"]`);
    await card.waitFor({ timeout: 90_000 });
    await frame.locator("[data-testid=allow-once]").click();

    // The modal: the server, its message and its URL (on the server's own page on 127.0.0.1).
    const modal = vs.page.locator(".monaco-dialog-box", { hasText: 'the MCP server "links" asks you to open a URL' });
    await modal.waitFor({ timeout: 90_000 });
    const text = (await modal.textContent()) ?? "";
    expect(text).toContain("Link your account to continue.");
    const url = /http:\/\/127\.0\.0\.1:\d+\/link\?id=[\w-]+&code=one-time-xyz/.exec(text)?.[0];
    expect(url).toBeDefined();
    await shot("url-required-modal");
    await modal.getByRole("button", { name: "Open", exact: true }).click();
    // VS Code may ask before opening a site outside its trusted domains: the person opens it.
    const external = vs.page.locator(".monaco-dialog-box", { hasText: "open the external website" });
    const done = vs.page.locator(".notification-toast", { hasText: 'waiting for the MCP server "links" to hear that you finished at http://127.0.0.1:' });
    await Promise.race([external.waitFor({ timeout: 60_000 }), done.waitFor({ timeout: 60_000 })]);
    if (await external.isVisible()) await external.getByRole("button", { name: "Open", exact: true }).click();

    // The person finishes in the browser (the server's page links the account; --silent: the server tells no one).
    await fetch(url!).catch(() => undefined);
    await done.waitFor({ timeout: 60_000 });
    await shot("url-required-done-notification");
    const started = Date.now();
    await done.getByRole("button", { name: "Done" }).click();
    await waitForAssistantText(frame, "The account tool said: account: ada@example.com (call 2)", 90_000);
    await waitForState(frame, "done");
    // Done ended the wait at once: not the call's timeout (120 s).
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(await done.isVisible()).toBe(false);
    await shot("url-required-answered");
  });
});
