// The argument shapes edit_file and `yoke edit apply` accept (contract section 2), through the
// real registry validation (as the loop calls tools) and the shared reader.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ACCEPTED_SHAPES, parseEditText, readEditArgs } from "../../../src/core/edit/edit-input";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import { editFileTool } from "../../../src/core/tools/edit-file";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

beforeAll(() => hashlineReady());

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

async function run(input: unknown, file = "let retries = 3;\nlet delay = 10;\n") {
  ws = createTempWorkspace({ "src/a.ts": file });
  const out = await callTool([editFileTool], "edit_file", input, ws.context());
  return { out, content: ws.read("src/a.ts") };
}

describe("edit_file argument shapes", () => {
  it("takes the canonical {path, edits}", async () => {
    const { out, content } = await run({ path: "src/a.ts", edits: [{ old_string: "retries = 3", new_string: "retries = 5" }] });
    expect(out.isError).toBeFalsy();
    expect(content).toBe("let retries = 5;\nlet delay = 10;\n");
  });

  it("takes a bare old_string/new_string/replace_all object with file_path", async () => {
    const { out, content } = await run({ file_path: "src/a.ts", old_string: "let", new_string: "var", replace_all: true });
    expect(out.isError).toBeFalsy();
    expect(content).toBe("var retries = 3;\nvar delay = 10;\n");
  });

  it("takes oh-my-openagent's {filePath, edits} with hashline ops", async () => {
    const { out, content } = await run({ filePath: "src/a.ts", edits: [{ op: "replace", pos: lineTag(2, "let delay = 10;"), lines: "let delay = 20;" }] });
    expect(out.isError).toBeFalsy();
    expect(content).toBe("let retries = 3;\nlet delay = 20;\n");
  });

  it("takes camelCase pair keys (oldString/newString) and edits given as a JSON string", async () => {
    expect((await run({ filePath: "src/a.ts", oldString: "3", newString: "4" })).content).toBe("let retries = 4;\nlet delay = 10;\n");
    expect((await run({ path: "src/a.ts", edits: JSON.stringify([{ old_string: "10", new_string: "11" }]) })).content).toBe("let retries = 3;\nlet delay = 11;\n");
  });

  it("refuses a shape it cannot read with the accepted shapes, and writes nothing", async () => {
    const { out, content } = await run({ path: "src/a.ts", changes: [{ from: "3", to: "4" }] });
    expect(out.isError).toBe(true);
    expect(out.text).toContain('edit_file: Cannot read the edit: it has "path", "changes", but no edits. Accepted shapes: {"path": "src/a.ts", "edits": [...]}');
    expect(content).toBe("let retries = 3;\nlet delay = 10;\n");
  });

  it("refuses two different paths", async () => {
    const { out } = await run({ path: "src/a.ts", filePath: "src/b.ts", old_string: "3", new_string: "4" });
    expect(out.text).toContain('the arguments name two files (path: "src/a.ts", filePath: "src/b.ts"); give one path');
  });

  it("still explains which field of which edit is wrong", async () => {
    const { out } = await run({ path: "src/a.ts", edits: [{ op: "append", pos: 12, lines: ["x"] }] });
    expect(out.isError).toBe(true);
    expect(out.text).toContain('argument "edits[0].pos" must be a string (got 12)');
  });

  it("offers the model the canonical schema only, and gives hooks the canonical input", () => {
    const spec = new ToolRegistry([editFileTool]).jsonSchema("edit_file") as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(spec.properties)).toEqual(["path", "edits"]);
    expect(spec.required).toEqual(["path", "edits"]);
    const v = new ToolRegistry([editFileTool]).validate("edit_file", { filePath: "x.ts", old_string: "a", new_string: "b" });
    // Hooks see Claude Code's Edit shape of the canonical input.
    expect(v.ok && editFileTool.hookInput(v.args as never)).toEqual({ file_path: "x.ts", old_string: "a", new_string: "b" });
  });
});

describe("the shared reader", () => {
  it("reads every shape to the same edits", () => {
    const pair = { old_string: "a", new_string: "b" };
    for (const v of [[pair], { edits: [pair] }, pair, { filePath: "f", edits: [pair] }, { file_path: "f", ...pair }, { path: "f", edits: pair }]) {
      expect(readEditArgs(v)).toMatchObject({ ok: true, edits: [pair] });
    }
    expect(readEditArgs({ filePath: "f", edits: [] })).toEqual({ ok: false, message: `No edits were given (an empty list). ${ACCEPTED_SHAPES}` });
    expect(readEditArgs("x")).toMatchObject({ ok: false });
  });

  it("checks that a named file is the one being edited", () => {
    expect(parseEditText('{"filePath": "src/other.ts", "edits": [{"old_string": "a", "new_string": "b"}]}', { file: "/w/src/main.ts" })).toEqual({
      ok: false,
      message: 'the edit is for "src/other.ts", but the file being edited is /w/src/main.ts; apply one file\'s edits at a time',
    });
    expect(parseEditText('{"filePath": "src/main.ts", "old_string": "a", "new_string": "b"}', { file: "/w/src/main.ts" })).toMatchObject({ ok: true });
  });
});
