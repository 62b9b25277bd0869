// Compaction through real parts: the @anthropic-ai/sdk client over HTTP to the scripted server
// (whose request log is what the provider received), the file session store, and the built CLI
// with a real PreCompact hook script.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { canonicalRequest, prefixStability, report, scriptedPrefixSession } from "../../src/bench/compaction";
import type { EventOf, SessionEvent } from "../../src/core/events";
import { AgentSession, type AgentSessionOptions } from "../../src/core/loop/agent-session";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../src/core/ports";
import { AnthropicProvider } from "../../src/core/providers/anthropic";
import { parseLog } from "../../src/core/session/session-log";
import { defineTool, type ToolDefinition } from "../../src/core/tools/types";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createFileSessionStore, type FileSessionStore } from "../../src/node/session-store";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const tmp = (p: string) => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), p)));
  temps.push(d);
  return d;
};
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

const services = { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger };
const probe = defineTool({
  name: "probe",
  description: "Prints a report.",
  schema: z.object({ part: z.string(), size: z.number() }),
  permission: "Read",
  capabilities: { reads: true },
  summarize: (i) => String(i.part ?? ""),
  timeoutMs: 5000,
  hookInput: (a) => ({ part: a.part }),
  run: async (a) => ({ text: report(a.part, a.size) }),
});
type Json = Record<string, unknown>;
const answeredTool = (req: RecordedRequest) => {
  const ms = req.body.messages as Json[];
  const last = ms[ms.length - 1] as { content?: Json[] };
  return Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
};
const ofType = <T extends SessionEvent["type"]>(events: readonly SessionEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);

function options(url: string, dir: string, extra: Partial<AgentSessionOptions> = {}): AgentSessionOptions {
  return {
    store: createFileSessionStore(dir),
    provider: new AnthropicProvider({ provider: "anthropic", model: "claude-sonnet-5", baseUrl: url, apiKey: "k" }),
    tools: [probe] as ToolDefinition[],
    services,
    approver: { ask: async () => ({ decision: "allow" }) },
    systemPrompt: "You are a test agent.",
    retry: { maxRetries: 0 },
    ...extra,
  };
}

describe("prompt-cache prefix stability (scripted server's request log)", () => {
  it("between compactions every request starts with the previous one byte for byte; after the compaction the new prefix is stable again; cache breakpoints follow", async () => {
    const { requests, compactionRequest } = await scriptedPrefixSession({ sends: 12, compactAfter: 7 });
    expect(requests.length).toBe(24);
    const steps = prefixStability(requests);
    for (const s of steps) {
      if (s.index === compactionRequest) expect(s.previousKept).toBeLessThan(0.9);
      // Everything of the previous request but its closing brackets (and the block list a new block joins) is unchanged.
      else expect(s.previousKept, `request ${s.index}`).toBeGreaterThan(0.995);
    }
    const after = canonicalRequest(requests[compactionRequest]!);
    expect(after).toContain("The earlier part of this session was compacted");
    expect(after).toContain("Never change the public API, and keep Python 3.8 compatibility.");
    // Breakpoints: the system prompt, the last tool, and the last two user messages of every request — so
    // the request after the compaction writes the new prefix and the next one reads it.
    for (const r of requests) {
      const msgs = r.body.messages as Array<{ role: string; content: Json[] }>;
      const marked = msgs.flatMap((m, i) => (m.content.some((b) => b.cache_control) ? [i] : []));
      const users = msgs.flatMap((m, i) => (m.role === "user" ? [i] : [])).slice(-2);
      expect(marked).toEqual(users);
      expect((r.body.system as Json[])[0]!.cache_control).toEqual({ type: "ephemeral" });
    }
    const next = canonicalRequest(requests[compactionRequest + 1]!);
    expect(next.startsWith(after.slice(0, after.length - 3))).toBe(true);
  }, 60_000);
});

describe("compaction with the real Anthropic client", () => {
  it("a resume after compaction sends the same context: the request bytes before and after the resume are identical", async () => {
    const dir = tmp("yoke-compact-resume-");
    let failNext = false;
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        if (failNext) {
          failNext = false;
          return { error: { status: 500, body: { type: "error", error: { type: "api_error", message: "boom" } } } };
        }
        return answeredTool(req)
          ? { text: "I decided to keep it because it is clean." }
          : { toolCalls: [{ name: "probe", input: { part: `p${req.body.messages ? (req.body.messages as unknown[]).length : 0}`, size: 6_000 } }] };
      },
    });
    const o1 = options(server.anthropicBaseUrl, dir);
    const s1 = await AgentSession.create(o1);
    await s1.send("Check the modules. Never touch the migrations folder.");
    for (let i = 0; i < 4; i++) await s1.send(`Module ${i}.`);
    expect((await s1.compact()).status).toBe("compacted");
    failNext = true;
    await s1.send("One more module.");
    expect(ofType(s1.events(), "error").at(-1)!.code).toBe("server");
    const before = server.requests.at(-1)!;
    await s1.end();
    (o1.store as FileSessionStore).dispose();
    const s2 = await AgentSession.resume(s1.id, options(server.anthropicBaseUrl, dir));
    await s2.continue();
    const afterResume = server.requests[server.requests.indexOf(before) + 1]!;
    expect(JSON.stringify(afterResume.body)).toBe(JSON.stringify(before.body));
    expect(canonicalRequest(afterResume)).toContain("Never touch the migrations folder.");
    await s2.end();
  }, 60_000);

  it("the provider rejecting a request as too long compacts the context and retries once", async () => {
    const dir = tmp("yoke-compact-overflow-");
    let reject = false;
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        if (reject) {
          reject = false;
          return { error: { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 212345 tokens > 200000 maximum" } } } };
        }
        return answeredTool(req) ? { text: "Done with that part." } : { toolCalls: [{ name: "probe", input: { part: `x${(req.body.messages as unknown[]).length}`, size: 9_000 } }] };
      },
    });
    const s = await AgentSession.create(options(server.anthropicBaseUrl, dir));
    await s.send("Go through the parts. Always keep the tests green.");
    for (let i = 0; i < 4; i++) await s.send(`Part ${i}.`);
    const n = server.requests.length;
    reject = true;
    await s.send("Last part.");
    const rejected = server.requests[n]!;
    const retried = server.requests[n + 1]!;
    expect(JSON.stringify(retried.body).length).toBeLessThan(JSON.stringify(rejected.body).length / 2);
    expect(canonicalRequest(retried)).toContain("Always keep the tests green.");
    const c = ofType(s.events(), "compaction").at(-1)!;
    expect(c.trigger).toBe("overflow");
    expect(ofType(s.events(), "error").map((e) => e.code)).not.toContain("context_length");
    expect(ofType(s.events(), "status").at(-1)!.state).toBe("done");
    await s.end();
  }, 60_000);
});

describe("yoke compact (the built CLI)", () => {
  beforeAll(() => ensureBuilt(), 120_000);

  async function cliSession() {
    const dir = tmp("yoke-compact-cli-");
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    mkdirSync(ws);
    mkdirSync(home);
    for (let i = 0; i < 5; i++) writeFileSync(join(ws, `part${i}.txt`), report(`part${i}`, 12_000));
    let reads = 0;
    server = await startScriptedLlmServer({
      script: (req): ScriptedTurn => {
        const ms = req.body.messages as Json[];
        const last = ms[ms.length - 1]!;
        if (last.role === "tool") return { text: `Read it. I decided to keep part ${reads} unchanged.` };
        return { toolCalls: [{ name: "read_file", input: { path: `part${reads++ % 5}.txt` } }] };
      },
    });
    const model = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "m"];
    const env = { HOME: home };
    const sessionDir = join(dir, "sessions");
    const first = await runCli(["run", "--trust", ...model, "--cwd", ws, "--session-dir", sessionDir, "--json", "Read the parts. Never edit part0.txt."], { env });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;
    for (let i = 1; i < 5; i++) expect((await runCli(["resume", "--trust", id, ...model, "--cwd", ws, "--session-dir", sessionDir, `Part ${i}.`], { env })).code).toBe(0);
    const log = () =>
      parseLog(
        readFileSync(join(sessionDir, `${id}.jsonl`), "utf8")
          .split("\n")
          .filter(Boolean),
      ).events;
    return { ws, env, sessionDir, id, log };
  }

  it("--dry-run prints tokens before/after and appends nothing; without it a compaction event is appended", async () => {
    const { ws, env, sessionDir, id, log } = await cliSession();
    const before = log().length;
    const dry = await runCli(["compact", "--trust", id, "--cwd", ws, "--session-dir", sessionDir, "--dry-run", "--json"], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const d = JSON.parse(dry.stdout) as { compacted: boolean; dryRun: boolean; tokensBefore: number; tokensAfter: number };
    expect(d).toMatchObject({ compacted: false, dryRun: true });
    expect(d.tokensAfter).toBeLessThan(d.tokensBefore);
    expect(ofType(log(), "compaction")).toHaveLength(0);
    const real = await runCli(["compact", "--trust", id, "--cwd", ws, "--session-dir", sessionDir], { env });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/^\d+ -> \d+ tokens\n$/);
    const events = log();
    expect(events.length).toBeGreaterThan(before);
    const c = ofType(events, "compaction");
    expect(c).toHaveLength(1);
    expect(c[0]!.filesRead).toEqual(expect.arrayContaining(["part0.txt", "part4.txt"]));
    expect(c[0]!.keptUserSeqs.map((s) => (events[s] as EventOf<"user_message">).text)).toContain("Read the parts. Never edit part0.txt.");
  }, 120_000);

  it("after it: PostCompact gets the trigger and the summary, and SessionStart (source compact) re-injects context after the summary", async () => {
    const { ws, env, sessionDir, id, log } = await cliSession();
    mkdirSync(join(ws, ".claude"), { recursive: true });
    writeFileSync(
      join(ws, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          PostCompact: [{ matcher: "manual", hooks: [{ type: "command", command: 'cat > "$CLAUDE_PROJECT_DIR"/post-compact.json' }] }],
          SessionStart: [{ matcher: "compact", hooks: [{ type: "command", command: "echo 'Reminder after compaction: never edit part0.txt.'" }] }],
        },
      }),
    );
    const r = await runCli(["compact", "--trust", id, "--cwd", ws, "--session-dir", sessionDir], { env });
    expect(r.code, r.stderr).toBe(0);
    const input = JSON.parse(readFileSync(join(ws, "post-compact.json"), "utf8")) as Record<string, unknown>;
    expect(input).toMatchObject({ hook_event_name: "PostCompact", trigger: "manual", session_id: id });
    expect(input.compact_summary).toContain("The earlier part of this session was compacted");
    const events = log();
    const at = events.findIndex((e) => e.type === "compaction");
    const after = events.slice(at + 1).filter((e) => e.type === "context") as Array<EventOf<"context">>;
    expect(after.map((e) => e.text)).toContain("Reminder after compaction: never edit part0.txt.");
    // The next request carries it after the summary.
    const model = ["--provider", "openai-compatible", "--base-url", server!.openaiBaseUrl, "--model", "m"];
    expect((await runCli(["resume", "--trust", id, ...model, "--cwd", ws, "--session-dir", sessionDir, "Go on."], { env })).code).toBe(0);
    const sent = JSON.stringify(server!.requests.at(-1)!.body);
    const summaryAt = sent.indexOf("The earlier part of this session was compacted");
    expect(summaryAt).toBeGreaterThan(-1);
    expect(sent.indexOf("Reminder after compaction: never edit part0.txt.")).toBeGreaterThan(summaryAt);
  }, 180_000);

  it("a PreCompact hook that exits 2 blocks it: exit 1, the hook's reason, no compaction event", async () => {
    const { ws, env, sessionDir, id, log } = await cliSession();
    mkdirSync(join(ws, ".claude", "hooks"), { recursive: true });
    writeFileSync(
      join(ws, ".claude", "hooks", "precompact.sh"),
      '#!/bin/bash\ninput=$(cat)\n[[ "$input" == *\'"trigger":"manual"\'* ]] && echo "release freeze: no compaction" >&2 && exit 2\nexit 0\n',
    );
    chmodSync(join(ws, ".claude", "hooks", "precompact.sh"), 0o755);
    writeFileSync(
      join(ws, ".claude", "settings.json"),
      JSON.stringify({ hooks: { PreCompact: [{ matcher: "manual", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/precompact.sh' }] }] } }),
    );
    const r = await runCli(["compact", "--trust", id, "--cwd", ws, "--session-dir", sessionDir, "--json"], { env });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ compacted: false, status: "vetoed" });
    expect(r.stdout).toContain("release freeze: no compaction");
    expect(ofType(log(), "compaction")).toHaveLength(0);
  }, 120_000);
});
