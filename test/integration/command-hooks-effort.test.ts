// Claude Code commands' and skills' own `hooks` and `effort` (their front matter) hold while the
// command runs, and only then: the hooks run with the session's through the same engine (a
// repository command's only in a trusted workspace, as the repository's other hooks), the effort is
// the model requests' reasoning level (OpenAI's `reasoning_effort` here). A forked skill's hold in
// its sub-agent, its `Stop` being the sub-agent's SubagentStop. Full `yoke run` / `yoke resume`
// sessions with the scripted model; outcomes: what the hook let happen on disk, what reached the model.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf } from "../support/scripted-run";

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
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-command-hooks-")));
  temps.push(base);
  const ws = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(home, { recursive: true });
  // In the workspace: a repository's hooks run confined (they may write only there).
  return { base, ws, home, sessions: join(base, "sessions"), log: join(ws, "hook.log") };
}

type Wire = { role: string; content?: unknown };
const toolResults = (r: RecordedRequest) => ((r.body.messages as Wire[]) ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
const run = (s: ReturnType<typeof setup>, url: string, args: string[]) =>
  runCli([...args, "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "--permission-mode", "acceptEdits"], {
    env: { HOME: s.home, OPENAI_API_KEY: "k" },
  });
const sessionId = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .find((f) => f.endsWith(".jsonl"))!
    .replace(/^.*\//, "")
    .replace(/\.jsonl$/, "");
const sessionLog = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");

// A repository command (Claude Code's documented shape): a PreToolUse hook on Read|Write that logs
// the call and blocks writes, and a low effort.
const guardCommand = (log: string) =>
  [
    "---",
    "description: Stamp the source, carefully",
    "effort: low",
    "hooks:",
    "  PreToolUse:",
    "    - matcher: Read|Write",
    "      hooks:",
    "        - type: command",
    `          command: "cat >> '${log}'; if grep -q '\\"Write\\"' '${log}'; then echo 'GUARD-HOOK: no writes while /guard runs' >&2; exit 2; fi"`,
    "---",
    "Read src/a.ts, then write src/stamp.ts.",
    "",
  ].join("\n");

describe("a command's own hooks and effort", () => {
  it("in a trusted workspace: its hook blocks a write acceptEdits would allow from its run on, for the rest of the session (after a resume too); its effort is sent for its run only", async () => {
    const s = setup();
    write(join(s.ws, ".claude/commands/guard.md"), guardCommand(s.log));
    write(join(s.ws, "src/a.ts"), "export const a = 1;\n");
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
    const first = await run(s, server.openaiBaseUrl, ["run", "--trust", "/guard"]);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(s.log, "utf8")).toContain('"tool_name":"Write"');
    expect(existsSync(join(s.ws, "src/stamp.ts"))).toBe(false);
    expect(toolResults(server.requests[1]!).join("\n")).toContain("GUARD-HOOK: no writes while /guard runs");
    expect(server.requests[0]!.body.reasoning_effort).toBe("low");
    expect(server.requests[1]!.body.reasoning_effort).toBe("low");
    expect(sessionLog(s.sessions)).toContain("/guard (project): its hooks (PreToolUse) run from now on, for the rest of the session");

    // The same session, a plain message (a new `yoke resume` process): no effort, but the hook still
    // holds (Claude Code keeps a command's hooks for the rest of the session): the write is blocked again.
    const logged = readFileSync(s.log, "utf8");
    const second = await run(s, server.openaiBaseUrl, ["resume", "--trust", sessionId(s.sessions), "write src/later.ts"]);
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(join(s.ws, "src/later.ts"))).toBe(false);
    expect(readFileSync(s.log, "utf8").length).toBeGreaterThan(logged.length);
    expect(toolResults(server.requests[3]!).join("\n")).toContain("GUARD-HOOK: no writes while /guard runs");
    expect(server.requests.length).toBe(4);
    for (const r of server.requests.slice(2)) expect(r.body.reasoning_effort).toBeUndefined();
  }, 180_000);

  it("of a repository command do not run in Restricted Mode (the read it would log happens, no hook program runs); the log says why", async () => {
    const s = setup();
    write(join(s.ws, ".claude/commands/guard.md"), guardCommand(s.log));
    write(join(s.ws, "src/a.ts"), "export const a = 'A-CONTENT';\n");
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] }, { text: "Read." }] });
    const r = await run(s, server.openaiBaseUrl, ["run", "/guard"]);
    expect(r.code, r.stderr).toBe(0);
    expect(toolResults(server.requests[1]!).join("\n")).toContain("A-CONTENT");
    expect(existsSync(s.log)).toBe(false);
    expect(sessionLog(s.sessions)).toContain("its hooks (PreToolUse) do not run, because the workspace is not trusted (Restricted Mode)");
    // The listing says the same, per hook, and that it would run only during /guard once trusted.
    const listed = await runCli(["lessons", "list", "--cwd", s.ws], { env: { HOME: s.home } });
    expect(listed.stdout).toMatch(/PreToolUse \(Read\|Write\)\s+not-trusted project\s+\.claude\/commands\/guard\.md — the \/guard command's hook: does not run, the folder is not trusted/);
    const trusted = await runCli(["trust", s.ws], { env: { HOME: s.home } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect((await runCli(["lessons", "list", "--cwd", s.ws], { env: { HOME: s.home } })).stdout).toContain("runs from when /guard runs, for the rest of the session, on PreToolUse: cat >>");
  }, 120_000);

  it("of a forked skill hold in its sub-agent: its effort in the sub-agent's requests only, its Stop hook run as SubagentStop when the sub-agent ends", async () => {
    const s = setup();
    write(
      join(s.home, ".claude/skills/survey/SKILL.md"),
      [
        "---",
        "name: survey",
        "description: Survey the source in a sub-agent",
        "context: fork",
        "effort: max",
        "hooks:",
        "  Stop:",
        "    - hooks:",
        "        - type: command",
        `          command: "cat >> '${s.log}'"`,
        "---",
        "SURVEY-BODY: list the source files.",
        "",
      ].join("\n"),
    );
    const queues: Record<number, Array<{ text: string }>> = { 0: [{ text: "Parent done." }], 1: [{ text: "SURVEY-ANSWER: one file." }] };
    server = await startScriptedLlmServer({ script: async (q: RecordedRequest) => queues[subagentDepthOf(q)]?.shift() ?? { text: "(no more turns)" } });
    const r = await run(s, server.openaiBaseUrl, ["run", "--trust", "/survey"]);
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(child.length).toBe(1);
    expect(JSON.stringify(child[0]!.body.messages)).toContain("SURVEY-BODY");
    // OpenAI's levels stop at xhigh: Claude Code's max is sent as the deepest there is.
    expect(child[0]!.body.reasoning_effort).toBe("xhigh");
    expect(parent.length).toBe(1);
    expect(JSON.stringify(parent[0]!.body.messages)).toContain("SURVEY-ANSWER");
    expect(parent[0]!.body.reasoning_effort).toBeUndefined();
    // The fork is in the log as a task call (what the panel and the CLI draw a card from), with its outcome and card.
    const events = sessionLog(s.sessions)
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; name?: string; callId?: string; input?: { description?: string }; output?: string; card?: { badges?: string[] } });
    const call = events.find((e) => e.type === "tool_call" && e.name === "task");
    expect(call?.input?.description).toBe("/survey");
    const result = events.find((e) => e.type === "tool_result" && e.callId === call?.callId);
    expect(result?.output).toContain("SURVEY-ANSWER");
    expect(result?.card?.badges).toContain("completed");
    const hook = readFileSync(s.log, "utf8");
    expect(hook).toContain('"hook_event_name":"SubagentStop"');
    expect(hook).not.toContain('"hook_event_name":"Stop"');
  }, 180_000);

  it("effort on Anthropic is output_config.effort; a server that refuses reasoning_effort answers without it, once asked, and the log says so", async () => {
    const s = setup();
    write(join(s.home, ".claude/commands/think.md"), "---\ndescription: Think hard\neffort: high\n---\nTHINK-BODY\n");
    server = await startScriptedLlmServer({ script: [{ text: "Thought." }] });
    const a = await runCli(["run", "/think", "--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--model", "claude-x", "--cwd", s.ws, "--session-dir", s.sessions], {
      env: { HOME: s.home, ANTHROPIC_API_KEY: "k" },
    });
    expect(a.code, a.stderr).toBe(0);
    expect(server.requests[0]!.body.output_config).toEqual({ effort: "high" });
    await server.close();

    // A server without reasoning levels: 400 naming the field; the same run answers without it, and the next request does not send it.
    let n = 0;
    server = await startScriptedLlmServer({
      script: async (r: RecordedRequest) => {
        n++;
        if (r.body.reasoning_effort !== undefined)
          return { error: { status: 400, body: { error: { message: "Unrecognized request argument supplied: reasoning_effort", type: "invalid_request_error" } } } };
        return n === 2 ? { toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] } : { text: "Answered without effort." };
      },
    });
    write(join(s.ws, "src/a.ts"), "export const a = 1;\n");
    const o = await run(s, server.openaiBaseUrl, ["run", "--trust", "/think"]);
    expect(o.code, o.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(["high", undefined, undefined]);
    expect(o.stdout).toContain("Answered without effort.");
    expect(sessionLog(s.sessions)).toContain("effort high not applied: m refused it");
    await server.close();

    // A server that refuses an extra field without naming it (pydantic's wording): asked again without it too.
    server = await startScriptedLlmServer({
      script: async (r: RecordedRequest) =>
        r.body.reasoning_effort !== undefined ? { error: { status: 400, body: { error: { message: "Extra inputs are not permitted", type: "BadRequestError" } } } } : { text: "Answered anyway." },
    });
    const p = await run(s, server.openaiBaseUrl, ["run", "--trust", "/think"]);
    expect(p.code, p.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(["high", undefined]);
    expect(p.stdout).toContain("Answered anyway.");
    await server.close();

    // Refused for effort, then the request without it is rate-limited (429): the log note of the
    // refusal is not output, so the 429 is still retried (it failed the turn before), and the answer comes.
    let m = 0;
    server = await startScriptedLlmServer({
      script: async (r: RecordedRequest) => {
        m++;
        if (r.body.reasoning_effort !== undefined)
          return { error: { status: 400, body: { error: { message: "Unrecognized request argument supplied: reasoning_effort", type: "invalid_request_error" } } } };
        return m === 2 ? { error: { status: 429, headers: { "retry-after-ms": "50" } } } : { text: "Answered after the rate limit." };
      },
    });
    const q = await run(s, server.openaiBaseUrl, ["run", "--trust", "/think"]);
    expect(q.code, q.stderr).toBe(0);
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual(["high", undefined, undefined]);
    expect(q.stdout).toContain("Answered after the rate limit.");
    await server.close();

    // The same with a fallback model (its own retry loop): a 503 after the refusal falls back to the next model, which answers.
    server = await startScriptedLlmServer({
      script: async (r: RecordedRequest) => {
        if (r.body.reasoning_effort !== undefined)
          return { error: { status: 400, body: { error: { message: "Unrecognized request argument supplied: reasoning_effort", type: "invalid_request_error" } } } };
        return r.body.model === "m" ? { error: { status: 503, headers: { "retry-after-ms": "20" } } } : { text: "Answered by the fallback." };
      },
    });
    const f = await run(s, server.openaiBaseUrl, ["run", "--trust", "--fallback-model", "m2", "/think"]);
    expect(f.code, f.stderr).toBe(0);
    expect(f.stdout).toContain("Answered by the fallback.");
    expect(server.requests.some((r) => r.body.model === "m2")).toBe(true);
  }, 180_000);

  it("of a forked skill the model loads (load_skill): its effort in the sub-agent's requests only", async () => {
    const s = setup();
    write(
      join(s.home, ".claude/skills/deep/SKILL.md"),
      `---\nname: deep\ndescription: Think deeply in a sub-agent\ncontext: fork\neffort: Medium\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: "cat >> '${s.log}'"\n---\nDEEP-BODY\n`,
    );
    const queues: Record<number, Array<{ text?: string; toolCalls?: Array<{ name: string; input: Record<string, unknown> }> }>> = {
      0: [{ toolCalls: [{ name: "load_skill", input: { name: "deep" } }] }, { text: "Parent done." }],
      1: [{ text: "DEEP-ANSWER" }],
    };
    server = await startScriptedLlmServer({ script: async (q: RecordedRequest) => queues[subagentDepthOf(q)]?.shift() ?? { text: "(no more turns)" } });
    const r = await run(s, server.openaiBaseUrl, ["run", "--trust", "think deeply"]);
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(child.length).toBe(1);
    expect(JSON.stringify(child[0]!.body.messages)).toContain("DEEP-BODY");
    expect(child[0]!.body.reasoning_effort).toBe("medium");
    const parent = server.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(parent.length).toBe(2);
    for (const p of parent) expect(p.body.reasoning_effort).toBeUndefined();
    expect(toolResults(parent[1]!).join("\n")).toContain("DEEP-ANSWER");
    // Its Stop hook ran as the sub-agent's SubagentStop, once; the parent's own Stop did not run it.
    const hook = readFileSync(s.log, "utf8");
    expect(hook.match(/"hook_event_name":"SubagentStop"/g)?.length).toBe(1);
    expect(hook).not.toContain('"hook_event_name":"Stop"');
  }, 120_000);
});

// A skill's own hooks and effort when the model loads it (load_skill) or the person names it (@name):
// Claude Code registers a skill's hooks when it is invoked and keeps them for the rest of the session;
// its effort holds to the end of the turn. The skill files follow Claude Code's skills documentation.
const guardSkill = (log: string) =>
  [
    "---",
    "name: careful",
    "description: Work carefully on the source, without writing files",
    "effort: low",
    "hooks:",
    "  PreToolUse:",
    "    - matcher: Write",
    "      hooks:",
    "        - type: command",
    `          command: "cat >> '${log}'; echo 'CAREFUL-HOOK: no writes once careful is loaded' >&2; exit 2"`,
    "---",
    "CAREFUL-BODY: read before you change anything.",
    "",
  ].join("\n");

describe("a skill's own hooks and effort", () => {
  it("loaded by the model: its hook blocks writes from the load for the rest of the session (after a resume too); its effort holds to the end of the turn", async () => {
    const s = setup();
    write(join(s.ws, ".claude/skills/careful/SKILL.md"), guardSkill(s.log));
    let n = 0;
    server = await startScriptedLlmServer({
      script: async () => {
        n++;
        if (n === 1) return { toolCalls: [{ name: "load_skill", input: { name: "careful" } }] };
        if (n === 2) return { toolCalls: [{ name: "write_file", input: { path: "src/stamp.ts", content: "export const stamp = 1;\n" } }] };
        if (n === 3) return { text: "Blocked." };
        if (n === 4) return { toolCalls: [{ name: "write_file", input: { path: "src/later.ts", content: "export const later = 1;\n" } }] };
        return { text: "Blocked again." };
      },
    });
    const first = await run(s, server.openaiBaseUrl, ["run", "--trust", "be careful and stamp the source"]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("CAREFUL-BODY");
    expect(existsSync(join(s.ws, "src/stamp.ts"))).toBe(false);
    expect(toolResults(server.requests[2]!).join("\n")).toContain("CAREFUL-HOOK: no writes once careful is loaded");
    expect(readFileSync(s.log, "utf8")).toContain('"tool_name":"Write"');
    // Effort: not before the load, from the next request to the end of the turn.
    expect(server.requests.map((r) => r.body.reasoning_effort)).toEqual([undefined, "low", "low"]);
    expect(sessionLog(s.sessions)).toContain('the skill \\"careful\\" (.claude/skills/careful/SKILL.md): its hooks (PreToolUse) run from now on, for the rest of the session');

    // The next message (a new `yoke resume` process): no effort, the hook still blocks.
    const second = await run(s, server.openaiBaseUrl, ["resume", "--trust", sessionId(s.sessions), "write src/later.ts"]);
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(join(s.ws, "src/later.ts"))).toBe(false);
    expect(toolResults(server.requests[4]!).join("\n")).toContain("CAREFUL-HOOK");
    expect(server.requests.slice(3).map((r) => r.body.reasoning_effort)).toEqual([undefined, undefined]);
  }, 180_000);

  it("named by the person (@name, the user's own skill): its effort for that turn's requests, its PostToolUse hook on the calls after it", async () => {
    const s = setup();
    write(
      join(s.home, ".claude/skills/audit/SKILL.md"),
      [
        "---",
        "name: audit",
        "description: Audit what the agent reads",
        "effort: high",
        "hooks:",
        "  PostToolUse:",
        "    - matcher: Read",
        "      hooks:",
        "        - type: command",
        `          command: "cat >> '${s.log}'"`,
        "---",
        "AUDIT-BODY",
        "",
      ].join("\n"),
    );
    write(join(s.ws, "src/a.ts"), "export const a = 1;\n");
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] }, { text: "Audited." }] });
    const r = await run(s, server.openaiBaseUrl, ["run", "--trust", "@audit read src/a.ts"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(server.requests[0]!.body.messages)).toContain("AUDIT-BODY");
    expect(server.requests.map((q) => q.body.reasoning_effort)).toEqual(["high", "high"]);
    const logged = readFileSync(s.log, "utf8");
    expect(logged).toContain('"hook_event_name":"PostToolUse"');
    expect(logged).toContain("src/a.ts");
  }, 120_000);

  it("of a repository skill do not run in Restricted Mode: loaded, its hook program never runs; the log says why", async () => {
    const s = setup();
    write(join(s.ws, ".claude/skills/careful/SKILL.md"), guardSkill(s.log));
    write(join(s.ws, "src/a.ts"), "export const a = 'A-CONTENT';\n");
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "load_skill", input: { name: "careful" } }] }, { toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] }, { text: "Read." }],
    });
    const r = await run(s, server.openaiBaseUrl, ["run", "read src/a.ts carefully"]);
    expect(r.code, r.stderr).toBe(0);
    expect(toolResults(server.requests[2]!).join("\n")).toContain("A-CONTENT");
    expect(existsSync(s.log)).toBe(false);
    expect(sessionLog(s.sessions)).toContain("its hooks (PreToolUse) do not run, because the workspace is not trusted (Restricted Mode)");
    const listed = await runCli(["lessons", "list", "--cwd", s.ws], { env: { HOME: s.home } });
    expect(listed.stdout).toContain('the skill "careful"\'s hook: does not run, the folder is not trusted');
  }, 120_000);
});
