import { describe, expect, it } from "vitest";
import { HANDOFF_PREFIX, parseArchitectSettings, phaseOf } from "../../../src/core/architect";
import type { SessionEvent } from "../../../src/core/events";

let seq = 0;
const user = (text: string, from?: "user" | "hook" | "extension"): SessionEvent => ({ seq: seq++, ts: "2026-01-01T00:00:00Z", type: "user_message", text, ...(from ? { from } : {}) });

describe("architect settings", () => {
  it("reads model and editorModel as `model` or `provider:model`", () => {
    expect(parseArchitectSettings({ editorModel: "anthropic:claude-haiku-4-5" })).toEqual({ editorModel: { provider: "anthropic", model: "claude-haiku-4-5" } });
    expect(parseArchitectSettings({ model: "gpt-5.1", editorModel: "qwen2.5-coder:7b" })).toEqual({ model: { model: "gpt-5.1" }, editorModel: { model: "qwen2.5-coder:7b" } });
  });
  it("is off when absent or empty", () => {
    expect(parseArchitectSettings(undefined)).toBeUndefined();
    expect(parseArchitectSettings(null)).toBeUndefined();
    expect(parseArchitectSettings({})).toBeUndefined();
  });
  it("says what is wrong", () => {
    expect(() => parseArchitectSettings("haiku", "yoke.architect")).toThrow(/yoke.architect must be an object/);
    expect(() => parseArchitectSettings({ model: "big" }, "yoke.architect")).toThrow(/yoke.architect.editorModel must name the model/);
    expect(() => parseArchitectSettings({ editorModel: "x", editor: "y" })).toThrow(/architect.editor is not a setting/);
    expect(() => parseArchitectSettings({ editorModel: "anthropic:" })).toThrow(/architect.editorModel: .*names no model/);
  });
});

describe("the phase from the log", () => {
  it("plans after the user's prompt, edits after the hand-over until the next prompt", () => {
    expect(phaseOf([])).toBe("plan");
    expect(phaseOf([user("add a note")])).toBe("plan");
    const handed = [user("add a note"), user(`${HANDOFF_PREFIX} go`, "extension")];
    expect(phaseOf(handed)).toBe("edit");
    // Another extension's nudge (a failed check) after the hand-over stays with the editor.
    expect(phaseOf([...handed, user("The check failed: fix it", "extension"), user("Stop hook says continue", "hook")])).toBe("edit");
    expect(phaseOf([...handed, user("now rename it", "user")])).toBe("plan");
    expect(phaseOf([...handed, user("now rename it")])).toBe("plan");
    // A person typing the prefix does not hand over.
    expect(phaseOf([user(`${HANDOFF_PREFIX} typed by a person`)])).toBe("plan");
  });
});
