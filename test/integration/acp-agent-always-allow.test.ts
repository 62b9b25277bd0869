/**
 * `yoke acp` (issue 24): "Always allow" on a question of a custom agent that works in a git
 * worktree of its own (`isolation: worktree`, under that folder's rules) — the rule is saved in the
 * workspace's .yoke/settings.local.json and governs the agent too, so its next identical call runs
 * without a question. Driven by the SDK's own client app over the built CLI's stdio, with the
 * scripted model over real HTTP; asserts what the client was asked and what is on disk.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { AgentRegistry } from "../../src/node/background/registry";
import { ensureBuilt } from "../support/cli";
import { startAcpClient, type AcpTestClient } from "../support/acp-client";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

type Json = Record<string, unknown>;
const messagesOf = (r: RecordedRequest) => (r.body.messages as Json[] | undefined) ?? [];
const isAgent = (r: RecordedRequest) => String(messagesOf(r)[0]?.content ?? "").includes("You are a sub-agent (depth 1)");
const toolResults = (r: RecordedRequest) => messagesOf(r).filter((m) => m.role === "tool").length;

function script(r: RecordedRequest): ScriptedTurn {
  if (isAgent(r)) return toolResults(r) < 2 ? { toolCalls: [{ name: "run_command", input: { command: "touch again.txt" } }] } : { text: "AGENT-DONE" };
  if (toolResults(r) === 0) return { toolCalls: [{ name: "task", input: { description: "Touch twice", prompt: "Touch again.txt twice.", subagent_type: "iso-toucher" } }] };
  return { text: "done" };
}

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

describe("yoke acp: Always allow on a worktree agent's question", () => {
  it("saves the rule for the workspace and the agent's second identical call is not asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-acp-agent-always-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".claude", "agents"), { recursive: true });
    writeFileSync(join(ws, "README.md"), "# Widget\n");
    writeFileSync(
      join(ws, ".claude", "agents", "iso-toucher.md"),
      ["---", "name: iso-toucher", "description: Touches files in a worktree", "tools: Bash", "isolation: worktree", "---", "You touch files.", ""].join("\n"),
    );
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "initial");
    server = await startScriptedLlmServer({ script });
    const c = startAcpClient(
      ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--session-dir", join(dir, "sessions"), "--model", "local-model", "--permission-mode", "default"],
      { permission: (q) => ({ outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === "allow_always")?.optionId ?? "allow_once" } }) },
      { cwd: ws, env: { HOME: dir } },
    );
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "touch it twice in a worktree" }] })).stopReason).toBe("end_turn");

    // One question, with the agent's rule offered; answered Always allow.
    expect(c.permissions).toHaveLength(1);
    expect(c.permissions[0]!.options.find((o) => o.kind === "allow_always")?.name).toBe("Always allow Bash(touch:*)");
    // The agent ran both calls (its second request carries two results, neither denied) and finished.
    const agentRequests = server.requests.filter(isAgent);
    expect(agentRequests).toHaveLength(3);
    expect(JSON.stringify(messagesOf(agentRequests[2]!))).not.toContain("denied");
    // The rule is the workspace's; nothing written into the worktree; the file was touched there, not in the workspace.
    expect(JSON.parse(readFileSync(join(ws, ".yoke", "settings.local.json"), "utf8"))).toMatchObject({ permissions: { allow: ["Bash(touch:*)"] } });
    const [record] = new AgentRegistry(ws, dir).list();
    expect(record, "the agent's change is kept as a background agent").toBeDefined();
    expect(existsSync(join(record!.worktree, "again.txt"))).toBe(true);
    expect(existsSync(join(record!.worktree, ".yoke", "settings.local.json"))).toBe(false);
    expect(existsSync(join(ws, "again.txt"))).toBe(false);
  }, 180_000);
});
