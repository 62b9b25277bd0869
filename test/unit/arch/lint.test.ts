// The architecture's import boundaries are ESLint rules (eslint.config.mjs) and the harness-neutral
// layers have a type check without Node or DOM typings (tsconfig.core.json). These tests plant
// violations in virtual files placed inside each layer and check that the project's own config
// rejects them, and that clean files pass.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ESLint } from "eslint";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

interface Finding {
  rule: string | null;
  line: number;
  message: string;
}

/** Lints `code` as if it were the file `relPath` of the repository (the file need not exist). */
async function lint(relPath: string, code: string): Promise<Finding[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, relPath) });
  return result!.messages.map((m) => ({ rule: m.ruleId, line: m.line, message: m.message }));
}

const lines = (...l: string[]) => `${l.join("\n")}\n`;

describe("import boundaries (eslint.config.mjs)", () => {
  it('rejects `import "vscode"` and Node built-ins in src/core, in every import form', async () => {
    const found = await lint(
      "src/core/tools/planted.ts",
      lines(
        'import "vscode";', // 1
        'import { readFileSync } from "node:fs";', // 2
        'import * as path from "path";', // 3
        'import { readFile } from "fs/promises";', // 4
        'import type { Uri } from "vscode";', // 5
        'export { window } from "vscode";', // 6
        "export async function f(): Promise<unknown> {", // 7
        '  const vs = await import("vscode");', // 8
        '  const cp = await import("node:child_process");', // 9
        "  return [readFileSync, path, readFile, vs, cp] as unknown as Uri;", // 10
        "}",
      ),
    );
    const byLine = (n: number) => found.filter((f) => f.line === n).map((f) => f.rule);
    expect(byLine(1)).toContain("no-restricted-imports");
    expect(byLine(2)).toContain("import-x/no-nodejs-modules");
    expect(byLine(3)).toContain("import-x/no-nodejs-modules");
    expect(byLine(4)).toContain("import-x/no-nodejs-modules");
    expect(byLine(5)).toContain("no-restricted-imports");
    expect(byLine(6)).toContain("no-restricted-imports");
    expect(byLine(8)).toContain("no-restricted-syntax");
    expect(byLine(9)).toContain("import-x/no-nodejs-modules");
    expect(found.find((f) => f.line === 1)?.message).toMatch(/src\/core/);
  });

  it("rejects require() of vscode and of a Node built-in in src/core", async () => {
    const found = await lint(
      "src/core/planted.ts",
      lines(
        "declare const require: (id: string) => unknown;",
        "// eslint-disable-next-line @typescript-eslint/no-require-imports",
        'export const vs = require("vscode");',
        "// eslint-disable-next-line @typescript-eslint/no-require-imports",
        'export const fs = require("fs");',
      ),
    );
    expect(found.filter((f) => f.line === 3).map((f) => f.rule)).toContain("no-restricted-syntax");
    expect(found.filter((f) => f.line === 5).map((f) => f.rule)).toContain("import-x/no-nodejs-modules");
  });

  it("rejects imports of the hosts, the CLI, the protocol and the webview from src/core, however the path is spelled", async () => {
    const found = await lint(
      "src/core/loop/planted.ts",
      lines(
        'import { activate } from "../../host/extension";',
        'import type { NodeFs } from "../../node/node-fs";',
        'export { parseArgs } from "../../cli/args";',
        'import { SnapshotSchema } from "../../../src/protocol/messages";',
        'import "../../../webview/format";',
        "export const all = [activate, SnapshotSchema] as unknown as NodeFs;",
      ),
    );
    for (const line of [1, 2, 3, 4, 5]) {
      expect(
        found.filter((f) => f.line === line).map((f) => f.rule),
        `line ${line}`,
      ).toContain("import-x/no-restricted-paths");
    }
  });

  it("passes a clean src/core file (its own modules, npm packages, web-standard globals)", async () => {
    const found = await lint(
      "src/core/tools/planted-clean.ts",
      lines(
        'import { z } from "zod";',
        'import type { ToolContext } from "./types";',
        'import { normalizePath } from "../paths";',
        "export const Input = z.object({ path: z.string() });",
        "export function clean(ctx: ToolContext, p: string): string {",
        "  const signal: AbortSignal = new AbortController().signal;",
        "  void signal;",
        "  void ctx;",
        "  return normalizePath(new TextDecoder().decode(new TextEncoder().encode(p)));",
        "}",
      ),
    );
    expect(found).toEqual([]);
  });

  it("keeps src/node from the VS Code host and vscode, and lets it use the core and Node", async () => {
    const bad = await lint("src/node/planted.ts", lines('import { readSettings } from "../host/settings";', 'import * as vscode from "vscode";', "export const x = [readSettings, vscode];"));
    expect(bad.filter((f) => f.line === 1).map((f) => f.rule)).toContain("import-x/no-restricted-paths");
    expect(bad.filter((f) => f.line === 2).map((f) => f.rule)).toContain("no-restricted-imports");
    const good = await lint(
      "src/node/planted-clean.ts",
      lines('import { readFileSync } from "node:fs";', 'import type { ToolContext } from "../core/tools/types";', "export const x: [typeof readFileSync, ToolContext?] = [readFileSync];"),
    );
    expect(good).toEqual([]);
  });

  it("lets the webview import only src/protocol, its own files and npm packages", async () => {
    const bad = await lint(
      "webview/views/planted.ts",
      lines(
        'import { normalizePath } from "../../src/core/paths";',
        'import { readSettings } from "../../src/host/settings";',
        'import { readFileSync } from "node:fs";',
        'import * as vscode from "vscode";',
        "export const x = [normalizePath, readSettings, readFileSync, vscode];",
      ),
    );
    expect(bad.filter((f) => f.line === 1).map((f) => f.rule)).toContain("import-x/no-restricted-paths");
    expect(bad.filter((f) => f.line === 2).map((f) => f.rule)).toContain("import-x/no-restricted-paths");
    expect(bad.filter((f) => f.line === 3).map((f) => f.rule)).toContain("import-x/no-nodejs-modules");
    expect(bad.filter((f) => f.line === 4).map((f) => f.rule)).toContain("no-restricted-imports");
    const good = await lint(
      "webview/views/planted-clean.ts",
      lines(
        'import type { Snapshot } from "../../src/protocol/messages";',
        'import { el } from "../ui/dom";',
        'import { marked } from "marked";',
        "export const x: [Snapshot?, typeof el?, typeof marked?] = [];",
      ),
    );
    expect(good).toEqual([]);
  });

  it("keeps src/protocol free of the hosts and vscode, and the CLI free of vscode", async () => {
    const protocol = await lint("src/protocol/planted.ts", lines('import { readSettings } from "../host/settings";', 'import "vscode";', "export const x = readSettings;"));
    expect(protocol.filter((f) => f.line === 1).map((f) => f.rule)).toContain("import-x/no-restricted-paths");
    expect(protocol.filter((f) => f.line === 2).map((f) => f.rule)).toContain("no-restricted-imports");
    const cli = await lint("src/cli/planted.ts", lines('import * as vscode from "vscode";', "export const x = vscode;"));
    expect(cli.map((f) => f.rule)).toContain("no-restricted-imports");
  });
});

describe("the harness-neutral type check (tsconfig.core.json)", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "yoke-core-tsc-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Type-checks one file with tsconfig.core.json's options and ambient files; returns the messages. */
  function check(code: string): string[] {
    const file = join(dir, `planted-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(file, code);
    const configPath = join(root, "tsconfig.core.json");
    const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath);
    expect(parsed.errors).toEqual([]);
    const ambient = parsed.fileNames.filter((f) => f.endsWith(".d.ts") && !f.includes("/src/"));
    expect(ambient.length).toBeGreaterThan(0);
    const program = ts.createProgram([...ambient, file], parsed.options);
    return ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === file)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  }

  it("rejects Node and DOM globals", () => {
    const errors = check(
      lines(
        "export const home = process.env.HOME;",
        'export const bytes = Buffer.from("x");',
        "export const title = document.title;",
        "export const w = window;",
        'export const mod = require("x");',
        "export const t = setTimeout(() => undefined, 5).unref();",
      ),
    );
    expect(errors.join("\n")).toMatch(/'process'/);
    expect(errors.join("\n")).toMatch(/'Buffer'/);
    expect(errors.join("\n")).toMatch(/'document'/);
    expect(errors.join("\n")).toMatch(/'window'/);
    expect(errors.join("\n")).toMatch(/'require'/);
    expect(errors.join("\n")).toMatch(/'unref'/);
  });

  it("accepts the web-standard globals every host has", () => {
    const errors = check(
      lines(
        "export async function ok(signal: AbortSignal): Promise<string> {",
        "  const c = new AbortController();",
        '  signal.addEventListener("abort", () => c.abort(new DOMException("stop", "AbortError")), { once: true });',
        "  const t = setTimeout(() => c.abort(), 10);",
        "  clearTimeout(t);",
        '  const u = new URL("https://example.com/a?b=1");',
        '  const bytes = new TextEncoder().encode(u.searchParams.get("b") ?? "");',
        "  await new Promise<void>((r) => queueMicrotask(r));",
        "  return `${new TextDecoder().decode(bytes)} ${crypto.randomUUID()} ${structuredClone({ a: 1 }).a}`;",
        "}",
      ),
    );
    expect(errors).toEqual([]);
  });
});
