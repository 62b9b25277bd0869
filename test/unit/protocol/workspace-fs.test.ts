// The vscode.workspace.fs port over a stand-in for VS Code's file system API (fake-vscode.ts)
// that is backed by the real disk (temp folders), the way VS Code's own provider behaves for file: URIs.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FakeVscodeState } from "./fake-vscode";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());

const vscode = (await import("vscode")) as unknown as { Uri: { file(p: string): unknown }; __state: FakeVscodeState };
const { createVscodeWorkspaceFs, uriPathToFsPath } = await import("../../../src/host/workspace-fs");

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-vsfs-")));
  vscode.__state.writes.length = 0;
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const port = () => createVscodeWorkspaceFs(vscode.Uri.file(root) as never);
const bytes = (s: string) => new TextEncoder().encode(s);

describe("vscode workspace fs port", () => {
  it("reports the folder as its POSIX root, and a drive-letter URI path without the leading slash", () => {
    expect(port().root).toBe(root);
    expect(uriPathToFsPath("/c:/Users/me/proj")).toBe("c:/Users/me/proj");
    expect(uriPathToFsPath("/home/me/proj/")).toBe("/home/me/proj");
  });

  it("writes through a temp file and a rename, creating parent folders, leaving no temp file", async () => {
    await port().writeFile(`${root}/src/deep/a.ts`, bytes("hello"));
    expect(fs.readFileSync(`${root}/src/deep/a.ts`, "utf8")).toBe("hello");
    expect(vscode.__state.writes).toHaveLength(1);
    expect(vscode.__state.writes[0]).toMatch(/\/src\/deep\/\.a\.ts\.yoke-.*\.tmp$/);
    expect(fs.readdirSync(`${root}/src/deep`)).toEqual(["a.ts"]);
  });

  it("keeps the old content when the write fails, and cleans up its temp file", async () => {
    fs.writeFileSync(`${root}/a.ts`, "old");
    fs.mkdirSync(`${root}/dir`);
    const err = await port()
      .writeFile(`${root}/dir`, bytes("new"))
      .catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBeDefined();
    expect(fs.readFileSync(`${root}/a.ts`, "utf8")).toBe("old");
    expect(fs.readdirSync(root).sort()).toEqual(["a.ts", "dir"]);
  });

  it("returns undefined for a missing path and Node-style codes for failures", async () => {
    expect(await port().stat(`${root}/missing`)).toBeUndefined();
    const err = (await port()
      .readFile(`${root}/missing`)
      .catch((e: unknown) => e)) as Error & { code: string };
    expect(err.code).toBe("ENOENT");
    expect(err.message).toContain(`${root}/missing`);
  });

  it("reports symlinks as symlinks and resolves them in realPath", async () => {
    fs.writeFileSync(`${root}/real.txt`, "x");
    fs.mkdirSync(`${root}/sub`);
    fs.symlinkSync(`${root}/real.txt`, `${root}/link.txt`);
    const p = port();
    expect((await p.stat(`${root}/link.txt`))?.type).toBe("symlink");
    expect((await p.stat(`${root}/real.txt`))?.type).toBe("file");
    expect((await p.readDir(root)).sort()).toEqual([
      ["link.txt", "symlink"],
      ["real.txt", "file"],
      ["sub", "directory"],
    ]);
    expect(await p.realPath(`${root}/link.txt`)).toBe(`${root}/real.txt`);
    expect(await p.realPath(`${root}/nope`)).toBeUndefined();
  });

  it("deletes folders recursively", async () => {
    fs.mkdirSync(`${root}/d/e`, { recursive: true });
    fs.writeFileSync(`${root}/d/e/f`, "x");
    await port().delete(`${root}/d`);
    expect(fs.existsSync(`${root}/d`)).toBe(false);
  });
});
