/**
 * The apply_patch tool end to end: the built CLI, a scripted model over real HTTP (OpenAI wire),
 * real files in a temp workspace, the real permission gate and checkpoints.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function workspace(files: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-patch-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(ws, rel, ".."), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  return { ws, sessions: join(dir, "sessions"), home: join(dir, "home") };
}

type Body = { messages: Array<{ role: string; content: string }>; tools?: Array<{ function: { name: string; parameters: unknown } }> };
const body = (n: number) => server!.requests[n]!.body as Body;
/** The last tool result the model received in request n (0-based). */
const toolResult = (n: number) =>
  body(n)
    .messages.filter((m) => m.role === "tool")
    .at(-1)!.content;
const toolNames = (n: number) => (body(n).tools ?? []).map((t) => t.function.name);

const run = (url: string, ws: string, sessions: string, model: string) => ["--trust", "--provider", "openai-compatible", "--base-url", url, "--model", model, "--cwd", ws, "--session-dir", sessions];

const PY = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n";

const THREE_FILES = [
  "*** Begin Patch",
  "*** Update File: src/shapes.py",
  "*** Move to: src/geometry.py",
  "@@ def perimeter(w, h):",
  "-    return 2 * (w + h)",
  "+    return 2 * w + 2 * h",
  "*** Add File: src/units.py",
  '+UNIT = "cm"',
  "*** Delete File: old/notes.txt",
  "*** End Patch",
].join("\n");

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("apply_patch through yoke run", () => {
  it("offers apply_patch to a GPT-5 model, applies a 3-file patch (move, add, delete), and a checkpoint restore undoes all of it", async () => {
    const { ws, sessions, home } = workspace({ "src/shapes.py": PY, "old/notes.txt": "obsolete\n" });
    server = await startScriptedLlmServer({
      script: [{ text: "Hello." }, { toolCalls: [{ name: "apply_patch", input: { input: THREE_FILES } }] }, { text: "Done." }],
    });
    const flags = [...run(server.openaiBaseUrl, ws, sessions, "gpt-5-codex"), "--permission-mode", "acceptEdits"];
    const r1 = await runCli(["run", ...flags, "say hello"], { env: { HOME: home } });
    expect(r1.code, r1.stderr).toBe(0);
    const id = readdirSync(sessions)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const r2 = await runCli(["resume", id, ...flags, "rename shapes to geometry, add units, drop the notes"], { env: { HOME: home } });
    expect(r2.code, r2.stderr).toBe(0);

    // The model family's own tool, in edit_file's place, as one string argument `input`.
    expect(toolNames(0)).toContain("apply_patch");
    expect(toolNames(0)).not.toContain("edit_file");
    const spec = body(0).tools!.find((t) => t.function.name === "apply_patch")!;
    expect(spec.function.parameters).toMatchObject({ properties: { input: { type: "string" } }, required: ["input"] });

    expect(readFileSync(join(ws, "src/geometry.py"), "utf8")).toBe(PY.replace("return 2 * (w + h)", "return 2 * w + 2 * h"));
    expect(existsSync(join(ws, "src/shapes.py"))).toBe(false);
    expect(readFileSync(join(ws, "src/units.py"), "utf8")).toBe('UNIT = "cm"\n');
    expect(existsSync(join(ws, "old/notes.txt"))).toBe(false);
    const told = toolResult(2);
    expect(told).toContain("Applied the patch (3 files):");
    expect(told).toContain("R src/shapes.py → src/geometry.py: +1 -1 lines");
    expect(told).toContain("A src/units.py (1 line)");
    expect(told).toContain("D old/notes.txt");
    expect(told).toContain("+    return 2 * w + 2 * h");

    // Deletions and moves are undone by the checkpoint of the turn.
    const restore = await runCli(["checkpoints", "restore", id, "1", "--files", "--session-dir", sessions]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(readFileSync(join(ws, "src/shapes.py"), "utf8")).toBe(PY);
    expect(readFileSync(join(ws, "old/notes.txt"), "utf8")).toBe("obsolete\n");
    expect(existsSync(join(ws, "src/geometry.py"))).toBe(false);
    expect(existsSync(join(ws, "src/units.py"))).toBe(false);
  });

  it("writes nothing when one file's chunk does not apply, and tells the model which file and chunk and why", async () => {
    const { ws, sessions, home } = workspace({ "src/shapes.py": PY, "old/notes.txt": "obsolete\n", "src/b.py": "x = 1\n" });
    const patch = THREE_FILES.replace("*** Delete File: old/notes.txt", "*** Update File: src/b.py\n@@\n-x = 2\n+x = 3\n*** Delete File: old/notes.txt");
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "apply_patch", input: { input: patch } }] }, { text: "I will re-read b.py." }] });
    const r = await runCli(["run", ...run(server.openaiBaseUrl, ws, sessions, "gpt-5"), "--permission-mode", "acceptEdits", "patch"], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ws, "src/shapes.py"), "utf8")).toBe(PY);
    expect(existsSync(join(ws, "src/geometry.py"))).toBe(false);
    expect(existsSync(join(ws, "src/units.py"))).toBe(false);
    expect(readFileSync(join(ws, "old/notes.txt"), "utf8")).toBe("obsolete\n");
    expect(readFileSync(join(ws, "src/b.py"), "utf8")).toBe("x = 1\n");
    const told = toolResult(1);
    expect(told).toContain("Nothing was written: 1 of the patch's 4 file sections could not be applied, and a patch applies all or nothing.");
    expect(told).toContain('src/b.py, chunk 1 (starting "x = 2"): its context and removed lines are not in the file. The closest region is lines 1-1');
    expect(told).toContain('the file has "x = 1", the patch "x = 2"');
  });

  it("checks every path of the patch with the gate: a deny rule on the deleted file stops the whole patch", async () => {
    const { ws, sessions, home } = workspace({
      "src/shapes.py": PY,
      "old/notes.txt": "obsolete\n",
      ".yoke/settings.json": JSON.stringify({ permissions: { deny: ["Edit(old/**)"] } }),
    });
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "apply_patch", input: { input: THREE_FILES } }] }, { text: "ok" }] });
    const r = await runCli(["run", ...run(server.openaiBaseUrl, ws, sessions, "gpt-4.1"), "--permission-mode", "bypassPermissions", "patch"], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ws, "old/notes.txt"), "utf8")).toBe("obsolete\n");
    expect(readFileSync(join(ws, "src/shapes.py"), "utf8")).toBe(PY);
    expect(existsSync(join(ws, "src/units.py"))).toBe(false);
    expect(toolResult(1)).toMatch(/^Permission denied for apply_patch: .*old\/notes\.txt.*Edit\(old\/\*\*\)/);
  });

  it("offers edit_file to other models, and apply_patch to any model when edits.tool says so", async () => {
    const { ws, sessions, home } = workspace({ "a.txt": "a\n" });
    server = await startScriptedLlmServer({ script: [{ text: "hi" }, { text: "hi" }] });
    const r1 = await runCli(["run", ...run(server.openaiBaseUrl, ws, sessions, "claude-sonnet-4-5"), "hi"], { env: { HOME: home } });
    expect(r1.code, r1.stderr).toBe(0);
    expect(toolNames(0)).toContain("edit_file");
    expect(toolNames(0)).not.toContain("apply_patch");
    writeFileSync(join(ws, ".yoke-settings.json"), JSON.stringify({ edits: { tool: "apply_patch" } }));
    const r2 = await runCli(["run", ...run(server.openaiBaseUrl, ws, sessions, "claude-sonnet-4-5"), "--settings", join(ws, ".yoke-settings.json"), "hi"], { env: { HOME: home } });
    expect(r2.code, r2.stderr).toBe(0);
    expect(toolNames(1)).toContain("apply_patch");
    expect(toolNames(1)).not.toContain("edit_file");
    // The system prompt names the session's edit tool: edit_file's anchors only where edit_file is offered.
    const system = (n: number) => body(n).messages.find((m) => m.role === "system")!.content;
    expect(system(0)).toContain("edit_file's hashline ops");
    expect(system(1)).not.toContain("edit_file");
    expect(system(1)).toContain("- Prefer small, targeted edits (apply_patch) over rewriting whole files (write_file).");
    expect(system(1)).toContain("the `LINE#HH|` prefix is not part of the line.");
  });
});

describe("apply_patch as a freeform (custom) tool through yoke run", () => {
  type WireTool = { type: string; function?: { name: string }; custom?: { name: string; format?: { type: string; grammar?: { syntax: string; definition: string } } } };
  const wireTools = (n: number) => (server!.requests[n]!.body.tools ?? []) as WireTool[];
  const openai = (url: string, ws: string, sessions: string, model: string) => ["--trust", "--provider", "openai", "--base-url", url, "--model", model, "--cwd", ws, "--session-dir", sessions];

  it("a GPT-5 model on provider openai gets apply_patch as a custom tool with the V4A grammar, sends a patch as a custom call, and the file changes", async () => {
    const { ws, sessions, home } = workspace({ "src/shapes.py": PY });
    const patch = "*** Begin Patch\n*** Update File: src/shapes.py\n@@ def perimeter(w, h):\n-    return 2 * (w + h)\n+    return 2 * w + 2 * h\n*** End Patch\n";
    server = await startScriptedLlmServer({ script: [{ text: "Patching.", toolCalls: [{ name: "apply_patch", input: patch, custom: true }] }, { text: "Done." }] });
    const r = await runCli(["run", ...openai(server.openaiBaseUrl, ws, sessions, "gpt-5"), "--permission-mode", "acceptEdits", "expand the perimeter"], {
      env: { HOME: home, OPENAI_API_KEY: "sk-test" },
    });
    expect(r.code, r.stderr).toBe(0);
    const tool = wireTools(0).find((t) => t.custom?.name === "apply_patch")!;
    expect(tool.type).toBe("custom");
    expect(tool.custom!.format).toMatchObject({ type: "grammar", grammar: { syntax: "lark", definition: expect.stringContaining('"*** Begin Patch"') } });
    expect(
      wireTools(0)
        .filter((t) => t.type === "function")
        .map((t) => t.function!.name),
    ).toContain("read_file");
    expect(readFileSync(join(ws, "src/shapes.py"), "utf8")).toBe(PY.replace("return 2 * (w + h)", "return 2 * w + 2 * h"));
    // The second request carries the call back as a custom call with the patch text, and the tool's result.
    const messages = server.requests[1]!.body.messages as Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
    const assistant = messages.find((m) => m.role === "assistant")!;
    expect(assistant.tool_calls).toEqual([{ id: "call_scripted_1_0", type: "custom", custom: { name: "apply_patch", input: patch } }]);
    const result = messages.find((m) => m.role === "tool")!;
    expect(result.tool_call_id).toBe("call_scripted_1_0");
    expect(result.content).toContain("+    return 2 * w + 2 * h");
  });

  it("edits.applyPatchFreeform off: a function tool again, and a function call applies as before", async () => {
    const { ws, sessions, home } = workspace({ "src/shapes.py": PY });
    writeFileSync(join(ws, ".yoke-settings.json"), JSON.stringify({ edits: { applyPatchFreeform: "off" } }));
    const patch = "*** Begin Patch\n*** Update File: src/shapes.py\n@@ def area(w, h):\n-    return w * h\n+    return h * w\n*** End Patch";
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "apply_patch", input: { input: patch } }] }, { text: "Done." }] });
    const r = await runCli(["run", ...openai(server.openaiBaseUrl, ws, sessions, "gpt-5"), "--settings", join(ws, ".yoke-settings.json"), "--permission-mode", "acceptEdits", "swap"], {
      env: { HOME: home, OPENAI_API_KEY: "sk-test" },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(wireTools(0).every((t) => t.type === "function")).toBe(true);
    expect(readFileSync(join(ws, "src/shapes.py"), "utf8")).toBe(PY.replace("return w * h", "return h * w"));
  });
});

describe.each(identities().list)("apply_patch cannot reach outside the workspace, as $label", (who: Identity) => {
  it("denies a ../ path and a path through a link leading out, even in bypassPermissions mode, and writes nothing", async () => {
    const { ws, sessions, home } = workspace({ "src/a.txt": "a\n" });
    const outside = join(ws, "..", "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.txt"), "keep\n");
    symlinkSync(outside, join(ws, "out"));
    mkdirSync(home, { recursive: true });
    mkdirSync(sessions, { recursive: true });
    chownTree(join(ws, ".."), who);
    const escape = "*** Begin Patch\n*** Update File: src/a.txt\n-a\n+b\n*** Add File: ../outside/new.txt\n+x\n*** End Patch\n";
    const viaLink = "*** Begin Patch\n*** Update File: src/a.txt\n-a\n+b\n*** Update File: out/secret.txt\n-keep\n+stolen\n*** End Patch\n";
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "apply_patch", input: { input: escape } }] }, { toolCalls: [{ name: "apply_patch", input: { input: viaLink } }] }, { text: "ok" }],
    });
    const r = await runCliAs(who, ["run", ...run(server.openaiBaseUrl, ws, sessions, "gpt-5"), "--permission-mode", "bypassPermissions", "patch"], { env: { HOME: home }, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(toolResult(1)).toMatch(/^Permission denied for apply_patch: .*outside the workspace/);
    expect(toolResult(2)).toMatch(/^Permission denied for apply_patch: .*symbolic link on the way leads outside/);
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(ws, "src/a.txt"), "utf8")).toBe("a\n");
  });
});

describe("yoke edit apply with a patch on stdin", () => {
  it("applies a V4A patch in a heredoc and a unified diff with a wrong line number, and refuses an ambiguous chunk", async () => {
    const { ws } = workspace({ "f.py": PY, "g.txt": "x\ny\nx\ny\n" });
    const v4a = `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: f.py\n@@ def area(w, h):\n-    return w * h\n+    return float(w) * h\nEOF\n`;
    const a = await runCli(["edit", "apply", join(ws, "f.py")], { input: v4a });
    expect(a.code, a.stderr).toBe(0);
    expect(readFileSync(join(ws, "f.py"), "utf8")).toBe(PY.replace("return w * h", "return float(w) * h"));

    const unified = "--- a/f.py\n+++ b/f.py\n@@ -40,2 +40,2 @@\n def perimeter(w, h):\n-    return 2 * (w + h)\n+    return (w + h) * 2\n";
    const u = await runCli(["edit", "apply", join(ws, "f.py"), "--format", "unified_diff", "--json"], { input: unified });
    expect(u.code, u.stderr).toBe(0);
    expect(JSON.parse(u.stdout)).toMatchObject({ ok: true, added: 1, removed: 1 });
    expect(readFileSync(join(ws, "f.py"), "utf8")).toContain("    return (w + h) * 2\n");

    const amb = await runCli(["edit", "apply", join(ws, "g.txt")], { input: "*** Begin Patch\n*** Update File: g.txt\n x\n-y\n+z\n*** End Patch\n" });
    expect(amb.code).toBe(1);
    expect(amb.stderr).toContain("its context and removed lines match 2 places: lines 1-2, 3-4");
    expect(readFileSync(join(ws, "g.txt"), "utf8")).toBe("x\ny\nx\ny\n");
  });
});
