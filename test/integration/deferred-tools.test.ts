// What tool definitions reach the model, through a whole `yoke run` session: the real CLI in a child
// process, the @anthropic-ai/sdk client over HTTP to the scripted server. `--tools` sends only the
// named tools; by default the rarely used ones are listed by name in load_tools, and a loaded
// definition arrives as a tool result, so the requests' prefix never changes.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-deferred-"));
  temps.push(dir);
  mkdirSync(join(dir, "ws"));
  return { ws: join(dir, "ws"), sessions: join(dir, "sessions"), home: join(dir, "home") };
}

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

type Body = { tools?: Array<{ name: string; description: string; input_schema: unknown }>; system?: unknown; messages: unknown[] };
const bodies = () => server!.requests.map((r) => r.body as unknown as Body);
const names = (b: Body) => (b.tools ?? []).map((t) => t.name);
/** The request without Anthropic's cache markers (they move to the newest message with each request). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== "cache_control")
      .map(([k, v]) => [k, plain(v)]),
  );
}
/** The last tool_result's text in a request. */
function lastResult(b: Body): string {
  const blocks = (b.messages as Array<{ content: unknown }>).flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type: string; content?: unknown }>) : []));
  const r = blocks.filter((x) => x.type === "tool_result").at(-1)!;
  return typeof r.content === "string" ? r.content : (r.content as Array<{ text: string }>).map((c) => c.text).join("");
}

const LOADER_HEAD = "Get the definitions of these tools (available, listed here by name only), then call them like any other:";
const RECALL_BRIEF = "get back a tool result cut short or removed by compaction (by its ref=…)";

const run = (url: string, w: ReturnType<typeof workspace>, more: string[]) =>
  runCli(
    [
      "run",
      "--trust",
      "--provider",
      "anthropic",
      "--base-url",
      url,
      "--model",
      "claude-sonnet-4-5",
      "--api-key-env",
      "YOKE_TEST_KEY",
      "--cwd",
      w.ws,
      "--session-dir",
      w.sessions,
      "--permission-mode",
      "bypassPermissions",
      "--json",
      ...more,
    ],
    { env: { HOME: w.home, YOKE_TEST_KEY: "k" } },
  );

describe("tool definitions in the requests of a yoke run session", () => {
  it("--tools run_command: every request carries that one definition; another tool is refused as unknown", async () => {
    const w = workspace();
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] }, { toolCalls: [{ name: "run_command", input: { command: "echo one-tool" } }] }, { text: "Done." }],
    });
    const r = await run(server.anthropicBaseUrl, w, ["--tools", "run_command", "say hi"]);
    expect(r.code, r.stderr).toBe(0);
    const b = bodies();
    expect(b).toHaveLength(3);
    for (const x of b) expect(names(x)).toEqual(["run_command"]);
    // Neither the system prompt nor run_command's definition tells the model to call a tool it does not have.
    for (const x of b) {
      for (const other of ["read_file", "grep", "glob", "edit_file", "write_file", "todo_write", "command_output", "kill_command", "load_tools"]) {
        expect(JSON.stringify(x.system)).not.toContain(other);
        expect(JSON.stringify(x.tools)).not.toContain(other);
      }
    }
    expect(JSON.stringify(b[0]!.system)).toContain("Read before you change: find the code first, then look at only the lines you need.");
    expect(lastResult(b[1]!)).toBe('Unknown tool "read_file". Available tools: run_command. Call one of these by its exact name.');
    expect(lastResult(b[2]!)).toContain("one-tool");
  }, 120_000);

  it("--tools with a name the session does not have fails before any request, naming the tools it has", async () => {
    const w = workspace();
    server = await startScriptedLlmServer({ script: [{ text: "never" }] });
    const r = await run(server.anthropicBaseUrl, w, ["--tools", "run_command,bash", "say hi"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no tool named "bash"; this session\'s tools: read_file, list_files, glob, grep, edit_file, write_file, run_command, command_output, kill_command, todo_write');
    expect(server.requests).toHaveLength(0);
  }, 120_000);

  it("deferred tools: listed by name in load_tools; a loaded definition is appended as a tool result and the prefix never changes", async () => {
    const w = workspace();
    server = await startScriptedLlmServer({
      script: [
        { toolCalls: [{ name: "load_tools", input: { names: ["command_output"] } }] },
        { toolCalls: [{ name: "run_command", input: { command: "echo deferred-out" } }] },
        { toolCalls: [{ name: "command_output", input: { id: "c1", since: 1 } }] },
        { text: "Done." },
      ],
    });
    const r = await run(server.anthropicBaseUrl, w, ["look at the output"]);
    expect(r.code, r.stderr).toBe(0);
    const b = bodies();
    expect(b).toHaveLength(4);
    // First and later requests: the same definitions, without the deferred tools, load_tools last.
    expect(names(b[0]!)).toEqual(["read_file", "glob", "grep", "edit_file", "write_file", "run_command", "load_tools"]);
    const loader = b[0]!.tools!.find((t) => t.name === "load_tools")!;
    for (const n of ["list_files", "command_output", "kill_command", "todo_write", "task", "recall", "load_skill"]) expect(loader.description).toContain(`\n- ${n}: `);
    for (const x of b.slice(1)) expect(JSON.stringify(x.tools)).toBe(JSON.stringify(b[0]!.tools));
    // The whole previous request is the prefix of the next one: tools, system prompt, every earlier message.
    for (let i = 1; i < b.length; i++) {
      expect(plain(b[i]!.system)).toEqual(plain(b[i - 1]!.system));
      expect(plain(b[i]!.messages.slice(0, b[i - 1]!.messages.length))).toEqual(plain(b[i - 1]!.messages));
    }
    // The definition came as the load's result; the deferred tool was then called by name and ran.
    const loaded = lastResult(b[1]!);
    expect(loaded.startsWith("1 tool loaded; call it by name:\n\ncommand_output: Read the output of a command started by run_command")).toBe(true);
    expect(loaded).toContain('Arguments (JSON Schema): {"type":"object","properties":{"id":');
    expect(lastResult(b[3]!)).toContain("deferred-out");
    // Yoke's own prompt-cache watch saw no break either.
    const out = JSON.parse(r.stdout) as { cost: { turns: Array<{ cacheBreaks: unknown[] }> } };
    expect(out.cost.turns.flatMap((t) => t.cacheBreaks)).toEqual([]);
  }, 120_000);

  it("--tools run_command,kill_command,load_tools: load_tools lists only the kept deferred tool; the dropped ones are neither listed, described nor loadable", async () => {
    const w = workspace();
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "load_tools", input: { names: ["kill_command", "command_output"] } }] }, { toolCalls: [{ name: "grep", input: { pattern: "x" } }] }, { text: "Done." }],
    });
    const r = await run(server.anthropicBaseUrl, w, ["--tools", "run_command,kill_command,load_tools", "say hi"]);
    expect(r.code, r.stderr).toBe(0);
    const b = bodies();
    expect(b).toHaveLength(3);
    for (const x of b) {
      expect(names(x)).toEqual(["run_command", "load_tools"]);
      expect(x.tools!.find((t) => t.name === "load_tools")!.description).toBe(LOADER_HEAD + "\n- kill_command: stop a background command");
    }
    const loaded = lastResult(b[1]!);
    expect(loaded.startsWith("1 tool loaded; call it by name:\n\nkill_command: ")).toBe(true);
    expect(loaded.endsWith('No deferred tool is named "command_output"; these are: kill_command.')).toBe(true);
    expect(lastResult(b[2]!)).toBe('Unknown tool "grep". Available tools: run_command, kill_command, load_tools. Call one of these by its exact name.');
  }, 120_000);

  it("--tools run_command,load_tools: nothing deferred is kept, so there is no loader: refused before any request", async () => {
    const w = workspace();
    server = await startScriptedLlmServer({ script: [{ text: "never" }] });
    const r = await run(server.anthropicBaseUrl, w, ["--tools", "run_command,load_tools", "say hi"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no tool named "load_tools"; this session\'s tools: read_file, list_files, glob, grep, edit_file, write_file, run_command, command_output, kill_command, todo_write');
    expect(server.requests).toHaveLength(0);
  }, 120_000);

  it("a sub-agent under --tools: its load_tools lists only tools it can call (its own recall and task), none that --tools dropped from the parent", async () => {
    const w = workspace();
    const depth = (q: RecordedRequest) => Number(/You are a sub-agent \(depth (\d+)\)/.exec(JSON.stringify(q.body.system ?? ""))?.[1] ?? 0);
    const queues: Record<number, ScriptedTurn[]> = {
      0: [{ toolCalls: [{ name: "task", input: { description: "Echo", prompt: "Run echo sub.", tools: ["run_command"] } }] }, { text: "Done." }],
      1: [{ toolCalls: [{ name: "run_command", input: { command: "echo sub-ran" } }] }, { text: "It printed sub-ran." }],
    };
    server = await startScriptedLlmServer({ script: async (q) => queues[depth(q)]?.shift() ?? { text: "(no more turns)" } });
    const r = await run(server.anthropicBaseUrl, w, ["--tools", "run_command,task,load_tools", "delegate"]);
    expect(r.code, r.stderr).toBe(0);
    const parent = server.requests.filter((q) => depth(q) === 0).map((q) => q.body as unknown as Body);
    const child = server.requests.filter((q) => depth(q) === 1).map((q) => q.body as unknown as Body);
    expect(parent).toHaveLength(2);
    expect(child).toHaveLength(2);
    const loader = (x: Body) => x.tools!.find((t) => t.name === "load_tools")?.description;
    for (const x of parent) {
      expect(names(x)).toEqual(["run_command", "load_tools"]);
      expect(loader(x)).toBe(LOADER_HEAD + "\n- task: run a sub-agent on a self-contained task in a context of its own");
    }
    for (const x of child) {
      expect(names(x)).toEqual(["run_command", "load_tools"]);
      expect(loader(x)).toBe(LOADER_HEAD + "\n- recall: " + RECALL_BRIEF + "\n- task: run a sub-agent on a self-contained task in a context of its own");
    }
    expect(lastResult(child[1]!)).toContain("sub-ran");
  }, 120_000);
});
