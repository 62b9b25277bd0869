// The `vscode-lm` provider in a real VS Code: a test-only extension (test/e2e/fixtures/lm-provider)
// registers a chat model through VS Code's Language Model Chat Provider API
// (vscode.lm.registerLanguageModelChatProvider + the languageModelChatProviders contribution), and
// Yoke, set to yoke.provider "vscode-lm" / yoke.model "yoke-test-model", talks to it through
// vscode.lm.selectChatModels + sendRequest: the answer streams into the panel, and a tool call the
// model makes goes through Yoke's permission gate (the card, Allow once), runs, and its result
// reaches the model as a LanguageModelToolResultPart.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageFixture } from "./support/fixture-extension";
import { sendPrompt, waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const COMMAND = "mkdir -p lm-out && echo lm-tool-ok";

interface LoggedRequest {
  model: string;
  messages: Array<{ role: string; parts: Array<{ type: string; value?: string; name?: string; input?: unknown; callId?: string; text?: string }> }>;
  tools: string[];
  toolMode?: number;
}

describe("vscode-lm provider through the real Language Model API", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-e2e-lm-"));
  const requestLog = join(dir, "requests.jsonl");
  const requests = (): LoggedRequest[] =>
    existsSync(requestLog)
      ? readFileSync(requestLog, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as LoggedRequest)
      : [];
  const vs = useYokeVscode({
    name: "vscode-lm",
    workspaceSettings: { "yoke.provider": "vscode-lm", "yoke.model": "yoke-test-model", "yoke.permissionMode": "default" },
    launch: () => ({ env: { YOKE_LM_FIXTURE_LOG: requestLog }, extensions: [packageFixture("lm-provider", dir)] }),
  });

  it("answers through the registered model, and its tool call goes through the permission gate", async () => {
    const shot = vs.screenshots();
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(560);
    await frame.locator("[data-testid=model-label]", { hasText: "yoke-test-model" }).waitFor({ timeout: 30_000 });

    // A plain answer, streamed by the other extension's provider.
    await sendPrompt(frame, "Say hello.");
    await waitForAssistantText(frame, "Hello from Yoke Test Model.", 90_000);
    await waitForState(frame, "done");
    await shot("hello");
    const first = requests();
    expect(first).toHaveLength(1);
    expect(first[0]!.model).toBe("yoke-test-model");
    // Yoke's tools are offered through the API (toolMode Auto = 1), its system prompt goes first.
    expect(first[0]!.tools).toEqual(expect.arrayContaining(["read_file", "edit_file", "run_command"]));
    expect(first[0]!.toolMode).toBe(1);
    expect(first[0]!.messages[0]!.parts[0]!.value).toContain("Yoke");
    expect(
      first[0]!.messages
        .at(-1)!
        .parts.map((p) => p.value)
        .join(""),
    ).toContain("Say hello.");

    // A tool call: the permission card asks, Allow once runs it, the result goes back to the model.
    // A command that writes (mkdir), so the default mode asks.
    await sendPrompt(frame, `Please call run_command {"command":"${COMMAND}"}`);
    const card = frame.locator("[data-testid=permission-card]");
    await card.waitFor({ timeout: 90_000 });
    expect(await card.getAttribute("data-tool")).toBe("run_command");
    expect(await card.textContent()).toContain(COMMAND);
    expect(existsSync(vs.path("lm-out"))).toBe(false);
    await shot("permission-card");
    expect(requests()).toHaveLength(2); // nothing ran and nothing went back before the answer
    await frame.locator("[data-testid=allow-once]").click();
    const answer = await waitForAssistantText(frame, "Tool run_command said:", 90_000);
    expect(answer).toContain("lm-tool-ok");
    await waitForState(frame, "done");
    await shot("tool-answer");

    const all = requests();
    expect(all).toHaveLength(3);
    const third = all[2]!;
    const call = third.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_call");
    expect(call).toMatchObject({ name: "run_command", input: { command: COMMAND } });
    // The result comes back as a LanguageModelToolResultPart (Yoke may add context messages after it).
    const result = third.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result?.callId).toBe(call?.callId);
    expect(result?.text).toContain("lm-tool-ok");
    const toolCard = frame.locator("[data-testid=tool-card][data-tool-name=run_command]").last();
    expect(await toolCard.locator("[data-testid=tool-decision]").textContent()).toBe("asked you: allowed");
    expect(existsSync(vs.path("lm-out"))).toBe(true); // it really ran, in the workspace
  });
});
