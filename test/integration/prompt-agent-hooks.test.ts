// A Copilot prompt file under a custom agent (`agent: NAME` in its front matter) runs in the session
// itself (as VS Code runs it in the chat), so what the agent carries besides its instructions, tools
// and model must hold there too: its own `hooks` run with the session's for the prompt's run (and
// only then), as they run through `task`; its own `mcpServers` cannot start inside a conversation
// whose tool list is fixed, so such a prompt is refused with a message that says why and what to do
// — never run without them. Full `yoke run` / `yoke resume` sessions with the scripted model.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-prompt-agent-hooks-")));
  temps.push(base);
  const ws = join(base, "ws");
  const home = join(base, "home");
  const sessions = join(base, "sessions");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { base, ws, home, sessions, log: join(base, "hook.log") };
}

type Wire = { role: string; content?: unknown };
const toolResults = (r: RecordedRequest) => ((r.body.messages as Wire[]) ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
const run = (s: ReturnType<typeof setup>, url: string, args: string[]) =>
  runCli([...args, "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "--permission-mode", "acceptEdits"], {
    env: { HOME: s.home, OPENAI_API_KEY: "k" },
  });

describe("a prompt file under an agent", () => {
  it("runs with the agent's own hooks for its run: the agent's PreToolUse hook blocks a write the session would allow; the next message runs without it", async () => {
    const s = setup();
    // The user's agent (Claude Code's shape): a PreToolUse hook on Write that logs the call and blocks it.
    write(
      join(s.home, ".claude/agents/guard.md"),
      [
        "---",
        "name: guard",
        "description: Writes nothing outside docs",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Write",
        "      hooks:",
        "        - type: command",
        `          command: "cat >> '${s.log}'; echo 'GUARD-HOOK: the guard agent writes nothing' >&2; exit 2"`,
        "---",
        "You are careful (GUARD-PROMPT).",
        "",
      ].join("\n"),
    );
    write(join(s.ws, ".github/prompts/stamp.prompt.md"), ["---", "description: Stamp the source", "agent: guard", "---", "Write src/stamp.ts.", ""].join("\n"));
    let n = 0;
    server = await startScriptedLlmServer({
      script: async () => {
        n++;
        if (n === 1) return { toolCalls: [{ name: "write_file", input: { path: "src/stamp.ts", content: "export const stamp = 1;\n" } }] };
        if (n === 2) return { text: "Blocked." };
        if (n === 3) return { toolCalls: [{ name: "write_file", input: { path: "src/later.ts", content: "export const later = 1;\n" } }] };
        return { text: "Done." };
      },
    });
    const first = await run(s, server.openaiBaseUrl, ["run", "--trust", "/stamp"]);
    expect(first.code, first.stderr).toBe(0);
    // The hook ran on the prompt's write (its payload in the log), and its block held: nothing on disk, the model told why.
    expect(readFileSync(s.log, "utf8")).toContain('"tool_name":"Write"');
    expect(existsSync(join(s.ws, "src/stamp.ts"))).toBe(false);
    expect(toolResults(server.requests[1]!).join("\n")).toContain("GUARD-HOOK: the guard agent writes nothing");
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain("GUARD-PROMPT");
    // The same session, a plain message afterwards: the agent's hook no longer applies (acceptEdits writes).
    const id = readdirSync(s.sessions, { recursive: true })
      .map(String)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/^.*\//, "")
      .replace(/\.jsonl$/, "");
    const logged = readFileSync(s.log, "utf8");
    const second = await run(s, server.openaiBaseUrl, ["resume", "--trust", id, "write src/later.ts"]);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(s.ws, "src/later.ts"), "utf8")).toBe("export const later = 1;\n");
    expect(readFileSync(s.log, "utf8")).toBe(logged);
  }, 180_000);

  it("its agent's hooks govern the whole run: a sub-agent the run starts (task) is held by the agent's PreToolUse hook; without the prompt the same sub-agent writes", async () => {
    const s = setup();
    write(
      join(s.home, ".claude/agents/guard.md"),
      [
        "---",
        "name: guard",
        "description: Writes nothing",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Write",
        "      hooks:",
        "        - type: command",
        `          command: "cat >> '${s.log}'; echo 'GUARD-HOOK: no writes in this run' >&2; exit 2"`,
        "---",
        "You delegate (GUARD-PROMPT).",
        "",
      ].join("\n"),
    );
    write(join(s.ws, ".github/prompts/delegate.prompt.md"), ["---", "description: Delegate a write", "agent: guard", "---", "Have a sub-agent write src/sub.ts.", ""].join("\n"));
    const depthOf = (r: RecordedRequest) => Number(/You are a sub-agent \(depth (\d+)\)/.exec(JSON.stringify(r.body.messages))?.[1] ?? 0);
    const script = () => {
      const queues: Record<number, Array<{ text?: string; toolCalls?: Array<{ name: string; input: Record<string, unknown> }> }>> = {
        0: [{ toolCalls: [{ name: "task", input: { description: "Write", prompt: "Write src/sub.ts.", tools: ["write_file"] } }] }, { text: "Done." }],
        1: [{ toolCalls: [{ name: "write_file", input: { path: "src/sub.ts", content: "export const sub = 1;\n" } }] }, { text: "Tried." }],
      };
      return async (r: RecordedRequest) => queues[depthOf(r)]?.shift() ?? { text: "(no more turns)" };
    };
    server = await startScriptedLlmServer({ script: script() });
    const r = await run(s, server.openaiBaseUrl, ["run", "--trust", "/delegate"]);
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => depthOf(q) === 1);
    expect(child.length).toBeGreaterThanOrEqual(2);
    // The sub-agent's write met the agent's hook (its payload logged) and was held: nothing on disk, the sub-agent told why.
    expect(readFileSync(s.log, "utf8")).toContain('"tool_name":"Write"');
    expect(toolResults(child[1]!).join("\n")).toContain("GUARD-HOOK: no writes in this run");
    expect(existsSync(join(s.ws, "src/sub.ts"))).toBe(false);

    // The control: the same delegation from a plain message (no prompt file, no agent) writes the file.
    await server.close();
    server = await startScriptedLlmServer({ script: script() });
    const logged = readFileSync(s.log, "utf8");
    const c = await run(s, server.openaiBaseUrl, ["run", "--trust", "have a sub-agent write src/sub.ts"]);
    expect(c.code, c.stderr).toBe(0);
    expect(readFileSync(join(s.ws, "src/sub.ts"), "utf8")).toBe("export const sub = 1;\n");
    expect(readFileSync(s.log, "utf8")).toBe(logged);
  }, 180_000);

  it("whose agent has MCP servers of its own is refused, saying why and what to do; no request reaches the model", async () => {
    const s = setup();
    write(
      join(s.ws, ".github/agents/db.agent.md"),
      ["---", "name: db", "description: Queries the database", "mcp-servers:", "  pg:", "    command: node", "    args: ['pg-server.js']", "---", "You query the database.", ""].join("\n"),
    );
    write(join(s.ws, ".github/prompts/report.prompt.md"), ["---", "description: A sales report", "agent: db", "---", "Report this month's sales.", ""].join("\n"));
    server = await startScriptedLlmServer({ script: [{ text: "should not be asked" }] });
    const r = await run(s, server.openaiBaseUrl, ["run", "--trust", "/report"]);
    const said = r.stdout + r.stderr;
    expect(said).toContain('/report runs as the "db" agent (.github/agents/db.agent.md), which has MCP servers of its own (pg)');
    expect(said).toContain('Ask for the agent instead ("use the db agent to …"), or remove `agent: db` from .github/prompts/report.prompt.md');
    expect(server.requests).toHaveLength(0);
  }, 120_000);
});
