// The VS Code reviewer over a fake editor backed by real files: a review taken up again after a
// window reload re-attaches to the restored document (never applying the proposal twice), and
// with files.autoSave on a proposal under review never reaches the disk until it is accepted.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ProposedChange, ReviewOutcome } from "../../../src/core/review";
import { applyHunks, computeHunks } from "../../../src/core/review-hunks";
import type { FakeDocument, FakeEditorVscode } from "./fake-editor";

vi.mock("vscode", async () => (await import("./fake-editor")).createFakeEditor());

const vscode = (await import("vscode")) as unknown as FakeEditorVscode;
const { fakeExtensionParts } = await import("../protocol/fake-vscode");
const { registerReview } = await import("../../../src/host/review");
type Feature = ReturnType<typeof registerReview>;

const BEFORE = Array.from({ length: 12 }, (_, i) => `const v${i + 1} = ${i + 1};\n`).join("");
const AFTER = BEFORE.replace("const v2 = 2;\n", "const v2 = 2; // two\n").replace("const v10 = 10;\n", "const v10 = 100;\nconst v10b = 101;\n");
const HUNKS = computeHunks(BEFORE, AFTER);

let dir: string;
let file: string;
let parts: ReturnType<typeof fakeExtensionParts>;
let feature: Feature;

function start(): Feature {
  parts = fakeExtensionParts(nodePath.join(dir, "storage"));
  return registerReview(parts.context as never, parts.log as never);
}

/** Deactivates the extension (as VS Code does on reload) and starts it again in a "new window". */
function reloadWindow(hotExit: boolean): Feature {
  for (const d of parts.context.subscriptions) d.dispose();
  vscode.__test.reload({ hotExit });
  return start();
}

beforeEach(() => {
  vscode.__test.reset();
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-reviewer-")));
  fs.mkdirSync(nodePath.join(dir, "src"));
  file = nodePath.join(dir, "src", "f.ts");
  fs.writeFileSync(file, BEFORE);
  vscode.__state.folders = [{ uri: vscode.Uri.file(dir) as never, name: "ws", index: 0 }];
  feature = start();
});

afterEach(() => {
  for (const d of parts.context.subscriptions) d.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

function change(over: Partial<ProposedChange> = {}): ProposedChange {
  return { editId: "c1:src/f.ts", callId: "c1", path: file, relPath: "src/f.ts", before: BEFORE, after: AFTER, tool: "edit_file", ...over };
}

const disk = (p = file) => fs.readFileSync(p, "utf8");
const docOf = (uri: { toString(): string }) => vscode.__editor.docs.get(uri.toString()) as FakeDocument | undefined;
const fileDoc = () => docOf(vscode.Uri.file(file));
/** The file was written through a document save at some point. */
const savedFile = () => vscode.__editor.saves.some(([p]) => p === file);

/** Starts a review and waits until it is pending (listed); `outcome` resolves when it is decided. */
async function propose(f: Feature, c: ProposedChange, signal = new AbortController().signal): Promise<{ outcome: Promise<ReviewOutcome> }> {
  const outcome = f.reviewer.review(c, "ask", signal);
  let done = false;
  void outcome.then(() => (done = true));
  await vi.waitFor(() => expect(done || f.reviewer.pending().length === 1).toBe(true));
  return { outcome };
}

const entry = (f: Feature) => f.reviewer.pending()[0]!;
const lensTitles = (doc: FakeDocument) => vscode.__test.lenses(doc).map((l) => l.command?.title ?? "");

describe("a review pending at a window reload", () => {
  it("re-attaches to the proposal hot exit kept in the editor, without applying it twice, and decides per hunk", async () => {
    await propose(feature, change());
    expect(fileDoc()!.getText()).toBe(AFTER);
    expect(disk()).toBe(BEFORE);

    feature = reloadWindow(true);
    expect(fileDoc()!.isDirty).toBe(true); // hot exit kept the proposal
    const { outcome } = await propose(feature, change({ resumed: true }));
    const doc = fileDoc()!;
    expect(doc.getText()).toBe(AFTER);
    const e = entry(feature);
    expect(e.ranges).toEqual([
      { start: 1, end: 2 },
      { start: 9, end: 11 },
    ]);
    // CodeLens and decorations come back: per file and per hunk.
    expect(lensTitles(doc)).toEqual(expect.arrayContaining(["Yoke: 2 of 2 hunks to review", "Accept File", "Reject File", "Accept", "Reject", "hunk 1: +1 −1", "hunk 2: +2 −1"]));
    const editor = vscode.__editor.editors.find((ed) => ed.document === doc)!;
    expect([...editor.decorations.values()].flat().length).toBeGreaterThan(0);
    expect(feature.list()).toEqual([expect.objectContaining({ editId: "c1:src/f.ts", status: "pending", undecided: 2 })]);

    await feature.reviewer.decide(e.editId, [0], "accepted");
    await feature.reviewer.decide(e.editId, [1], "rejected");
    const o = await outcome;
    expect(o).toMatchObject({ status: "partial", hunkDecisions: ["accepted", "rejected"] });
    expect(disk()).toBe(applyHunks(BEFORE, HUNKS, ["accepted", "rejected"]));
    expect(feature.list()).toEqual([]);
  });

  it("puts the proposal in again when the editor holds the original (hot exit off, or the tab was closed)", async () => {
    await propose(feature, change());
    feature = reloadWindow(false);
    expect(fileDoc()).toBeUndefined();
    const { outcome } = await propose(feature, change({ resumed: true }));
    expect(fileDoc()!.getText()).toBe(AFTER);
    await feature.accept(entry(feature).editId);
    expect(await outcome).toMatchObject({ status: "accepted" });
    expect(disk()).toBe(AFTER);
  });

  it("keeps a hunk the user rejected before the reload rejected, and the rest to decide", async () => {
    await propose(feature, change());
    await feature.reviewer.decide("c1:src/f.ts", [1], "rejected");
    feature = reloadWindow(true);
    const { outcome } = await propose(feature, change({ resumed: true }));
    const e = entry(feature);
    expect(e.decisions).toEqual([undefined, "rejected"]);
    expect(lensTitles(fileDoc()!)).toContain("Yoke: 1 of 2 hunks to review");
    await feature.accept(e.editId);
    expect(await outcome).toMatchObject({ status: "partial", hunkDecisions: ["accepted", "rejected"] });
    expect(disk()).toBe(applyHunks(BEFORE, HUNKS, ["accepted", "rejected"]));
  });

  it("keeps what the user typed into the proposal before the reload, and says so", async () => {
    await propose(feature, change());
    const doc = fileDoc()!;
    await vscode.__test.type(doc, new vscode.Range(1, 13, 1, 13), " /* mine */");
    feature = reloadWindow(true);
    const { outcome } = await propose(feature, change({ resumed: true }));
    expect(fileDoc()!.getText()).toContain("const v2 = 2; /* mine */ // two");
    expect(entry(feature).touched.has(0)).toBe(true);
    await feature.accept(entry(feature).editId);
    expect(await outcome).toMatchObject({ status: "accepted", userEdited: true });
    expect(disk()).toBe(AFTER.replace("const v2 = 2; // two", "const v2 = 2; /* mine */ // two"));
  });

  it("refuses when the file on disk changed while the window was away", async () => {
    await propose(feature, change());
    feature = reloadWindow(false);
    fs.writeFileSync(file, "changed\n");
    const o = await feature.reviewer.review(change({ resumed: true }), "ask", new AbortController().signal);
    expect(o.error).toMatch(/^src\/f\.ts changed on disk while its review was interrupted, so your change was not applied/);
    expect(disk()).toBe("changed\n");
  });

  it("does not take the proposal back when the extension host goes away (the next window takes it up)", async () => {
    const outcome = feature.reviewer.review(change(), "ask", new AbortController().signal);
    await vi.waitFor(() => expect(feature.reviewer.pending()).toHaveLength(1));
    let settled = false;
    void outcome.then(() => (settled = true));
    for (const d of parts.context.subscriptions) d.dispose();
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    expect(fileDoc()!.getText()).toBe(AFTER);
    expect(disk()).toBe(BEFORE);
    feature = start();
  });
});

describe("files.autoSave and a proposal under review", () => {
  const autoSave = () => vscode.__state.config.set("files.autoSave", "afterDelay");
  const proposalDoc = () => [...vscode.__editor.docs.values()].find((d) => d.uri.scheme === "yoke-proposal");

  it("keeps the proposal in a document of its own; auto saves never touch the file; Accept and Reject per hunk write exactly the decision", async () => {
    autoSave();
    const { outcome } = await propose(feature, change());
    const e = entry(feature);
    expect(e.staged).toBe(true);
    const doc = proposalDoc()!;
    expect(doc.getText()).toBe(AFTER);
    expect(fileDoc()?.getText() ?? BEFORE).toBe(BEFORE);
    // Auto save strikes the proposal (and the file) while the user reviews: nothing reaches the disk.
    await vscode.__test.type(doc, new vscode.Range(0, 0, 0, 0), "");
    await vscode.__test.save(doc, vscode.TextDocumentSaveReason.AfterDelay);
    if (fileDoc()) await vscode.__test.save(fileDoc()!, vscode.TextDocumentSaveReason.AfterDelay);
    expect(disk()).toBe(BEFORE);
    expect(feature.reviewer.pending()).toHaveLength(1);
    // The review UI is on the proposal document; the file's own editor points to it.
    expect(lensTitles(doc)).toEqual(expect.arrayContaining(["Accept File", "Accept", "Reject"]));
    const real = await vscode.workspace.openTextDocument(vscode.Uri.file(file) as never);
    expect(lensTitles(real as never)).toEqual(["Yoke: a change to this file waits for your review in its own editor (auto save is on)", "Show Change"]);

    await feature.reviewer.decide(e.editId, [1], "rejected");
    expect(disk()).toBe(BEFORE);
    await feature.reviewer.decide(e.editId, [0], "accepted");
    expect(await outcome).toMatchObject({ status: "partial", hunkDecisions: ["accepted", "rejected"] });
    expect(disk()).toBe(applyHunks(BEFORE, HUNKS, ["accepted", "rejected"]));
    // The proposal document is gone: its tab closed, its text dropped.
    expect(vscode.__editor.groups.flatMap((g) => g.tabs).some((t) => "uri" in t.input && t.input.uri.scheme === "yoke-proposal")).toBe(false);
    expect(() => vscode.__editor.fsProviders.get("yoke-proposal")!.readFile(doc.uri)).toThrow();
  });

  it("Reject and Stop leave the file exactly as it was, never saved", async () => {
    autoSave();
    let { outcome } = await propose(feature, change());
    await feature.reject(entry(feature).editId, "not like this");
    expect(await outcome).toMatchObject({ status: "rejected", message: "not like this" });
    const stop = new AbortController();
    ({ outcome } = await propose(feature, change({ editId: "c2:src/f.ts", callId: "c2" }), stop.signal));
    stop.abort();
    expect(await outcome).toMatchObject({ status: "rejected", message: "the agent was stopped" });
    expect(disk()).toBe(BEFORE);
    expect(savedFile()).toBe(false);
  });

  it("the user's own save of the proposal accepts what it shows (their typing included)", async () => {
    autoSave();
    const { outcome } = await propose(feature, change());
    const doc = proposalDoc()!;
    await vscode.__test.type(doc, new vscode.Range(9, 16, 9, 16), " // checked");
    await vscode.__test.save(doc, vscode.TextDocumentSaveReason.Manual);
    expect(await outcome).toMatchObject({ status: "accepted", userEdited: true });
    expect(disk()).toBe(AFTER.replace("const v10 = 100;", "const v10 = 100; // checked"));
    expect(vscode.__editor.info.some((m) => m.includes("you saved src/f.ts"))).toBe(true);
  });

  it("keeps the user's edits to the file made during the review, and refuses when they touch the change", async () => {
    autoSave();
    let { outcome } = await propose(feature, change());
    const real = (await vscode.workspace.openTextDocument(vscode.Uri.file(file) as never)) as unknown as FakeDocument;
    await vscode.__test.type(real, new vscode.Range(5, 0, 5, 0), "// note\n");
    await vscode.__test.save(real, vscode.TextDocumentSaveReason.AfterDelay);
    await feature.accept(entry(feature).editId);
    expect(await outcome).toMatchObject({ status: "accepted" });
    expect(disk()).toBe(AFTER.replace("const v6 = 6;\n", "// note\nconst v6 = 6;\n"));

    const base = disk();
    const next = base.replace("const v12 = 12;\n", "const v12 = 1200;\n");
    ({ outcome } = await propose(feature, change({ editId: "c2:src/f.ts", callId: "c2", before: base, after: next })));
    const v12 = real.getText().split("\n").indexOf("const v12 = 12;");
    await vscode.__test.type(real, new vscode.Range(v12, 0, v12 + 1, 0), "const v12 = -12;\n");
    await vscode.__test.save(real, vscode.TextDocumentSaveReason.AfterDelay);
    await feature.accept(entry(feature).editId);
    const o = await outcome;
    expect(o.error).toMatch(/^src\/f\.ts was changed outside the review, in the lines the change touches, while the change waited for the user, so the change was not written/);
    expect(disk()).toContain("const v12 = -12;\n");
    expect(disk()).not.toContain("1200");
  });

  it("writes a new file only when it is accepted; a rejected one never exists", async () => {
    autoSave();
    const notes = nodePath.join(dir, "docs", "notes.md");
    const c = change({ editId: "n1:docs/notes.md", callId: "n1", path: notes, relPath: "docs/notes.md", before: null, after: "# Notes\n", tool: "write_file" });
    let { outcome } = await propose(feature, c);
    await vscode.__test.save(proposalDoc()!, vscode.TextDocumentSaveReason.AfterDelay);
    expect(fs.existsSync(notes)).toBe(false);
    await feature.reject(entry(feature).editId);
    expect(await outcome).toMatchObject({ status: "rejected", finalContent: null });
    expect(fs.existsSync(nodePath.join(dir, "docs"))).toBe(false);

    ({ outcome } = await propose(feature, { ...c, editId: "n2:docs/notes.md", callId: "n2" }));
    await feature.accept(entry(feature).editId);
    expect(await outcome).toMatchObject({ status: "accepted", finalContent: "# Notes\n" });
    expect(disk(notes)).toBe("# Notes\n");
  });

  it("an auto save that reaches an inline proposal (auto save switched on during the review) saves the file without it, and the review goes on", async () => {
    const { outcome } = await propose(feature, change());
    const doc = fileDoc()!;
    expect(doc.getText()).toBe(AFTER);
    autoSave();
    await vscode.__test.save(doc, vscode.TextDocumentSaveReason.AfterDelay);
    expect(disk()).toBe(BEFORE);
    expect(doc.getText()).toBe(BEFORE);
    const e = entry(feature);
    expect(e.staged).toBe(true);
    expect(proposalDoc()!.getText()).toBe(AFTER);
    expect(vscode.__editor.info.some((m) => m.includes("moved to its own editor"))).toBe(true);
    await feature.reviewer.decide(e.editId, [0], "rejected");
    await feature.reviewer.decide(e.editId, [1], "accepted");
    expect(await outcome).toMatchObject({ status: "partial", hunkDecisions: ["rejected", "accepted"] });
    expect(disk()).toBe(applyHunks(BEFORE, HUNKS, ["rejected", "accepted"]));
  });

  it("inline, the user's own save accepts the change as shown", async () => {
    const { outcome } = await propose(feature, change());
    await vscode.__test.save(fileDoc()!, vscode.TextDocumentSaveReason.Manual);
    expect(await outcome).toMatchObject({ status: "accepted", hunkDecisions: ["accepted", "accepted"] });
    expect(disk()).toBe(AFTER);
  });

  it("takes a staged review up again after a reload", async () => {
    autoSave();
    await propose(feature, change());
    feature = reloadWindow(true);
    const { outcome } = await propose(feature, change({ resumed: true }));
    expect(entry(feature).staged).toBe(true);
    expect(proposalDoc()!.getText()).toBe(AFTER);
    expect(disk()).toBe(BEFORE);
    await feature.accept(entry(feature).editId);
    expect(await outcome).toMatchObject({ status: "accepted" });
    expect(disk()).toBe(AFTER);
  });
});
