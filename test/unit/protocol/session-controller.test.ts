// The panel's host side end to end outside VS Code: SessionController with the real core, the
// real session store, the vscode.workspace.fs port (over a disk-backed stand-in) and a real
// OpenAI-compatible HTTP server speaking from a script.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostToWebview, WebviewToHost } from "../../../src/protocol/messages";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../../src/demo/scripted-llm-server";
import type { FakeVscodeState } from "./fake-vscode";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts, openTrustedFolder } = await import("./fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

let dir: string;
let workspace: string;
let server: ScriptedServer | undefined;
let parts: ReturnType<typeof fakeExtensionParts>;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-controller-")));
  workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(workspace);
  fs.writeFileSync(nodePath.join(workspace, "README.md"), "# tidewatch\nTide tables.\n");
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never, nodePath.join(dir, "sessions"));
  s.warnings.length = 0;
  parts = fakeExtensionParts(nodePath.join(dir, "storage"));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function useScript(script: ScriptedTurn[]): Promise<void> {
  server = await startScriptedLlmServer({ script });
  const c = vscode.__state.config;
  c.set("yoke.provider", "openai-compatible");
  c.set("yoke.baseUrl", server.openaiBaseUrl);
  c.set("yoke.model", "scripted");
  c.set("yoke.demoLabel", "test model");
}

/** A controller connected to a recording "webview"; `answer` replies to permission cards. */
function open(opts: { visible?: boolean; answer?: (callId: string) => WebviewToHost | undefined } = {}) {
  const posted: HostToWebview[] = [];
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => opts.visible ?? true);
  controller.connect((msg) => {
    posted.push(msg);
    if (msg.type === "permission" && msg.request && opts.answer) {
      const reply = opts.answer(msg.request.callId);
      if (reply) queueMicrotask(() => void controller.handle(reply));
    }
  });
  return { controller, posted };
}

const ofType = <T extends HostToWebview["type"]>(posted: HostToWebview[], type: T) => posted.filter((m): m is Extract<HostToWebview, { type: T }> => m.type === type);

describe("SessionController", () => {
  it("shows the first-run screen and no model when no provider is configured", async () => {
    const { controller } = open();
    const snap = await controller.snapshot();
    expect(snap.firstRun).not.toBeNull();
    expect(snap.modelLabel).toBe("no model");
    expect(snap.sessionId).toBeNull();
    controller.dispose();
  });

  it("keeps the first-run screen for an OpenAI-compatible provider without a base URL", async () => {
    vscode.__state.config.set("yoke.provider", "openai-compatible");
    const { controller } = open();
    expect((await controller.snapshot()).firstRun).not.toBeNull();
    vscode.__state.config.set("yoke.baseUrl", "http://127.0.0.1:11434/v1");
    expect((await controller.snapshot()).firstRun).toBeNull();
    controller.dispose();
  });

  it("runs a prompt with a tool call and streams events, deltas, status and usage to the panel", async () => {
    await useScript([
      { reasoning: "Look first.", text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "README.md" } }], usage: { input: 100, output: 10 } },
      { text: "It is **tidewatch**.", usage: { input: 150, output: 5 } },
    ]);
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    expect(ofType(posted, "state")[0]!.snapshot).toMatchObject({ sessionId: null, firstRun: null, modelLabel: "test model", restricted: false });
    await controller.handle({ type: "prompt", text: "What is this project?" });

    const views = ofType(posted, "event").map((m) => m.view);
    expect(views.find((v) => v.kind === "user")).toMatchObject({ text: "What is this project?" });
    const tool = views.filter((v) => v.kind === "tool").at(-1);
    expect(tool).toMatchObject({ name: "read_file", summary: "README.md", status: "done" });
    expect(tool?.kind === "tool" && tool.output).toContain("tidewatch");
    expect(views.filter((v) => v.kind === "assistant").map((v) => v.kind === "assistant" && v.text)).toEqual(["Reading.", "It is **tidewatch**."]);
    expect(
      ofType(posted, "delta")
        .map((d) => d.text)
        .join(""),
    ).toContain("tidewatch");
    expect(ofType(posted, "status").map((s) => s.state)).toContain("thinking");
    expect(ofType(posted, "status").at(-1)!.state).toBe("done");
    expect(ofType(posted, "usage").at(-1)!.usage).toMatchObject({ inputTokens: 250, outputTokens: 15 });

    const snap = await controller.snapshot();
    // Under the answer's turn control, how long the agent worked (src/core/turn-time, one line of the session recipe).
    expect(snap.items.map((i) => i.kind)).toEqual(["user", "assistant", "tool", "assistant", "turn", "notice"]);
    expect(snap.items.at(-1)).toMatchObject({ kind: "notice", level: "info", text: expect.stringMatching(/^Worked \d.*: model .* in 2 requests, tools .* in 1 call\.$/) });
    expect(snap.history).toEqual([expect.objectContaining({ id: snap.sessionId, title: "What is this project?", status: "done", active: true, modelLabel: "test model" })]);
    expect(parts.logLines.some((l) => /response openai-compatible\/scripted: \d+ ms/.test(l))).toBe(true);
    controller.dispose();
  });

  it("asks with a permission card and writes the file once allowed", async () => {
    await useScript([{ toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "hi\n" } }] }, { text: "Written." }]);
    const { controller, posted } = open({ answer: (callId) => ({ type: "permissionAnswer", callId, decision: "allow" }) });
    await controller.handle({ type: "prompt", text: "write notes" });
    const card = ofType(posted, "permission").find((m) => m.request)!.request!;
    expect(card).toMatchObject({ tool: "write_file", permission: "Write", summary: "notes.md" });
    expect(ofType(posted, "permission").at(-1)!.request).toBeNull();
    expect(fs.readFileSync(nodePath.join(workspace, "notes.md"), "utf8")).toBe("hi\n");
    expect(vscode.__state.warnings).toEqual([]);
    controller.dispose();
  });

  it("tells the model the user's reason when the card is denied, and notifies when the panel is hidden", async () => {
    await useScript([{ toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "hi" } }] }, { text: "OK, not writing." }]);
    const { controller, posted } = open({ visible: false, answer: (callId) => ({ type: "permissionAnswer", callId, decision: "deny", message: "not now" }) });
    await controller.handle({ type: "prompt", text: "write notes" });
    expect(vscode.__state.warnings[0]).toContain("Yoke wants to use write_file: notes.md");
    expect(fs.existsSync(nodePath.join(workspace, "notes.md"))).toBe(false);
    const tool = ofType(posted, "event")
      .map((m) => m.view)
      .filter((v) => v.kind === "tool")
      .at(-1);
    expect(tool).toMatchObject({ status: "denied", note: "not now" });
    const second = JSON.stringify(server!.requests[1]!.body);
    expect(second).toContain("not now");
    controller.dispose();
  });

  it("refuses to write in Restricted Mode and says so on the card", async () => {
    await useScript([{ toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "hi" } }] }, { text: "Cannot write." }]);
    vscode.__state.isTrusted = false;
    const { controller, posted } = open({ answer: (callId) => ({ type: "permissionAnswer", callId, decision: "allow" }) });
    await controller.handle({ type: "prompt", text: "write notes" });
    expect((await controller.snapshot()).restricted).toBe(true);
    expect(fs.existsSync(nodePath.join(workspace, "notes.md"))).toBe(false);
    const tool = ofType(posted, "event")
      .map((m) => m.view)
      .filter((v) => v.kind === "tool")
      .at(-1);
    expect(tool).toMatchObject({ status: "denied" });
    expect(ofType(posted, "permission").filter((m) => m.request)).toEqual([]);
    controller.dispose();
  });

  it("shows the last session read-only after a reload and continues it on send", async () => {
    await useScript([{ text: "First answer." }, { text: "Second answer." }]);
    const first = open();
    await first.controller.handle({ type: "prompt", text: "one" });
    const id = (await first.controller.snapshot()).sessionId;
    first.controller.dispose();

    const second = open();
    const restored = await second.controller.snapshot();
    expect(restored).toMatchObject({ sessionId: id, resumed: true, state: "done" });
    expect(restored.items.map((i) => i.kind)).toEqual(["user", "assistant", "turn", "notice"]);
    await second.controller.handle({ type: "prompt", text: "two" });
    const after = await second.controller.snapshot();
    expect(after).toMatchObject({ sessionId: id, resumed: false });
    expect(after.items.filter((i) => i.kind === "user").map((i) => i.kind === "user" && i.text)).toEqual(["one", "two"]);
    const messages = (server!.requests[1]!.body as { messages: Array<{ role: string }> }).messages.map((m) => m.role);
    expect(messages).toEqual(["system", "user", "assistant", "user"]);
    second.controller.dispose();
  });

  it("starts a new session and reopens an old one from the history", async () => {
    await useScript([{ text: "A." }, { text: "B." }]);
    const { controller } = open();
    await controller.handle({ type: "prompt", text: "first topic" });
    const firstId = (await controller.snapshot()).sessionId!;
    await controller.handle({ type: "newSession" });
    expect(await controller.snapshot()).toMatchObject({ sessionId: null, items: [] });
    await controller.handle({ type: "prompt", text: "second topic" });
    const history = controller.history(true);
    expect(history.map((h) => h.title).sort()).toEqual(["first topic", "second topic"]);
    await controller.handle({ type: "openSession", id: firstId });
    const snap = await controller.snapshot();
    expect(snap).toMatchObject({ sessionId: firstId, resumed: true });
    expect(snap.items[0]).toMatchObject({ kind: "user", text: "first topic" });
    controller.dispose();
  });

  it("stops a hanging request and marks the run cancelled", async () => {
    await useScript([{ hang: true }]);
    const { controller, posted } = open();
    const run = controller.handle({ type: "prompt", text: "hang" });
    await vi.waitFor(() => expect(ofType(posted, "status").some((s) => s.state === "thinking")).toBe(true), { timeout: 5_000 });
    await controller.handle({ type: "stop" });
    await run;
    expect(ofType(posted, "status").at(-1)!.state).toBe("cancelled");
    expect(controller.isRunning).toBe(false);
    controller.dispose();
  });

  it("says what to do when the provider needs a key that is not set", async () => {
    vscode.__state.config.set("yoke.provider", "anthropic");
    const { controller, posted } = open();
    await controller.handle({ type: "prompt", text: "hi" });
    expect(ofType(posted, "error").at(-1)!.message).toBe(
      'No API key for anthropic. Run "Yoke: Set API Key" (the key is kept in VS Code\'s secret storage), or choose another provider in the yoke.provider setting.',
    );
    expect((await controller.snapshot()).sessionId).toBeNull();
    controller.dispose();
  });
});

describe("the header's model after Switch Model", () => {
  it("shows the model the next message uses as soon as the setting changes, and that model answers", async () => {
    await useScript([{ text: "First." }, { text: "Second." }]);
    vscode.__state.config.delete("yoke.demoLabel");
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await controller.handle({ type: "prompt", text: "Who answers?" });
    expect(ofType(posted, "state").at(-1)!.snapshot.modelLabel).toBe("scripted");
    const before = ofType(posted, "state").length;
    // What "Yoke: Switch Model" does: write yoke.model (the configuration change follows).
    await (vscode as unknown as { workspace: { getConfiguration(s: string): { update(k: string, v: unknown): Promise<void> } } }).workspace.getConfiguration("yoke").update("model", "scripted-model");
    await expect.poll(() => ofType(posted, "state").length, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(ofType(posted, "state").at(-1)!.snapshot.modelLabel).toBe("scripted-model");
    const switched = ofType(posted, "state").length;
    await controller.handle({ type: "prompt", text: "And now?" });
    expect(server!.requests.at(-1)!.body.model).toBe("scripted-model");
    // While the resumed session runs too (its log's session_start still names the first model).
    const during = ofType(posted, "state").slice(switched);
    expect(during.length).toBeGreaterThan(0);
    expect(during.map((m) => m.snapshot.modelLabel)).toEqual(during.map(() => "scripted-model"));
    expect((await controller.snapshot()).modelLabel).toBe("scripted-model");
    controller.dispose();
  });
});
