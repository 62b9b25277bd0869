// The Anthropic Messages wire format through the panel: the key is entered with "Yoke: Set API
// Key" (it lives in SecretStorage, never in settings), and the scripted server requires it.
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { expandToolCard, lastAssistantText, sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const KEY = "sk-ant-e2e-0123456789";

function tidesScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const read = readExchange(req).steps.find((s) => s.name === "read_file");
  if (!read) return { toolCalls: [{ name: "read_file", input: { path: "src/tides.ts" } }] };
  return { text: "TIDAL_PERIOD_MS is 12 h 25 min in milliseconds.", reasoning: "The constant is defined on line 2.", chunkDelayMs: 10 };
}

describe("Anthropic provider in code-server", () => {
  const vs = useYokeVscode({ name: "anthropic", model: { script: tidesScript, apiKey: KEY, wire: "anthropic", name: "claude-e2e" } });

  it("sends the key from 'Yoke: Set API Key' and speaks the Messages API with tool use", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    let frame = await vs.openPanel();
    await frame.locator("[data-testid=first-run]").waitFor({ state: "visible", timeout: 30_000 });
    await shot("needs-key");

    await vs.runCommand("Yoke: Set API Key");
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible" });
    expect(await input.getAttribute("type")).toBe("password");
    await input.fill(KEY);
    await page.keyboard.press("Enter");
    await page.locator(".notification-toast", { hasText: "API key for anthropic saved" }).waitFor({ timeout: 20_000 });
    await shot("key-saved");

    frame = await vs.openPanel();
    await frame.locator("[data-testid=first-run]").waitFor({ state: "hidden", timeout: 30_000 });
    await sendPrompt(frame, "What is TIDAL_PERIOD_MS?");
    await waitForAssistantText(frame, "12 h 25 min in milliseconds");
    await waitForState(frame, "done");
    expect(await lastAssistantText(frame)).toContain("TIDAL_PERIOD_MS is 12 h 25 min in milliseconds.");
    const output = await expandToolCard(frame, "read_file");
    expect(output).toContain("|export const TIDAL_PERIOD_MS = (12 * 60 + 25) * 60 * 1000;");
    await shot("answered");

    expect(llm.requests.length).toBeGreaterThanOrEqual(2);
    for (const req of llm.requests) {
      expect(req.format).toBe("anthropic");
      expect(req.path).toBe("/v1/messages");
      // The key was sent (the server answers 401 without it); recorded values are masked.
      expect(req.headers["x-api-key"] ?? req.headers.authorization).toBe("***");
      expect(req.body.model).toBe("claude-e2e");
    }
  });
});
