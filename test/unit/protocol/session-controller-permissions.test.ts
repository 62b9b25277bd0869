// The panel's permission flow outside VS Code: SessionController with the real core, the real
// permission gate over settings files on disk, and a scripted OpenAI-compatible server.
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
const controllers: Array<{ dispose(): void }> = [];

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-controller-perm-")));
  workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(workspace);
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never, nodePath.join(dir, "sessions"));
  s.warnings.length = 0;
  parts = fakeExtensionParts(nodePath.join(dir, "storage"));
});

afterEach(async () => {
  for (const c of controllers.splice(0)) c.dispose();
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
}

function open(visible = true) {
  const posted: HostToWebview[] = [];
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => visible);
  controllers.push(controller);
  controller.connect((msg) => posted.push(msg));
  return { controller, posted };
}

async function until<T>(get: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = get();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const questionIn = (posted: HostToWebview[]) => {
  for (const m of [...posted].reverse()) if (m.type === "permission") return m.request ?? undefined;
  return undefined;
};
const lastState = (posted: HostToWebview[]) => [...posted].reverse().find((m): m is Extract<HostToWebview, { type: "status" }> => m.type === "status")?.state;

describe("SessionController permissions", () => {
  it("asks an unanswered question again when the panel restores the session after a crash", async () => {
    await useScript([{ toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "hi\n" } }] }, { text: "Written." }]);
    const first = open();
    void first.controller.handle({ type: "prompt", text: "write notes" });
    const asked = await until(() => questionIn(first.posted), "the first question");
    // The extension host dies here: nothing answers or ends the first session.
    const second = open();
    await second.controller.handle({ type: "ready", protocol: 1 });
    const again = await until(() => questionIn(second.posted), "the question asked again");
    expect(again).toMatchObject({ tool: "write_file", summary: "notes.md", callId: asked.callId });
    await second.controller.handle({ type: "permissionAnswer", callId: again.callId, decision: "allow" } satisfies WebviewToHost);
    await until(() => (lastState(second.posted) === "done" ? true : undefined), "the run to finish");
    expect(fs.readFileSync(nodePath.join(workspace, "notes.md"), "utf8")).toBe("hi\n");
    expect(server!.requests).toHaveLength(2); // the question came from the log, not from the model again
  });

  it("writes the proposed rule to .yoke/settings.local.json on Always allow and shows it", async () => {
    await useScript([{ toolCalls: [{ name: "write_file", input: { path: "src/notes.md", content: "hi\n" } }] }, { text: "Written." }]);
    const { controller, posted } = open();
    void controller.handle({ type: "prompt", text: "write notes" });
    const q = await until(() => questionIn(posted), "the question");
    expect(q.rule).toBe("Edit(src/**)");
    await controller.handle({ type: "permissionAnswer", callId: q.callId, decision: "allow", always: true });
    await until(() => (lastState(posted) === "done" ? true : undefined), "the run to finish");
    const local = JSON.parse(fs.readFileSync(nodePath.join(workspace, ".yoke", "settings.local.json"), "utf8")) as { permissions: { allow: string[] } };
    expect(local.permissions.allow).toEqual(["Edit(src/**)"]);
    const notice = posted.flatMap((m) => (m.type === "event" && m.view.kind === "notice" ? [m.view.text] : [])).find((t) => t.startsWith("Always allowed"));
    expect(notice).toContain("added Edit(src/**) to");
    expect(fs.readFileSync(nodePath.join(workspace, "src", "notes.md"), "utf8")).toBe("hi\n");
  });

  it("offers Always allow with the rule in the notification when the panel is hidden", async () => {
    await useScript([{ toolCalls: [{ name: "write_file", input: { path: "src/a.md", content: "a\n" } }] }, { text: "Written." }]);
    vscode.__state.warningAnswer = "Always Allow Edit(src/**)";
    const { controller, posted } = open(false);
    await controller.handle({ type: "prompt", text: "write a" });
    expect(vscode.__state.warnings[0]).toContain("Yoke wants to use write_file: src/a.md");
    expect(lastState(posted)).toBe("done");
    const local = JSON.parse(fs.readFileSync(nodePath.join(workspace, ".yoke", "settings.local.json"), "utf8")) as { permissions: { allow: string[] } };
    expect(local.permissions.allow).toEqual(["Edit(src/**)"]);
    expect(fs.readFileSync(nodePath.join(workspace, "src", "a.md"), "utf8")).toBe("a\n");
    vscode.__state.warningAnswer = undefined;
  });

  it("shows a malformed settings file as a problem and starts in its valid defaultMode otherwise", async () => {
    await useScript([{ text: "ok" }]);
    fs.mkdirSync(nodePath.join(workspace, ".claude"));
    fs.writeFileSync(nodePath.join(workspace, ".claude", "settings.json"), '{"permissions": {"allow": "Bash"}}');
    fs.mkdirSync(nodePath.join(workspace, ".yoke"));
    fs.writeFileSync(nodePath.join(workspace, ".yoke", "settings.local.json"), '{"permissions": {"defaultMode": "plan"}}');
    const { controller } = open();
    const snap = await controller.snapshot();
    expect(snap.hostInfo?.mode).toBe("plan");
    expect(snap.mode).toBe("plan");
    expect(snap.hostInfo?.problems.join("\n")).toContain(".claude/settings.json");
    // yoke.permissionMode wins over the settings files' defaultMode.
    vscode.__state.config.set("yoke.permissionMode", "acceptEdits");
    expect((await open().controller.snapshot()).hostInfo?.mode).toBe("acceptEdits");
  });

  it("warns about a sandbox switched off in the user settings before any session runs", async () => {
    await useScript([{ text: "ok" }]);
    vscode.__state.config.set("yoke.sandbox", { backend: "none" });
    const snap = await open().controller.snapshot();
    expect(snap.hostInfo?.sandbox).toEqual({ name: "none", warning: expect.stringContaining("Sandbox off: commands run with your full user rights") });
  });
});
