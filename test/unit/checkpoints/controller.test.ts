// The panel's checkpoint messages through the real SessionController (the core, the session store,
// the shadow-git checkpoint store, a scripted OpenAI-compatible server; VS Code stood in for):
// preview → restore both in the live session → the transcript and the files → undo → fork; and a
// restore refused, with nothing changed, while a turn runs.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostToWebview, WebviewToHost } from "../../../src/protocol/messages";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../../src/demo/scripted-llm-server";
import type { FakeVscodeState } from "../protocol/fake-vscode";

vi.mock("vscode", async () => (await import("../protocol/fake-vscode")).createFakeVscode());

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts, openTrustedFolder } = await import("../protocol/fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

let dir: string;
let workspace: string;
let server: ScriptedServer | undefined;
let parts: ReturnType<typeof fakeExtensionParts>;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-ckpt-controller-")));
  workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(workspace);
  fs.writeFileSync(nodePath.join(workspace, "README.md"), "# tidewatch\n");
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never, nodePath.join(dir, "sessions"));
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
}

function open() {
  const posted: HostToWebview[] = [];
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true);
  controller.connect((msg) => {
    posted.push(msg);
    // Every edit is allowed from its card.
    if (msg.type === "permission" && msg.request) {
      const reply: WebviewToHost = { type: "permissionAnswer", callId: msg.request.callId, decision: "allow" };
      queueMicrotask(() => void controller.handle(reply));
    }
  });
  return { controller, posted };
}

const ofType = <T extends HostToWebview["type"]>(posted: HostToWebview[], type: T) => posted.filter((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
const file = (p: string) => nodePath.join(workspace, p);

describe("checkpoint controls in the session controller", () => {
  it("previews, restores files and conversation of the live session, undoes it, and forks from a turn", async () => {
    await useScript([
      { text: "Writing a.", toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a1\n" } }] },
      { text: "T1 done." },
      { text: "Writing b.", toolCalls: [{ name: "write_file", input: { path: "b.txt", content: "b\n" } }] },
      { text: "T2 done." },
      { text: "Answer after the restore." },
    ]);
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await controller.handle({ type: "prompt", text: "first turn" });
    await controller.handle({ type: "prompt", text: "second turn" });
    expect(fs.existsSync(file("b.txt"))).toBe(true);
    const snap = () => controller.snapshot();
    const controls = (await snap()).items.filter((i) => i.kind === "turn");
    expect(controls.map((c) => c.kind === "turn" && c.turn)).toEqual([1, 2]);
    const t1 = controls[0]!;
    const ref = { turn: 1, userSeq: t1.kind === "turn" ? t1.userSeq : -1 };

    await controller.handle({ type: "checkpointPreview", ...ref });
    const preview = ofType(posted, "checkpointPreview").at(-1)!.preview!;
    expect(preview.files).toEqual([expect.objectContaining({ path: "b.txt", action: "delete", added: 0, removed: 1, counted: true, root: workspace })]);
    expect(preview).toMatchObject({ filesAvailable: true, conversationAvailable: true, turns: 2 });
    expect(preview.conversationNote).toContain("Turn 2 would leave the conversation");
    expect(fs.existsSync(file("b.txt"))).toBe(true);

    // A stale control (the conversation changed since) is refused.
    await controller.handle({ type: "checkpointRestore", turn: 1, userSeq: ref.userSeq + 1, what: "both" });
    expect(ofType(posted, "error").at(-1)!.message).toContain("the conversation changed since this was shown");
    expect(fs.existsSync(file("b.txt"))).toBe(true);

    await controller.handle({ type: "checkpointRestore", ...ref, what: "both" });
    expect(fs.existsSync(file("b.txt"))).toBe(false);
    expect(fs.readFileSync(file("a.txt"), "utf8")).toBe("a1\n");
    await vi.waitFor(async () => expect((await snap()).items.filter((i) => i.kind === "user").map((i) => i.kind === "user" && i.text)).toEqual(["first turn"]));
    expect(ofType(posted, "checkpointUndo").at(-1)!.undo).toMatchObject({ turn: 1, files: true, conversation: true });

    await controller.handle({ type: "checkpointUndo" });
    expect(fs.readFileSync(file("b.txt"), "utf8")).toBe("b\n");
    await vi.waitFor(async () => expect((await snap()).items.filter((i) => i.kind === "user")).toHaveLength(2));
    expect(ofType(posted, "checkpointUndo").at(-1)!.undo).toBeNull();

    // Fork from turn 1: a new session shown, with turn 1 only and the files as they were after it.
    const source = (await snap()).sessionId;
    await controller.handle({ type: "checkpointFork", ...ref });
    await vi.waitFor(async () => expect((await snap()).sessionId).not.toBe(source));
    expect((await snap()).items.filter((i) => i.kind === "user").map((i) => i.kind === "user" && i.text)).toEqual(["first turn"]);
    expect(fs.existsSync(file("b.txt"))).toBe(false);
    await controller.handle({ type: "prompt", text: "go on" });
    const sent = JSON.stringify(server!.requests.at(-1)!.body.messages);
    expect(sent).toContain("first turn");
    expect(sent).not.toContain("second turn");
    controller.dispose();
  });

  it("refuses a restore while a turn runs and changes nothing", async () => {
    await useScript([{ text: "Writing a.", toolCalls: [{ name: "write_file", input: { path: "a.txt", content: "a1\n" } }] }, { text: "T1 done." }, { hang: true }]);
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await controller.handle({ type: "prompt", text: "first turn" });
    const running = controller.handle({ type: "prompt", text: "second turn" });
    await vi.waitFor(() => expect(server!.requests).toHaveLength(3));
    const before = fs.readdirSync(workspace).sort();
    await controller.handle({ type: "checkpointRestore", turn: 0, userSeq: 0, what: "both" });
    expect(ofType(posted, "error").at(-1)!.message).toContain("the agent is working on a turn: stop it (or wait until it is done), then restore");
    expect(fs.readdirSync(workspace).sort()).toEqual(before);
    controller.stop();
    await running;
    controller.dispose();
  });
});
