// The VS Code side stays as small as the core (issue 20): no file of src/host over 400 lines, and
// no Node file system in it — the Node parts are in src/node, and workspace files go through the
// workspace abstraction (host/workspace-fs.ts), so Remote-SSH works. The yoke.* VS Code settings are
// read in one file (host/settings.ts), which hands them to the one settings reader.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

const host = sources(join(root, "src/host"));
// getConfiguration("yoke"), ("yoke.review"), (`yoke`), or () — which reads every section, yoke.* among them.
const YOKE_CONFIG = /getConfiguration\s*\(\s*(?:["'`]yoke(?:["'`.])|\))/;
const CONFIG_READER = "src/host/settings.ts";
const FS_IMPORT = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["'](?:node:)?fs(?:\/promises)?["']/;

describe("src/host", () => {
  it("has its files (the walk finds the controller and its parts)", () => {
    const names = host.map((f) => relative(root, f));
    expect(names).toContain("src/host/session-controller.ts");
    expect(names).toContain("src/host/session/router.ts");
  });

  it("has no file over 400 lines", () => {
    const long = host.map((f) => ({ file: relative(root, f), lines: readFileSync(f, "utf8").split("\n").length })).filter((x) => x.lines > 400);
    expect(long).toEqual([]);
  });

  it("does not import the Node file system", () => {
    const offenders = host.filter((f) => FS_IMPORT.test(readFileSync(f, "utf8"))).map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });

  it("the check itself sees an fs import", () => {
    expect(FS_IMPORT.test('import * as fs from "node:fs";')).toBe(true);
    expect(FS_IMPORT.test('import { readFile } from "fs/promises";')).toBe(true);
    expect(FS_IMPORT.test('import { join } from "node:path";')).toBe(false);
  });

  it("reads the yoke.* VS Code configuration in one file only (settings.ts)", () => {
    const readers = host.filter((f) => YOKE_CONFIG.test(readFileSync(f, "utf8"))).map((f) => relative(root, f));
    expect(readers).toEqual([CONFIG_READER]);
  });

  it("the check itself sees a yoke.* configuration read, and not VS Code's own settings", () => {
    expect(YOKE_CONFIG.test('vscode.workspace.getConfiguration("yoke.review").get("view")')).toBe(true);
    expect(YOKE_CONFIG.test("vscode.workspace.getConfiguration('yoke').inspect('sessionDir')")).toBe(true);
    expect(YOKE_CONFIG.test("vscode.workspace.getConfiguration(`yoke`)")).toBe(true);
    expect(YOKE_CONFIG.test("vscode.workspace.getConfiguration().get('yoke.model')")).toBe(true);
    expect(YOKE_CONFIG.test('vscode.workspace.getConfiguration("files", scope).get("autoSave")')).toBe(false);
    expect(YOKE_CONFIG.test('vscode.workspace.getConfiguration("yokel")')).toBe(false);
  });
});
