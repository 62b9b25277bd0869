/**
 * The safe opens of the file tools (src/node/safe-open.ts) on real files and real links: a link as
 * the last component, as a middle component, a folder replaced by a link after the check, and the
 * texts the model is told when a tool refuses. Both mechanisms: /proc/self/fd (Linux) and the
 * lstat/dev-ino fallback used where there is no /proc.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isPathChanged } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import { createSafeFiles } from "../../../src/node/safe-open";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const enc = (s: string) => new TextEncoder().encode(s);

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isPathChanged(e)) return e.detail;
    throw e;
  }
  throw new Error("expected a PathChangedError");
}

const hasProc = fs.existsSync("/proc/self/fd");

describe.each([
  { label: "/proc/self/fd", useProc: true, syncReads: false },
  // `yoke lessons`: the same checks with synchronous calls (SafeFilesOptions.syncReads).
  { label: "/proc/self/fd, synchronous reads", useProc: true, syncReads: true },
  { label: "lstat + dev/ino fallback", useProc: false, syncReads: false },
])("safe opens ($label)", ({ useProc, syncReads }) => {
  let base: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-safe-")));
    root = path.join(base, "ws");
    outside = path.join(base, "outside");
    fs.mkdirSync(path.join(root, "dir"), { recursive: true });
    fs.mkdirSync(path.join(root, "secretdir"), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(root, "dir/a.txt"), "ok\n");
    fs.writeFileSync(path.join(root, "secretdir/a.txt"), "SECRET\n");
    fs.writeFileSync(path.join(outside, "t.txt"), "outside\n");
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));
  const safe = () => createSafeFiles([root], { useProc, syncReads });

  it.runIf(useProc ? hasProc : true)("reads a plain file with its stat from the same descriptor", async () => {
    const r = await safe().read(`${root}/dir/a.txt`);
    expect(dec(r.data)).toBe("ok\n");
    expect(r.stat).toMatchObject({ type: "file", size: 3 });
    expect(r.stat.mtimeMs).toBe(fs.statSync(path.join(root, "dir/a.txt")).mtimeMs);
  });

  it.runIf(useProc ? hasProc : true)("refuses a link as the last component, and never writes through it", async () => {
    fs.symlinkSync("secretdir/a.txt", path.join(root, "last"));
    fs.symlinkSync(path.join(outside, "t.txt"), path.join(root, "out"));
    expect(await refusal(safe().read(`${root}/last`))).toBe("the file is now a symbolic link");
    expect(await refusal(safe().write(`${root}/out`, enc("pwned")))).toBe("the file is now a symbolic link");
    expect(fs.readFileSync(path.join(outside, "t.txt"), "utf8")).toBe("outside\n");
    expect(fs.lstatSync(path.join(root, "out")).isSymbolicLink()).toBe(true);
    expect(fs.readdirSync(root).filter((n) => n.includes("yoke-tmp"))).toEqual([]);
  });

  it.runIf(useProc ? hasProc : true)("refuses a link as a middle component (a folder replaced by a link after the check)", async () => {
    const checked = `${root}/dir/a.txt`;
    // The gate checked dir/a.txt while dir was a folder; now dir is a link to the secret folder.
    fs.renameSync(path.join(root, "dir"), path.join(root, "dir.away"));
    fs.symlinkSync("secretdir", path.join(root, "dir"));
    const detail = await refusal(safe().read(checked));
    expect(detail).toBe(useProc ? `a symbolic link on the way now leads to ${root}/secretdir/a.txt` : `a folder on the way (${root}/dir) is now a symbolic link`);
    expect(await refusal(safe().write(checked, enc("pwned")))).toBe(useProc ? "a folder on the way is now a symbolic link" : `a folder on the way (${root}/dir) is now a symbolic link`);
    expect(await refusal(safe().write(`${root}/dir/new/deeper.txt`, enc("pwned")))).toMatch(/symbolic link/);
    expect(fs.readFileSync(path.join(root, "secretdir/a.txt"), "utf8")).toBe("SECRET\n");
    expect(fs.readdirSync(path.join(root, "secretdir"))).toEqual(["a.txt"]);
  });

  it.runIf(useProc ? hasProc : true)("a link to a folder outside the workspace, as a middle component, is refused for reads and writes", async () => {
    fs.symlinkSync(outside, path.join(root, "ext"));
    expect(await refusal(safe().read(`${root}/ext/t.txt`))).toMatch(/symbolic link/);
    expect(await refusal(safe().write(`${root}/ext/t.txt`, enc("pwned")))).toMatch(/symbolic link/);
    expect(fs.readdirSync(outside)).toEqual(["t.txt"]);
    expect(fs.readFileSync(path.join(outside, "t.txt"), "utf8")).toBe("outside\n");
  });

  it.runIf(useProc ? hasProc : true)("writes a new file in new nested folders, replaces a file keeping its mode, and leaves no temp file", async () => {
    const s = safe();
    await s.write(`${root}/n1/n2/new.txt`, enc("fresh\n"));
    expect(fs.readFileSync(path.join(root, "n1/n2/new.txt"), "utf8")).toBe("fresh\n");
    fs.chmodSync(path.join(root, "dir/a.txt"), 0o640);
    const st = await s.write(`${root}/dir/a.txt`, enc("two\r\n"));
    expect(st).toMatchObject({ type: "file", size: 5 });
    expect(fs.statSync(path.join(root, "dir/a.txt")).mode & 0o777).toBe(0o640);
    expect(fs.readFileSync(path.join(root, "dir/a.txt"), "utf8")).toBe("two\r\n");
    expect(fs.readdirSync(path.join(root, "dir"))).toEqual(["a.txt"]);
  });

  it.runIf(useProc ? hasProc : true)("a workspace root reached through a link works (the user chose it); below it links are refused", async () => {
    const alias = path.join(base, "alias");
    fs.symlinkSync(root, alias);
    const s = createSafeFiles([alias], { useProc, syncReads });
    expect(dec((await s.read(`${alias}/dir/a.txt`)).data)).toBe("ok\n");
    await s.write(`${alias}/dir/b.txt`, enc("b"));
    expect(fs.readFileSync(path.join(root, "dir/b.txt"), "utf8")).toBe("b");
    fs.symlinkSync("dir", path.join(root, "d2"));
    expect(await refusal(s.read(`${alias}/d2/a.txt`))).toMatch(/symbolic link/);
  });

  it.runIf(useProc ? hasProc : true)("refuses a named pipe at once instead of hanging, and reports a missing file as ENOENT", async () => {
    execFileSync("mkfifo", [path.join(root, "pipe")]);
    expect(await refusal(safe().read(`${root}/pipe`))).toBe("it is not a regular file (a device, pipe or socket)");
    await expect(safe().read(`${root}/nope.txt`)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(safe().read(`${root}/dir`)).rejects.toMatchObject({ code: "EISDIR" });
  });
  it.runIf(useProc ? hasProc : true)("remove, removeEmptyFolder and chmod act inside the checked folder and never through a link on the way (red team 25)", async () => {
    const s = safe();
    fs.symlinkSync(outside, path.join(root, "via"));
    fs.mkdirSync(path.join(outside, "empty"));
    // Through a link as a middle component: refused, the outside file and folder stay.
    expect(await refusal(s.remove(`${root}/via/t.txt`))).toMatch(/symbolic link/);
    expect(await refusal(s.removeEmptyFolder(`${root}/via/empty`))).toMatch(/symbolic link/);
    expect(await refusal(s.chmod(`${root}/via/t.txt`, () => 0o777))).toMatch(/symbolic link/);
    expect(fs.readFileSync(path.join(outside, "t.txt"), "utf8")).toBe("outside\n");
    expect(fs.existsSync(path.join(outside, "empty"))).toBe(true);
    expect(fs.statSync(path.join(outside, "t.txt")).mode & 0o777).not.toBe(0o777);
    // A link as the last component is removed itself (its target stays); chmod refuses it.
    fs.symlinkSync(path.join(outside, "t.txt"), path.join(root, "dir/l"));
    expect(await refusal(s.chmod(`${root}/dir/l`, () => 0o777))).toMatch(/symbolic link/);
    expect(await s.remove(`${root}/dir/l`)).toBe(true);
    expect(fs.existsSync(path.join(outside, "t.txt"))).toBe(true);
    // Plain use: a file's bits, a file removed, nothing there, a folder emptied then removed.
    expect(await s.chmod(`${root}/dir/a.txt`, (now) => now | 0o100)).toBe(true);
    expect(fs.statSync(path.join(root, "dir/a.txt")).mode & 0o100).toBe(0o100);
    expect(await s.removeEmptyFolder(`${root}/dir`)).toBe(false);
    expect(await s.remove(`${root}/dir/a.txt`)).toBe(true);
    expect(await s.remove(`${root}/dir/a.txt`)).toBe(false);
    expect(await s.remove(`${root}/nope/a.txt`)).toBe(false);
    await expect(s.remove(`${root}/secretdir`)).rejects.toMatchObject({ code: "EISDIR" });
    expect(await s.removeEmptyFolder(`${root}/dir`)).toBe(true);
    expect(fs.existsSync(path.join(root, "dir"))).toBe(false);
    // write with a mode decided from the old bits.
    await s.write(`${root}/new/x.sh`, enc("#!/bin/sh\n"), () => 0o750);
    expect(fs.statSync(path.join(root, "new/x.sh")).mode & 0o777).toBe(0o750);
  });
});

describe("what the model is told when a path changed after the check", () => {
  let ws: TempWorkspace;
  const tools = new ToolRegistry(createBuiltinTools());
  beforeEach(() => {
    ws = createTempWorkspace({ "dir/a.txt": "ok\n", "secretdir/a.txt": "SECRET\n", "b.txt": "b\n" });
  });
  afterEach(() => ws.cleanup());

  it.runIf(hasProc)("read_file, write_file and edit_file refuse with the same explanation, and nothing is read or written", async () => {
    const ctx = ws.context();
    // The canonical path was prepared (and checked) while dir was a folder …
    const prepared = await tools.prepare("read_file", { path: "dir/a.txt" }, ws.fs);
    expect(prepared).toEqual({ ok: true, args: { path: `${ws.root}/dir/a.txt` } });
    await callTool(tools, "read_file", { path: `${ws.root}/dir/a.txt` }, ctx);
    // … then a command swapped a link in.
    fs.renameSync(path.join(ws.root, "dir"), path.join(ws.root, "dir.away"));
    fs.symlinkSync("secretdir", path.join(ws.root, "dir"));
    const read = await callTool(tools, "read_file", { path: `${ws.root}/dir/a.txt`, force: true }, ctx);
    expect(read).toEqual({
      isError: true,
      text:
        `read_file refused: "dir/a.txt" changed after the permission check (a symbolic link on the way now leads to ${ws.root}/secretdir/a.txt). ` +
        "Nothing was read: file tools open only the very file that was checked and never follow a symbolic link that appears while they run. " +
        "If a running command is changing this path, wait for it to finish, then call read_file again.",
    });
    const edit = await callTool(tools, "edit_file", { path: `${ws.root}/dir/a.txt`, edits: [{ old_string: "SECRET", new_string: "x" }] }, ws.context());
    expect(edit.isError).toBe(true);
    expect(edit.text).toMatch(/^edit_file refused: "dir\/a.txt" changed after the permission check \(a symbolic link on the way now leads to .*\/secretdir\/a.txt\)\. Nothing was read:/);
    const write = await callTool(tools, "write_file", { path: `${ws.root}/dir/new.txt`, content: "pwned" }, ctx);
    expect(write).toEqual({
      isError: true,
      text:
        'write_file refused: "dir/new.txt" changed after the permission check (a folder on the way is now a symbolic link). ' +
        "Nothing was written: file tools open only the very file that was checked and never follow a symbolic link that appears while they run. " +
        "If a running command is changing this path, wait for it to finish, then call write_file again.",
    });
    expect(fs.readdirSync(path.join(ws.root, "secretdir"))).toEqual(["a.txt"]);
    expect(ws.read("secretdir/a.txt")).toBe("SECRET\n");
    expect(ws.read("b.txt")).toBe("b\n");
    expect(JSON.stringify([read, edit, write])).not.toContain("SECRET\\n");
  });

  it("a link inside the workspace is resolved once, before the check: the call names and opens its target", async () => {
    fs.symlinkSync("dir", path.join(ws.root, "alias"));
    const prepared = await tools.prepare("read_file", { path: "alias/a.txt" }, ws.fs);
    expect(prepared).toEqual({ ok: true, args: { path: `${ws.root}/dir/a.txt` } });
    const out = await callTool(tools, "read_file", (prepared as { args: unknown }).args, ws.context());
    expect(out.text).toMatch(/^File: dir\/a.txt \(lines 1-1 of 1\)\n1#[A-Z]{2}\|ok$/);
  });
});
