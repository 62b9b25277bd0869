// Architect mode through the real CLI, real SDK clients and real HTTP to the scripted LLM server:
// the `architect` key of ~/.yoke/settings.json sends the plan request to the planning model (read-only
// tools only, told it plans) and, after the hand-over, the edit requests to the cheaper editor model.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { HANDOFF_PREFIX } from "../../src/core/architect";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

// The user's own setting (~/.yoke/settings.json): a repository may not choose the models (docs/security.md).
function workspace(architect: unknown): { ws: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-architect-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws, { recursive: true });
  mkdirSync(join(dir, "home", ".yoke"), { recursive: true });
  writeFileSync(join(ws, "README.md"), "# Widget\n\nThe widget counts tides.\n");
  writeFileSync(join(dir, "home", ".yoke", "settings.json"), JSON.stringify({ architect }));
  return { ws, sessions: join(dir, "sessions") };
}

const run = (url: string, ws: string, sessions: string, prompt: string) =>
  runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", url, "--model", "planner-model", "--cwd", ws, "--session-dir", sessions, "--permission-mode", "acceptEdits", prompt], {
    env: { HOME: join(ws, "..", "home") },
  });

type Msg = { role: string; content?: unknown };
const messages = (r: RecordedRequest) => r.body.messages as Msg[];
const systemOf = (r: RecordedRequest) => String(messages(r)[0]?.content ?? "");
const toolNames = (r: RecordedRequest) => ((r.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name).sort();
const text = (m: Msg) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));

function onlySession(dir: string) {
  const files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return parseLog(readFileSync(join(dir, files[0]!), "utf8").split("\n").filter(Boolean)).events;
}

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("architect mode (setting architect.editorModel)", () => {
  it("plans with the planner on read-only tools, then the editor model writes the edits", async () => {
    const { ws, sessions } = workspace({ editorModel: "cheap-editor" });
    const plan = "Plan:\n1. Create NOTES.md with the line `Tides are counted hourly.`\n2. Nothing else changes.";
    const planner: ScriptedTurn[] = [
      { toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: { input: 100, output: 10 } },
      // A planner that tries to write anyway is answered without the file being touched.
      { toolCalls: [{ name: "write_file", input: { path: "SNEAKY.md", content: "no" } }], usage: { input: 120, output: 10 } },
      { text: plan, usage: { input: 150, output: 40 } },
    ];
    const editor: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "Tides are counted hourly.\n" } }], usage: { input: 200, output: 20 } },
      { text: "Created NOTES.md.", usage: { input: 220, output: 5 } },
    ];
    server = await startScriptedLlmServer({ script: (req) => (req.body.model === "cheap-editor" ? editor.shift() : planner.shift()) ?? { text: "out of script" } });
    const r = await run(server.openaiBaseUrl, ws, sessions, "Add a note that tides are counted hourly.");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Created NOTES.md.");

    const reqs = server.requests;
    expect(reqs.map((q) => q.body.model)).toEqual(["planner-model", "planner-model", "planner-model", "cheap-editor", "cheap-editor"]);
    const [plan1, , plan3, edit1] = reqs as [RecordedRequest, RecordedRequest, RecordedRequest, RecordedRequest];
    // The planner is told it plans, and offered only tools that change nothing.
    expect(systemOf(plan1)).toContain("# Architect mode: you are the planner");
    expect(systemOf(plan1)).toContain("another model (openai-compatible:cheap-editor) makes the edits");
    expect(toolNames(plan1)).toContain("read_file");
    for (const t of ["write_file", "edit_file", "run_command"]) expect(toolNames(plan1)).not.toContain(t);
    expect(systemOf(plan3)).toBe(systemOf(plan1)); // stable within the phase: the prompt cache hits
    // The planner's write was answered, not run.
    expect(JSON.stringify(messages(plan3))).toContain("Not run: in architect mode the planner (openai-compatible:planner-model) only reads.");
    // The editor gets the session's own system prompt, every tool, the plan and the hand-over.
    expect(systemOf(edit1)).not.toContain("Architect mode");
    expect(toolNames(edit1)).toEqual(expect.arrayContaining(["edit_file", "read_file", "write_file"]));
    const editMsgs = messages(edit1);
    expect(editMsgs.some((m) => m.role === "assistant" && text(m).includes("Create NOTES.md"))).toBe(true);
    const handoff = editMsgs.at(-1)!;
    expect(handoff.role).toBe("user");
    expect(text(handoff)).toContain(HANDOFF_PREFIX);
    expect(text(handoff)).toContain("You are the editor model (openai-compatible:cheap-editor): carry the plan out now");

    expect(readFileSync(join(ws, "NOTES.md"), "utf8")).toBe("Tides are counted hourly.\n");
    expect(readdirSync(ws)).not.toContain("SNEAKY.md");
    const events = onlySession(sessions);
    // Usage is counted against the model that answered.
    expect(events.filter((e) => e.type === "usage").map((e) => (e as { model: string }).model)).toEqual(["planner-model", "planner-model", "planner-model", "cheap-editor", "cheap-editor"]);
    expect(events.filter((e) => e.type === "user_message").map((e) => (e as { from?: string }).from)).toEqual([undefined, "extension"]);
    expect(events.filter((e) => e.type === "status").at(-1)).toMatchObject({ type: "status", state: "done" });
  });

  it("hands nothing over when the planner says NO_EDITS (a question)", async () => {
    const { ws, sessions } = workspace({ model: "planner-model", editorModel: "cheap-editor" });
    server = await startScriptedLlmServer({
      script: (req) => (req.body.model === "cheap-editor" ? { text: "the editor should not be asked" } : { text: "The README describes a widget that counts tides.\nNO_EDITS" }),
    });
    const r = await run(server.openaiBaseUrl, ws, sessions, "What does the README say?");
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.map((q) => q.body.model)).toEqual(["planner-model"]);
    expect(r.stdout).not.toContain("the editor should not be asked");
  });

  it("refuses a malformed architect setting with a clear error (exit 2)", async () => {
    const { ws, sessions } = workspace({ editorModel: 42 });
    const r = await run("http://127.0.0.1:9/v1", ws, sessions, "hi");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("architect.editorModel must name the model that writes the edits");
  });
});
