// Session 24 (cmd24), issue 23. Real loop, real permission engine, real files, the scripted model
// over HTTP, and a person who would allow anything asked — so only the agent's own rules keep a
// write from happening.
// - A Copilot prompt file (`.github/prompts/*.prompt.md`, `agent: NAME`, as VS Code's prompt-files
//   page writes it) runs under a Claude Code agent whose `permissionMode` is `dontAsk` (Claude Code's
//   sub-agents page: "Auto-deny permission prompts (explicitly allowed tools still work)"). Through
//   `task` that held since session 23; under the prompt file the write was asked of the person and
//   made. Now it is denied without asking, and what the rules allow still runs.
// - An agent whose `name` has a space ("Code Reviewer") is started by that name through task (before:
//   skipped as a bad name, so the model's call was refused).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { PermissionQuestion } from "../../src/core/loop/types";
import { silentLogger } from "../../src/core/ports";
import { createProvider } from "../../src/core/providers/create";
import { subagentsExtension } from "../../src/core/subagents";
import { parseAgentFile } from "../../src/core/subagents/agents";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { nodeCustomCommandsExtension } from "../../src/node/custom-commands";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { subagentDepthOf, systemPromptOf, toldOf } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { createWorkspaceWithHome } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

const AUDITOR = (mode: string) =>
  `---\nname: auditor\ndescription: Audits the code and writes its findings\ntools: Read, Write, Bash\n${mode ? `permissionMode: ${mode}\n` : ""}---\nYou audit code. AUDITOR-ROLE\n`;

async function session(files: Record<string, string>, agentFiles: Record<string, string>, script: ScriptedTurn[] | ((r: RecordedRequest) => ScriptedTurn)) {
  const { base, cwd: ws, home } = createWorkspaceWithHome("yoke-cmd24-", files, temps, { realpath: true });
  const sessions = join(base, "sessions");
  const agents = Object.entries(agentFiles).map(([display, text]) => parseAgentFile({ display, text, origin: "project", format: "claude", stem: "x" }).agent!);
  server = await startScriptedLlmServer({ script: typeof script === "function" ? async (r: RecordedRequest) => script(r) : script });
  const node = createNodeServices({ cwd: ws, sessionDir: sessions, trusted: true, home });
  const asked: string[] = [];
  // The person would allow anything asked.
  const approver = {
    ask: async (q: PermissionQuestion) => {
      asked.push(q.summary);
      return { decision: "allow" as const };
    },
  };
  const s = await AgentSession.create({
    store: createFileSessionStore(sessions),
    provider: createProvider({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "scripted", apiKey: "k" }),
    tools: createBuiltinTools(),
    services: (x) => ({ fs: createNodeWorkspaceFs(ws), search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(x) }),
    approver,
    gate: node.gate,
    permissionMode: "default",
    retry: { maxRetries: 0 },
    compaction: false,
    extensions: [
      nodeCustomCommandsExtension({ cwd: ws, home }, { approver, check: (r, m) => node.gate.check(r, m), warn: () => undefined, agents: async () => agents }),
      subagentsExtension({ agents: async () => agents }),
    ],
  });
  return { s, ws, asked };
}

describe("a prompt file run under an agent whose permissionMode is dontAsk", () => {
  const files = {
    "src/app.ts": "export const x = 1;\n",
    // The rules allow one command; no rule allows the write.
    ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(echo audited)"] } }),
    ".github/prompts/audit.prompt.md": "---\nagent: auditor\ndescription: Audit the app\n---\nAudit src/app.ts and write AUDIT.md.\n",
  };
  const script: ScriptedTurn[] = [
    { toolCalls: [{ name: "read_file", input: { path: "src/app.ts" } }] },
    { toolCalls: [{ name: "run_command", input: { command: "echo audited" } }] },
    { toolCalls: [{ name: "write_file", input: { path: "AUDIT.md", content: "findings\n" } }] },
    { text: "Audited." },
  ];

  it("denies the write nobody allowed, without asking anyone; the read and the allowed command run", async () => {
    const { s, ws, asked } = await session(files, { ".claude/agents/auditor.md": AUDITOR("dontAsk") }, script);
    await s.send("/audit");
    await s.end();
    expect(JSON.stringify(server!.requests[0]!.body)).toContain("AUDITOR-ROLE");
    expect(existsSync(join(ws, "AUDIT.md"))).toBe(false);
    expect(asked).toEqual([]);
    const told = toldOf(server!.requests);
    expect(told).toContain('Denied without asking: /audit runs as the "auditor" agent, whose permissionMode is dontAsk');
    expect(told).toContain("export const x = 1");
    expect(told).toContain("audited");
  }, 60_000);

  it("the contrast: under the same agent without dontAsk the write is asked, allowed by the person, and made", async () => {
    const { s, ws, asked } = await session(files, { ".claude/agents/auditor.md": AUDITOR("") }, script);
    await s.send("/audit");
    await s.end();
    expect(asked.length).toBe(1);
    expect(readFileSync(join(ws, "AUDIT.md"), "utf8")).toBe("findings\n");
  }, 60_000);

  it("the next message is not under it: the same write is asked again", async () => {
    const { s, ws, asked } = await session(files, { ".claude/agents/auditor.md": AUDITOR("dontAsk") }, [
      ...script,
      { toolCalls: [{ name: "write_file", input: { path: "AUDIT.md", content: "later\n" } }] },
      { text: "Written." },
    ]);
    await s.send("/audit");
    expect(existsSync(join(ws, "AUDIT.md"))).toBe(false);
    await s.send("write the findings now");
    await s.end();
    expect(asked.length).toBe(1);
    expect(readFileSync(join(ws, "AUDIT.md"), "utf8")).toBe("later\n");
  }, 60_000);
});

describe("an agent whose name has a space", () => {
  it('the model starts "Code Reviewer" by that name, and the agent runs with its own instructions', async () => {
    const { s } = await session(
      { "src/app.ts": "export const x = 1;\n" },
      { ".claude/agents/code-reviewer.md": "---\nname: Code Reviewer\ndescription: Reviews code for quality\ntools: Read\n---\nYou review code. REVIEWER-ROLE\n" },
      (r) =>
        subagentDepthOf(r) === 1
          ? { text: "Looks fine." }
          : r.body.messages && JSON.stringify(r.body.messages).includes("Looks fine.")
            ? { text: "Reviewed." }
            : { toolCalls: [{ name: "task", input: { description: "Review", prompt: "Review src/app.ts.", subagent_type: "Code Reviewer" } }] },
    );
    await s.send("review the app");
    await s.end();
    const first = JSON.stringify(server!.requests[0]!.body);
    expect(first).toContain("- Code Reviewer: Reviews code for quality");
    const child = server!.requests.find((r) => subagentDepthOf(r) === 1);
    expect(child && systemPromptOf(child)).toContain("REVIEWER-ROLE");
    expect(toldOf(server!.requests)).toContain("Looks fine.");
  }, 60_000);
});
