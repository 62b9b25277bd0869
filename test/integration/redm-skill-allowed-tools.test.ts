// Red team M (session 19): `allowed-tools` written space-separated, as the Agent Skills format
// writes them (`allowed-tools: Read Bash(touch:*)`), in the user's own skill run as /NAME. Before:
// one rule "Read Bash(touch:*)" that matched nothing, so the command's grant was lost (the write was
// asked for, and refused headless). Now: the rules the author wrote — the grant holds for the
// command's turn; the same skill in the repository still grants nothing.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { scriptedRunArgs, toldOf } from "../support/scripted-run";

const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));
beforeAll(() => ensureBuilt(), 180_000);

function setup(where: "user" | "project") {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redm-tools-")));
  temps.push(base);
  const home = join(base, "home");
  const ws = join(base, "ws");
  mkdirSync(ws, { recursive: true });
  execFileSync("git", ["init", "-q", ws]);
  const skills = where === "user" ? join(home, ".claude", "skills", "mark") : join(ws, ".claude", "skills", "mark");
  mkdirSync(skills, { recursive: true });
  writeFileSync(join(skills, "SKILL.md"), "---\nname: mark\ndescription: Mark the tree as checked\nallowed-tools: Read Bash(touch:*)\n---\nCreate the file MARKED with touch.\n");
  return { base, home, ws };
}

async function run(s: { base: string; home: string; ws: string }) {
  const server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "touch MARKED" } }] }, { text: "done" }] });
  try {
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, s.ws, join(s.base, "sessions")), "/mark"], { env: { HOME: s.home } });
    return { ...r, told: toldOf(server.requests) };
  } finally {
    await server.close();
  }
}

describe("space-separated allowed-tools", () => {
  it("the user's own skill: Bash(touch:*) is granted for its turn — the write lands without a question", async () => {
    const s = setup("user");
    const r = await run(s);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.ws, "MARKED")), r.told).toBe(true);
  }, 120_000);

  it("the repository's skill: the same line grants nothing (asked; headless, refused and not run)", async () => {
    const s = setup("project");
    const r = await run(s);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(s.ws, "MARKED"))).toBe(false);
    expect(r.told).toMatch(/denied run_command/);
  }, 120_000);
});
