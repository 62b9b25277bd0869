/** Issue 21: the old/new shapes of other tools, through the real edit_file tool on a temp workspace. */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEditText } from "../../../src/core/edit/edit-input";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { editFileTool } from "../../../src/core/tools/edit-file";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";
import { applied, block, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

const FILE = "let retries = 3;\nlet delay = 10;\nlet delay2 = 10;\n";

async function run(input: unknown, file = FILE) {
  ws = createTempWorkspace({ "src/a.ts": file });
  const out = await callTool([editFileTool], "edit_file", input, ws.context());
  return { out, content: ws.read("src/a.ts") };
}

describe("other tools' old/new shapes", () => {
  it("takes pi's {path, oldText, newText}", async () => {
    const { out, content } = await run({ path: "src/a.ts", oldText: "retries = 3", newText: "retries = 5" });
    expect(out.isError, out.text).toBeFalsy();
    expect(content).toBe("let retries = 5;\nlet delay = 10;\nlet delay2 = 10;\n");
  });

  it("takes Cline SDK's old_text/new_text inside edits", async () => {
    const { out, content } = await run({ path: "src/a.ts", edits: [{ old_text: "delay = 10", new_text: "delay = 20" }] });
    expect(out.isError, out.text).toBeFalsy();
    expect(content).toBe("let retries = 3;\nlet delay = 20;\nlet delay2 = 10;\n");
  });

  it("takes gemini's {file_path, old_string, new_string, expected_replacements} and checks the count", async () => {
    const ok = await run({ file_path: "src/a.ts", old_string: "= 10;", new_string: "= 15;", expected_replacements: 2 });
    expect(ok.out.isError, ok.out.text).toBeFalsy();
    expect(ok.content).toBe("let retries = 3;\nlet delay = 15;\nlet delay2 = 15;\n");
    const bad = await run({ file_path: "src/a.ts", old_string: "= 10;", new_string: "= 15;", expected_replacements: 3 });
    expect(bad.out.isError).toBe(true);
    expect(bad.out.text).toContain("expected_replacements is 3, but SEARCH matches 2 places in src/a.ts exactly; nothing was changed.");
    expect(bad.content).toBe(FILE);
  });

  it("takes gemini's allow_multiple as replace_all", async () => {
    const { out, content } = await run({ file_path: "src/a.ts", old_string: "let", new_string: "var", allow_multiple: true });
    expect(out.isError, out.text).toBeFalsy();
    expect(content).toBe("var retries = 3;\nvar delay = 10;\nvar delay2 = 10;\n");
  });

  it("takes Copilot's code-mapper ---FIND/---REPLACE text as the edits", async () => {
    const text = "---FILEPATH src/a.ts\n---FIND\n```ts\nlet delay = 10;\n```\n---REPLACE\n```ts\nlet delay = 11;\n```\n---COMPLETE\n";
    const { out, content } = await run({ path: "src/a.ts", edits: text });
    expect(out.isError, out.text).toBeFalsy();
    expect(content).toBe("let retries = 3;\nlet delay = 11;\nlet delay2 = 10;\n");
  });

  it("reads code-mapper text on stdin (yoke edit apply) and refuses a FIND without its REPLACE", () => {
    const r = parseEditText("---FIND\nlet a = 1;\n---REPLACE\nlet a = 2;\n---FIND\nx\n---REPLACE\ny\n---COMPLETE\n", { file: "src/a.ts" });
    expect(r).toEqual({
      ok: true,
      edits: [
        { kind: "block", search: ["let a = 1;"], replace: ["let a = 2;"] },
        { kind: "block", search: ["x"], replace: ["y"] },
      ],
    });
    expect(parseEditText("---FIND\na\n---FIND\nb\n---REPLACE\nc\n", { file: "a" })).toEqual({ ok: false, message: "a ---FIND section is followed by another ---FIND instead of its ---REPLACE" });
    expect(parseEditText("---FILEPATH other.ts\n---FIND\na\n---REPLACE\nb\n", { file: "src/a.ts" })).toEqual({
      ok: false,
      message: 'a block is for "other.ts", but the file being edited is src/a.ts; apply one file\'s blocks at a time',
    });
  });
});

describe("an elision marker in SEARCH with none in REPLACE", () => {
  const f = "function big() {\n  one();\n  two();\n  return 4;\n}\n";

  it("applies when REPLACE spells out every elided line", () => {
    expect(applied(f, [block(["function big() {", "  // ... existing code ...", "  return 4;", "}"], ["function big() {", "  one();", "  two();", "  return 5;", "}"])])).toBe(
      "function big() {\n  one();\n  two();\n  return 5;\n}\n",
    );
  });

  it("refuses when REPLACE would drop an elided line", () => {
    expect(refused(f, [block(["function big() {", "  ...", "  return 4;", "}"], ["function big() {", "  one();", "  return 5;", "}"])])).toContain(
      'SEARCH has 1 elision marker ("...") but REPLACE has 0; nothing was changed.',
    );
  });
});
