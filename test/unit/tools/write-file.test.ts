import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { isReadOnly, type ToolContext } from "../../../src/core/tools/types";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = createBuiltinTools();

describe("write_file", () => {
  let ws: TempWorkspace;
  let ctx: ToolContext;
  beforeEach(() => {
    ws = createTempWorkspace({ "src/a.ts": "one\ntwo\n" });
    ctx = ws.context();
  });
  afterEach(() => ws.cleanup());
  const write = (input: unknown) => callTool(tools, "write_file", input, ctx);
  const read = (input: unknown) => callTool(tools, "read_file", input, ctx);

  it("creates a new file and its parent folders, and reports the line count", async () => {
    const out = await write({ path: "new/deep/file.ts", content: "a\nb\nc\n" });
    expect(out.text).toBe("Created new/deep/file.ts (3 lines).");
    expect(out.meta).toEqual({ path: "new/deep/file.ts", before: undefined, after: "a\nb\nc\n" });
    expect(ws.read("new/deep/file.ts")).toBe("a\nb\nc\n");
  });

  it("refuses to overwrite a file that was not read in this session", async () => {
    const out = await write({ path: "src/a.ts", content: "x" });
    expect(out).toEqual({
      isError: true,
      text:
        'write_file refused: "src/a.ts" already exists and you have not read it in this session. ' +
        'Call read_file with path="src/a.ts" first (or use edit_file to change part of it), then call write_file again.',
    });
    expect(ws.read("src/a.ts")).toBe("one\ntwo\n");
  });

  it("overwrites a file after it was read, with before and after for the diff", async () => {
    await read({ path: "src/a.ts" });
    const out = await write({ path: "src/a.ts", content: "one\n2\nthree\n" });
    expect(out.text).toBe("Overwrote src/a.ts (was 2 lines, now 3 lines).");
    expect(out.meta).toEqual({ path: "src/a.ts", before: "one\ntwo\n", after: "one\n2\nthree\n" });
    expect(ws.read("src/a.ts")).toBe("one\n2\nthree\n");
    // The model knows the new content: a second write needs no new read.
    expect((await write({ path: "src/a.ts", content: "z\n" })).text).toBe("Overwrote src/a.ts (was 3 lines, now 1 line).");
  });

  it("refuses when the file changed on disk since it was read", async () => {
    await read({ path: "src/a.ts" });
    fs.writeFileSync(path.join(ws.root, "src/a.ts"), "changed by someone else\n");
    const out = await write({ path: "src/a.ts", content: "x" });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(
      /^write_file refused: "src\/a.ts" has changed on disk since you read it \(then 8 bytes, modified .+; now 24 bytes, modified .+\)\. Call read_file with path="src\/a.ts" to see the current content, then decide again\.$/,
    );
    expect(ws.read("src/a.ts")).toBe("changed by someone else\n");
  });

  it("keeps CRLF line endings and a BOM of the file it replaces", async () => {
    ws.write({ "win.txt": "\uFEFFa\r\nb\r\n" });
    await read({ path: "win.txt" });
    await write({ path: "win.txt", content: "a\nb\nc\n" });
    expect(fs.readFileSync(path.join(ws.root, "win.txt"), "utf8")).toBe("\uFEFFa\r\nb\r\nc\r\n");
  });

  it("writes nothing when the content is unchanged", async () => {
    await read({ path: "src/a.ts" });
    const before = fs.statSync(path.join(ws.root, "src/a.ts")).mtimeMs;
    expect((await write({ path: "src/a.ts", content: "one\ntwo\n" })).text).toBe("src/a.ts already has exactly this content (2 lines); nothing was written.");
    expect(fs.statSync(path.join(ws.root, "src/a.ts")).mtimeMs).toBe(before);
  });

  it("refuses directories, escapes and missing content", async () => {
    expect((await write({ path: "src", content: "x" })).text).toBe('"src" is a directory; write_file writes files. Choose a file path such as "src/new-file.ts".');
    expect((await write({ path: "../evil.sh", content: "x" })).text).toContain('The path "../evil.sh" is outside the workspace');
    expect(fs.existsSync(path.join(path.dirname(ws.root), "evil.sh"))).toBe(false);
    expect((await write({ path: "a.txt" })).text).toContain('write_file: missing required argument "content" (a string).');
  });

  it("refuses to write through a symlink that leads outside the workspace", async () => {
    const outside = fs.mkdtempSync(path.join(path.dirname(ws.root), "yoke-out-"));
    try {
      fs.symlinkSync(outside, path.join(ws.root, "out"));
      const out = await write({ path: "out/x.txt", content: "x" });
      expect(out.text).toContain("a symbolic link on the way leads outside it");
      expect(fs.readdirSync(outside)).toEqual([]);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("is a mutating tool with the Write permission and Claude Code hook input", () => {
    const tool = tools.find((t) => t.name === "write_file")!;
    expect(isReadOnly(tool.capabilities)).toBe(false);
    expect(tool.permission).toBe("Write");
    expect(tool.hookInput({ path: "a", content: "b" })).toEqual({ file_path: "a", content: "b" });
  });
});

describe("todo_write", () => {
  let ws: TempWorkspace;
  beforeEach(() => {
    ws = createTempWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("replaces the list and renders it", async () => {
    const todos = [
      { content: "Write the parser", status: "completed" },
      { content: "Test it", status: "in_progress" },
      { content: "Ship", status: "pending" },
    ];
    const out = await callTool(tools, "todo_write", { todos }, ws.context());
    expect(out.text).toBe(["Todo list (3 items: 1 completed, 1 in progress, 1 pending):", "[x] 1. Write the parser", "[>] 2. Test it", "[ ] 3. Ship"].join("\n"));
    expect(out.meta).toEqual({ todos });
  });

  it("refuses two items in progress", async () => {
    const out = await callTool(
      tools,
      "todo_write",
      {
        todos: [
          { content: "a", status: "in_progress" },
          { content: "b", status: "in_progress" },
        ],
      },
      ws.context(),
    );
    expect(out.isError).toBe(true);
    expect(out.text).toContain('todo_write: argument "todos": at most one item may have status "in_progress" at a time. Mark the others "pending" (not started) or "completed" (done).');
  });

  it("refuses an empty item and accepts an empty list", async () => {
    const bad = await callTool(tools, "todo_write", { todos: [{ content: "", status: "pending" }] }, ws.context());
    expect(bad.text).toContain('todo_write: argument "todos[0].content" must be a non-empty string (got "").');
    expect((await callTool(tools, "todo_write", { todos: [] }, ws.context())).text).toBe("Todo list cleared (no items).");
  });
});
