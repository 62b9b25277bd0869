// "Add Selection/File to Chat" outside VS Code: the palette's chips are the composer's chips. The
// host gives each to the panel as `composer.addContext` (one given while no panel listened comes
// when the panel says `ready`, once); the panel sends them back with the message (`composer.send`),
// and they reach a real OpenAI-compatible server as the composer's attachment block, read from
// the real files. A chip the user removed is not sent.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../../src/demo/scripted-llm-server";
import { readExchange } from "../../../src/demo/wire-conversation";
import { PROTOCOL_VERSION, type ContextItemView, type HostToWebview } from "../../../src/protocol/messages";
import type { FakeVscodeState } from "../protocol/fake-vscode";

vi.mock("vscode", async () => (await import("../protocol/fake-vscode")).createFakeVscode());

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts, openTrustedFolder } = await import("../protocol/fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

let dir: string;
let workspace: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-palette-")));
  workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(nodePath.join(workspace, "src"), { recursive: true });
  fs.writeFileSync(nodePath.join(workspace, "README.md"), "# tidewatch\n");
  fs.writeFileSync(nodePath.join(workspace, "notes.txt"), "private notes\n");
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never, nodePath.join(dir, "sessions"));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const adds = (posted: readonly HostToWebview[]) => posted.flatMap((m) => (m.type === "composer.addContext" ? [m.item] : []));

describe("context attached from the editor", () => {
  it("reaches the panel as composer chips, also when the panel was not listening yet", async () => {
    const parts = fakeExtensionParts(nodePath.join(dir, "storage"));
    const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true);
    const posted: HostToWebview[] = [];
    const sel: ContextItemView = { kind: "selection", path: "src/ab.ts", startLine: 3, endLine: 4, text: "export const a = 1;\nexport const b = 2;\n" };
    // Added while the panel is closed: kept for it.
    controller.composer.addContext(sel);
    controller.connect((m) => posted.push(m));
    expect(adds(posted)).toEqual([]);
    await controller.handle({ type: "ready", protocol: PROTOCOL_VERSION });
    expect(adds(posted)).toEqual([sel]);
    // Added while it listens: posted once, not again when it reconnects (the webview keeps its chips).
    controller.composer.addContext({ kind: "file", path: "README.md" });
    expect(adds(posted)).toEqual([sel, { kind: "file", path: "README.md" }]);
    await controller.handle({ type: "ready", protocol: PROTOCOL_VERSION });
    expect(adds(posted)).toHaveLength(2);
    // Closed again: the next add waits for the next panel.
    controller.disconnect();
    controller.composer.addContext({ kind: "folder", path: "src" });
    const later: HostToWebview[] = [];
    controller.connect((m) => later.push(m));
    await controller.handle({ type: "ready", protocol: PROTOCOL_VERSION });
    expect(adds(later)).toEqual([{ kind: "folder", path: "src" }]);
    controller.dispose();
  });

  it("sends the chips the panel kept with the message, read from the files, and nothing after", async () => {
    server = await startScriptedLlmServer({ script: () => ({ text: "Seen." }) });
    const c = vscode.__state.config;
    c.set("yoke.provider", "openai-compatible");
    c.set("yoke.baseUrl", server.openaiBaseUrl);
    c.set("yoke.model", "scripted");
    const parts = fakeExtensionParts(nodePath.join(dir, "storage"));
    const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true);
    const posted: HostToWebview[] = [];
    controller.connect((m) => posted.push(m));
    await controller.handle({ type: "ready", protocol: PROTOCOL_VERSION });
    const sel: ContextItemView = { kind: "selection", path: "src/ab.ts", startLine: 3, endLine: 4, text: "export const a = 1;\nexport const b = 2;\n" };
    controller.composer.addContext(sel);
    controller.composer.addContext({ kind: "file", path: "README.md" });
    controller.composer.addContext({ kind: "file", path: "notes.txt" });
    expect(adds(posted)).toHaveLength(3);

    // The user removed notes.txt in the panel: the panel sends the two left.
    await controller.handle({ type: "composer.send", text: "What do these do?", items: [sel, { kind: "file", path: "README.md" }], mode: "send" });
    const ex = readExchange(server.requests[0]!);
    expect(ex.userText.startsWith("What do these do?")).toBe(true);
    const all = JSON.stringify(server.requests[0]!.body.messages);
    expect(all).toContain('<attachment kind=\\"selection\\" path=\\"src/ab.ts\\" lines=\\"3-4\\">\\nexport const a = 1;\\nexport const b = 2;');
    // The file as read_file shows it (hashline anchors), read when the message was sent.
    expect(all).toMatch(/<attachment kind=\\"file\\" path=\\"README.md\\">\\nFile: README.md \(lines 1-1 of 1\)\\n1#[A-Z]{2}\|# tidewatch/);
    expect(all).not.toContain("private notes");

    await controller.handle({ type: "prompt", text: "And now?" });
    const second = JSON.stringify((server.requests[1]!.body.messages as unknown[]).slice(-1));
    expect(second).toContain("And now?");
    expect(second).not.toContain("<attachment");
    // The tap sees what the panel gets, and keeps seeing it once the panel is gone (the status bar's feed).
    const tapped: HostToWebview[] = [];
    controller.onDidPost((m) => tapped.push(m));
    controller.disconnect();
    controller.postView({ type: "composer.focus" });
    expect(tapped).toEqual([{ type: "composer.focus" }]);
    controller.dispose();
  });
});
