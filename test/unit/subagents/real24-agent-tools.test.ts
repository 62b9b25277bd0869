// Agent tool lists as real repositories write them (session 24, real24): `tools: "*"` is every tool
// (GitHub's custom agents configuration: "omit the tools property entirely or use tools: ["*"] to
// enable all available tools"; Claude Code's own general-purpose agent is declared with it) — Yoke
// gave such an agent no tool at all. GitHub's compatible aliases (`shell`, `Bash`, `powershell`,
// `Write`, `Grep`, `custom-agent`, `TodoWrite`…) are case-insensitive. Files written from the docs.
import { describe, expect, it } from "vitest";
import { agentTools, parseAgentFile } from "../../../src/core/subagents/agents";
import { createBuiltinTools } from "../../../src/core/tools/builtin";

const tools = createBuiltinTools();
const names = (ts: { name: string }[]) => ts.map((t) => t.name).sort();
const agent = (text: string, format: "claude" | "copilot", stem = "helper") => {
  const r = parseAgentFile({ display: `x/${stem}.md`, text, origin: "project", format, stem });
  expect(r.agent, JSON.stringify(r.problems)).toBeDefined();
  return r.agent!;
};

describe('tools: "*"', () => {
  it('Copilot (tools: ["*"]) and Claude Code (tools: "*"): every tool, as with no list; disallowedTools still removes', () => {
    const all = names(tools);
    const copilot = agent('---\nname: Everything\ndescription: Uses every tool\ntools: ["*"]\n---\nDo the task.\n', "copilot");
    expect(names(agentTools(copilot, tools).tools)).toEqual(all);
    expect(agentTools(copilot, tools).unknown).toEqual([]);
    const claude = agent('---\nname: builder\ndescription: Builds the app\ntools: "*"\n---\nBuild it.\n', "claude");
    const t = agentTools(claude, tools);
    expect(names(t.tools)).toEqual(all);
    expect(t.task).toBe(true);
    const noBash = agent('---\nname: builder\ndescription: Builds the app\ntools: "*"\ndisallowedTools: Bash\n---\nBuild it.\n', "claude");
    expect(names(agentTools(noBash, tools).tools)).not.toContain("run_command");
    expect(names(agentTools(noBash, tools).tools)).toContain("edit_file");
    // An empty list is still no tool at all (GitHub: `tools: []` disables all tools).
    const none = agent("---\nname: Talker\ndescription: Only talks\ntools: []\n---\nAnswer.\n", "copilot");
    expect(agentTools(none, tools).tools).toEqual([]);
  });
});

describe("GitHub's compatible tool aliases, case-insensitive", () => {
  it("shell/Bash/powershell run commands; Write/MultiEdit edit; Grep/Glob search; custom-agent/Task start agents", () => {
    const run = agentTools(agent("---\ndescription: Runs the build\ntools: ['bash']\n---\nRun it.\n", "copilot"), tools);
    expect(names(run.tools)).toContain("run_command");
    expect(run.unknown).toEqual([]);
    expect(names(agentTools(agent("---\ndescription: Runs the build\ntools: ['PowerShell']\n---\nRun it.\n", "copilot"), tools).tools)).toContain("run_command");
    const edit = agentTools(agent("---\ndescription: Edits docs\ntools: ['write', 'MULTIEDIT']\n---\nEdit.\n", "copilot"), tools);
    expect(names(edit.tools)).toEqual(expect.arrayContaining(["edit_file", "write_file"]));
    expect(names(edit.tools)).not.toContain("run_command");
    const search = agentTools(agent("---\ndescription: Finds code\ntools: ['grep']\n---\nFind.\n", "copilot"), tools);
    expect(names(search.tools)).toEqual(expect.arrayContaining(["grep", "glob"]));
    const lead = agentTools(agent("---\ndescription: Delegates\ntools: ['read', 'custom-agent']\n---\nDelegate.\n", "copilot"), tools);
    expect(lead.task).toBe(true);
    expect(lead.unknown).toEqual([]);
  });
});
