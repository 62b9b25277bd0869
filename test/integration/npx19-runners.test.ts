// The rule of src/node/mcp/server-folder.ts holds for every package runner, with no table of runners:
// a server the person defined (here ~/.yoke/settings.json) runs nothing the workspace supplies, for
// npx, bunx, pnpm exec, yarn exec, deno (a deno.json import map) and python -m. The same definitions
// with "cwd": "${workspaceFolder}" (the definition says so) run the planted code — so each runner
// really resolves from its folder, and the marker shows a run. Through the built CLI (`yoke mcp
// list` starts every server to list its tools); the runners from the npm registry into a temp
// folder (bun and deno ship their binaries inside registry packages). The planting through a
// sandboxed command, root and user, bwrap and firejail: npx19-user-server-folder.test.ts.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";

vi.setConfig({ testTimeout: 300_000, hookTimeout: 300_000 });
const temps: string[] = [];
let bin = "";

beforeAll(() => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "yoke-npx19-runners-"));
  temps.push(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "runners", private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "pnpm@12.25.1", "bun@1.4.5", "deno@2.9.6", "yarn@1.22.22"], { cwd: dir, stdio: "pipe", timeout: 280_000 });
  bin = join(dir, "node_modules", ".bin");
});
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A workspace where every runner finds a planted `yoke-fake-mcp` (and `python -m yoke_fake_py`), each writing `marker-<runner>`. */
function plantedWorkspace(base: string): string {
  const ws = join(base, "ws");
  const pkg = join(ws, "node_modules", "yoke-fake-mcp");
  mkdirSync(pkg, { recursive: true });
  mkdirSync(join(ws, "node_modules", ".bin"), { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "yoke-fake-mcp", version: "1.0.0", bin: { "yoke-fake-mcp": "run.sh" } }));
  writeFileSync(join(pkg, "run.sh"), `#!/bin/sh\nid > ${base}/marker-$WHO\n`);
  chmodSync(join(pkg, "run.sh"), 0o755);
  symlinkSync("../yoke-fake-mcp/run.sh", join(ws, "node_modules", ".bin", "yoke-fake-mcp"));
  writeFileSync(join(ws, "deno.json"), JSON.stringify({ imports: { "npm:yoke-fake-mcp": "./planted.ts" } }));
  writeFileSync(join(ws, "planted.ts"), `Deno.writeTextFileSync(${JSON.stringify(join(base, "marker-deno"))}, "ran");\n`);
  mkdirSync(join(ws, "yoke_fake_py"));
  writeFileSync(join(ws, "yoke_fake_py", "__main__.py"), `open(${JSON.stringify(join(base, "marker-python"))}, "w").write("ran")\n`);
  return ws;
}

const RUNNERS = ["npx", "bunx", "pnpm", "yarn", "deno", "python"] as const;

function servers(cwd?: string): Record<string, unknown> {
  const def = (command: string, args: string[], who: string) => ({ command, args, env: { WHO: who }, ...(cwd ? { cwd } : {}) });
  return {
    npx: def("npx", ["-y", "yoke-fake-mcp"], "npx"),
    bunx: def(join(bin, "bunx"), ["yoke-fake-mcp"], "bunx"),
    pnpm: def(join(bin, "pnpm"), ["exec", "yoke-fake-mcp"], "pnpm"),
    yarn: def(join(bin, "yarn"), ["exec", "yoke-fake-mcp"], "yarn"),
    deno: def(join(bin, "deno"), ["run", "-A", "npm:yoke-fake-mcp"], "deno"),
    python: def("python3", ["-m", "yoke_fake_py"], "python"),
  };
}

it("a server you defined runs nothing the workspace planted, whatever its runner; with cwd ${workspaceFolder} each runner does", async () => {
  const base = mkdtempSync(join(tmpdir(), "yoke-npx19-ws-"));
  temps.push(base);
  const home = join(base, "home");
  mkdirSync(join(home, ".yoke"), { recursive: true });
  const ws = plantedWorkspace(base);
  const list = async (defs: Record<string, unknown>) => {
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: defs }));
    return runCli(["mcp", "list", "--cwd", ws], { env: { HOME: home } });
  };

  const own = await list(servers());
  for (const r of RUNNERS) expect(existsSync(join(base, `marker-${r}`)), `${r}: ${own.stdout}`).toBe(false);

  await list(servers("${workspaceFolder}"));
  for (const r of RUNNERS) expect(readFileSync(join(base, `marker-${r}`), "utf8"), r).toBeTruthy();
});
