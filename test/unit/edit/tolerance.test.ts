/**
 * Issue 21: the tolerances that used to give a wrong file (a re-indent of new text already in the
 * file's indentation, CRLF content of a new file written with LF, the model's ASCII turned into
 * the file's dashes, spaces inside a string read loosely) and the refusal classes now applied.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import type { ToolContext } from "../../../src/core/tools/types";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";
import { applied, block, edit, refused } from "./edit-helpers";

beforeAll(() => hashlineReady());

describe("re-indenting the new text", () => {
  const f = "function a() {\n  const x = 1;\n  return x;\n}\n";

  it("writes REPLACE as given when SEARCH lost its indentation but REPLACE already has the file's", () => {
    const want = "function a() {\n  const x = 2;\n  return x;\n}\n";
    expect(applied(f, [{ old_string: "const x = 1;\nreturn x;", new_string: "  const x = 2;\n  return x;" }])).toBe(want);
    expect(applied(f, [block(["const x = 1;", "return x;"], ["  const x = 2;", "  return x;"])])).toBe(want);
    const r = edit(f, [block(["const x = 1;", "return x;"], ["  const x = 2;", "  return x;"])]);
    expect(r.ok && r.notes[0]).toBe(
      'Edit 1 (SEARCH block starting "const x = 1;"): matched lines 2-3 when indentation is ignored; REPLACE was already in the file\'s indentation, so it was written as given.',
    );
  });

  it("still re-indents REPLACE written in SEARCH's indentation", () => {
    expect(applied(f, [block(["const x = 1;", "return x;"], ["const x = 2;", "return x;"])])).toBe("function a() {\n  const x = 2;\n  return x;\n}\n");
    expect(applied(f, [block(["const x = 1;"], ["if (ok) {", "  const x = 2;", "}"])])).toBe("function a() {\n  if (ok) {\n    const x = 2;\n  }\n  return x;\n}\n");
  });

  it("reads REPLACE line by line: each matched line it repeats has its file indentation, so it is written as given", () => {
    const g = "if (a) {\n  y();\n}\n";
    expect(applied(g, [block(["if (a) {", "y();"], ["if (a) {", "  y();", "  added();"])])).toBe("if (a) {\n  y();\n  added();\n}\n");
  });

  it("refuses when REPLACE mixes SEARCH's indentation and the file's", () => {
    const y = "items:\n  - a\n  - b\n";
    expect(refused(y, [block(["      - a", "      - b"], ["      - a", "  - c", "      - b"])])).toContain("cannot be re-indented consistently");
  });
});

describe("line ends of a new file", () => {
  it("follows the content's own CRLF line ends and BOM (old_string empty, empty SEARCH block)", () => {
    const json = edit(undefined, [{ old_string: "", new_string: "a\r\nb\r\n" }]);
    expect(json.ok && json.after).toBe("a\r\nb\r\n");
    const blk = edit(undefined, [block([], ["\uFEFFa\r", "b\r"])]);
    expect(blk.ok && blk.after).toBe("\uFEFFa\r\nb\r\n");
    expect(applied("", [{ old_string: "", new_string: "x\r\ny\n" }])).toBe("x\r\ny\n");
  });

  it("keeps an existing file's line ends when its whitespace-only content is replaced", () => {
    expect(applied("\r\n", [{ old_string: "", new_string: "a\nb\n" }])).toBe("a\r\nb\r\n");
  });
});

describe("the tools write a new file with the content's own line ends", () => {
  const tools = createBuiltinTools();
  let ws: TempWorkspace;
  let ctx: ToolContext;
  beforeEach(() => {
    ws = createTempWorkspace({ "keep.txt": "k\n" });
    ctx = ws.context();
  });
  afterEach(() => ws.cleanup());

  it("write_file keeps CRLF content of a new file", async () => {
    await callTool(tools, "write_file", { path: "win/new.bat", content: "@echo off\r\necho hi\r\n" }, ctx);
    expect(fs.readFileSync(path.join(ws.root, "win/new.bat"), "utf8")).toBe("@echo off\r\necho hi\r\n");
  });

  it("write_file keeps an existing LF file LF when the model sends CRLF content", async () => {
    await callTool(tools, "read_file", { path: "keep.txt" }, ctx);
    await callTool(tools, "write_file", { path: "keep.txt", content: "k\r\nl\r\n" }, ctx);
    expect(fs.readFileSync(path.join(ws.root, "keep.txt"), "utf8")).toBe("k\nl\n");
  });

  it("edit_file with an empty old_string on a missing file keeps CRLF content", async () => {
    const out = await callTool(tools, "edit_file", { path: "new.ps1", old_string: "", new_string: "Write-Host 1\r\nWrite-Host 2\r\n" }, ctx);
    expect(out.isError ?? false, out.text).toBe(false);
    expect(fs.readFileSync(path.join(ws.root, "new.ps1"), "utf8")).toBe("Write-Host 1\r\nWrite-Host 2\r\n");
  });
});

describe("spaces inside strings are content", () => {
  it("refuses a loose spacing match when a changed line's string has other spaces than SEARCH", () => {
    const msg = refused('x = "a  b"\ny = 1\n', [{ old_string: 'x = "a b"', new_string: 'x = "a b c"' }]);
    expect(msg).toBe(
      "Nothing was written to f.ts: the edit failed.\n\n" +
        'Edit 1 (old_string starting "x = \\"a b\\""): SEARCH matches line 1 of f.ts only when indentation is ignored and each run of spaces or tabs inside a line is read as one space, ' +
        "and REPLACE changes line 1, whose spaces inside a quoted string differ from SEARCH's (the spaces of a string are its content), so which spacing is meant is unclear. Nothing was changed. Current text:\n" +
        "1#" +
        msg.split("\n1#")[1]!.split("\n")[0] +
        "\n2#" +
        msg.split("\n2#")[1]!.split("\n")[0] +
        "\nFix: copy that line exactly from the current text above.",
    );
    expect(msg).toMatch(/\n1#[A-Z]{2}\|x = "a {2}b"\n2#[A-Z]{2}\|y = 1\n/);
  });

  it("still applies a spacing match whose changed line differs only outside strings", () => {
    expect(applied("if (a &&  b) {\n  go();\n}\n", [{ old_string: "if (a && b) {", new_string: "if (a && b && c) {" }])).toBe("if (a &&  b && c) {\n  go();\n}\n");
  });

  it("keeps the file's line when the string line is not changed", () => {
    expect(applied('x = "a  b"\ny = 1\n', [block(['x = "a b"', "y = 1"], ['x = "a b"', "y = 2"])])).toBe('x = "a  b"\ny = 2\n');
  });
});

describe("an old_string of whitespace only is not empty", () => {
  it("replaces a single tab that occurs once", () => {
    expect(applied("a\tb\n", [{ old_string: "\t", new_string: "    " }])).toBe("a    b\n");
  });

  it("still reads a SEARCH block of blank or whitespace-only lines as empty (no anchor)", () => {
    expect(refused("a\n\t\nb\n", [block(["\t"], ["x"])])).toContain("SEARCH is empty, but f.ts is not empty (3 lines)");
  });

  it("refuses a single tab that occurs twice as ambiguous, not as empty", () => {
    expect(refused("a\tb\tc\n", [{ old_string: "\t", new_string: " " }])).toContain("SEARCH matches 2 places in f.ts exactly");
  });
});

describe("near-misses: compatibility Unicode and the similarity stage", () => {
  it("matches full-width and compatibility characters read as NFKC, and writes the changed line as given", () => {
    expect(applied("const ＡＰＩ_KEY = 1;\nx();\n", [block(["const API_KEY = 1;"], ["const API_KEY = 2;"])])).toBe("const API_KEY = 2;\nx();\n");
    expect(applied("const API_KEY = 1;\nx();\n", [block(["const ＡＰＩ_KEY = 1;", "x();"], ["const ＡＰＩ_KEY = 1;", "y();"])])).toBe("const API_KEY = 1;\ny();\n");
  });

  it("applies a near-miss (a typo in a kept line) at the only similar place, keeping the file's line", () => {
    const f = "function recieveMessage(msg) {\n  return handle(msg);\n}\n";
    const r = edit(f, [block(["function receiveMessage(msg) {", "  return handle(msg);", "}"], ["function receiveMessage(msg) {", "  return handle(msg, true);", "}"])]);
    expect(r.ok && r.after).toBe("function recieveMessage(msg) {\n  return handle(msg, true);\n}\n");
    expect(r.ok && r.applied[0]!.rung).toBe("similar");
    expect(r.ok && r.applied[0]!.rules).toEqual(["similar-text"]);
  });

  it("refuses a near-miss in a digit or an operator (a stale value, not a slip)", () => {
    const f = "const limits = {\n  retries: 5,\n  timeout: 30,\n};\n";
    expect(refused(f, [block(["const limits = {", "  retries: 3,", "  timeout: 30,"], ["const limits = {", "  retries: 3,", "  timeout: 60,"])])).toContain("The closest region is lines 1-3");
    const g = "if (count <= limit) {\n  grow(count);\n}\n";
    expect(refused(g, [block(["if (count < limit) {", "  grow(count);", "}"], ["if (count < limit) {", "  grow(count + 1);", "}"])])).toContain("SEARCH text not found in f.ts.");
  });

  it("refuses a near-miss that two places are close to", () => {
    const f = "function loadUser(id) {\n  return db.get(id);\n}\nfunction loadUsers(id) {\n  return db.get(id);\n}\n";
    expect(refused(f, [block(["function loadUsr(id) {", "  return db.get(id);", "}"], ["function loadUsr(id) {", "  return db.fetch(id);", "}"])])).toContain(
      "but lines 4-6 are 95% similar too, so which one is meant is unclear",
    );
  });

  it("refuses a short SEARCH with no exact match rather than guessing", () => {
    expect(refused("let a = 1;\nlet b = 2;\n", [block(["let c = 1;"], ["let c = 3;"])])).toContain("SEARCH text not found in f.ts.");
  });
});

describe("SEARCH and REPLACE that both lost their indentation", () => {
  const f = "class A {\n  run() {\n    if (ok) {\n      go();\n    }\n    done();\n  }\n}\n";
  const flat = ["if (ok) {", "go();", "}", "done();"];

  it("gives each REPLACE line the indentation of the line it stands for (flattened-reindent)", () => {
    const r = edit(f, [block(flat, ["if (ok) {", "go(1);", "}", "done();"])]);
    expect(r.ok && r.after).toBe("class A {\n  run() {\n    if (ok) {\n      go(1);\n    }\n    done();\n  }\n}\n");
    expect(r.ok && r.notes).toEqual([
      'Edit 1 (SEARCH block starting "if (ok) {"): [rule flattened-reindent] SEARCH and REPLACE had both lost their indentation, so each REPLACE line got the indentation of the file line it stands for (a new line: that of the lines around it); matched lines 3-6 when indentation is ignored.',
    ]);
  });

  it("gives a new line the indentation its neighbours agree on", () => {
    expect(applied(f, [block(flat, ["if (ok) {", "go();", "log();", "}", "done();"])])).toBe("class A {\n  run() {\n    if (ok) {\n      go();\n      log();\n    }\n    done();\n  }\n}\n");
    expect(applied(f, [block(flat, ["if (ok) {", "go();", "}", "cleanup();", "done();"])])).toBe("class A {\n  run() {\n    if (ok) {\n      go();\n    }\n    cleanup();\n    done();\n  }\n}\n");
  });

  it("refuses a structure change (a new block) and a line whose neighbours disagree", () => {
    expect(refused(f, [block(flat, ["if (ok) {", "if (x) {", "go();", "}", "}", "done();"])])).toContain("cannot be re-indented consistently");
    const py = "def f():\n    if a:\n        b()\n    c()\n";
    // After the last line of a Python block and before a dedented line: inside or after the block?
    expect(refused(py, [block(["if a:", "b()", "c()"], ["if a:", "b()", "d()", "c()"])])).toContain("cannot be re-indented consistently");
  });

  it("refuses a shifted REPLACE that opens a block with no deeper line after it", () => {
    const g = "function f() {\n    step();\n    done();\n}\n";
    expect(refused(g, [block(["step();"], ["if (check) {", "step();", "}"])])).toContain(
      'would have the line "if (check) {" open a block with no deeper line after it, so its lines\' indentation cannot be known; nothing was changed.',
    );
  });
});
