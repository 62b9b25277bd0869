/** The apply_patch tool's self-description (what the model is told) and which model is offered which edit tool. */
import { describe, expect, it } from "vitest";
import { parsePatch } from "../../../src/core/edit/patch/parse";
import { applyPatchTool, patchTouches } from "../../../src/core/tools/apply-patch";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { editToolFor } from "../../../src/core/tools/edit-tool";
import { ToolRegistry } from "../../../src/core/tools/registry";

const PATCH = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** Add File: c.py\n+z\n*** Delete File: d.py\n*** End Patch";

describe("apply_patch tool", () => {
  it("describes the V4A format to the model, with one string argument `input`", () => {
    const reg = new ToolRegistry(createBuiltinTools("apply_patch"));
    const spec = reg.specs().find((s) => s.name === "apply_patch")!;
    expect(spec.inputSchema).toMatchObject({ type: "object", properties: { input: { type: "string" } }, required: ["input"] });
    for (const part of ["*** Begin Patch", "*** Add File:", "*** Update File:", "*** Move to:", "*** Delete File:", "*** End Patch", "*** End of File", "@@ def"]) {
      expect(spec.description).toContain(part);
    }
    expect(reg.names()).not.toContain("edit_file");
  });

  it("says what is wrong with a patch it cannot read, before anything runs", () => {
    const reg = new ToolRegistry(createBuiltinTools("apply_patch"));
    const v = reg.validate("apply_patch", { input: "*** Begin Patch\n*** Frobnicate File: x\n*** End Patch" });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.error).toContain('apply_patch: line 2 of the patch: expected "*** Add File: PATH", "*** Update File: PATH", "*** Delete File: PATH" or "*** End Patch"');
    expect(reg.validate("apply_patch", { patch: PATH_ONLY }).ok).toBe(true);
    // The patch sent as the arguments themselves (as to a freeform tool), not as JSON.
    expect(reg.validate("apply_patch", PATH_ONLY)).toEqual({ ok: true, args: { input: PATH_ONLY } });
    expect(reg.validate("apply_patch", JSON.stringify({ input: PATH_ONLY }))).toEqual({ ok: true, args: { input: PATH_ONLY } });
  });

  it("names every path it touches with the permission each needs (Move to: both ends)", () => {
    const p = parsePatch(PATCH);
    expect(p.ok && patchTouches(p.files)).toEqual([
      { path: "a.py", permission: "Edit" },
      { path: "b.py", permission: "Write" },
      { path: "c.py", permission: "Write" },
      { path: "d.py", permission: "Edit" },
    ]);
    expect(applyPatchTool.touches!({ input: PATCH })).toHaveLength(4);
    expect(applyPatchTool.hookInput({ input: PATCH })).toEqual({ file_path: "a.py", file_paths: ["a.py", "b.py", "c.py", "d.py"], input: PATCH });
    expect(applyPatchTool.summarize({ input: PATCH })).toBe("a.py → b.py, c.py, d.py");
  });
});

const PATH_ONLY = "*** Begin Patch\n*** Delete File: x\n*** End Patch";

describe("which edit tool each model family gets", () => {
  it.each([
    ["gpt-5", "apply_patch"],
    ["gpt-5-codex", "apply_patch"],
    ["gpt-4.1-mini", "apply_patch"],
    ["openai/gpt-5", "apply_patch"],
    ["o3", "apply_patch"],
    ["o4-mini", "apply_patch"],
    ["codex-mini-latest", "apply_patch"],
    ["claude-sonnet-4-5", "edit_file"],
    ["gpt-4o", "edit_file"],
    ["qwen2.5-coder:7b", "edit_file"],
    ["llama3", "edit_file"],
  ])("%s: %s", (model, tool) => {
    expect(editToolFor("auto", model).tool).toBe(tool);
  });
  it("the setting overrides the family", () => {
    expect(editToolFor("edit_file", "gpt-5")).toEqual({ tool: "edit_file", why: 'the setting edits.tool is "edit_file"' });
    expect(editToolFor("apply_patch", "claude-opus-4")).toMatchObject({ tool: "apply_patch" });
  });
});

describe("a sub-agent's report of the files it changed", () => {
  it("lists every file of a successful patch", async () => {
    const { childFacts } = await import("../../../src/core/subagents/result");
    const tools = new Map(createBuiltinTools("apply_patch").map((t) => [t.name, t]));
    const events = [
      { type: "tool_call", seq: 1, ts: 0, callId: "c1", name: "apply_patch", input: { input: PATCH } },
      { type: "tool_result", seq: 2, ts: 0, callId: "c1", name: "apply_patch", output: "Applied the patch", isError: false },
      { type: "tool_call", seq: 3, ts: 0, callId: "c2", name: "apply_patch", input: { input: PATH_ONLY } },
      { type: "tool_result", seq: 4, ts: 0, callId: "c2", name: "apply_patch", output: "Nothing was written", isError: true },
    ] as unknown as Parameters<typeof childFacts>[0];
    const facts = childFacts(events, tools, { root: "/ws" } as unknown as Parameters<typeof childFacts>[2]);
    expect(facts.filesChanged).toEqual(["a.py", "b.py", "c.py", "d.py"]);
  });
});
