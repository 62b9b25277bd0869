// Red team O (session 19): a deny rule on Task/Agent names holds whatever spelling the model
// sends. The task tool finds a custom agent by its name in any case or by its display name, and
// takes "general-purpose" (any case, '-', '_' or ' ') or no subagent_type at all for a plain
// sub-agent; the permission rules matched the text the model sent, case-sensitively, and a call
// without subagent_type named nothing. So `Task(helper)` let `Helper` run the helper agent, and
// `Task(general-purpose)` let `General_Purpose` or an omitted type start a plain sub-agent.
// Outcome checked: no sub-agent request ever reaches the model, the tool result says denied.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 120_000);

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function setup(deny: string[]) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-red-o-task-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  write(join(ws, "README.md"), "# app\n");
  write(join(ws, ".claude", "agents", "helper.md"), "---\nname: helper\ndescription: Helps by reading files\ntools: Read\n---\nYou are helper (HELPER-PROMPT).\n");
  write(join(ws, ".github", "agents", "Code Reviewer.agent.md"), "---\nname: Code Reviewer\ndescription: Reviews code\n---\nYou review (REVIEWER-PROMPT).\n");
  write(join(home, ".claude", "settings.json"), JSON.stringify({ permissions: { deny } }));
  return { ws, home, sessions: join(dir, "sessions") };
}

const task = (input: Record<string, string>) => ({ name: "task", input: { description: "Delegate", prompt: "Read README.md and say its title.", ...input } });

async function attempt(deny: string[], calls: Array<Record<string, string>>) {
  const s = setup(deny);
  const turns: ScriptedTurn[] = [...calls.map((c) => ({ toolCalls: [task(c)] })), { text: "Done." }];
  server = await startScriptedLlmServer({
    script: async (r: RecordedRequest): Promise<ScriptedTurn> => (subagentDepthOf(r) === 0 ? (turns.shift() ?? { text: "(no more)" }) : { text: "SUB-AGENT RAN" }),
  });
  const r = await runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "go"], {
    env: { HOME: s.home },
  });
  expect(r.code === 0 || /seems stuck/.test(r.stdout), r.stderr).toBe(true);
  // What each call came to, as the run printed it (a stuck-agent stop may end the run after the last one).
  const denied = r.stdout.split("\n").filter((l) => /✗ call_\S+: denied by rule/.test(l));
  return { children: server.requests.filter((q) => subagentDepthOf(q) > 0), denied, stdout: r.stdout };
}

describe("red team O: deny rules on Task/Agent names hold for every spelling the task tool accepts", () => {
  it("Task(helper) denies Helper and HELPER; Agent(Code Reviewer) denies the agent by its file name too", async () => {
    const { children, denied } = await attempt(["Task(helper)", "Agent(Code Reviewer)"], [{ subagent_type: "Helper" }, { subagent_type: "HELPER" }, { subagent_type: "code reviewer" }]);
    expect(children).toEqual([]);
    expect(denied.map((l) => /the rule (\S+(?: Reviewer\))?)/.exec(l)?.[1])).toEqual(["Task(helper)", "Task(helper)", "Agent(Code Reviewer)"]);
  }, 120_000);

  it("Task(general-purpose) denies every spelling of it and a call without subagent_type", async () => {
    const { children, denied } = await attempt(["Task(general-purpose)"], [{}, { subagent_type: "General-Purpose" }, { subagent_type: "general_purpose" }, { subagent_type: "general purpose" }]);
    expect(children).toEqual([]);
    expect(denied).toHaveLength(4);
    for (const l of denied) expect(l).toContain("denied by the rule Task(general-purpose)");
  }, 120_000);

  it("control: the same calls without the rules start the sub-agents", async () => {
    const { children, denied, stdout } = await attempt([], [{ subagent_type: "Helper" }, {}, { subagent_type: "general_purpose" }]);
    expect(denied).toEqual([]);
    expect(children.length).toBeGreaterThanOrEqual(3);
    expect(stdout.match(/sub-agent "Delegate" completed/g)).toHaveLength(3);
  }, 120_000);
});
