// `tools: "*"` on a custom agent (session 24, real24): real repositories' agents say it to mean every
// tool (GitHub's custom agents configuration documents `tools: ["*"]` as "enable all available
// tools"); Yoke gave such an agent no tool at all, so it could only answer from its prompt. Real
// loop, real permission engine, the scripted model over HTTP; the agent file is written from the docs.
import { existsSync, mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSession } from "../../src/core/loop/agent-session";
import { silentLogger } from "../../src/core/ports";
import { OpenAiProvider } from "../../src/core/providers/openai";
import { subagentsExtension } from "../../src/core/subagents";
import { parseAgentFile } from "../../src/core/subagents/agents";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { subagentDepthOf as depthOf } from "../support/scripted-run";
import { writeWithParents as write } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

describe('an agent with tools: "*"', () => {
  it("is offered every tool and uses them: its write is made", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-star-tools-")));
    temps.push(dir);
    const ws = join(dir, "ws");
    const sessions = join(dir, "sessions");
    write(join(ws, "src", "app.ts"), "export const x = 1;\n");
    const text = '---\nname: builder\ndescription: Builds features end to end\ntools: "*"\n---\nYou build features.\n';
    const agent = parseAgentFile({ display: ".claude/agents/builder.md", text, origin: "project", format: "claude", stem: "builder" }).agent!;
    const script: Record<number, ScriptedTurn[]> = {
      0: [{ toolCalls: [{ name: "task", input: { description: "Build", prompt: "Write NOTES.md.", subagent_type: "builder" } }] }, { text: "Done." }],
      1: [{ toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "built\n" } }] }, { text: "Built." }],
    };
    server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => script[depthOf(r)]?.shift() ?? { text: "(no more turns)" } });
    const node = createNodeServices({ cwd: ws, sessionDir: sessions, trusted: true });
    const fs = createNodeWorkspaceFs(ws);
    const session = await AgentSession.create({
      store: createFileSessionStore(sessions),
      provider: new OpenAiProvider({ provider: "openai-compatible", model: "scripted-model", baseUrl: server.openaiBaseUrl, apiKey: "k" }),
      tools: createBuiltinTools(),
      services: (s) => ({ fs, search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(s) }),
      approver: { ask: async () => ({ decision: "allow" }) },
      ...node.sessionOptions,
      permissionMode: "acceptEdits",
      retry: { maxRetries: 0 },
      extensions: [subagentsExtension({ agents: async () => [agent] })],
    });
    await session.send("build it");
    await session.end();
    const child = server.requests.filter((r) => depthOf(r) === 1);
    expect(child.length).toBeGreaterThan(0);
    const offered = ((child[0]!.body.tools ?? []) as Array<{ function?: { name?: string } }>).map((t) => t.function?.name);
    for (const name of ["read_file", "grep", "edit_file", "write_file", "run_command"]) expect(offered, name).toContain(name);
    expect(existsSync(join(ws, "NOTES.md"))).toBe(true);
  }, 60_000);
});
