// "Add Selection/File to Chat" end to end outside VS Code: the attachments wait in PromptContext,
// the panel gets them as chips (composer.context), a chip can be removed (composer.removeContext),
// and the next prompt reaches a real OpenAI-compatible server with them; then they are gone.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../../src/demo/scripted-llm-server";
import { readExchange } from "../../../src/demo/wire-conversation";
import type { HostToWebview } from "../../../src/protocol/messages";
import type { FakeVscodeState } from "../protocol/fake-vscode";

vi.mock("vscode", async () => (await import("../protocol/fake-vscode")).createFakeVscode());

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts } = await import("../protocol/fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");
const { PromptContext } = await import("../../../src/host/commands/context");
const { fileAttachment } = await import("../../../src/host/commands/prompts");

let dir: string;
let server: ScriptedServer | undefined;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-palette-")));
  const workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(workspace);
  const s = vscode.__state;
  s.isTrusted = true;
  s.folders = [{ uri: vscode.Uri.file(workspace) as never, name: "ws", index: 0 }];
  s.config.clear();
  s.config.set("yoke.sessionDir", nodePath.join(dir, "sessions"));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("context attached from the editor", () => {
  it("shows chips, drops a removed one, and sends the rest with the next prompt only", async () => {
    server = await startScriptedLlmServer({ script: () => ({ text: "Seen." }) });
    const c = vscode.__state.config;
    c.set("yoke.provider", "openai-compatible");
    c.set("yoke.baseUrl", server.openaiBaseUrl);
    c.set("yoke.model", "scripted");
    const parts = fakeExtensionParts(nodePath.join(dir, "storage"));
    const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true);
    const posted: HostToWebview[] = [];
    const tapped: HostToWebview[] = [];
    controller.connect((m) => posted.push(m));
    controller.onDidPost((m) => tapped.push(m));
    const context = new PromptContext();
    controller.promptContext = context;
    const chips: string[][] = [];
    context.onDidChange((items) => chips.push(items.map((i) => i.label)));

    const lines = ["export const a = 1;", "export const b = 2;"];
    context.add({ kind: "selection", excerpt: { path: "src/ab.ts", startLine: 3, endLine: 4, languageId: "typescript", text: lines.join("\n"), lines, wholeLines: true } });
    context.add(fileAttachment("README.md", new TextEncoder().encode("# tidewatch\n"), { languageId: "markdown" }));
    context.add(fileAttachment("notes.txt", new TextEncoder().encode("private notes\n")));
    expect(chips.at(-1)).toEqual(["ab.ts:3-4", "README.md", "notes.txt"]);
    const notes = context.chips().find((x) => x.label === "notes.txt")!;
    await controller.handle({ type: "composer.removeContext", id: notes.id });
    expect(chips.at(-1)).toEqual(["ab.ts:3-4", "README.md"]);

    await controller.handle({ type: "prompt", text: "What do these do?" });
    const first = readExchange(server.requests[0]!).userText;
    expect(first.startsWith("What do these do?\n\nContext I attached (2 items):")).toBe(true);
    expect(first).toContain("Selection from src/ab.ts, lines 3-4:\n```typescript\nexport const a = 1;\nexport const b = 2;\n```");
    expect(first).toContain("File README.md:\n```markdown\n# tidewatch\n```");
    expect(first).not.toContain("private notes");
    expect(chips.at(-1)).toEqual([]);

    await controller.handle({ type: "prompt", text: "And now?" });
    expect(readExchange(server.requests[1]!).userText).toBe("And now?");
    // The tap sees what the panel gets, and keeps seeing it once the panel is gone (the status bar's feed).
    expect(tapped.filter((m) => m.type === "status").length).toBe(posted.filter((m) => m.type === "status").length);
    controller.disconnect();
    const before = tapped.length;
    controller.postView({ type: "composer.focus" });
    expect(tapped.length).toBe(before + 1);
    controller.dispose();
    context.dispose();
  });
});
