// The VS Code side stays as small as the core (issue 20): no file of src/host over 400 lines, and
// no Node file system in it — the Node parts are in src/node, and workspace files go through the
// workspace abstraction (host/workspace-fs.ts), so Remote-SSH works.
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
});
