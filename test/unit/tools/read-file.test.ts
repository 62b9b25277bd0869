import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashlineReady, lineHash } from "../../../src/core/edit/hashline";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { MAX_READ_BYTES, READ_PAGE_BYTES, forgetSentRanges } from "../../../src/core/tools/read-file";
import { SPILL_CHARS } from "../../../src/core/compaction/render";
import { ToolRegistry } from "../../../src/core/tools/registry";
import type { ToolContext } from "../../../src/core/tools/types";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = new ToolRegistry(createBuiltinTools());

describe("read_file", () => {
  let ws: TempWorkspace;
  let ctx: ToolContext;
  beforeAll(() => hashlineReady());
  beforeEach(() => {
    ws = createTempWorkspace({
      "src/app.ts": "const a = 1;\nconst b = 2;\n}\n",
      "src/util/strings.ts": "export {};\n",
      "src/apps.ts": "x\n",
    });
    ctx = ws.context();
  });
  afterEach(() => ws.cleanup());
  const read = (input: unknown) => callTool(tools, "read_file", input, ctx);

  it("shows every line as LINE#HH|text under a header with the range and total", async () => {
    const out = await read({ path: "src/app.ts" });
    expect(out.isError).toBeUndefined();
    expect(out.text).toBe(
      ["File: src/app.ts (lines 1-3 of 3)", `1#${lineHash(1, "const a = 1;")}|const a = 1;`, `2#${lineHash(2, "const b = 2;")}|const b = 2;`, `3#${lineHash(3, "}")}|}`].join("\n"),
    );
    expect(out.meta).toEqual({ path: "src/app.ts", from: 1, to: 3, total: 3 });
  });

  it("records the file in the read state with its mtime and size", async () => {
    await read({ path: "src/app.ts" });
    const st = fs.statSync(path.join(ws.root, "src/app.ts"));
    expect(ctx.readState.get(`${ws.root}/src/app.ts`)).toEqual({ mtimeMs: st.mtimeMs, size: st.size });
  });

  it("shows a range with offset and limit; the header alone says which lines of how many (no note for a range shown in full)", async () => {
    ws.write({ "long.txt": Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n") + "\n" });
    const out = await read({ path: "long.txt", offset: 10, limit: 5 });
    const lines = out.text.split("\n");
    expect(lines[0]).toBe("File: long.txt (lines 10-14 of 50)");
    expect(lines[1]).toBe(`10#${lineHash(10, "line 10")}|line 10`);
    expect(lines[5]).toBe(`14#${lineHash(14, "line 14")}|line 14`);
    expect(lines).toHaveLength(6);
    expect(out.text).not.toContain("to see more");
  });

  it("stops at 2000 lines by default and points at the next offset", async () => {
    ws.write({ "big.txt": Array.from({ length: 2500 }, (_, i) => `${i}`).join("\n") });
    const out = await read({ path: "big.txt" });
    expect(out.text.split("\n")).toHaveLength(2002);
    expect(out.text).toContain("[Showing lines 1-2000 of 2500 (limit 2000). Call read_file with offset=2001 to see more.]");
  });

  it("keeps a full page under the spill size, header and note included, even for a long path", async () => {
    const name = `src/${"deeply-nested-folder/".repeat(8)}big.txt`;
    ws.write({ [name]: Array.from({ length: 3000 }, (_, i) => `${i} ${"x".repeat(100)}`).join("\n") + "\n" });
    const out = await read({ path: name });
    expect(out.text.length).toBeLessThan(SPILL_CHARS);
    expect(out.text.split("\n").at(-1)).toMatch(
      new RegExp(`^\\[Showing lines 1-\\d+ of 3000 \\(the output limit of ${READ_PAGE_BYTES} bytes was reached\\)\\. Call read_file with offset=\\d+ to see more\\.\\]$`),
    );
  });

  it("cuts lines longer than 2000 characters with a marker", async () => {
    ws.write({ "min.js": "x".repeat(5000) + "\n" });
    const out = await read({ path: "min.js" });
    expect(out.text).toContain("… [line cut: 3005 more characters]");
  });

  it("refuses an offset past the end with the valid range", async () => {
    const out = await read({ path: "src/app.ts", offset: 9 });
    expect(out).toEqual({
      isError: true,
      text: 'offset 9 is past the end of "src/app.ts", which has 3 lines. Call read_file with an offset from 1 to 3.',
    });
  });

  it("answers briefly when the same range is read again unchanged, and re-sends with force", async () => {
    await read({ path: "src/app.ts" });
    const again = await read({ path: "src/app.ts" });
    expect(again.text).toBe(
      "src/app.ts (lines from 1, limit 2000) is unchanged since you read it earlier in this session; the earlier result is still valid. " + "Call read_file with force: true to get the text again.",
    );
    expect((await read({ path: "src/app.ts", force: true })).text).toContain("File: src/app.ts (lines 1-3 of 3)");
    expect((await read({ path: "src/app.ts", offset: 2 })).text).toContain("File: src/app.ts (lines 2-3 of 3)");
  });

  it("re-sends a file that changed since the earlier read", async () => {
    await read({ path: "src/app.ts" });
    ws.write({ "src/app.ts": "const a = 10;\n" });
    expect((await read({ path: "src/app.ts" })).text).toContain("File: src/app.ts (lines 1-1 of 1)");
  });

  it("re-sends after forgetSentRanges (e.g. after compaction) and keeps write permission", async () => {
    await read({ path: "src/app.ts" });
    forgetSentRanges(ctx.readState);
    expect((await read({ path: "src/app.ts" })).text).toContain("File: src/app.ts (lines 1-3 of 3)");
    expect(ctx.readState.has(`${ws.root}/src/app.ts`)).toBe(true);
  });

  it("refuses files too large to load and points at grep", async () => {
    fs.writeFileSync(path.join(ws.root, "huge.log"), "");
    fs.truncateSync(path.join(ws.root, "huge.log"), MAX_READ_BYTES + 1);
    const out = await read({ path: "huge.log" });
    expect(out.isError).toBe(true);
    expect(out.text).toContain('"huge.log" is too large to read (50.0 MB; the limit is 50 MB). Use grep with path="huge.log"');
  });

  it("does not take the shortcut in a new session (fresh read state)", async () => {
    await read({ path: "src/app.ts" });
    ctx = ws.context();
    expect((await read({ path: "src/app.ts" })).text).toContain("File: src/app.ts (lines 1-3 of 3)");
  });

  it("refuses binary files clearly", async () => {
    ws.write({ "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]) });
    const out = await read({ path: "logo.png" });
    expect(out.isError).toBe(true);
    expect(out.text).toContain('"logo.png" is a binary file (8 bytes); read_file shows text files only.');
  });

  it("suggests list_files for a directory", async () => {
    expect((await read({ path: "src" })).text).toBe('"src" is a directory, not a file. Call list_files with path="src" to see what it contains.');
  });

  it("lists similarly named files for a missing file", async () => {
    const out = await read({ path: "src/app.tsx" });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^File not found: "src\/app.tsx"\. Files with similar names: "src\/app.ts", "src\/apps.ts"/);
    const deep = await read({ path: "lib/strings.ts" });
    expect(deep.text).toContain('"src/util/strings.ts"');
    const none = await read({ path: "zzzzzzzz.qq" });
    expect(none.text).toBe('File not found: "zzzzzzzz.qq". Use glob or list_files to find the right path.');
  });

  it("strips a UTF-8 BOM from the view and says so", async () => {
    ws.write({ "bom.txt": "\uFEFFhello\r\nworld\r\n" });
    const out = await read({ path: "bom.txt" });
    expect(out.text).toBe(["File: bom.txt (lines 1-2 of 2; UTF-8 BOM not shown)", `1#${lineHash(1, "hello")}|hello`, `2#${lineHash(2, "world")}|world`].join("\n"));
  });

  it("reports an empty file", async () => {
    ws.write({ "empty.txt": "" });
    expect((await read({ path: "empty.txt" })).text).toBe("File: empty.txt (empty file, 0 lines)");
  });

  it("refuses paths outside the workspace", async () => {
    const out = await read({ path: "../../etc/passwd" });
    expect(out.isError).toBe(true);
    expect(out.text).toContain('The path "../../etc/passwd" is outside the workspace');
  });

  it("gives the hook input Claude Code hooks expect", () => {
    expect(tools.get("read_file")!.hookInput({ path: "a.ts", offset: 3 })).toEqual({ file_path: "a.ts", offset: 3, limit: undefined });
  });
});
