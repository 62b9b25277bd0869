import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|tsx|mts|js)$/.test(name) ? [p] : [];
  });
}

/** Module specifiers a file imports (static, dynamic and require). */
function imports(file: string): string[] {
  return importsOf(readFileSync(file, "utf8"));
}

function importsOf(text: string): string[] {
  const found: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) found.push(m[1]!);
  return found;
}

const NODE_BUILTINS = /^(node:|fs$|fs\/|path$|child_process$|os$|net$|http$|https$|crypto$|util$|stream$|readline$|worker_threads$)/;

describe("architecture boundaries", () => {
  const core = sources(join(root, "src/core"));

  it("finds the core's sources", () => {
    expect(core.length).toBeGreaterThan(10);
  });

  it("keeps src/core free of vscode", () => {
    const offenders = core.filter((f) => imports(f).includes("vscode")).map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });

  it("keeps src/core free of Node built-in modules (hosts provide them through ports)", () => {
    const offenders = core.flatMap((f) =>
      imports(f)
        .filter((s) => NODE_BUILTINS.test(s))
        .map((s) => `${relative(root, f)}: ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("keeps src/core from importing the hosts, the CLI or the webview", () => {
    const offenders = core.flatMap((f) =>
      imports(f)
        .filter((s) => /(^|\/)(host|node|cli|webview|protocol)(\/|$)/.test(s) && s.startsWith("."))
        .map((s) => `${relative(root, f)}: ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it("recognises every way of importing a module (the check itself works)", () => {
    const text = ['import * as vscode from "vscode";', "import type { Uri } from 'vscode';", 'const v = require("vscode");', 'const m = await import("node:fs");', 'import "./side-effect";'].join(
      "\n",
    );
    expect(importsOf(text)).toEqual(["vscode", "vscode", "vscode", "node:fs", "./side-effect"]);
  });
});
