// Every layer has a lint zone (eslint.config.mjs) and the source tree has no import circle
// (dpdm, `npm run lint:cycles`). These tests plant violations — as virtual files for the zones of
// each layer, and as real files in the tree for the commands `npm run lint` runs — and check that
// the project's own tools reject them, and that what the architecture allows still passes.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

/** The rules that fire, by line, when `code` is linted as the repository's file `relPath`. */
async function rulesByLine(relPath: string, code: string): Promise<Map<number, string[]>> {
  const [result] = await eslint.lintText(code, { filePath: join(root, relPath) });
  const out = new Map<number, string[]>();
  for (const m of result!.messages) out.set(m.line, [...(out.get(m.line) ?? []), m.ruleId ?? "(fatal)"]);
  return out;
}

const lines = (...l: string[]) => `${l.join("\n")}\n`;
const ZONE = "import-x/no-restricted-paths";

describe("a lint zone for every layer", () => {
  it("keeps src/bench from the VS Code host, the CLI, the webview and vscode", async () => {
    const found = await rulesByLine(
      "src/bench/planted.ts",
      lines(
        'import { EventLoopWatchdog } from "../host/host-watchdog";', // 1
        'import { permissionsCommand } from "../cli/commands/permissions";', // 2
        'import { formatCost } from "../../webview/format";', // 3
        'import * as vscode from "vscode";', // 4
        'export const x = [EventLoopWatchdog, permissionsCommand, formatCost, vscode, import("../host/panel/chat-view-provider")];', // 5
      ),
    );
    for (const line of [1, 2, 3, 5]) expect(found.get(line), `line ${line}`).toContain(ZONE);
    expect(found.get(4)).toContain("no-restricted-imports");
  });

  it("lets src/bench use the core, src/node, src/protocol and the demo server", async () => {
    const found = await rulesByLine(
      "src/bench/planted-clean.ts",
      lines(
        'import { readFileSync } from "node:fs";',
        'import { silentLogger } from "../core/ports";',
        'import { createNodeWorkspaceFs } from "../node/node-fs";',
        'import type { Snapshot } from "../protocol/messages";',
        'import { startScriptedLlmServer } from "../demo/scripted-llm-server";',
        "export const x: [unknown, unknown, unknown, Snapshot?] = [readFileSync, silentLogger, [createNodeWorkspaceFs, startScriptedLlmServer]];",
      ),
    );
    expect([...found]).toEqual([]);
  });

  it("keeps src/host from the CLI, the benchmarks and the webview's code", async () => {
    const found = await rulesByLine(
      "src/host/panel/planted.ts",
      lines(
        'import { parseArgs } from "../../cli/args";', // 1
        'import { loadSections } from "../../bench/index";', // 2
        'import { formatCost } from "../../../webview/format";', // 3
        'import { helper } from "../../../test/support/cli";', // 4
        "export const x = [parseArgs, loadSections, formatCost, helper];",
      ),
    );
    for (const line of [1, 2, 3, 4]) expect(found.get(line), `line ${line}`).toContain(ZONE);
  });

  it("lets src/host use the core, src/node, src/protocol, the demo model and vscode", async () => {
    const found = await rulesByLine(
      "src/host/planted-clean.ts",
      lines(
        'import * as vscode from "vscode";',
        'import { readFileSync } from "node:fs";',
        'import { silentLogger } from "../core/ports";',
        'import { createNodeWorkspaceFs } from "../node/node-fs";',
        'import type { Snapshot } from "../protocol/messages";',
        'import { demoModel } from "../demo/demo-model";',
        "export const x: [unknown, unknown, unknown, Snapshot?] = [vscode, readFileSync, [silentLogger, createNodeWorkspaceFs, demoModel]];",
      ),
    );
    expect([...found]).toEqual([]);
  });

  it("keeps src/demo from the hosts, the CLI, the benchmarks and vscode", async () => {
    const found = await rulesByLine(
      "src/demo/planted.ts",
      lines(
        'import { HostDemoModel } from "../host/demo-model";', // 1
        'import { parseArgs } from "../cli/args";', // 2
        'import { loadSections } from "../bench/index";', // 3
        'import * as vscode from "vscode";', // 4
        "export const x = [HostDemoModel, parseArgs, loadSections, vscode];",
      ),
    );
    for (const line of [1, 2, 3]) expect(found.get(line), `line ${line}`).toContain(ZONE);
    expect(found.get(4)).toContain("no-restricted-imports");
  });

  it("keeps the CLI from src/host and src/node from the hosts, the benchmarks and the demo; the CLI may load the benchmarks", async () => {
    const cli = await rulesByLine(
      "src/cli/commands/planted.ts",
      lines('import { activate } from "../../host/extension";', 'import { loadSections } from "../../bench/index";', "export const x = [activate, loadSections];"),
    );
    expect(cli.get(1)).toContain(ZONE);
    expect(cli.get(2)).toBeUndefined();
    const node = await rulesByLine(
      "src/node/planted.ts",
      lines(
        'import { parseArgs } from "../cli/args";',
        'import { loadSections } from "../bench/index";',
        'import { demoModel } from "../demo/demo-model";',
        "export const x = [parseArgs, loadSections, demoModel];",
      ),
    );
    for (const line of [1, 2, 3]) expect(node.get(line), `line ${line}`).toContain(ZONE);
  });
});

/** Runs a program of the repository's node_modules in the repository; status and all its output. */
function run(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", timeout: 240_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Writes `files` (paths relative to the repository) for the duration of `body`, then removes `dir`. */
async function planted<T>(dir: string, files: Record<string, string>, body: () => T | Promise<T>): Promise<T> {
  try {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(root, rel, ".."), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    return await body();
  } finally {
    rmSync(join(root, dir), { recursive: true, force: true });
  }
}

describe("the commands `npm run lint` runs, on files planted in the tree", () => {
  it("eslint fails on a bench → host import and names it", async () => {
    const dir = `src/bench/planted-${process.pid}`;
    const file = `${dir}/uses-host.ts`;
    const r = await planted(dir, { [file]: lines('import { EventLoopWatchdog } from "../../host/host-watchdog";', "export const w = EventLoopWatchdog;") }, () =>
      run(["node_modules/eslint/bin/eslint.js", "--no-warn-ignored", file]),
    );
    expect(r.status, r.out).toBe(1);
    expect(r.out).toContain("uses-host.ts");
    expect(r.out).toMatch(/Unexpected path "\.\.\/\.\.\/host\/host-watchdog" imported in restricted zone\. src\/bench/);
  }, 240_000);

  it("the cycle check fails on a planted circle — a type-only edge counts — and not on a chain", async () => {
    const dir = `src/core/planted-cycle-${process.pid}`;
    const r = await planted(
      dir,
      {
        // a → b → a (b's edge is type-only: still a circle between the modules).
        [`${dir}/circle-a.ts`]: lines('import { b } from "./circle-b";', "export interface A { n: number }", "export const a = () => b;"),
        [`${dir}/circle-b.ts`]: lines('import type { A } from "./circle-a";', "export const b: A = { n: 1 };"),
        // x → y only: no circle.
        [`${dir}/chain-x.ts`]: lines('import { y } from "./chain-y";', "export const x = y + 1;"),
        [`${dir}/chain-y.ts`]: lines("export const y = 1;"),
      },
      () => run(["node_modules/dpdm/lib/bin/dpdm.js"]),
    );
    expect(r.status, r.out).toBe(1);
    const circles = r.out.split("\n").filter((l) => /^\s*\d+\)/.test(l) && l.includes(dir));
    expect(circles, r.out).toEqual([expect.stringMatching(new RegExp(`${dir}/circle-[ab]\\.ts -> ${dir}/circle-[ab]\\.ts`))]);
    expect(r.out).not.toContain("chain-");
  }, 240_000);
});
