// A window reload during a review, through the whole host: the panel's controller with the real
// core, the real VS Code reviewer over the fake editor, and a scripted model over HTTP. The first
// window's review is left pending; the next window's controller resumes the session on restore,
// the review re-attaches to the editor hot exit kept, and the user's per-hunk decision reaches the
// model as the result of the original edit_file call.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../../src/demo/scripted-llm-server";
import { readExchange } from "../../../src/demo/wire-conversation";
import type { FakeEditorVscode } from "./fake-editor";

vi.mock("vscode", async () => (await import("./fake-editor")).createFakeEditor());

const vscode = (await import("vscode")) as unknown as FakeEditorVscode;
const { fakeExtensionParts } = await import("../protocol/fake-vscode");
const { registerReview } = await import("../../../src/host/review");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

const BEFORE = "export const a = 1;\nexport const b = 2;\nexport const c = 3;\nexport const d = 4;\nexport const e = 5;\n";
const EDITS = [
  { old_string: "export const a = 1;", new_string: "export const a = 10;" },
  { old_string: "export const e = 5;", new_string: "export const e = 50;" },
];

let dir: string;
let file: string;
let server: ScriptedServer;
let storage: string;

beforeEach(async () => {
  vscode.__test.reset();
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-restore-")));
  const ws = nodePath.join(dir, "ws");
  fs.mkdirSync(ws);
  file = nodePath.join(ws, "consts.ts");
  fs.writeFileSync(file, BEFORE);
  storage = nodePath.join(dir, "storage");
  vscode.__state.folders = [{ uri: vscode.Uri.file(ws) as never, name: "ws", index: 0 }];
  server = await startScriptedLlmServer({
    script: (req) => {
      const ex = readExchange(req);
      if (!ex.steps.some((s) => s.name === "read_file")) return { toolCalls: [{ name: "read_file", input: { path: "consts.ts" } }] };
      if (!ex.steps.some((s) => s.name === "edit_file")) return { toolCalls: [{ name: "edit_file", input: { path: "consts.ts", edits: EDITS } }] };
      return { text: "Done." };
    },
  });
  const c = vscode.__state.config;
  c.set("yoke.provider", "openai-compatible");
  c.set("yoke.baseUrl", server.openaiBaseUrl);
  c.set("yoke.model", "scripted");
  c.set("yoke.permissionMode", "default");
});

afterEach(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One window: the extension's review feature and the panel's controller, sharing the workspace state. */
function openWindow(memento: Map<string, unknown> | undefined) {
  const parts = fakeExtensionParts(storage);
  if (memento) parts.context.workspaceState.update = async (k: string, v: unknown) => void memento.set(k, v);
  if (memento) parts.context.workspaceState.get = <T>(k: string) => memento.get(k) as T | undefined;
  const review = registerReview(parts.context as never, parts.log as never);
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true, review);
  controller.connect(() => undefined);
  return {
    review,
    controller,
    parts,
    /** What VS Code does to the extension on reload. */
    close() {
      for (const d of parts.context.subscriptions) d.dispose();
      controller.dispose();
    },
  };
}

describe("a review pending at a window reload, through the panel's controller", () => {
  it("comes back after the reload, and the user's decision is the result of the original call", async () => {
    const memento = new Map<string, unknown>();
    const first = openWindow(memento);
    void first.controller.send("make a and e bigger");
    await vi.waitFor(() => expect(first.review.reviewer.pending()).toHaveLength(1), { timeout: 10_000 });
    const doc = vscode.__editor.docs.get(vscode.Uri.file(file).toString())!;
    expect(doc.getText()).toContain("export const a = 10;");
    expect(fs.readFileSync(file, "utf8")).toBe(BEFORE);
    const requestsBefore = server.requests.length;

    first.close();
    vscode.__test.reload({ hotExit: true });
    const second = openWindow(memento);
    // The panel connects: the last session is restored and, with a review pending, resumed.
    await second.controller.snapshot();
    await vi.waitFor(() => expect(second.review.reviewer.pending()).toHaveLength(1), { timeout: 10_000 });
    expect(doc.getText()).toBe(BEFORE.replace("a = 1;", "a = 10;").replace("e = 5;", "e = 50;")); // not applied twice
    expect(server.requests.length).toBe(requestsBefore); // the model was not asked again
    expect(second.review.list()).toEqual([expect.objectContaining({ relPath: "consts.ts", status: "pending", undecided: 2 })]);
    expect(second.parts.logLines.some((l) => l.includes("a change was waiting for review; resuming to show it again"))).toBe(true);

    const editId = second.review.reviewer.pending()[0]!.editId;
    await second.review.reviewer.decide(editId, [0], "accepted");
    await second.review.reviewer.decide(editId, [1], "rejected");
    await vi.waitFor(() => expect(second.controller.isRunning).toBe(false), { timeout: 10_000 });

    expect(fs.readFileSync(file, "utf8")).toBe(BEFORE.replace("a = 1;", "a = 10;"));
    const last = readExchange(server.requests.at(-1)!);
    const results = last.steps.filter((s) => s.name === "edit_file");
    expect(results).toHaveLength(1); // one result for the one call: the decision, not "interrupted"
    expect(results[0]!.output).toContain("The user partly accepted the change to consts.ts: hunk 1 applied, hunk 2 rejected.");
    const snap = await second.controller.snapshot();
    expect(snap.state).toBe("done");
    second.close();
  });
});
