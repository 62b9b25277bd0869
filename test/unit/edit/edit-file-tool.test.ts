import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import { silentLogger, type Searcher } from "../../../src/core/ports";
import { editFileTool } from "../../../src/core/tools/edit-file";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { isReadOnly, ToolError, type ToolContext } from "../../../src/core/tools/types";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";

const noSearch: Searcher = {
  grep: async () => ({ lines: [], truncated: false }),
  glob: async () => ({ paths: [], truncated: false }),
};

let root: string;
let ctx: ToolContext;

beforeAll(() => hashlineReady());
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "yoke-edit-"));
  ctx = {
    fs: createNodeWorkspaceFs(root),
    search: noSearch,
    signal: new AbortController().signal,
    sessionId: "s",
    callId: "c",
    log: silentLogger,
    readState: new Map(),
    record: () => {},
  };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function markRead(name: string): void {
  const st = statSync(join(root, name));
  ctx.readState.set(join(root, name).replace(/\\/g, "/"), { mtimeMs: st.mtimeMs, size: st.size });
}

async function runError(args: Parameters<typeof editFileTool.run>[0]): Promise<string> {
  try {
    await editFileTool.run(args, ctx);
  } catch (e) {
    if (e instanceof ToolError) return e.message;
    throw e;
  }
  throw new Error("expected a ToolError");
}

describe("edit_file tool", () => {
  it("declares the contract's permission, hook input and mutation flag", () => {
    expect(editFileTool.name).toBe("edit_file");
    expect(editFileTool.permission).toBe("Edit");
    expect(isReadOnly(editFileTool.capabilities)).toBe(false);
    const edits = [{ old_string: "a", new_string: "b" }];
    // Claude Code's Edit shape (the hook machinery in src/core/hooks/claude-shapes.ts; paths are made absolute when a hook runs).
    expect(editFileTool.hookInput({ path: "x.ts", edits })).toEqual({ file_path: "x.ts", old_string: "a", new_string: "b" });
  });

  it("validates mixed hashline ops and search/replace pairs with its schema", () => {
    const ok = editFileTool.schema.safeParse({
      path: "a",
      edits: [
        { op: "append", lines: ["x"] },
        { old_string: "a", new_string: "b" },
      ],
    });
    expect(ok.success).toBe(true);
    expect(editFileTool.schema.safeParse({ path: "a", edits: [] }).success).toBe(false);
    expect(editFileTool.schema.safeParse({ path: "a", edits: [{ foo: 1 }] }).success).toBe(false);
  });

  it("writes the file and returns counts, a diff, fresh anchors and review meta", async () => {
    writeFileSync(join(root, "a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    markRead("a.ts");
    const out = await editFileTool.run({ path: "a.ts", edits: [{ op: "replace", pos: lineTag(2, "const b = 2;"), lines: ["const b = 20;", "const bb = 21;"] }] }, ctx);
    expect(readFileSync(join(root, "a.ts"), "utf8")).toBe("const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n");
    expect(out.text).toBe(
      "Edited a.ts: +2 -1 lines (1 edit). Diff with fresh anchors (- removed, + added):\n\n" +
        "@@\n" +
        ` ${lineTag(1, "const a = 1;")}|const a = 1;\n-const b = 2;\n+${lineTag(2, "const b = 20;")}|const b = 20;\n` +
        `+${lineTag(3, "const bb = 21;")}|const bb = 21;\n ${lineTag(4, "const c = 3;")}|const c = 3;`,
    );
    // Each line once: the new lines are not repeated as a second, anchored view.
    expect(out.text.split("const bb = 21;")).toHaveLength(2);
    expect(out.meta).toMatchObject({ path: "a.ts", before: "const a = 1;\nconst b = 2;\nconst c = 3;\n", after: "const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n" });
    expect((out.meta as { diff: string }).diff).toContain("+const bb = 21;");
    const st = statSync(join(root, "a.ts"));
    expect(ctx.readState.get(join(root, "a.ts"))).toEqual({ mtimeMs: st.mtimeMs, size: st.size });
  });

  it("lets the next edit use the anchors it returned without a re-read", async () => {
    writeFileSync(join(root, "b.txt"), "x\ny\n");
    const first = await editFileTool.run({ path: "b.txt", edits: [{ op: "append", pos: lineTag(2, "y"), lines: ["z"] }] }, ctx);
    const zAnchor = /(\d+#[A-Z]{2})\|z$/m.exec(first.text)![1]!;
    await editFileTool.run({ path: "b.txt", edits: [{ op: "replace", pos: zAnchor, lines: ["Z"] }] }, ctx);
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("x\ny\nZ\n");
  });

  it("refuses search/replace on a file changed on disk since it was read, writing nothing", async () => {
    const p = join(root, "c.ts");
    writeFileSync(p, "let v = 1;\n");
    markRead("c.ts");
    writeFileSync(p, "let v = 1; // changed by someone\n");
    utimesSync(p, new Date(), new Date(Date.now() + 5000));
    const msg = await runError({ path: "c.ts", edits: [{ old_string: "let v = 1;", new_string: "let v = 2;" }] });
    expect(msg).toMatch(
      /^edit_file refused: "c\.ts" has changed on disk since you read it \(then 11 bytes, modified .*; now 33 bytes, modified .*\), so your copy of its text may be stale\. Nothing was written\. Call read_file with path="c\.ts" to see the current content, then edit again\.$/,
    );
    expect(readFileSync(p, "utf8")).toBe("let v = 1; // changed by someone\n");
  });

  it("applies hashline ops on a changed file when every anchor still matches, and says so", async () => {
    const p = join(root, "d.ts");
    writeFileSync(p, "a\nb\n");
    markRead("d.ts");
    writeFileSync(p, "a\nb\nc\n");
    const out = await editFileTool.run({ path: "d.ts", edits: [{ op: "replace", pos: lineTag(1, "a"), lines: ["A"] }] }, ctx);
    expect(readFileSync(p, "utf8")).toBe("A\nb\nc\n");
    expect(out.text).toContain('Notes:\n- "d.ts" has changed on disk since you read it');
    expect(out.text).toContain("every anchor still matched the current lines, so the ops were applied.");
  });

  it("refuses a failing edit with the engine's message and leaves the file alone", async () => {
    const p = join(root, "e.ts");
    writeFileSync(p, "one\ntwo\n");
    const msg = await runError({
      path: "e.ts",
      edits: [
        { old_string: "one", new_string: "1" },
        { old_string: "three", new_string: "3" },
      ],
    });
    expect(msg.startsWith("Nothing was written to e.ts: 1 edit of 2 failed, and edits are all-or-nothing.")).toBe(true);
    expect(readFileSync(p, "utf8")).toBe("one\ntwo\n");
  });

  it("refuses binary files and directories", async () => {
    writeFileSync(join(root, "img.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]));
    expect(await runError({ path: "img.png", edits: [{ old_string: "PNG", new_string: "x" }] })).toBe(
      "Cannot edit img.png: it looks like a binary file (it contains NUL bytes); only text files can be edited. Nothing was written.",
    );
    expect(await runError({ path: ".", edits: [{ old_string: "a", new_string: "b" }] })).toBe("edit_file needs a file path, not the workspace root.");
  });

  it("creates a missing file from an empty old_string", async () => {
    const out = await editFileTool.run({ path: "new/f.md", edits: [{ old_string: "", new_string: "# Title\n" }] }, ctx);
    expect(readFileSync(join(root, "new/f.md"), "utf8")).toBe("# Title\n");
    expect(out.text.startsWith("Created new/f.md: +1 -0 lines (1 edit).")).toBe(true);
  });

  it("refuses paths outside the workspace", async () => {
    const msg = await runError({ path: "../outside.txt", edits: [{ old_string: "", new_string: "x" }] });
    expect(msg).toContain("is outside the workspace");
  });
  it("reports an edit that changes nothing as an error and does not touch the file", async () => {
    const p = join(root, "n.ts");
    writeFileSync(p, "same\n");
    const before = statSync(p).mtimeMs;
    expect(await runError({ path: "n.ts", edits: [{ op: "replace", pos: lineTag(1, "same"), lines: ["same"] }] })).toBe(
      `No change: Edit 1 (replace ${lineTag(1, "same")}) changes nothing: the new lines are identical to the current ones. Nothing was written.`,
    );
    expect(statSync(p).mtimeMs).toBe(before);
  });

  it("keeps a CRLF file's endings and BOM on disk", async () => {
    const p = join(root, "w.cs");
    writeFileSync(p, "\uFEFFclass A\r\n{\r\n}\r\n");
    await editFileTool.run({ path: "w.cs", edits: [{ old_string: "{\n}", new_string: "{\n  int x;\n}" }] }, ctx);
    expect(readFileSync(p)).toEqual(Buffer.from("\uFEFFclass A\r\n{\r\n  int x;\r\n}\r\n", "utf8"));
  });
  it("offers a JSON Schema with both edit shapes and validates calls through the registry", () => {
    const reg = new ToolRegistry([editFileTool]);
    const spec = JSON.stringify(reg.specs()[0]);
    expect(spec).toContain('"old_string"');
    expect(spec).toContain('"op"');
    const ok = reg.validate("edit_file", { path: "a.ts", edits: JSON.stringify([{ old_string: "a", new_string: "b" }]) });
    expect(ok).toEqual({ ok: true, args: { path: "a.ts", edits: [{ old_string: "a", new_string: "b" }] } });
    expect(reg.validate("edit_file", { path: "a.ts" }).ok).toBe(false);
  });
  it("says the file changed on disk when hashline anchors of a changed file are stale", async () => {
    const p = join(root, "s.ts");
    writeFileSync(p, "a\nb\n");
    markRead("s.ts");
    writeFileSync(p, "a\nB!\n");
    const msg = await runError({ path: "s.ts", edits: [{ op: "replace", pos: lineTag(2, "b"), lines: ["c"] }] });
    expect(msg.split("\n").slice(0, 2)).toEqual(['Note: "s.ts" has changed on disk since you read it.', "Nothing was written to s.ts: the edit failed."]);
    expect(msg).toContain(`>>> ${lineTag(2, "B!")}|B!`);
  });
});
