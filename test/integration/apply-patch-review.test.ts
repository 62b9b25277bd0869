// A multi-file apply_patch through a whole session in the panel (issue 21): the panel's controller
// with the real core, the real VS Code reviewer over the fake editor (real files), and a scripted
// model over HTTP that sends one apply_patch adding, updating and deleting a file. The three files
// are one pending change; the user rejects one hunk of the update and accepts the rest; the disk
// holds exactly that, and the model's tool result says per file what happened. A second session
// rejects the whole change: the disk is unchanged and the model is told so.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import type { FakeEditorVscode } from "../unit/review/fake-editor";

vi.mock("vscode", async () => (await import("../unit/review/fake-editor")).createFakeEditor());

const vscode = (await import("vscode")) as unknown as FakeEditorVscode;
const { fakeExtensionParts } = await import("../unit/protocol/fake-vscode");
const { registerReview } = await import("../../src/host/review");
const { SessionController } = await import("../../src/host/session-controller");
const { ApiKeys } = await import("../../src/host/settings");

const TIDES = Array.from({ length: 12 }, (_, i) => `export const t${i + 1} = ${i + 1};\n`).join("");
const PATCH = [
  "*** Begin Patch",
  "*** Add File: src/moon.ts",
  "+export const phase = 0.5;",
  "*** Update File: src/tides.ts",
  "@@",
  " export const t1 = 1;",
  "-export const t2 = 2;",
  "+export const t2 = 20;",
  " export const t3 = 3;",
  "@@",
  " export const t9 = 9;",
  "-export const t10 = 10;",
  "+export const t10 = 100;",
  " export const t11 = 11;",
  "*** Delete File: src/legacy.ts",
  "*** End Patch",
].join("\n");

let dir: string;
let ws: string;
let server: ScriptedServer;
let storage: string;
const at = (rel: string) => nodePath.join(ws, rel);

beforeEach(async () => {
  vscode.__test.reset();
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-patch-review-")));
  ws = nodePath.join(dir, "ws");
  fs.mkdirSync(nodePath.join(ws, "src"), { recursive: true });
  fs.writeFileSync(at("src/tides.ts"), TIDES);
  fs.writeFileSync(at("src/legacy.ts"), "export const old = true;\n");
  storage = nodePath.join(dir, "storage");
  vscode.__state.folders = [{ uri: vscode.Uri.file(ws) as never, name: "ws", index: 0 }];
  server = await startScriptedLlmServer({
    script: (req) => {
      const ex = readExchange(req);
      if (!ex.steps.some((s) => s.name === "apply_patch")) return { toolCalls: [{ name: "apply_patch", input: { input: PATCH } }] };
      return { text: "Done." };
    },
  });
  const c = vscode.__state.config;
  c.set("yoke.provider", "openai-compatible");
  c.set("yoke.baseUrl", server.openaiBaseUrl);
  c.set("yoke.model", "scripted");
  c.set("yoke.permissionMode", "default");
  c.set("yoke.edits.tool", "apply_patch");
});

afterEach(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function openWindow() {
  const parts = fakeExtensionParts(storage);
  const review = registerReview(parts.context as never, parts.log as never);
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true, review);
  controller.connect(() => undefined);
  return {
    review,
    controller,
    close() {
      for (const d of parts.context.subscriptions) d.dispose();
      controller.dispose();
    },
  };
}

/** The apply_patch result the model got in its last request. */
function patchResult(): string {
  const last = readExchange(server.requests.at(-1)!);
  const results = last.steps.filter((s) => s.name === "apply_patch");
  expect(results).toHaveLength(1);
  return String(results[0]!.output);
}

describe("a 3-file apply_patch in a session with the panel's review", () => {
  it("is one pending change; one hunk rejected, the rest accepted: the disk holds exactly that and the model is told per file", async () => {
    const w = openWindow();
    void w.controller.send("bump the tides, add the moon, drop legacy");
    await vi.waitFor(() => expect(w.review.reviewer.pending()).toHaveLength(3), { timeout: 15_000 });
    const items = w.review.list();
    expect(items.map((i) => [i.op, i.relPath, i.status, i.hunks])).toEqual([
      ["add", "src/moon.ts", "pending", 1],
      ["update", "src/tides.ts", "pending", 2],
      ["delete", "src/legacy.ts", "pending", 1],
    ]);
    expect(new Set(items.map((i) => i.setId)).size).toBe(1);
    const setId = items[0]!.setId!;
    // Nothing written while the change waits (the new file exists only empty, as a single new file's review does).
    expect(fs.readFileSync(at("src/tides.ts"), "utf8")).toBe(TIDES);
    expect(fs.readFileSync(at("src/legacy.ts"), "utf8")).toBe("export const old = true;\n");

    const tides = items[1]!.editId;
    await w.review.reviewer.decide(tides, [1], "rejected");
    expect(w.review.reviewer.pending()).toHaveLength(3);
    expect(fs.readFileSync(at("src/tides.ts"), "utf8")).toBe(TIDES);
    await w.review.accept(setId);
    await vi.waitFor(() => expect(w.controller.isRunning).toBe(false), { timeout: 15_000 });

    expect(fs.readFileSync(at("src/moon.ts"), "utf8")).toBe("export const phase = 0.5;\n");
    expect(fs.readFileSync(at("src/tides.ts"), "utf8")).toBe(TIDES.replace("t2 = 2;", "t2 = 20;"));
    expect(fs.existsSync(at("src/legacy.ts"))).toBe(false);
    const told = patchResult();
    expect(told).toContain("The user reviewed the patch (3 files) as one change: 2 accepted, 1 partly accepted. Per file:");
    expect(told).toContain("- A src/moon.ts: accepted (created).");
    expect(told).toContain("- M src/tides.ts: partly accepted: hunk 1 applied, hunk 2 rejected.");
    expect(told).toContain("    hunk 2 (rejected, as before), lines 10-10:\n    export const t10 = 10;");
    expect(told).toContain("- D src/legacy.ts: accepted; the file was deleted.");
    w.close();
  });

  it("rejected as a whole, leaves the disk exactly as it was and the model is told no file changed", async () => {
    const w = openWindow();
    void w.controller.send("bump the tides, add the moon, drop legacy");
    await vi.waitFor(() => expect(w.review.reviewer.pending()).toHaveLength(3), { timeout: 15_000 });
    await w.review.reject(w.review.list()[0]!.setId!, "not this way");
    await vi.waitFor(() => expect(w.controller.isRunning).toBe(false), { timeout: 15_000 });
    expect(fs.existsSync(at("src/moon.ts"))).toBe(false);
    expect(fs.readFileSync(at("src/tides.ts"), "utf8")).toBe(TIDES);
    expect(fs.readFileSync(at("src/legacy.ts"), "utf8")).toBe("export const old = true;\n");
    expect(patchResult()).toMatch(
      /^The user rejected the whole patch \(3 files\); no file was changed\. Reason: not this way\n- A src\/moon\.ts: rejected\n- M src\/tides\.ts: rejected\n- D src\/legacy\.ts: rejected/,
    );
    w.close();
  });
});
