// Session 24 (cmd24), issue 23: a sub-agent runs a custom command (load_skill with a command's name
// and arguments), as Claude Code's sub-agents run skills and commands. It runs in the sub-agent's
// own session — its tools, its permission mode, the parent's permission rules, its questions asked in
// its name — never with more than the sub-agent has. Before, load_skill refused it ("only the main
// conversation runs commands"). Real loop, real permission engine, real files, real bash, the
// scripted model over HTTP; the command is written from Claude Code's slash-commands page
// (`description`, `$ARGUMENTS`, a `!` line).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { modelCommandBridge } from "../../src/core/custom-commands";
import { guidanceExtension } from "../../src/core/guidance";
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
import { createNodeGuidanceFiles } from "../../src/node/guidance-files";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { subagentDepthOf, toolResultTexts } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { createWorkspaceWithHome } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

// The user's own command (~/.claude/commands): a description, $ARGUMENTS and a `!` line that writes a file.
const STAMP = "---\ndescription: Stamp a release note\nargument-hint: [version]\n---\nWrite the release note for $ARGUMENTS.\n\nStamp: !`touch stamped.txt && echo stamped-ok`\n";

async function run(agentText: string | undefined, answer: "allow" | "deny" = "allow") {
  const { base, cwd: ws, home: homeDir } = createWorkspaceWithHome("yoke-subcmd24-", { "README.md": "hello\n", "~/.claude/commands/stamp.md": STAMP }, temps, { realpath: true });
  const sessions = join(base, "sessions");
  const agents = agentText ? [parseAgentFile({ display: ".claude/agents/releaser.md", text: agentText, origin: "project", format: "claude", stem: "releaser" }).agent!] : [];
  const script: Record<number, ScriptedTurn[]> = {
    0: [{ toolCalls: [{ name: "task", input: { description: "Release", prompt: "Prepare the 2.0 release note.", ...(agentText ? { subagent_type: "releaser" } : {}) } }] }, { text: "Done." }],
    1: [{ toolCalls: [{ name: "load_skill", input: { name: "stamp", arguments: "v2.0" } }] }, { text: "Prepared." }],
  };
  server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => script[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" } });
  const node = createNodeServices({ cwd: ws, sessionDir: sessions, trusted: true, home: homeDir });
  const questions: PermissionQuestion[] = [];
  const approver = {
    ask: async (q: PermissionQuestion) => {
      questions.push(q);
      return { decision: answer };
    },
  };
  const bridge = modelCommandBridge();
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
      guidanceExtension({ files: createNodeGuidanceFiles({ home: homeDir, builtinDir: null }), commands: bridge }),
      nodeCustomCommandsExtension({ cwd: ws, home: homeDir }, { approver, check: (r, m) => node.gate.check(r, m), warn: () => undefined, bridge }),
      subagentsExtension({ agents: async () => agents }),
    ],
  });
  await s.send("prepare the release");
  await s.end();
  const childLast = server.requests.filter((r) => subagentDepthOf(r) === 1).at(-1);
  return { ws, questions, told: toolResultTexts(childLast).join("\n---\n"), bridge };
}

describe("a sub-agent runs a custom command with load_skill", () => {
  it("a general-purpose sub-agent (read-only tools) gets the command's text with its arguments; its `!` line is not run: it has no run_command", async () => {
    const r = await run(undefined);
    expect(r.told).toContain("Ran the command /stamp v2.0");
    expect(r.told).toContain("Write the release note for v2.0.");
    expect(r.told).toContain("[The command `touch stamped.txt && echo stamped-ok` was not run: this session cannot run commands.]");
    expect(existsSync(join(r.ws, "stamped.txt"))).toBe(false);
    expect(r.questions).toEqual([]);
    // Each session's runner is gone when it ends.
    expect(r.bridge.runners.size).toBe(0);
  }, 60_000);

  it("an agent with Bash: the `!` line is asked in the agent's name under the parent's rules; allowed, it runs in the sub-agent's run", async () => {
    const r = await run("---\nname: releaser\ndescription: Prepares releases\ntools: Read, Bash, Skill\n---\nYou prepare releases.\n");
    expect(r.questions.map((q) => [q.summary, q.asker?.agent])).toEqual([["/stamp: touch stamped.txt && echo stamped-ok", "releaser"]]);
    expect(existsSync(join(r.ws, "stamped.txt"))).toBe(true);
    expect(r.told).toContain("Stamp: stamped-ok");
  }, 60_000);

  it("the same agent refused by the person: the line is not run, and the agent is told why", async () => {
    const r = await run("---\nname: releaser\ndescription: Prepares releases\ntools: Read, Bash, Skill\n---\nYou prepare releases.\n", "deny");
    expect(r.questions.length).toBe(1);
    expect(existsSync(join(r.ws, "stamped.txt"))).toBe(false);
    expect(r.told).toContain("was not run: the user refused it");
  }, 60_000);

  it("an agent in dontAsk mode: the line is denied without asking anyone", async () => {
    const r = await run("---\nname: releaser\ndescription: Prepares releases\ntools: Read, Bash, Skill\npermissionMode: dontAsk\n---\nYou prepare releases.\n");
    expect(r.questions).toEqual([]);
    expect(existsSync(join(r.ws, "stamped.txt"))).toBe(false);
    expect(r.told).toContain("dontAsk");
  }, 60_000);
});
