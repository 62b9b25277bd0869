import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { WorkspaceFs } from "../../../src/core/ports";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";

const enc = new TextEncoder();

// syncReads (the CLI's `lessons` commands): the same answers from synchronous calls.
describe.each([{ syncReads: false }, { syncReads: true }])("createNodeWorkspaceFs (syncReads: $syncReads)", ({ syncReads }) => {
  let root: string;
  let wfs: WorkspaceFs;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-nodefs-")));
    wfs = createNodeWorkspaceFs(root, { syncReads });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("writes atomically, creating parent folders and leaving no temp files", async () => {
    await wfs.writeFile(`${root}/a/b/c.txt`, enc.encode("hello"));
    await wfs.writeFile(`${root}/a/b/c.txt`, enc.encode("hello again"));
    expect(fs.readFileSync(path.join(root, "a/b/c.txt"), "utf8")).toBe("hello again");
    expect(fs.readdirSync(path.join(root, "a/b"))).toEqual(["c.txt"]);
  });

  it("keeps the mode of the file it replaces", async () => {
    const file = path.join(root, "run.sh");
    fs.writeFileSync(file, "#!/bin/sh\n");
    fs.chmodSync(file, 0o751);
    await wfs.writeFile(`${root}/run.sh`, enc.encode("#!/bin/sh\necho hi\n"));
    expect(fs.statSync(file).mode & 0o777).toBe(0o751);
  });

  it("writes through a final symlink to its target instead of replacing the link", async () => {
    fs.writeFileSync(path.join(root, "real.txt"), "old");
    fs.symlinkSync("real.txt", path.join(root, "link.txt"));
    await wfs.writeFile(`${root}/link.txt`, enc.encode("new"));
    expect(fs.lstatSync(path.join(root, "link.txt")).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(path.join(root, "real.txt"), "utf8")).toBe("new");
  });

  it("leaves the old content and no temp file when the write fails", async () => {
    fs.mkdirSync(path.join(root, "dir"));
    await expect(wfs.writeFile(`${root}/dir`, enc.encode("x"))).rejects.toThrow();
    expect(fs.readdirSync(root)).toEqual(["dir"]);
  });

  it("stats without following symlinks and reports missing paths as undefined", async () => {
    fs.writeFileSync(path.join(root, "f.txt"), "12345");
    fs.symlinkSync("/etc", path.join(root, "l"));
    expect(await wfs.stat(`${root}/f.txt`)).toMatchObject({ type: "file", size: 5 });
    expect((await wfs.stat(`${root}/l`))?.type).toBe("symlink");
    expect(await wfs.stat(`${root}/nope`)).toBeUndefined();
    expect(await wfs.stat(`${root}/f.txt/below`)).toBeUndefined();
  });

  it("reads folders with entry types and resolves real paths", async () => {
    fs.mkdirSync(path.join(root, "sub"));
    fs.writeFileSync(path.join(root, "f.txt"), "");
    fs.symlinkSync("sub", path.join(root, "s"));
    expect((await wfs.readDir(root)).sort()).toEqual([
      ["f.txt", "file"],
      ["s", "symlink"],
      ["sub", "directory"],
    ]);
    expect(await wfs.realPath(`${root}/s`)).toBe(`${root}/sub`);
    expect(await wfs.realPath(`${root}/missing`)).toBeUndefined();
    fs.symlinkSync("loop", path.join(root, "loop"));
    expect(await wfs.realPath(`${root}/loop`)).toBeUndefined();
    expect(wfs.root).toBe(root);
  });

  it("reads files (readFile, readChecked) and rejects what is missing or not a file", async () => {
    fs.writeFileSync(path.join(root, "f.txt"), "body\n");
    expect(new TextDecoder().decode(await wfs.readFile(`${root}/f.txt`))).toBe("body\n");
    const checked = await wfs.readChecked(`${root}/f.txt`);
    expect(new TextDecoder().decode(checked.data)).toBe("body\n");
    expect(checked.stat).toMatchObject({ type: "file", size: 5 });
    await expect(wfs.readFile(`${root}/nope`)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(wfs.readChecked(`${root}/nope`)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(wfs.readDir(`${root}/nope`)).rejects.toMatchObject({ code: "ENOENT" });
    // A sync failure is a rejected promise, not a throw from the call itself.
    const pending = wfs.readChecked(`${root}/f.txt/below`);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it("deletes files and folders", async () => {
    fs.mkdirSync(path.join(root, "d/e"), { recursive: true });
    fs.writeFileSync(path.join(root, "d/e/f"), "");
    await wfs.delete(`${root}/d`);
    expect(fs.existsSync(path.join(root, "d"))).toBe(false);
  });

  it("reports changes through watch", async () => {
    const seen: string[] = [];
    const w = wfs.watch!(root, (p) => seen.push(p));
    try {
      fs.writeFileSync(path.join(root, "w.txt"), "x");
      for (let i = 0; i < 150 && !seen.length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toContain(`${root}/w.txt`);
    } finally {
      w.dispose();
    }
  });
});
