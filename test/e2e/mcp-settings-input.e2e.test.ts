// VS Code's settings.json `mcp` key with a `${input:…}` prompt, in a real VS Code (code-server): the
// user's settings.json defines a stdio server (the real server-everything from the npm registry)
// whose environment takes `${input:token}` (`promptString`, `password: true`). code-server (like
// VS Code since 1.102) moves a settings.json `mcp` key into the user mcp.json by itself, so the box
// names whichever file Yoke read it from (the run of session 22 saw "your mcp.json"); the
// settings.json reading itself is tested without VS Code in test/integration/mcp22-inputs.test.ts.
// Yoke asks it with a password box (src/host/mcp.ts, src/node/mcp/prompt-inputs.ts) when the
// session starts, the server gets the value (its get-env, called by the scripted model, shows it),
// and the value is kept in the secret storage: after a window reload the next session runs without asking.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const RUN = `${process.pid}-${Math.random().toString(36).slice(2)}`;
const MINE = [process.execPath, EVERYTHING, "stdio", `--yoke-e2e=settings-input-${RUN}`];
const TOOL = "mcp__mine__get-env";
const TOKEN = "typed-token-6081";

/** Live processes whose command line is argv. */
function pidsOf(argv: string[]): number[] {
  const want = argv.join("\0");
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
  if (!step) return { text: "Reading the server's environment.", toolCalls: [{ name: TOOL, input: {} }] };
  const token = /SERVICE_TOKEN"?\s*:\s*"([^"]*)"/.exec(step.output)?.[1] ?? "(none)";
  return { text: `The server's SERVICE_TOKEN is ${token}.` };
}

describe("a settings.json MCP server with ${input:…} in code-server", () => {
  const vs = useYokeVscode({ name: "mcp-settings-input", model: { script } });

  it("asks the input in a password box, the server gets the value, and after a reload the kept value is used without asking", async () => {
    vs.changeUserSettings({
      mcp: {
        inputs: [{ id: "token", type: "promptString", description: "Service token for mine", password: true }],
        servers: { mine: { type: "stdio", command: MINE[0], args: MINE.slice(1), env: { SERVICE_TOKEN: "${input:token}" } } },
      },
    });
    const shot = vs.screenshots();
    await vs.openWorkbench();
    let frame = await vs.openPanel();
    await vs.widenSideBar(560);
    await sendPrompt(frame, "what token does the server have?");
    // The password box, in the workbench (not the webview).
    const box = vs.page.locator(".quick-input-widget:not(.quick-input-widget-closing) .quick-input-box input");
    await box.waitFor({ state: "visible", timeout: 90_000 });
    await expect.poll(() => vs.page.locator(".quick-input-widget .quick-input-title").textContent(), { timeout: 30_000 }).toContain("MCP: Service token for mine");
    expect(await box.getAttribute("type")).toBe("password");
    await shot("settings-input-asked");
    await box.fill(TOKEN);
    await vs.page.keyboard.press("Enter");
    await frame.locator(`[data-testid=permission-card][data-tool="${TOOL}"]`).waitFor({ timeout: 90_000 });
    await frame.locator("[data-testid=allow-once]").click();
    await waitForAssistantText(frame, `The server's SERVICE_TOKEN is ${TOKEN}.`, 90_000);
    await waitForState(frame, "done");
    expect(readExchange(vs.llm.requests.at(-1)!).steps.find((s) => s.name === TOOL)?.output).toContain(TOKEN);

    // A new extension host: the value comes from the secret storage (a box would block the session: the answer proves none was shown).
    frame = await vs.reloadWindow();
    await sendPrompt(frame, "and now?");
    await frame.locator(`[data-testid=permission-card][data-tool="${TOOL}"]`).waitFor({ timeout: 90_000 });
    await frame.locator("[data-testid=allow-once]").click();
    await expect.poll(async () => (await frame.locator("[data-testid=message-assistant]:not(.streaming)", { hasText: `SERVICE_TOKEN is ${TOKEN}` }).count()) >= 2, { timeout: 90_000 }).toBe(true);
    await shot("settings-input-kept");
    expect(readExchange(vs.llm.requests.at(-1)!).steps.find((s) => s.name === TOOL)?.output).toContain(TOKEN);
    await expect.poll(() => pidsOf(MINE).length, { timeout: 30_000 }).toBeLessThanOrEqual(1);
  }, 420_000);
});
