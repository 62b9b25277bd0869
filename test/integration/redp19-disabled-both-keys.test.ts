// Red team P (session 19) on red team L's `disabledMcpServers`: the project's entry in ~/.claude.json
// was found "with or without a trailing slash", but only the first entry naming the folder was read.
// With both `/ws` (the local scope's server) and `/ws/` (its "Disable") in the file, the server the
// person turned off started: `yoke mcp list` ran its command (a marker written). Every entry naming
// the folder is read now. Outcome: the marker; control: without the `/ws/` entry the server runs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";

const temps: string[] = [];
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

it("a server turned off in either spelling of the project's key is not started", async () => {
  const base = mkdtempSync(join(tmpdir(), "yoke-redp19-off-"));
  temps.push(base);
  const home = join(base, "home");
  const ws = join(base, "ws");
  mkdirSync(home);
  mkdirSync(ws);
  execFileSync("git", ["init", "-q", ws]);
  const marker = join(base, "ran-a");
  const server = { command: "sh", args: ["-c", `touch ${marker}`] };
  const list = async (projects: Record<string, unknown>) => {
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects }));
    return runCli(["mcp", "list", "--cwd", ws], { env: { HOME: home } });
  };

  const off = await list({ [ws]: { mcpServers: { a: server } }, [`${ws}/`]: { disabledMcpServers: ["a"] } });
  expect(off.stdout).toContain("turned off for this project by disabledMcpServers");
  expect(existsSync(marker), off.stdout).toBe(false);

  // Control: the same server, not turned off, runs (the marker shows a start).
  await list({ [ws]: { mcpServers: { a: server } } });
  expect(existsSync(marker)).toBe(true);
}, 180_000);
