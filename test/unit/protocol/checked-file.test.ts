// The VS Code side of "file tools act on what was checked", over the stand-in for VS Code's API
// (fake-vscode.ts) backed by the real disk: the port's checked reads and writes of file: folders go
// through the Node safe opens, and the reviewer's file identity refuses a link or another file
// swapped in before a save.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FakeVscodeState } from "./fake-vscode";

vi.mock("vscode", async () => {
  const v = (await import("./fake-vscode")).createFakeVscode() as { workspace: Record<string, unknown>; __state: FakeVscodeState };
  // The workspace folder holding a URI (the real API's lookup over workspaceFolders).
  v.workspace.getWorkspaceFolder = (uri: { path: string }) => v.__state.folders.find((f) => uri.path === f.uri.path || uri.path.startsWith(`${f.uri.path}/`));
  return v;
});

const vscode = (await import("vscode")) as unknown as { Uri: { file(p: string): { path: string; scheme: string } }; __state: FakeVscodeState };
const { createVscodeWorkspaceFs } = await import("../../../src/host/workspace-fs");
const { assertSameFile, identityOf, readDisk } = await import("../../../src/host/review/checked-file");
const { isPathChanged } = await import("../../../src/core/ports");

let base: string;
let root: string;
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-vschecked-")));
  root = `${base}/ws`;
  fs.mkdirSync(`${root}/dir`, { recursive: true });
  fs.mkdirSync(`${root}/secretdir`);
  fs.writeFileSync(`${root}/dir/a.txt`, "ok\n");
  fs.writeFileSync(`${root}/secretdir/a.txt`, "SECRET\n");
  fs.writeFileSync(`${base}/outside.txt`, "outside\n");
  vscode.__state.folders = [{ uri: vscode.Uri.file(root) as never, name: "ws", index: 0 }];
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

async function detail(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isPathChanged(e)) return e.detail;
    throw e;
  }
  throw new Error("expected a PathChangedError");
}

describe("the VS Code port's checked reads and writes (file: folders)", () => {
  const port = () => createVscodeWorkspaceFs(vscode.Uri.file(root) as never);

  it("reads and writes ordinary files, creating folders", async () => {
    expect(new TextDecoder().decode((await port().readChecked(`${root}/dir/a.txt`)).data)).toBe("ok\n");
    const st = await port().writeChecked(`${root}/n1/n2/b.txt`, new TextEncoder().encode("b\r\n"));
    expect(st).toMatchObject({ type: "file", size: 3 });
    expect(fs.readFileSync(`${root}/n1/n2/b.txt`, "utf8")).toBe("b\r\n");
  });

  it("never reads or writes through a link swapped in as the last or a middle component", async () => {
    fs.symlinkSync(`${base}/outside.txt`, `${root}/last`);
    expect(await detail(port().readChecked(`${root}/last`))).toBe("the file is now a symbolic link");
    expect(await detail(port().writeChecked(`${root}/last`, new TextEncoder().encode("pwned")))).toBe("the file is now a symbolic link");
    fs.renameSync(`${root}/dir`, `${root}/dir.away`);
    fs.symlinkSync("secretdir", `${root}/dir`);
    expect(await detail(port().readChecked(`${root}/dir/a.txt`))).toBe(`a symbolic link on the way now leads to ${root}/secretdir/a.txt`);
    expect(await detail(port().writeChecked(`${root}/dir/a.txt`, new TextEncoder().encode("pwned")))).toBe("a folder on the way is now a symbolic link");
    expect(fs.readFileSync(`${base}/outside.txt`, "utf8")).toBe("outside\n");
    expect(fs.readFileSync(`${root}/secretdir/a.txt`, "utf8")).toBe("SECRET\n");
  });
});

describe("the reviewer's check of the file before its saves", () => {
  const uri = (rel: string) => vscode.Uri.file(`${root}/${rel}`) as never;

  it("notes a regular file or its absence, and accepts the same file again", async () => {
    const id = await identityOf(uri("dir/a.txt"));
    expect(id).toMatchObject({ kind: "file", ino: fs.statSync(`${root}/dir/a.txt`).ino });
    fs.writeFileSync(`${root}/dir/a.txt`, "changed in place\n");
    await expect(assertSameFile(uri("dir/a.txt"), id)).resolves.toMatchObject({ kind: "file" });
    expect(await identityOf(uri("dir/new.txt"))).toEqual({ kind: "absent" });
  });

  it("refuses a link at the name, a folder on the way that became a link, and another file put in its place", async () => {
    const id = await identityOf(uri("dir/a.txt"));
    // Another file renamed over it (made while the old one still exists: a different inode).
    fs.writeFileSync(`${root}/dir/other.txt`, "another file\n");
    fs.renameSync(`${root}/dir/other.txt`, `${root}/dir/a.txt`);
    expect(await detail(assertSameFile(uri("dir/a.txt"), id))).toBe("another file was put in its place");
    fs.rmSync(`${root}/dir/a.txt`);
    fs.symlinkSync("../.git-config-stand-in", `${root}/dir/a.txt`);
    expect(await detail(assertSameFile(uri("dir/a.txt"), id))).toBe("the file is now a symbolic link");
    fs.renameSync(`${root}/dir`, `${root}/dir.away`);
    fs.symlinkSync("secretdir", `${root}/dir`);
    expect(await detail(identityOf(uri("dir/a.txt")))).toBe(`a symbolic link on the way now leads to ${root}/secretdir`);
    expect(await detail(readDisk(uri("dir/a.txt")))).toBe(`a symbolic link on the way now leads to ${root}/secretdir/a.txt`);
  });

  it("leaves virtual file systems to their provider, and checks vscode-remote files like local ones", async () => {
    expect(await identityOf({ scheme: "vscode-vfs", path: `${root}/dir/a.txt` } as never)).toEqual({ kind: "unchecked" });
    // A remote folder is on the extension host's own disk (extensionKind "workspace"): checked like file:.
    expect(await identityOf({ scheme: "vscode-remote", path: `${root}/dir/a.txt` } as never)).toMatchObject({ kind: "file" });
  });
});
