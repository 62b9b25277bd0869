// Restricted Mode: workspace trust enabled and the folder not trusted. Yoke declares limited
// support, so it stays enabled, shows a banner, and refuses to write (telling the model why).
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

/** First turn: try to write a file. Then: report what the tool said. */
function writeScript(req: Parameters<typeof readExchange>[0]): ScriptedTurn {
  const write = readExchange(req).steps.find((s) => s.name === "write_file");
  if (!write) return { toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "# notes\n" } }] };
  return { text: `I could not write NOTES.md: the workspace is in Restricted Mode.` };
}

describe("Restricted Mode in code-server", () => {
  const vs = useYokeVscode({
    name: "restricted",
    trusted: false,
    // yoke.provider and yoke.baseUrl are restricted settings: an untrusted workspace's values
    // are ignored, so the provider comes from the user's settings here.
    model: { script: writeScript, settingsIn: "user" },
    userSettings: { "security.workspace.trust.startupPrompt": "never" },
  });

  it("stays enabled, shows the restricted banner and refuses write_file with the reason sent to the model", async () => {
    const { page, llm } = vs;
    const shot = vs.screenshots();
    await vs.openWorkbench();
    await page.locator(".statusbar-item", { hasText: "Restricted Mode" }).first().waitFor({ timeout: 30_000 });
    const frame = await vs.openPanel();
    await frame.locator("[data-testid=restricted-banner]").waitFor({ state: "visible", timeout: 30_000 });
    await shot("banner");

    await sendPrompt(frame, "Create NOTES.md with a heading.");
    await waitForAssistantText(frame, "could not write NOTES.md");
    await waitForState(frame, "done");
    const card = frame.locator("[data-testid=tool-card][data-tool-name=write_file]").first();
    await expect.poll(() => card.getAttribute("data-status")).toBe("denied");
    await shot("write-refused");

    const refused = llm.requests
      .map(readExchange)
      .flatMap((ex) => ex.steps)
      .find((s) => s.name === "write_file");
    expect(refused?.output).toMatch(/Restricted Mode/);
    expect(refused?.output).toMatch(/not trusted/);
    expect(existsSync(vs.path("NOTES.md"))).toBe(false);
  });
});
