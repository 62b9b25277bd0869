// Red team round 9: MCP sampling (server-everything's trigger-sampling-request) without the
// user's decision, through `yoke run` headless with the scripted model over HTTP. Held: other
// modes than bypassPermissions, and allow rules the repository committed. Not asserted here:
// bypassPermissions answers a server's sampling without asking (the mode's "allow all"; docs/mcp.md
// says "otherwise you are asked" — reported to the lead), and an untracked
// .claude/settings.local.json in a folder that is not a git repository counts as the user's own.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/cli";
import { everythingArgv, everythingSettings } from "../support/mcp-fixtures";
import { runScriptedSession } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): { cwd: string; home: string } {
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-se-", files, temps);
  return { cwd, home };
}

const settings = everythingSettings;

/** One headless `yoke run` with the scripted model ("use the tool"): result, requests, session events. */
const run = runScriptedSession;

const SAMPLE = { name: "mcp__everything__trigger-sampling-request", input: { prompt: "What is the capital of France?", maxTokens: 60 } };

// Red team round 9: can a server make Yoke sample without the user? No McpSampling rule of the
// user's, headless (no one to ask): every mode, and allow rules the REPOSITORY wrote.
describe("red9: sampling without the user's decision", () => {
  const cases: Array<{ name: string; files: (argv: string[]) => Record<string, string>; extra: string[]; git?: boolean }> = [
    ...(["acceptEdits", "plan"] as const).map((mode) => ({
      name: `mode ${mode}`,
      files: (argv: string[]) => ({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]) }),
      extra: ["--permission-mode", mode],
    })),
    {
      name: "the repository's .yoke/settings.json allows McpSampling",
      files: (argv: string[]) => ({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]), ".yoke/settings.json": JSON.stringify({ permissions: { allow: ["McpSampling"] } }) }),
      extra: [],
    },
    {
      name: "the repository's .claude/settings.json allows McpSampling(everything)",
      files: (argv: string[]) => ({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]), ".claude/settings.json": JSON.stringify({ permissions: { allow: ["McpSampling(everything)"] } }) }),
      extra: [],
    },
    {
      name: "the repository's committed (git-tracked) .claude/settings.local.json allows McpSampling(*)",
      git: true,
      files: (argv: string[]) => ({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]), ".claude/settings.local.json": JSON.stringify({ permissions: { allow: ["McpSampling(*)"] } }) }),
      extra: [],
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the model is never asked for the server`, async () => {
      const argv = everythingArgv(`red9-${c.name.replace(/\W+/g, "-")}`);
      const { cwd, home } = workspace(c.files(argv));
      if (c.git) {
        const git = (...a: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd, stdio: "pipe" });
        git("init", "-q");
        git("add", "-A");
        git("commit", "-qm", "repo");
      }
      const r = await run(cwd, home, [{ toolCalls: [SAMPLE] }, { text: "SAMPLED-BY-SERVER" }, { text: "ok" }], c.extra);
      const usage = r.events.filter((e) => e.type === "usage" && (e as { sampling?: string }).sampling);
      expect(usage).toEqual([]);
      expect(r.requests.length, r.stderr).toBeLessThanOrEqual(2);
      expect(JSON.stringify(r.requests.map((q) => q.body))).not.toContain("SAMPLED-BY-SERVER");
    }, 90_000);
  }
});
