/**
 * Issue 18, session 17 (door18) item 3: grep's race check (red team 21-host: lines are shown only
 * where the file, read without following links, holds them) re-read each matching file whole — a
 * 48 MB file with one match was read again in full after ripgrep had searched it. Now only the
 * matched lines' bytes are read (ripgrep's offsets; WorkspaceFs.readCheckedBytes), and the guarantee
 * holds: a line changed between the search and the check is left out and the model told. Real files,
 * real ripgrep, the real checked reads, counted by a wrapper around the workspace file system.
 */
import { appendFileSync, openSync, closeSync, writeSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ByteRange, WorkspaceFs } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = new ToolRegistry(createBuiltinTools());
const MB = 1024 * 1024;

/** `fs` with the bytes its checked reads return counted; `before` runs before each ranged read. */
function counting(fs: WorkspaceFs, before?: (path: string) => void): { fs: WorkspaceFs; read: () => number } {
  let read = 0;
  const wrapped: WorkspaceFs = {
    ...fs,
    readChecked: async (path, range) => {
      const r = await fs.readChecked(path, range);
      read += r.data.length;
      return r;
    },
    readCheckedBytes: async (path: string, ranges: readonly ByteRange[]) => {
      before?.(path);
      const r = await fs.readCheckedBytes!(path, ranges);
      for (const c of r.chunks) read += c.length;
      return r;
    },
  };
  return { fs: wrapped, read: () => read };
}

/** A text file of about `mb` MB of filler lines, with `lines` inserted at the given line numbers' places (appended in order). */
function bigFile(path: string, mb: number, tail: string): void {
  const block = "filler line of ordinary text, nothing to find here\n".repeat(20_000);
  const fd = openSync(path, "w");
  try {
    let written = 0;
    while (written < mb * MB) written += writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
  appendFileSync(path, tail);
}

describe("grep's race check reads only the matched lines", () => {
  let ws: TempWorkspace;
  afterEach(() => ws.cleanup());

  it("a 48 MB file with one match: the line is shown, and the check reads a few bytes, not the file", async () => {
    ws = createTempWorkspace({ "small.txt": "a\nneedle-7 in a small file\n" });
    bigFile(join(ws.root, "big.log"), 48, "near the end\nthe needle-7 line\nlast\n");
    expect(statSync(join(ws.root, "big.log")).size).toBeGreaterThan(48 * MB);
    const c = counting(ws.fs);
    const r = await callTool(tools, "grep", { pattern: "needle-7", context: 1 }, ws.context({ fs: c.fs }));
    expect(r.isError).toBeUndefined();
    expect(r.text).toContain("the needle-7 line");
    expect(r.text).toContain("near the end");
    expect(r.text).toContain("needle-7 in a small file");
    expect(r.text).not.toContain("left out");
    // The old check read the big file whole (48 MB) again; now: the lines and a few bytes around them.
    expect(c.read()).toBeLessThan(4096);
  });

  it("a line changed between the search and the check is left out (same length, other bytes), and the model is told", async () => {
    ws = createTempWorkspace({ "a.txt": "x\nsecret-free needle line\n", "b.txt": "needle in b\n" });
    const c = counting(ws.fs, (path) => {
      if (!path.endsWith("/a.txt")) return;
      // A command rewrites the matched line in place after ripgrep read it.
      const fd = openSync(path, "r+");
      writeSync(fd, "SECRET-free needle line", 2);
      closeSync(fd);
    });
    const r = await callTool(tools, "grep", { pattern: "needle" }, ws.context({ fs: c.fs }));
    expect(r.text).toContain("needle in b");
    expect(r.text).not.toContain("secret-free needle line");
    expect(r.text).not.toContain("SECRET-free");
    expect(r.text).toMatch(/1 file left out: it changed while grep searched/);
  });

  it("CRLF, a UTF-8 byte order mark, a U+FEFF inside a line and UTF-16 files still show their lines", async () => {
    ws = createTempWorkspace({
      "crlf.txt": "one\r\nsteady crlf line\r\n",
      "bom.txt": "\ufeffsteady bom first line\nsteady bom line\n",
      "zw.txt": "x\n\ufeffsteady zwnbsp line\n",
      "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("steady utf16 line\n", "utf16le")]),
    });
    const r = await callTool(tools, "grep", { pattern: "steady" }, ws.context());
    for (const t of ["steady crlf line", "steady bom first line", "steady bom line", "steady zwnbsp line", "steady utf16 line"]) expect(r.text).toContain(t);
    expect(r.text).not.toContain("left out");
  });
});
