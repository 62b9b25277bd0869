// A change of several files (apply_patch) reviewed as one by the VS Code reviewer, over the fake
// editor with real files: every file is listed together (one setId), each file's hunks are
// decided in its own editor with the CodeLens, nothing is written until every file is decided,
// then all files are written (or, when a write fails, none: the ones written are put back).
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangeSetOutcome, ProposedChangeSet, ProposedFile } from "../../../src/core/review";
import { computeHunks } from "../../../src/core/review-hunks";
import { describeSetOutcome } from "../../../src/core/review-set";
import type { FakeDocument, FakeEditorVscode } from "./fake-editor";

vi.mock("vscode", async () => (await import("./fake-editor")).createFakeEditor());

const vscode = (await import("vscode")) as unknown as FakeEditorVscode;
const { fakeExtensionParts } = await import("../protocol/fake-vscode");
const { registerReview } = await import("../../../src/host/review");
type Feature = ReturnType<typeof registerReview>;

const A_BEFORE = Array.from({ length: 12 }, (_, i) => `const v${i + 1} = ${i + 1};\n`).join("");
const A_AFTER = A_BEFORE.replace("const v2 = 2;\n", "const v2 = 20;\n").replace("const v10 = 10;\n", "const v10 = 100;\n");
const OLD = "legacy\nstuff\n";
const NEW = "export const fresh = true;\n";

let dir: string;
let parts: ReturnType<typeof fakeExtensionParts>;
let feature: Feature;
const p = (rel: string) => nodePath.join(dir, rel);
const disk = (rel: string) => fs.readFileSync(p(rel), "utf8");

beforeEach(() => {
  vscode.__test.reset();
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-set-")));
  fs.mkdirSync(p("src"));
  fs.writeFileSync(p("src/a.ts"), A_BEFORE);
  fs.writeFileSync(p("src/old.ts"), OLD);
  vscode.__state.folders = [{ uri: vscode.Uri.file(dir) as never, name: "ws", index: 0 }];
  parts = fakeExtensionParts(nodePath.join(dir, "storage"));
  feature = registerReview(parts.context as never, parts.log as never);
});

afterEach(() => {
  for (const d of parts.context.subscriptions) d.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

function file(rel: string, op: ProposedFile["op"], before: string | null, after: string, from?: string): ProposedFile {
  return { editId: `call1:${rel}`, callId: "call1", path: p(rel), relPath: rel, before, after, tool: "apply_patch", op, ...(from ? { from: { path: p(from), relPath: from } } : {}) };
}

let THREE: ProposedChangeSet;
beforeEach(() => {
  THREE = {
    setId: "call1",
    callId: "call1",
    tool: "apply_patch",
    files: [file("src/new.ts", "add", null, NEW), file("src/a.ts", "update", A_BEFORE, A_AFTER), file("src/old.ts", "delete", OLD, "")],
  };
});

async function proposeSet(set: ProposedChangeSet, signal = new AbortController().signal): Promise<{ outcome: Promise<ChangeSetOutcome> }> {
  const outcome = feature.reviewer.reviewSet(set, "ask", signal);
  let done = false;
  void outcome.then(() => (done = true));
  await vi.waitFor(() => expect(done || feature.reviewer.pending().length === set.files.length).toBe(true));
  return { outcome };
}

const lensTitles = (doc: FakeDocument) => vscode.__test.lenses(doc).map((l) => l.command?.title ?? "");
const docAt = (rel: string) => vscode.__editor.docs.get(vscode.Uri.file(p(rel)).toString()) as FakeDocument | undefined;

describe("a change of several files under review as one", () => {
  it("lists every file together, writes nothing until all are decided, then writes exactly the decisions (one hunk rejected)", async () => {
    const { outcome } = await proposeSet(THREE);
    const items = feature.list();
    expect(items.map((i) => [i.relPath, i.op, i.setId, i.hunks])).toEqual([
      ["src/new.ts", "add", "call1", 1],
      ["src/a.ts", "update", "call1", 2],
      ["src/old.ts", "delete", "call1", 1],
    ]);
    // Each file is shown inline with its own CodeLens, plus the change's.
    const a = docAt("src/a.ts")!;
    expect(a.getText()).toBe(A_AFTER);
    expect(lensTitles(a)).toEqual(expect.arrayContaining(["Accept File", "Reject File", "Accept Change", "Reject Change", "Accept", "Reject"]));
    expect(lensTitles(a).some((t) => t.startsWith("part of one change of 3 files"))).toBe(true);
    expect(docAt("src/old.ts")!.getText()).toBe("");
    // A decided file is not written while others wait.
    await feature.reviewer.decide("call1:src/a.ts", [1], "rejected");
    await feature.reviewer.decide("call1:src/a.ts", [0], "accepted");
    expect(disk("src/a.ts")).toBe(A_BEFORE);
    expect(feature.reviewer.pending()).toHaveLength(3);
    await feature.accept("call1");
    const o = await outcome;
    expect(o.error).toBeUndefined();
    expect(o.files.map((f) => [f.status, f.finalContent])).toEqual([
      ["accepted", NEW],
      ["partial", A_BEFORE.replace("const v2 = 2;\n", "const v2 = 20;\n")],
      ["accepted", null],
    ]);
    expect(disk("src/new.ts")).toBe(NEW);
    expect(disk("src/a.ts")).toBe(A_BEFORE.replace("const v2 = 2;\n", "const v2 = 20;\n"));
    expect(fs.existsSync(p("src/old.ts"))).toBe(false);
    expect(feature.reviewer.pending()).toHaveLength(0);
    const told = describeSetOutcome(THREE, o);
    expect(told).toContain("The user reviewed the patch (3 files) as one change: 2 accepted, 1 partly accepted. Per file:");
    expect(told).toContain("- A src/new.ts: accepted (created).");
    expect(told).toContain("- M src/a.ts: partly accepted: hunk 1 applied, hunk 2 rejected.");
    expect(told).toContain("- D src/old.ts: accepted; the file was deleted.");
  });

  it("rejecting the whole change leaves every file exactly as it was (the new file never exists)", async () => {
    const { outcome } = await proposeSet(THREE);
    await feature.reject("call1", "not now");
    const o = await outcome;
    expect(o.files.map((f) => f.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(fs.existsSync(p("src/new.ts"))).toBe(false);
    expect(disk("src/a.ts")).toBe(A_BEFORE);
    expect(disk("src/old.ts")).toBe(OLD);
    expect(docAt("src/a.ts")!.getText()).toBe(A_BEFORE);
    expect(describeSetOutcome(THREE, o)).toMatch(/^The user rejected the whole patch \(3 files\); no file was changed\. Reason: not now\n- A src\/new\.ts: rejected/);
  });

  it("a move is reviewed in the source's document and written to the destination; a pure rename follows the rest", async () => {
    fs.writeFileSync(p("src/r.ts"), "same\n");
    const set: ProposedChangeSet = {
      setId: "call2",
      callId: "call2",
      tool: "apply_patch",
      files: [
        { ...file("src/b.ts", "move", A_BEFORE, A_AFTER, "src/a.ts"), editId: "call2:src/b.ts", callId: "call2" },
        { ...file("src/r2.ts", "move", "same\n", "same\n", "src/r.ts"), editId: "call2:src/r2.ts", callId: "call2" },
      ],
    };
    const { outcome } = await proposeSet(set);
    expect(feature.list().map((i) => [i.from, i.relPath, i.op, i.hunks])).toEqual([
      ["src/a.ts", "src/b.ts", "move", 2],
      ["src/r.ts", "src/r2.ts", "move", 0],
    ]);
    expect(docAt("src/a.ts")!.getText()).toBe(A_AFTER);
    await feature.accept("call2:src/b.ts");
    const o = await outcome;
    expect(o.files.map((f) => [f.status, f.finalContent])).toEqual([
      ["accepted", A_AFTER],
      ["accepted", "same\n"],
    ]);
    expect(disk("src/b.ts")).toBe(A_AFTER);
    expect(disk("src/r2.ts")).toBe("same\n");
    expect(fs.existsSync(p("src/a.ts"))).toBe(false);
    expect(fs.existsSync(p("src/r.ts"))).toBe(false);
    expect(describeSetOutcome(set, o)).toContain("- R src/a.ts → src/b.ts: accepted. src/a.ts was moved to src/b.ts.");
  });

  it("with auto save on (staged), writes nothing before the decision, then all of it", async () => {
    vscode.__state.config.set("files.autoSave", "afterDelay");
    const { outcome } = await proposeSet(THREE);
    expect(disk("src/a.ts")).toBe(A_BEFORE);
    expect(disk("src/old.ts")).toBe(OLD);
    expect(fs.existsSync(p("src/new.ts"))).toBe(false);
    await feature.reviewer.decide("call1:src/a.ts", [0], "rejected");
    await feature.accept("call1");
    const o = await outcome;
    expect(o.files.map((f) => f.status)).toEqual(["accepted", "partial", "accepted"]);
    expect(disk("src/new.ts")).toBe(NEW);
    expect(disk("src/a.ts")).toBe(A_BEFORE.replace("const v10 = 10;\n", "const v10 = 100;\n"));
    expect(fs.existsSync(p("src/old.ts"))).toBe(false);
  });

  it("when a write fails, the files already written are put back and the model is told nothing was changed", async () => {
    vscode.__state.config.set("files.autoSave", "afterDelay");
    const { outcome } = await proposeSet(THREE);
    // While the change waits, the user changes a.ts in the lines it touches: its write is refused, after new.ts was written.
    const real = (await vscode.workspace.openTextDocument(vscode.Uri.file(p("src/a.ts")) as never)) as unknown as FakeDocument;
    await vscode.__test.type(real, new vscode.Range(1, 0, 2, 0), "const v2 = -2;\n");
    await vscode.__test.save(real, vscode.TextDocumentSaveReason.AfterDelay);
    await feature.accept("call1");
    const o = await outcome;
    expect(o.error).toMatch(/^writing src\/a\.ts failed \(src\/a\.ts was changed outside the review.*so the files of the change already written were put back as they were\.$/);
    expect(fs.existsSync(p("src/new.ts"))).toBe(false);
    expect(disk("src/old.ts")).toBe(OLD);
    expect(disk("src/a.ts")).toBe(A_BEFORE.replace("const v2 = 2;\n", "const v2 = -2;\n"));
    expect(describeSetOutcome(THREE, o)).toMatch(/^The patch \(3 files\) was not applied: writing src\/a\.ts failed .* No file was changed\.$/);
  });

  it("takes back what was shown when a file of the change cannot be put up", async () => {
    fs.writeFileSync(p("src/new.ts"), "someone else's\n");
    const set: ProposedChangeSet = { ...THREE, files: [THREE.files[1]!, THREE.files[0]!] };
    const o = await feature.reviewer.reviewSet(set, "ask", new AbortController().signal);
    expect(o.error).toMatch(/src\/new\.ts now exists/);
    expect(disk("src/a.ts")).toBe(A_BEFORE);
    expect(docAt("src/a.ts")!.getText()).toBe(A_BEFORE);
    expect(feature.reviewer.pending()).toHaveLength(0);
  });

  it("Stop takes the whole change back", async () => {
    const stop = new AbortController();
    const { outcome } = await proposeSet(THREE, stop.signal);
    stop.abort();
    const o = await outcome;
    expect(o.files.every((f) => f.status === "rejected")).toBe(true);
    expect(fs.existsSync(p("src/new.ts"))).toBe(false);
    expect(disk("src/a.ts")).toBe(A_BEFORE);
    expect(disk("src/old.ts")).toBe(OLD);
    expect(computeHunks(A_BEFORE, docAt("src/a.ts")!.getText())).toEqual([]);
  });
});
