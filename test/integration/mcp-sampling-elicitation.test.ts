// MCP sampling and elicitation with a real server from the npm registry
// (@modelcontextprotocol/server-everything: its trigger-sampling-request and
// trigger-elicitation-request tools), through full sessions with the scripted model over HTTP:
// `yoke run` headless (no terminal: sampling refused unless a rule allows it, forms declined) and
// a CLI session driven in-process with an approver and a form answerer, as the panel does.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt } from "../support/cli";
import { buildCliSession } from "../../src/cli/session-setup";
import { AgentSession } from "../../src/core/loop/agent-session";
import type { PermissionQuestion } from "../../src/core/loop/types";
import { validateElicitation, type ElicitRequest } from "../../src/core/mcp/elicitation";
import { pidsOf } from "../support/processes";
import { everythingArgv, everythingSettings } from "../support/mcp-fixtures";
import { runScriptedSession } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function workspace(files: Record<string, string>): { cwd: string; home: string } {
  const { cwd, home } = createWorkspaceWithHome("yoke-mcp-se-", files, temps);
  return { cwd, home };
}

const settings = everythingSettings;

type Msg = { role: string; content?: unknown };
type Req = { body: Record<string, unknown> };
const text = (m: Msg) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
function toolResults(requests: Req[]): string[] {
  return (requests[requests.length - 1]!.body.messages as Msg[]).filter((m) => m.role === "tool").map(text);
}

/** One headless `yoke run` with the scripted model ("use the tool"): result, requests, session events. */
const run = runScriptedSession;

const SAMPLE = { name: "mcp__everything__trigger-sampling-request", input: { prompt: "What is the capital of France?", maxTokens: 60 } };
const ELICIT = { name: "mcp__everything__trigger-elicitation-request", input: {} };

describe("sampling: a server's sampling/createMessage through the session's model", () => {
  it("allowed by the rule McpSampling(everything): the request reaches the scripted model, its answer reaches the tool result, usage is recorded", async () => {
    const argv = everythingArgv("sample-allow");
    const { cwd, home } = workspace({ "~/.yoke/settings.json": settings(argv, ["mcp__everything", "McpSampling(everything)"]) });
    const r = await run(cwd, home, [{ toolCalls: [SAMPLE] }, { text: "Paris, said the sampled model.", usage: { input: 40, output: 9 } }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(3);
    // The second request is the server's: its system prompt and message, no tools, max tokens as asked.
    const sampling = r.requests[1]!.body;
    expect((sampling.messages as Msg[]).map((m) => [m.role, text(m)])).toEqual([
      ["system", "You are a helpful test server."],
      ["user", "Resource trigger-sampling-request context: What is the capital of France?"],
    ]);
    expect(sampling.tools ?? []).toEqual([]);
    expect(sampling.max_tokens).toBe(60);
    // The server's tool result, as the model sees it, carries the sampled answer and the model name.
    const [result] = toolResults(r.requests);
    expect(result).toContain("LLM sampling result");
    expect(result).toContain("Paris, said the sampled model.");
    expect(result).toContain('"model": "m"');
    // Counted: a usage event for the sampling request, and what became of it.
    const usage = r.events.filter((e) => e.type === "usage" && e.sampling === "everything");
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ usage: { inputTokens: 40, outputTokens: 9 }, model: "m" });
    expect(r.events.find((e) => e.type === "mcp_request")).toMatchObject({ server: "everything", kind: "sampling", outcome: "answered" });
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);

  it("counted in the budget: the sampling request's cost alone uses up --max-cost and the run stops", async () => {
    const argv = everythingArgv("sample-budget");
    const { cwd, home } = workspace({ "~/.yoke/settings.json": settings(argv, ["mcp__everything", "McpSampling(everything)"]) });
    // gpt-4o: $2.50 per million input tokens. The session's own turn costs $0.0003; the sampling request $0.25.
    const r = await run(
      cwd,
      home,
      [{ toolCalls: [SAMPLE], usage: { input: 100, output: 10 } }, { text: "sampled", usage: { input: 100_000, output: 10 } }, { text: "never reached" }],
      ["--max-cost", "0.1"],
      "gpt-4o",
    );
    expect(r.requests).toHaveLength(2);
    const budget = r.events.find((e) => e.type === "budget");
    expect(budget, r.stderr).toMatchObject({ limit: "cost" });
    expect(budget?.type === "budget" && budget.costUsd).toBeGreaterThan(0.25);
    expect(toolResults(r.requests)).toEqual([]); // (the third request, which would carry the result, was never made)
  }, 90_000);

  it("no rule and no terminal: refused, the server gets an error, the model is never asked", async () => {
    const argv = everythingArgv("sample-headless");
    const { cwd, home } = workspace({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]) });
    const r = await run(cwd, home, [{ toolCalls: [SAMPLE] }, { text: "ok" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(2);
    const [result] = toolResults(r.requests);
    expect(result).toContain("the user declined the sampling request");
    expect(result).toContain("no one to ask");
    expect(result).not.toContain("LLM sampling result");
    expect(r.events.find((e) => e.type === "mcp_request")).toMatchObject({ kind: "sampling", outcome: "denied" });
    expect(r.events.filter((e) => e.type === "usage" && e.sampling)).toEqual([]);
  }, 90_000);

  it("a deny rule McpSampling(everything) refuses it even in bypassPermissions", async () => {
    const argv = everythingArgv("sample-deny");
    const { cwd, home } = workspace({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"], ["McpSampling(everything)"]) });
    const r = await run(cwd, home, [{ toolCalls: [SAMPLE] }, { text: "ok" }], ["--permission-mode", "bypassPermissions"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.requests).toHaveLength(2);
    const [result] = toolResults(r.requests);
    expect(result).toContain("Yoke refused the sampling request");
    expect(result).toContain("McpSampling(everything)");
  }, 90_000);
});

describe("elicitation: a server's form", () => {
  it("headless (no terminal): declined, and the server says so in its result", async () => {
    const argv = everythingArgv("elicit-headless");
    const { cwd, home } = workspace({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]) });
    const r = await run(cwd, home, [{ toolCalls: [ELICIT] }, { text: "ok" }]);
    expect(r.code, r.stderr).toBe(0);
    const [result] = toolResults(r.requests);
    expect(result).toContain("User declined to provide the requested information");
    expect(result).toContain('"action": "decline"');
    expect(r.events.find((e) => e.type === "mcp_request")).toMatchObject({ kind: "elicitation", outcome: "declined" });
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);
});

describe("with someone to ask: a session with an approver and a form answerer (as the panel's card and form)", () => {
  async function session(tag: string, script: ScriptedTurn[], host: Parameters<typeof buildCliSession>[2]) {
    const argv = everythingArgv(tag);
    const { cwd, home } = workspace({ "~/.yoke/settings.json": settings(argv, ["mcp__everything"]) });
    const llm = await startScriptedLlmServer({ script });
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const setup = await buildCliSession(
        { cwd, provider: "openai-compatible", baseUrl: llm.openaiBaseUrl, model: "m", sessionDir: join(home, "sessions"), json: false, trust: true },
        undefined,
        host,
      );
      const s = await AgentSession.create(setup.options);
      await s.send("use the tools");
      const events = s.events();
      await setup.dispose();
      return { requests: llm.requests as Req[], events, argv };
    } finally {
      process.env.HOME = saved;
      await llm.close();
    }
  }

  it("the user approves the sampling request after seeing server, system prompt, messages and max tokens; then fills in the form; the server's results carry both", async () => {
    const asked: PermissionQuestion[] = [];
    const forms: ElicitRequest[] = [];
    const r = await session("approver", [{ toolCalls: [SAMPLE] }, { text: "Paris, approved.", usage: { input: 20, output: 3 } }, { toolCalls: [ELICIT] }, { text: "done" }], {
      approver: {
        ask: async (q) => {
          asked.push(q);
          return { decision: "allow" };
        },
      },
      elicitor: {
        elicit: async (req) => {
          forms.push(req);
          const v = validateElicitation(req.fields, { name: "Ada Lovelace", check: "yes", integer: "7", untitledSingleSelectEnum: "Joey", untitledMultipleSelectEnum: "Piano, Drums" });
          if (!("content" in v)) throw new Error(JSON.stringify(v.errors));
          return { action: "accept", content: v.content };
        },
      },
    });
    // The question: the permission McpSampling(everything), and a summary with everything the server sends.
    expect(asked).toHaveLength(1);
    expect(asked[0]!.permission).toBe("McpSampling(everything)");
    expect(asked[0]!.summary).toContain('The MCP server "everything" asks m to answer (at most 60 tokens)');
    expect(asked[0]!.summary).toContain("System prompt: You are a helpful test server.");
    expect(asked[0]!.summary).toContain("user: Resource trigger-sampling-request context: What is the capital of France?");
    // The form: the server's fields, typed, with required and defaults.
    expect(forms).toHaveLength(1);
    expect(forms[0]!.server).toBe("everything");
    expect(forms[0]!.message).toBe("Please provide inputs for the following fields:");
    const byName = Object.fromEntries(forms[0]!.fields.map((f) => [f.name, f]));
    expect(byName.name).toMatchObject({ kind: "string", required: true });
    expect(byName.check).toMatchObject({ kind: "boolean", required: false });
    expect(byName.email).toMatchObject({ kind: "string", format: "email" });
    expect(byName.integer).toMatchObject({ kind: "integer", minimum: 1, maximum: 100, default: 42 });
    expect(byName.untitledSingleSelectEnum).toMatchObject({ kind: "enum", default: "Monica" });
    expect(byName.titledSingleSelectEnum).toMatchObject({
      kind: "enum",
      options: [
        { value: "hero-1", label: "Superman" },
        { value: "hero-2", label: "Green Lantern" },
        { value: "hero-3", label: "Wonder Woman" },
      ],
    });
    expect(byName.legacyTitledEnum?.kind === "enum" && byName.legacyTitledEnum.options[1]).toEqual({ value: "pet-2", label: "Dogs" });
    expect(byName.untitledMultipleSelectEnum).toMatchObject({ kind: "multi", minItems: 1, maxItems: 3 });
    // What the model saw: the sampled answer, then the form's answers as the server reports them.
    const results = toolResults(r.requests);
    expect(results[0]).toContain("Paris, approved.");
    expect(results[1]).toContain("User provided the requested information");
    expect(results[1]).toContain("- Name: Ada Lovelace");
    expect(results[1]).toContain("- Agreed to terms: true");
    expect(results[1]).toContain("- Favorite Integer: 7");
    expect(results[1]).toMatch(/"untitledMultipleSelectEnum": \[\s*"Piano",\s*"Drums"\s*\]/);
    // (Defaults of fields left empty are filled in by the SDK: applyDefaults.)
    expect(results[1]).toContain('"firstLine": "It was a dark and stormy night."');
    expect(r.events.filter((e) => e.type === "mcp_request").map((e) => e.type === "mcp_request" && [e.kind, e.outcome])).toEqual([
      ["sampling", "answered"],
      ["elicitation", "accepted"],
    ]);
    expect(pidsOf(r.argv)).toEqual([]);
  }, 90_000);

  it("the user denies the sampling request with a message and cancels the form: the server gets the error and the cancel", async () => {
    const r = await session("deny", [{ toolCalls: [SAMPLE] }, { toolCalls: [ELICIT] }, { text: "done" }], {
      approver: { ask: async () => ({ decision: "deny", message: "not with my tokens" }) },
      elicitor: { elicit: async () => ({ action: "cancel" }) },
    });
    expect(r.requests).toHaveLength(3); // the sampling request never reached the model
    const results = toolResults(r.requests);
    expect(results[0]).toContain("the user declined the sampling request: not with my tokens");
    expect(results[1]).toContain("User cancelled the elicitation dialog");
  }, 90_000);
});
