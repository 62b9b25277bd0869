// Claude Code's sub-agent fields found in real repositories' agents (session 23, realcmd23).
// `permissionMode: dontAsk`:
// the agent's run denies whatever would need approval without asking, and what the rules allow
// still runs. Before, Yoke called it "not a mode Yoke has" and the agent's write was asked of the
// user (who allowed it here) — looser than Claude Code runs it. Real loop, real permission engine,
// the scripted model over HTTP; the agent file is written from Claude Code's sub-agent reference.
// `effort`: the agent's run asks its model at that reasoning effort (before: "not applied").
import { existsSync, mkdtempSync, readFileSync, realpathSync } from "node:fs";
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

const AGENT = (mode: string, extra = "") =>
  `---\nname: auditor\ndescription: Audits the code and writes its findings\ntools: Read, Write, Bash\n${mode ? `permissionMode: ${mode}\n` : ""}${extra}---\nYou audit code.\n`;

async function run(mode: string, parentMode: "default" | "bypassPermissions" = "default", extra = "") {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-dontask-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const sessions = join(dir, "sessions");
  write(join(ws, "src", "app.ts"), "export const x = 1;\n");
  // The rules allow reading (default mode) and one command; the write is not allowed by any rule.
  write(join(ws, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(echo audited)"] } }));
  const agent = parseAgentFile({ display: ".claude/agents/auditor.md", text: AGENT(mode, extra), origin: "project", format: "claude", stem: "auditor" }).agent!;
  const script: Record<number, ScriptedTurn[]> = {
    0: [{ toolCalls: [{ name: "task", input: { description: "Audit", prompt: "Audit src/app.ts and write AUDIT.md.", subagent_type: "auditor" } }] }, { text: "Done." }],
    1: [
      { toolCalls: [{ name: "read_file", input: { path: "src/app.ts" } }] },
      { toolCalls: [{ name: "run_command", input: { command: "echo audited" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "AUDIT.md", content: "findings\n" } }] },
      { text: "Audited." },
    ],
  };
  server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => script[depthOf(r)]?.shift() ?? { text: "(no more turns)" } });
  const asked: string[] = [];
  const node = createNodeServices({ cwd: ws, sessionDir: sessions, trusted: true });
  const fs = createNodeWorkspaceFs(ws);
  const session = await AgentSession.create({
    store: createFileSessionStore(sessions),
    provider: new OpenAiProvider({ provider: "openai-compatible", model: "scripted-model", baseUrl: server.openaiBaseUrl, apiKey: "k" }),
    tools: createBuiltinTools(),
    services: (s) => ({ fs, search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(s) }),
    // The person would allow anything asked: only dontAsk keeps the write from happening.
    approver: {
      ask: async (q) => {
        asked.push(q.summary);
        return { decision: "allow" };
      },
    },
    ...node.sessionOptions,
    permissionMode: parentMode,
    retry: { maxRetries: 0 },
    extensions: [subagentsExtension({ agents: async () => [agent] })],
  });
  await session.send("audit the app");
  await session.end();
  const childToolResults = server.requests
    .filter((r) => depthOf(r) === 1)
    .flatMap((r) => (r.body.messages as Array<{ role: string; content?: unknown }>).filter((m) => m.role === "tool").map((m) => String(m.content)));
  const efforts = (depth: number) => server!.requests.filter((r) => depthOf(r) === depth).map((r) => r.body.reasoning_effort);
  return { ws, asked, last: childToolResults.at(-1) ?? "", results: childToolResults, efforts };
}

describe("an agent's permissionMode: dontAsk", () => {
  it("denies the write nobody allowed, without asking; the read and the allowed command run", async () => {
    const r = await run("dontAsk");
    expect(existsSync(join(r.ws, "AUDIT.md"))).toBe(false);
    expect(r.asked).toEqual([]);
    expect(r.last).toContain('the "auditor" agent runs in dontAsk mode');
    expect(r.results.some((t) => t.includes("export const x = 1"))).toBe(true);
    expect(r.results.some((t) => t.includes("audited"))).toBe(true);
  }, 60_000);

  it("the contrast: without it the same write is asked, allowed by the person, and written", async () => {
    const r = await run("");
    expect(r.asked.length).toBe(1);
    expect(readFileSync(join(r.ws, "AUDIT.md"), "utf8")).toBe("findings\n");
  }, 60_000);

  it("a session in bypassPermissions keeps it (Claude Code: the parent's bypass takes precedence)", async () => {
    const r = await run("dontAsk", "bypassPermissions");
    expect(readFileSync(join(r.ws, "AUDIT.md"), "utf8")).toBe("findings\n");
    expect(r.asked).toEqual([]);
  }, 60_000);
});

describe("an agent's effort", () => {
  it("its run's every request carries it; the parent's requests do not", async () => {
    const r = await run("", "bypassPermissions", "effort: low\n");
    expect(r.efforts(1)).toEqual(["low", "low", "low", "low"]);
    expect(r.efforts(0)).toEqual([undefined, undefined]);
  }, 60_000);
});
