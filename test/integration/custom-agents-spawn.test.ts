// `Agent(type)` / `Task(type)` in a custom agent's `tools` (Claude Code: "Task(agent_type) syntax
// restricts which sub-agents it can spawn"; the list is an allow-list), through a full `yoke run`
// session with the scripted model: the agent's task tool lists only the types it may start and
// says a general-purpose sub-agent is not available; another type and a call without a type are
// refused; the allowed one runs one level deeper. A bare `Agent` keeps every type.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf, systemPromptOf, taskDescriptionOf, toolNamesOf, toolResultTexts } from "../support/scripted-run";

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

const agentFile = (name: string, tools: string, description: string) => `---\nname: ${name}\ndescription: ${description}\ntools: ${tools}\n---\nYou are ${name} (${name.toUpperCase()}-PROMPT).\n`;

function setup(leadTools: string) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-spawn-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  write(join(ws, "README.md"), "# app\n");
  write(join(ws, ".claude", "agents", "lead.md"), agentFile("lead", leadTools, "Leads the work and delegates it"));
  write(join(ws, ".claude", "agents", "helper.md"), agentFile("helper", "Read", "Helps by reading files"));
  write(join(ws, ".claude", "agents", "other.md"), agentFile("other", "Read", "Does other things"));
  return { ws, home: join(dir, "home"), sessions: join(dir, "sessions") };
}

function byDepth(queues: Record<number, ScriptedTurn[]>) {
  return async (r: RecordedRequest): Promise<ScriptedTurn> => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" };
}

const task = (input: Record<string, string>) => ({ name: "task", input: { description: "Delegate", prompt: "Read README.md and say its title.", ...input } });

const run = (s: ReturnType<typeof setup>, url: string) =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "lead it"], { env: { HOME: s.home } });

describe("Agent(type) in a custom agent's tools", () => {
  it("restricts the agent types it may start: its task tool lists only those, other types and general-purpose calls are refused, the allowed one runs", async () => {
    const s = setup("Read, Agent(helper)");
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [task({ subagent_type: "lead" })] }, { text: "Led." }],
        1: [{ toolCalls: [task({ subagent_type: "other" })] }, { toolCalls: [task({})] }, { toolCalls: [task({ subagent_type: "helper" })] }, { text: "The helper says: app." }],
        2: [{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { text: "The title is app." }],
      }),
    });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    const lead = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(toolNamesOf(lead[0]!)).toEqual(expect.arrayContaining(["read_file", "task"]));
    const described = taskDescriptionOf(lead[0]!);
    expect(described).toContain("You may start only these agents (your definition allows Agent(helper)); set `subagent_type` to one of them. A general-purpose sub-agent is not available to you.");
    expect(described).toContain("- helper: Helps by reading files (Tools: Read)");
    expect(described).not.toContain("other");
    const told = toolResultTexts(lead.at(-1));
    expect(told[0]).toBe('task: you may not start the "other" agent: your definition\'s tools allow only Agent(helper). Call task again with one of helper.');
    expect(told[1]).toBe(
      "task: you may start only these agents (Agent(…) in your definition's tools): helper; a general-purpose sub-agent is not available to you. Call task again with one of them as subagent_type.",
    );
    expect(told[2]).toContain('Sub-agent "Delegate" completed');
    expect(told[2]).toContain("The title is app.");
    const helper = server.requests.filter((q) => subagentDepthOf(q) === 2);
    expect(helper).toHaveLength(2);
    expect(systemPromptOf(helper[0]!)).toContain("HELPER-PROMPT");
    // The user's session's own task tool is not restricted by the lead's list.
    const top = taskDescriptionOf(server.requests[0]!);
    expect(top).toContain("- other: Does other things");
    expect(top).not.toContain("You may start only these agents");
  }, 120_000);

  it("a bare Agent (or Task) keeps every type and general-purpose sub-agents", async () => {
    const s = setup("Read, Task");
    server = await startScriptedLlmServer({
      script: byDepth({
        0: [{ toolCalls: [task({ subagent_type: "lead" })] }, { text: "Led." }],
        1: [{ toolCalls: [task({ subagent_type: "other" })] }, { text: "Done." }],
        2: [{ text: "Other did it." }],
      }),
    });
    const r = await run(s, server.openaiBaseUrl);
    expect(r.code, r.stderr).toBe(0);
    const lead = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const described = taskDescriptionOf(lead[0]!);
    expect(described).not.toContain("You may start only these agents");
    expect(described).toContain("- other: Does other things");
    expect(toolResultTexts(lead.at(-1))[0]).toContain("Other did it.");
  }, 120_000);
});
