import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = new ToolRegistry(createBuiltinTools());

describe("anchors from grep and read_file", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = createTempWorkspace({ "src/config.ts": "export const config = {\n  retries: 3,\n  timeoutMs: 1000,\n};\n" });
  });
  afterEach(() => ws.cleanup());

  it("edit_file accepts an anchor copied from a grep result", async () => {
    const ctx = ws.context();
    const found = await callTool(tools, "grep", { pattern: "retries" }, ctx);
    const anchor = /^(\d+#[A-Z]{2})\|/m.exec(found.text)![1]!;
    expect(anchor.startsWith("2#")).toBe(true);
    const edit = await callTool(tools, "edit_file", { path: "src/config.ts", edits: [{ op: "replace", pos: anchor, lines: ["  retries: 5,"] }] }, ctx);
    expect(edit.isError).toBeUndefined();
    expect(ws.read("src/config.ts")).toBe("export const config = {\n  retries: 5,\n  timeoutMs: 1000,\n};\n");
  });

  it("grep and read_file print the same anchor for the same line", async () => {
    const ctx = ws.context();
    const grepLine = (await callTool(tools, "grep", { pattern: "timeoutMs" }, ctx)).text.split("\n")[2];
    const readLine = (await callTool(tools, "read_file", { path: "src/config.ts", offset: 3, limit: 1 }, ctx)).text.split("\n")[1];
    expect(grepLine).toBe(readLine);
  });
});
