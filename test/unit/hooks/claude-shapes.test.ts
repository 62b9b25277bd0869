/**
 * What hooks see of Yoke's tools, in Claude Code's shapes, and how a hook's updatedInput comes
 * back as tool arguments. Real tools on real files.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { argsFromHookInput, claudeEditInput, resolveHookInput, structuredPatch } from "../../../src/core/hooks/claude-shapes";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import { editFileTool } from "../../../src/core/tools/edit-file";
import { globTool } from "../../../src/core/tools/glob";
import { readFileTool } from "../../../src/core/tools/read-file";
import { runCommandTool } from "../../../src/core/tools/run-command";
import { writeFileTool } from "../../../src/core/tools/write-file";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import type { ToolDefinition } from "../../../src/core/tools/types";
import { createNodeCommandRunner, type NodeCommandRunner } from "../../../src/node/commands/runner";
import { createNoSandbox } from "../../../src/node/commands/sandbox/none";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace;
beforeEach(async () => {
  await hashlineReady();
  ws = createTempWorkspace({ "src/a.ts": "const a = 1;\nconst b = 2;\nconst c = 3;\n" });
});
afterEach(() => ws.cleanup());

const readText = async (p: string) => (await import("node:fs/promises")).readFile(p, "utf8");
const tag = (n: number, text: string) => lineTag(n, text);

describe("Edit tool_input", () => {
  it("is {file_path, old_string, new_string} for one search/replace, MultiEdit's shape for several", () => {
    expect(claudeEditInput("a.ts", [{ old_string: "x", new_string: "y", replace_all: true }])).toEqual({ file_path: "a.ts", old_string: "x", new_string: "y", replace_all: true });
    expect(
      claudeEditInput("a.ts", [
        { old_string: "x", new_string: "y" },
        { kind: "block", search: ["p", "q"], replace: ["r"] },
      ]),
    ).toEqual({
      file_path: "a.ts",
      edits: [
        { replace_all: false, old_string: "x", new_string: "y" },
        { replace_all: false, old_string: "p\nq", new_string: "r" },
      ],
    });
  });

  it("gives hashline ops as the exact old text of their lines and the new text, absolute path", async () => {
    const f = join(ws.root, "src/a.ts");
    const replace = claudeEditInput("src/a.ts", [{ op: "replace", pos: tag(2, "const b = 2;"), end: tag(3, "const c = 3;"), lines: ["const b = 20;"] }]);
    expect(await resolveHookInput(replace, ws.root, readText)).toEqual({ file_path: f, old_string: "const b = 2;\nconst c = 3;", new_string: "const b = 20;" });
    const append = claudeEditInput("src/a.ts", [{ op: "append", pos: tag(1, "const a = 1;"), lines: "// after a" }]);
    expect(await resolveHookInput(append, ws.root, readText)).toEqual({ file_path: f, old_string: "const a = 1;", new_string: "const a = 1;\n// after a" });
    const prepend = claudeEditInput("src/a.ts", [{ op: "prepend", lines: ["// top"] }]);
    expect(await resolveHookInput(prepend, ws.root, readText)).toEqual({ file_path: f, old_string: "const a = 1;", new_string: "// top\nconst a = 1;" });
    const del = claudeEditInput("src/a.ts", [{ op: "replace", pos: tag(1, "const a = 1;"), lines: null }]);
    expect(await resolveHookInput(del, ws.root, readText)).toEqual({ file_path: f, old_string: "const a = 1;", new_string: "" });
    // A new file (nothing to read): the new text only.
    expect(await resolveHookInput(claudeEditInput("new.ts", [{ op: "append", lines: ["x"] }]), ws.root, readText)).toEqual({ file_path: join(ws.root, "new.ts"), old_string: "", new_string: "x" });
    // The object the gate and the log see stays plain JSON.
    expect(JSON.parse(JSON.stringify(replace))).toEqual({ file_path: "src/a.ts", old_string: "", new_string: "const b = 20;" });
  });
});

describe("tool_response shapes (ToolDefinition.hookResponse)", () => {
  let runner: NodeCommandRunner;
  beforeEach(() => {
    runner = createNodeCommandRunner({ workspace: ws.root, logDir: join(ws.root, ".logs"), sandbox: createNoSandbox(), pty: false, maxTimeoutMs: 5_000, killGraceMs: 200 });
  });
  afterEach(async () => runner.dispose());

  it("Bash: stdout (Yoke merges stderr into it), stderr, interrupted, isImage", async () => {
    const args = { command: "echo hello; echo oops >&2; exit 3" };
    const out = await runCommandTool.run(args, ws.context({ commands: runner }));
    expect(runCommandTool.hookResponse!(args, out)).toEqual({ stdout: "hello\noops", stderr: "", interrupted: false, isImage: false, exitCode: 3 });
    const quiet = await runCommandTool.run({ command: "true" }, ws.context({ commands: runner }));
    expect(runCommandTool.hookResponse!({ command: "true" }, quiet)).toMatchObject({ stdout: "", exitCode: 0 });
  });

  it("Write: type, filePath, content, structuredPatch, originalFile, success", async () => {
    const ctx = ws.context();
    const args = { path: "src/new.ts", content: "x\n" };
    const out = await writeFileTool.run(args, ctx);
    expect(writeFileTool.hookResponse!(args, out)).toEqual({
      type: "create",
      filePath: "src/new.ts",
      content: "x\n",
      structuredPatch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ["+x"] }],
      originalFile: null,
      success: true,
    });
  });

  it("Edit: filePath, oldString, newString (hashline ops as text), originalFile, structuredPatch", async () => {
    const args = { path: "src/a.ts", edits: [{ op: "replace" as const, pos: tag(2, "const b = 2;"), lines: ["const b = 20;"] }] };
    const out = await editFileTool.run(args, ws.context());
    expect(editFileTool.hookResponse!(args, out)).toEqual({
      filePath: "src/a.ts",
      oldString: "const b = 2;",
      newString: "const b = 20;",
      replaceAll: false,
      originalFile: "const a = 1;\nconst b = 2;\nconst c = 3;\n",
      structuredPatch: structuredPatch("const a = 1;\nconst b = 2;\nconst c = 3;\n", "const a = 1;\nconst b = 20;\nconst c = 3;\n"),
      userModified: false,
    });
  });

  it("Read: the file's raw text of the lines shown, without hashline anchors", async () => {
    const args = { path: "src/a.ts", offset: 2 };
    const out = await readFileTool.run(args, ws.context());
    expect(readFileTool.hookResponse!(args, out)).toEqual({ type: "text", file: { filePath: "src/a.ts", content: "const b = 2;\nconst c = 3;", numLines: 2, startLine: 2, totalLines: 3 } });
  });

  it("Glob: filenames (made absolute for the hook), numFiles, truncated", async () => {
    const out = await globTool.run({ pattern: "**/*.ts" }, ws.context());
    const res = globTool.hookResponse!({ pattern: "**/*.ts" }, out);
    expect(res).toEqual({ filenames: ["src/a.ts"], numFiles: 1, truncated: false });
  });
});

describe("updatedInput back to tool arguments", () => {
  const registry = new ToolRegistry(createBuiltinTools());
  const def = (name: string) => registry.get(name)! as ToolDefinition;

  async function roundTrip(name: string, args: Record<string, unknown>, change: (sent: Record<string, unknown>) => Record<string, unknown>) {
    const d = def(name);
    const sent = await resolveHookInput(d.hookInput(args as never), ws.root, readText);
    return argsFromHookInput(d, args, change(structuredClone(sent)), sent, ws.root);
  }

  it("changes nothing when the hook echoes its input (an allow with the same updatedInput)", async () => {
    const args = { path: "src/a.ts", edits: [{ op: "replace", pos: tag(2, "const b = 2;"), lines: ["x"] }] };
    expect(await roundTrip("edit_file", args, (s) => s)).toBeUndefined();
    expect(await roundTrip("run_command", { command: "ls", timeout_s: 2 }, (s) => s)).toBeUndefined();
  });

  it("maps Bash fields: timeout in milliseconds to timeout_s, run_in_background to background", async () => {
    const out = await roundTrip("run_command", { command: "npm test" }, (s) => ({ ...s, command: "npm test -- --run", timeout: 90_000, run_in_background: true }));
    expect(out).toEqual({ command: "npm test -- --run", timeout_s: 90, background: true });
    expect(registry.validate("run_command", out).ok).toBe(true);
  });

  it("maps an absolute file_path inside the workspace back to the relative path", async () => {
    const out = await roundTrip("read_file", { path: "src/a.ts" }, (s) => ({ ...s, file_path: join(ws.root, "src/b.ts"), limit: 10 }));
    expect(out).toEqual({ path: "src/b.ts", limit: 10 });
    const outside = await roundTrip("write_file", { path: "a.txt", content: "x" }, (s) => ({ ...s, file_path: "/etc/passwd" }));
    expect(outside).toEqual({ path: "/etc/passwd", content: "x" });
  });

  it("turns a rewritten Edit into search/replace pairs, and keeps hashline ops when only the path changed", async () => {
    const args = { path: "src/a.ts", edits: [{ op: "replace", pos: tag(2, "const b = 2;"), lines: ["const b = 20;"] }] };
    const rewritten = await roundTrip("edit_file", args, (s) => ({ ...s, new_string: "const b = 200;" }));
    expect(rewritten).toEqual({ path: "src/a.ts", edits: [{ old_string: "const b = 2;", new_string: "const b = 200;" }] });
    const moved = await roundTrip("edit_file", args, (s) => ({ ...s, file_path: join(ws.root, "src/c.ts") }));
    expect(moved).toEqual({ path: "src/c.ts", edits: args.edits });
    const multi = await roundTrip(
      "edit_file",
      {
        path: "src/a.ts",
        edits: [
          { old_string: "a", new_string: "b" },
          { old_string: "c", new_string: "d" },
        ],
      },
      (s) => ({
        ...s,
        edits: [{ old_string: "a", new_string: "B", replace_all: true }],
      }),
    );
    expect(multi).toEqual({ path: "src/a.ts", edits: [{ old_string: "a", new_string: "B", replace_all: true }] });
  });

  it("takes unknown tools' fields by name", async () => {
    const plain = { fromHookInput: undefined };
    expect(argsFromHookInput(plain, { id: "c1" }, { id: "c2" }, { id: "c1" }, ws.root)).toEqual({ id: "c2" });
  });
});
