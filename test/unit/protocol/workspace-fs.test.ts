// The vscode.workspace.fs port over a stand-in for VS Code's file system API that is backed by the
// real disk (temp folders), the way VS Code's own provider behaves for file: URIs.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("vscode", () => {
  const FileType = { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 };
  class Uri {
    constructor(readonly scheme: string, readonly path: string) {}
    get fsPath() {
      return this.path;
    }
    with(change: { path?: string }) {
      return new Uri(this.scheme, change.path ?? this.path);
    }
    toString() {
      return `${this.scheme}://${this.path}`;
    }
    static file(p: string) {
      return new Uri("file", p);
    }
    static joinPath(base: Uri, ...parts: string[]) {
      return new Uri(base.scheme, nodePath.posix.join(base.path, ...parts));
    }
  }
  class FileSystemError extends Error {
    constructor(message: string, readonly code: string) {
      super(message);
    }
  }
  const wrap = async <T>(f: () => T): Promise<T> => {
    try {
      return f();
    } catch (err) {
      const code = (err as { code?: string }).code;
      const map: Record<string, string> = { ENOENT: "FileNotFound", EEXIST: "FileExists", ENOTDIR: "FileNotADirectory", EISDIR: "FileIsADirectory", EACCES: "NoPermissions" };
      throw new FileSystemError((err as Error).message, map[code ?? ""] ?? "Unknown");
    }
  };
  const typeOf = (p: string) => {
    const l = fs.lstatSync(p);
    const s = l.isSymbolicLink() ? fs.statSync(p, { throwIfNoEntry: false }) : l;
    const base = s?.isDirectory() ? FileType.Directory : s?.isFile() ? FileType.File : FileType.Unknown;
    return { type: base | (l.isSymbolicLink() ? FileType.SymbolicLink : 0), size: s?.size ?? 0, mtime: s?.mtimeMs ?? 0 };
  };
  const writes: string[] = [];
  return {
    __writes: writes,
    Uri,
    FileType,
    FileSystemError,
    workspace: {
      fs: {
        stat: (u: Uri) => wrap(() => typeOf(u.path)),
        readFile: (u: Uri) => wrap(() => new Uint8Array(fs.readFileSync(u.path))),
        writeFile: (u: Uri, data: Uint8Array) => wrap(() => (writes.push(u.path), fs.writeFileSync(u.path, data))),
        createDirectory: (u: Uri) => wrap(() => fs.mkdirSync(u.path, { recursive: true })),
        rename: (a: Uri, b: Uri) => wrap(() => fs.renameSync(a.path, b.path)),
        delete: (u: Uri) => wrap(() => fs.rmSync(u.path, { recursive: true })),
        readDirectory: (u: Uri) => wrap(() => fs.readdirSync(u.path).map((n) => [n, typeOf(nodePath.join(u.path, n)).type])),
      },
    },
  };
});

const vscode = (await import("vscode")) as unknown as { Uri: { file(p: string): unknown }; __writes: string[] };
const { createVscodeWorkspaceFs, uriPathToFsPath } = await import("../../../src/host/workspace-fs");

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-vsfs-")));
  vscode.__writes.length = 0;
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
    expect(vscode.__writes).toHaveLength(1);
    expect(vscode.__writes[0]).toMatch(/\/src\/deep\/\.a\.ts\.yoke-.*\.tmp$/);
    expect(fs.readdirSync(`${root}/src/deep`)).toEqual(["a.ts"]);
  });

  it("keeps the old content when the write fails, and cleans up its temp file", async () => {
    fs.writeFileSync(`${root}/a.ts`, "old");
    fs.mkdirSync(`${root}/dir`);
    const err = await port().writeFile(`${root}/dir`, bytes("new")).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBeDefined();
    expect(fs.readFileSync(`${root}/a.ts`, "utf8")).toBe("old");
    expect(fs.readdirSync(root).sort()).toEqual(["a.ts", "dir"]);
  });

  it("returns undefined for a missing path and Node-style codes for failures", async () => {
    expect(await port().stat(`${root}/missing`)).toBeUndefined();
    const err = (await port().readFile(`${root}/missing`).catch((e: unknown) => e)) as Error & { code: string };
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
    expect((await p.readDir(root)).sort()).toEqual([["link.txt", "symlink"], ["real.txt", "file"], ["sub", "directory"]]);
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
