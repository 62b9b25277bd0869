// What the status-bar item says (src/host/status-view.ts) and Switch Model's choices (src/host/commands/models.ts).
import { describe, expect, it } from "vitest";
import { modelChoices } from "../../../src/host/commands/models";
import { statusBarState, statusBarView } from "../../../src/host/status-view";

describe("status bar", () => {
  it("maps the session's state to idle / working / waiting for you", () => {
    const base = { asking: false, reviewing: 0 };
    expect(statusBarState({ ...base, state: "idle" })).toBe("idle");
    expect(statusBarState({ ...base, state: "done" })).toBe("idle");
    expect(statusBarState({ ...base, state: "cancelled" })).toBe("idle");
    expect(statusBarState({ ...base, state: "thinking" })).toBe("working");
    expect(statusBarState({ ...base, state: "waiting_tool" })).toBe("working");
    expect(statusBarState({ ...base, state: "waiting_user" })).toBe("waiting");
    // A question or a change to review blocks the run: the user is waited for, not the model.
    expect(statusBarState({ asking: true, reviewing: 0, state: "thinking" })).toBe("waiting");
    expect(statusBarState({ asking: false, reviewing: 2, state: "waiting_tool" })).toBe("waiting");
  });

  it("shows state, mode and model in the text, and why it waits in the tooltip", () => {
    const v = statusBarView({ state: "waiting_tool", asking: false, reviewing: 1, mode: "acceptEdits", model: "claude-sonnet-5" });
    expect(v.text).toBe("$(bell-dot) Yoke: waiting for you · Accept edits · claude-sonnet-5");
    expect(v.tooltip).toContain("Yoke is waiting for you (1 change to review).");
    expect(v.tooltip).toContain("Click to open the Yoke chat.");
    expect(statusBarView({ state: "thinking", asking: false, reviewing: 0, mode: "plan", model: "" }).text).toBe("$(loading~spin) Yoke: working · Plan · no model");
    expect(statusBarView({ state: "idle", asking: false, reviewing: 0, mode: "bypassPermissions", model: "m" }).accessibility).toBe("Yoke: idle; permission mode Bypass; model m");
  });
});

describe("Switch Model choices", () => {
  it("offers the current model, same-provider fallbacks and the server's models, each once", () => {
    const choices = modelChoices({
      provider: "openai-compatible",
      current: "qwen2.5-coder:7b",
      fallbackModels: ["llama3:8b", "anthropic:claude-haiku-5-5", "openai-compatible:qwen2.5-coder:7b", 42, " "],
      available: ["qwen2.5-coder:7b", "mistral"],
    });
    expect(choices).toEqual([
      { model: "qwen2.5-coder:7b", sources: ["current", "fallback", "offered by the server"] },
      { model: "llama3:8b", sources: ["fallback"] },
      { model: "mistral", sources: ["offered by the server"] },
    ]);
  });
});

describe("palette protocol messages", () => {
  it("accepts focus and the composer's chip, and no longer the palette-only chip messages", async () => {
    const { parseHostToWebview, parseWebviewToHost } = await import("../../../src/protocol/messages");
    expect(parseHostToWebview({ type: "composer.focus" }).ok).toBe(true);
    // One chip system: the palette's attachments are composer chips; the old palette-only messages are gone.
    expect(parseHostToWebview({ type: "composer.addContext", item: { kind: "file", path: "src/a.ts" } }).ok).toBe(true);
    expect(parseHostToWebview({ type: "composer.context", items: [{ id: "c1", kind: "selection", label: "a.ts:1-2", detail: "src/a.ts, lines 1-2" }] }).ok).toBe(false);
    expect(parseWebviewToHost({ type: "composer.removeContext", id: "c1" }).ok).toBe(false);
  });
});
