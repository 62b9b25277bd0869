import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { MAX_LIST_ENTRIES } from "../../../src/core/tools/list-files";
import type { ToolContext } from "../../../src/core/tools/types";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = createBuiltinTools();

describe("list_files", () => {
  let ws: TempWorkspace;
  let ctx: ToolContext;
  beforeEach(() => {
    ws = createTempWorkspace({
      ".gitignore": "dist/\n*.log\n",
      "README.md": "r",
      "debug.log": "x",
      "dist/out.js": "x",
      "node_modules/pkg/index.js": "x",
      ".git/HEAD": "ref",
      ".github/workflows/ci.yml": "x",
      "src/index.ts": "x",
      "src/core/a.ts": "x",
      "src/core/deep/b.ts": "x",
      "src/core/.gitignore": "secret.ts\n",
      "src/core/secret.ts": "x",
    });
    ctx = ws.context();
  });
  afterEach(() => ws.cleanup());
  const list = (input: unknown) => callTool(tools, "list_files", input, ctx);

  it("shows a tree to depth 2, folders first and marked with /, honouring .gitignore", async () => {
    const out = await list({});
    expect(out.text).toBe(["Workspace root (depth 2):", ".github/", "  workflows/ (1 entry not shown)", "src/", "  core/ (3 entries not shown)", "  index.ts", ".gitignore", "README.md"].join("\n"));
  });

  it("goes deeper on request and applies nested .gitignore files", async () => {
    const out = await list({ path: "src", depth: 3 });
    expect(out.text).toBe(["src/ (depth 3):", "core/", "  deep/", "    b.ts", "  .gitignore", "  a.ts", "index.ts"].join("\n"));
  });

  it("applies the root .gitignore when listing a sub-folder", async () => {
    ws.write({ "src/core/trace.log": "x" });
    const out = await list({ path: "src/core" });
    expect(out.text).not.toContain("trace.log");
    expect(out.text).not.toContain("secret.ts");
  });

  it("marks symlinks with @ and does not follow them", async () => {
    fs.symlinkSync("/etc", path.join(ws.root, "etc-link"));
    const out = await list({ depth: 1 });
    expect(out.text).toContain("etc-link@");
    expect(out.text).not.toContain("passwd");
  });

  it("bounds the listing and says how to see the rest", async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < MAX_LIST_ENTRIES + 20; i++) many[`gen/f${String(i).padStart(4, "0")}.txt`] = "";
    ws.write(many);
    const out = await list({ path: "gen" });
    expect(out.text.split("\n")).toHaveLength(1 + MAX_LIST_ENTRIES + 1);
    expect(out.text).toContain(`[Listing stopped at ${MAX_LIST_ENTRIES} entries. Call list_files on a sub-folder`);
    expect(out.meta).toEqual({ path: "gen", entries: MAX_LIST_ENTRIES, truncated: true });
  });

  it("refuses a file, a missing folder, a bad depth and an escape with clear messages", async () => {
    expect((await list({ path: "README.md" })).text).toBe('"README.md" is a file, not a folder. Call read_file with path="README.md" to read it.');
    expect((await list({ path: "nope" })).text).toBe('Folder not found: "nope". Call list_files without a path to see the workspace root.');
    expect((await list({ depth: 0 })).text).toContain('list_files: argument "depth" must be an integer from 1 to 10 (got 0).');
    expect((await list({ path: "/" })).text).toContain('The path "/" is outside the workspace');
  });
});
