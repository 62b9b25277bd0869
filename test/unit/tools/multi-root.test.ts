// A multi-root workspace: every folder is usable. Relative paths start with a folder's name (or
// name a path that exists in exactly one folder); output shows `folder/relative`; "." is all folders.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { displayPath, resolveWorkspacePath } from "../../../src/core/paths";
import { silentLogger, type WorkspaceFs } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import type { ToolContext } from "../../../src/core/tools/types";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { createRipgrepSearcher } from "../../../src/node/ripgrep-searcher";
import { callTool } from "../../support/workspace";
import { hashlineReady } from "../../../src/core/edit/hashline";

let base: string;
let web: string;
let api: string;
let wfs: WorkspaceFs;
const registry = new ToolRegistry(createBuiltinTools());

function write(root: string, files: Record<string, string>) {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
}

function ctx(): ToolContext {
  return { fs: wfs, search: createRipgrepSearcher(), log: silentLogger, signal: new AbortController().signal, sessionId: "s", callId: "c", readState: new Map(), record: () => {} };
}

beforeEach(async () => {
  await hashlineReady();
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-multi-")));
  web = path.join(base, "web");
  api = path.join(base, "api");
  write(web, { "src/app.ts": "export const app = 'web';\n", "README.md": "web readme\n" });
  write(api, { "src/server.ts": "export const server = 'api';\n", "only-api.txt": "x\n" });
  wfs = createNodeWorkspaceFs(web, { folders: [{ root: web }, { root: api }] });
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

async function err(p: string): Promise<string> {
  return resolveWorkspacePath(wfs, p).then(
    () => "resolved",
    (e: Error) => e.message,
  );
}

describe("paths in a multi-root workspace", () => {
  it("resolve by folder name, by absolute path, or where the path exists in exactly one folder", async () => {
    expect(await resolveWorkspacePath(wfs, "api/src/server.ts")).toEqual({ abs: `${api}/src/server.ts`, rel: "api/src/server.ts" });
    expect(await resolveWorkspacePath(wfs, `${api}/src/server.ts`)).toEqual({ abs: `${api}/src/server.ts`, rel: "api/src/server.ts" });
    expect(await resolveWorkspacePath(wfs, "only-api.txt")).toEqual({ abs: `${api}/only-api.txt`, rel: "api/only-api.txt" });
    expect(await resolveWorkspacePath(wfs, "web/new/file.ts")).toEqual({ abs: `${web}/new/file.ts`, rel: "web/new/file.ts" });
    expect(await resolveWorkspacePath(wfs, ".")).toEqual({ abs: web, rel: "." });
    expect(displayPath(wfs, `${web}/src/app.ts`)).toBe("web/src/app.ts");
  });

  it("refuse a path in several folders, in none, or outside them all, saying how to name one", async () => {
    expect(await err("src")).toBe(
      'The path "src" exists in several workspace folders (web/src, api/src). This workspace has several folders: start a relative path with the folder\'s name ("web/…", "api/…"), or give an absolute path inside one of them.',
    );
    expect(await err("new.txt")).toMatch(/^The path "new.txt" does not start with a workspace folder's name and exists in none of them\./);
    expect(await err("../outside")).toMatch(/is outside the workspace/);
    expect(await err("/etc/passwd")).toContain(`the workspace folders are ${web}, ${api}`);
  });
});

describe("tools in a multi-root workspace", () => {
  it("read and edit a file of the second folder, showing folder-relative paths", async () => {
    const read = await callTool(registry, "read_file", { path: "api/src/server.ts" }, ctx());
    expect(read.text).toContain("File: api/src/server.ts");
    const anchor = /1#[A-Z]{2}/.exec(read.text)![0];
    const edit = await callTool(registry, "edit_file", { path: "api/src/server.ts", edits: [{ op: "replace", pos: anchor, lines: ["export const server = 'API';"] }] }, ctx());
    expect(edit.isError).toBeFalsy();
    expect(edit.text).toContain("Edited api/src/server.ts");
    expect(fs.readFileSync(path.join(api, "src/server.ts"), "utf8")).toBe("export const server = 'API';\n");
  });

  it("search every folder for '.', and list the folders as the first level", async () => {
    const grep = await callTool(registry, "grep", { pattern: "export const" }, ctx());
    expect(grep.text).toContain("web/src/app.ts:");
    expect(grep.text).toContain("api/src/server.ts:");
    const glob = await callTool(registry, "glob", { pattern: "**/*.ts" }, ctx());
    expect(glob.text.split("\n").slice(1).sort()).toEqual(["api/src/server.ts", "web/src/app.ts"]);
    const onlyApi = await callTool(registry, "glob", { pattern: "api/**/*.ts" }, ctx());
    expect(onlyApi.text.split("\n").slice(1)).toEqual(["api/src/server.ts"]);
    const list = await callTool(registry, "list_files", {}, ctx());
    expect(list.text.split("\n")).toEqual(["Workspace folders (depth 2):", `web/ (${web})`, "  src/", "    app.ts", "  README.md", `api/ (${api})`, "  src/", "    server.ts", "  only-api.txt"]);
  });

  it("gives the permission engine and the tool the same canonical path, whatever spacing or slashes the model used", async () => {
    const prepared = await registry.prepare("read_file", { path: "  api\\src\\server.ts " }, wfs);
    expect(prepared).toEqual({ ok: true, args: { path: `${api}/src/server.ts` } });
    const outside = await registry.prepare("write_file", { path: " ../x", content: "" }, wfs);
    expect(outside.ok).toBe(false);
  });
});

describe("rules in a multi-root workspace", () => {
  it("the other folders are inside the workspace for the rules, and their own settings files apply to them", async () => {
    const { createNodeServices } = await import("../../../src/node/agent-services");
    write(api, { "secrets/key.txt": "k\n", ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(./secrets/**)"] } }) });
    write(web, { "secrets/key.txt": "k\n" });
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-home-"));
    try {
      const { gate } = createNodeServices({ cwd: web, folders: [api], sessionDir: path.join(base, "sessions"), trusted: true, home });
      const read = (p: string) => gate.check({ tool: "read_file", permission: "Read", input: { file_path: p }, mutates: false }, "default");
      expect(await read(`${api}/src/server.ts`)).toMatchObject({ decision: "allow" });
      expect(await read(`${api}/secrets/key.txt`)).toMatchObject({ decision: "deny", rule: "Read(./secrets/**)" });
      expect((await read(`${api}/secrets/key.txt`)).reason).toContain("api/.claude/settings.json");
      expect(await read(`${web}/secrets/key.txt`)).toMatchObject({ decision: "allow" });
      expect(await read(`${base}/elsewhere.txt`)).toMatchObject({ decision: "ask" });
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
