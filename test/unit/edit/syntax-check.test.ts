/**
 * The parse check of tolerant edits with the real tree-sitter grammars (@vscode/tree-sitter-wasm,
 * loaded as the Node host loads them).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { createSyntaxChecker, grammarFor, placedByTolerance, syntaxRefusal } from "../../../src/core/edit/syntax-check";
import { silentLogger } from "../../../src/core/ports";
import { applyPatchTool } from "../../../src/core/tools/apply-patch";
import { editFileTool } from "../../../src/core/tools/edit-file";
import { ToolError, type ToolContext } from "../../../src/core/tools/types";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { nodeGrammarWasm } from "../../../src/node/tree-sitter-wasm";

const checker = createSyntaxChecker(nodeGrammarWasm());

describe("parse problems with the real grammars", () => {
  it("parses every shipped language: a clean file has none, a broken one has some", async () => {
    const cases: Array<[string, string, string]> = [
      ["a.ts", "const x: number = 1;\nexport function f(): number {\n  return x;\n}\n", "export function f(): number {\n  return x;\n"],
      ["a.tsx", 'export const A = () => <div className="a">{1}</div>;\n', 'export const A = () => <div className="a">{1};\n'],
      ["a.js", "const a = [1, 2];\nmodule.exports = { a };\n", "const a = [1, 2;\n"],
      ["a.py", "def f(x):\n    return x + 1\n", "def f(x:\n    return x + 1\n"],
      ["a.go", "package main\n\nfunc main() {\n}\n", "package main\n\nfunc main() {\n"],
      ["a.rs", "fn main() {\n    let a = 1;\n}\n", "fn main() {\n    let a = ;\n}\n"],
      ["A.java", "class A {\n  int f() { return 1; }\n}\n", "class A {\n  int f() { return 1; \n"],
      ["a.css", "a { color: red; }\n", "a { color: red; \n"],
      ["a.rb", "def f\n  1\nend\n", "def f(\n  1\n"],
      ["a.php", "<?php\nfunction f() { return 1; }\n", "<?php\nfunction f() { return 1; \n"],
      ["a.cs", "class A { int F() { return 1; } }\n", "class A { int F() { return 1; }\n"],
      ["a.cpp", "int main() { return 0; }\n", "int main() { return 0; \n"],
      ["a.sh", "if true; then echo hi; fi\n", "if true; then echo hi;\n"],
    ];
    for (const [path, good, bad] of cases) {
      expect(await checker.problems(path, good), path).toEqual([]);
      expect((await checker.problems(path, bad))!.length, path).toBeGreaterThan(0);
    }
  });

  it("has no grammar for other files, so it checks nothing there", async () => {
    expect(grammarFor("notes.md")).toBeUndefined();
    expect(grammarFor("Makefile")).toBeUndefined();
    expect(await checker.problems("notes.md", "# {{{ (")).toBeUndefined();
    expect(grammarFor("src/App.TSX")).toBe("tsx");
  });

  it("reports where: the line and column of the first problem, missing tokens by name", async () => {
    const p = (await checker.problems("a.py", "def f(x):\n    return (x + 1\n\ny = 2\n"))!;
    expect(p[0]).toMatchObject({ line: 2 });
  });
});

describe("syntaxRefusal", () => {
  const before = "export function area(w: number, h: number): number {\n  return w * h;\n}\n";

  it("refuses a tolerant edit that breaks a clean file, showing the line and the rule", async () => {
    const after = "export function area(w: number, h: number): number {\n  return (w * h;\n}\n";
    const msg = await syntaxRefusal(checker, "src/area.ts", before, after, ["similar-text"]);
    expect(msg).toContain(
      "Nothing was written to src/area.ts: the edit applies only through tolerance (similar-text), and the result would not parse as TypeScript, which the file did before: line 2",
    );
    expect(msg).toContain('line 2, column 16 has a missing ")"');
    expect(msg).toContain(">    2|   return (w * h;");
    expect(msg).toContain("send the edit again with the old text copied exactly");
  });

  it("lets through: an exact edit (no rule), a change that still parses, a file that had errors already, a file without a grammar", async () => {
    const broken = "export function area(w: number, h: number): number {\n  return (w * h;\n}\n";
    expect(await syntaxRefusal(checker, "a.ts", before, broken, [])).toBeUndefined();
    expect(await syntaxRefusal(checker, "a.ts", before, before.replace("w * h", "h * w"), ["whitespace match"])).toBeUndefined();
    expect(await syntaxRefusal(checker, "a.ts", broken, broken + "const y = (;\n", ["similar-text"])).toBeUndefined();
    expect(await syntaxRefusal(checker, "a.txt", "a\n", "(\n", ["similar-text"])).toBeUndefined();
    expect(await syntaxRefusal(undefined, "a.ts", before, broken, ["similar-text"])).toBeUndefined();
  });

  it("names the tolerance that placed the edits; an exact match and a line hint are not tolerance", () => {
    expect(placedByTolerance([{ rung: "exact" }, { rung: "exact", rules: ["line-hint"] }])).toEqual([]);
    expect(placedByTolerance([{ rung: "similar" }, { rung: "indentation" }, { rules: ["indent-restored"] }])).toEqual(["similar-text", "indentation match", "indent-restored"]);
  });
});

describe("the tools make the check (ctx.syntax, as the Node services give it)", () => {
  const PY = "def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n    return result\n";
  let root: string;
  let ctx: ToolContext;
  beforeAll(() => hashlineReady());
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "yoke-syntax-"));
    writeFileSync(join(root, "total.py"), PY);
    ctx = {
      fs: createNodeWorkspaceFs(root),
      search: { grep: async () => ({ lines: [], truncated: false }), glob: async () => ({ paths: [], truncated: false }) },
      signal: new AbortController().signal,
      sessionId: "s",
      callId: "c",
      log: silentLogger,
      readState: new Map(),
      record: () => {},
      syntax: checker,
    };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const error = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      if (e instanceof ToolError) return e.message;
      throw e;
    }
    throw new Error("expected a ToolError");
  };

  it("edit_file: a similar-text match that would break the file is refused and nothing is written; the same edit exactly applies", async () => {
    const search = "    result = 0\n    for item in itmes:\n        result += item.price\n    return result";
    const msg = await error(editFileTool.run({ path: "total.py", edits: [{ old_string: search, new_string: search.replace("return result", "return round(result, 2") }] }, ctx));
    expect(msg).toContain("the edit applies only through tolerance (similar-text), and the result would not parse as Python, which the file did before: line 5");
    expect(readFileSync(join(root, "total.py"), "utf8")).toBe(PY);
    const exact = search.replace("itmes", "items");
    await editFileTool.run({ path: "total.py", edits: [{ old_string: exact, new_string: exact.replace("return result", "return round(result, 2") }] }, ctx);
    expect(readFileSync(join(root, "total.py"), "utf8")).toBe(PY.replace("return result", "return round(result, 2"));
  });

  it("apply_patch: a chunk placed by lost-indentation that would break the file is refused, one that keeps it parseable applies", async () => {
    // Every line lost 4 spaces of indentation (the patch kept the rest): the added line is shifted back by 4.
    const patch = (added: string) => `*** Begin Patch\n*** Update File: total.py\n@@\n for item in items:\n-    result += item.price\n+    ${added}\n*** End Patch`;
    const msg = await error(applyPatchTool.run({ input: patch("result += item.price * (1 + item.tax") }, ctx));
    expect(msg).toContain("the edit applies only through tolerance (lost-indentation), and the result would not parse as Python");
    expect(readFileSync(join(root, "total.py"), "utf8")).toBe(PY);
    await applyPatchTool.run({ input: patch("result += item.price * (1 + item.tax)") }, ctx);
    expect(readFileSync(join(root, "total.py"), "utf8")).toBe(PY.replace("result += item.price", "result += item.price * (1 + item.tax)"));
  });
});
