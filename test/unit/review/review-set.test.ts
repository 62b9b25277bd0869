/**
 * The proposal model of a change of several files (core/review-set.ts, ProposedChangeSet) and
 * apply_patch through a reviewer that reviews it as one (reviewSet): one proposal with every file
 * (adds, updates, deletes as a whole-file removal, moves source → destination), one account to
 * the model saying per file what was accepted, rejected or edited, and the log per file.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import type { ChangeReviewer, ChangeSetOutcome, ProposedChangeSet, ProposedFile, ReviewOutcome } from "../../../src/core/review";
import { applyHunks } from "../../../src/core/review-hunks";
import { describeSetOutcome, fileHunks, fileLabel, followingDecision, setAcceptedExactly, setNothingWritten, statusOf } from "../../../src/core/review-set";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const f = (over: Partial<ProposedFile> & Pick<ProposedFile, "relPath" | "op" | "before" | "after">): ProposedFile => ({
  editId: `c:${over.relPath}`,
  callId: "c",
  path: `/ws/${over.relPath}`,
  tool: "apply_patch",
  ...over,
});

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("");
const TEN_CHANGED = TEN.replace("line 2\n", "line two\n").replace("line 9\n", "line nine\n");

describe("the proposal model", () => {
  it("a delete is one hunk removing every line; a move's hunks go from the source's text to the destination's", () => {
    expect(fileHunks({ before: "a\nb\n", after: "" })).toEqual([{ index: 1, beforeStart: 0, beforeLines: ["a\n", "b\n"], afterStart: 0, afterLines: [] }]);
    expect(fileHunks({ before: TEN, after: TEN_CHANGED })).toHaveLength(2);
    expect(fileHunks({ before: "same\n", after: "same\n" })).toEqual([]);
    expect(fileLabel(f({ relPath: "b.ts", op: "move", before: "", after: "", from: { path: "/ws/a.ts", relPath: "a.ts" } }))).toBe("R a.ts → b.ts");
    expect(fileLabel(f({ relPath: "x", op: "delete", before: "", after: "" }))).toBe("D x");
  });

  it("a file with nothing to show follows the rest of the change; alone, it is decided by itself", () => {
    expect(followingDecision([["accepted", "rejected"], ["rejected"]])).toBe("accepted");
    expect(followingDecision([["rejected"], ["rejected"]])).toBe("rejected");
    expect(followingDecision([[], []])).toBeUndefined();
    expect(statusOf(["accepted", "rejected"])).toBe("partial");
  });

  const set: ProposedChangeSet = {
    setId: "c",
    callId: "c",
    tool: "apply_patch",
    files: [
      f({ relPath: "new.ts", op: "add", before: null, after: "x\n" }),
      f({ relPath: "a.ts", op: "update", before: TEN, after: TEN_CHANGED }),
      f({ relPath: "old.ts", op: "delete", before: "o\n", after: "" }),
    ],
  };
  const accepted = (after: string | null): ReviewOutcome => ({ status: "accepted", finalContent: after });

  it("accepted exactly: every file as proposed, the deleted file gone", () => {
    const o: ChangeSetOutcome = { files: [accepted("x\n"), accepted(TEN_CHANGED), accepted(null)] };
    expect(setAcceptedExactly(set, o)).toBe(true);
    expect(setAcceptedExactly(set, { files: [accepted("x\n"), accepted(TEN_CHANGED), accepted("o\n")] })).toBe(false);
    expect(setNothingWritten(o)).toBe(false);
  });

  it("tells the model per file what was accepted, rejected and edited, with the regions as they now read", () => {
    const partial = applyHunks(TEN, fileHunks(set.files[1]!), ["rejected", "accepted"]);
    const o: ChangeSetOutcome = {
      files: [
        { status: "accepted", finalContent: "x\ny\n", userEdited: true },
        { status: "partial", finalContent: partial, hunkDecisions: ["rejected", "accepted"] },
        { status: "rejected", finalContent: "o\n", message: "keep old.ts" },
      ],
    };
    expect(describeSetOutcome(set, o)).toBe(
      [
        "The user reviewed the patch (3 files) as one change: 1 accepted, 1 partly accepted, 1 rejected. Per file:",
        "- A new.ts: accepted with the user's edits (created).",
        "    The user edited the proposal before accepting:",
        "    --- new.ts (as proposed)",
        "    +++ new.ts (as saved)",
        "    @@ -1,1 +1,2 @@",
        "     x",
        "    +y",
        "- M a.ts: partly accepted: hunk 2 applied, hunk 1 rejected.",
        "    The changed regions now read:",
        "    hunk 1 (rejected, as before), lines 2-2:",
        "    line 2",
        "    hunk 2 (applied), lines 9-9:",
        "    line nine",
        "- D old.ts: rejected; old.ts was not deleted.",
        "The user's note: keep old.ts",
      ].join("\n"),
    );
    expect(setAcceptedExactly(set, o)).toBe(false);
    expect(setNothingWritten(o)).toBe(false);
  });

  it("a whole rejection and a failed write never read as a success", () => {
    const rejected: ChangeSetOutcome = { files: set.files.map((x) => ({ status: "rejected" as const, finalContent: x.before })) };
    expect(describeSetOutcome(set, rejected)).toBe("The user rejected the whole patch (3 files); no file was changed.\n- A new.ts: rejected\n- M a.ts: rejected\n- D old.ts: rejected");
    expect(setNothingWritten(rejected)).toBe(true);
    const failed: ChangeSetOutcome = { files: [], error: "writing a.ts failed (disk full), so the files of the change already written were put back as they were." };
    expect(describeSetOutcome(set, failed)).toBe(
      "The patch (3 files) was not applied: writing a.ts failed (disk full), so the files of the change already written were put back as they were. No file was changed.",
    );
    expect(setNothingWritten(failed)).toBe(true);
  });
});

describe("apply_patch through a reviewer that reviews the change as one", () => {
  const tools = createBuiltinTools("apply_patch");
  let ws: TempWorkspace;
  beforeAll(() => hashlineReady());
  afterEach(() => ws?.cleanup());

  /** Decides per file (hunk decisions), writes what was decided, as the VS Code reviewer does. */
  function setReviewer(decide: (file: ProposedFile) => Array<"accepted" | "rejected">) {
    const seen: ProposedChangeSet[] = [];
    const r: ChangeReviewer = {
      review: () => Promise.reject(new Error("a change of several files must come as one proposal")),
      async reviewSet(s) {
        seen.push(s);
        const files = s.files.map((file): ReviewOutcome => {
          const d = decide(file);
          const status = statusOf(d);
          if (status === "rejected") return { status, finalContent: file.before, hunkDecisions: d };
          if (file.op === "delete") {
            rmSync(join(ws.root, file.relPath));
            return { status, finalContent: null, hunkDecisions: d };
          }
          const text = applyHunks(file.before, fileHunks(file), d);
          ws.write({ [file.relPath]: text });
          if (file.from) rmSync(join(ws.root, file.from.relPath));
          return { status, finalContent: text, hunkDecisions: d };
        });
        return { files };
      },
    };
    return { r, seen };
  }

  const PATCH = [
    "*** Begin Patch",
    "*** Add File: src/new.ts",
    "+export const n = 1;",
    "*** Update File: src/a.ts",
    "@@",
    " line 1",
    "-line 2",
    "+line two",
    " line 3",
    "@@",
    " line 8",
    "-line 9",
    "+line nine",
    " line 10",
    "*** Delete File: src/old.ts",
    "*** Update File: src/m.ts",
    "*** Move to: src/moved.ts",
    "-m",
    "+M",
    "*** End Patch",
  ].join("\n");

  it("puts every file up as one proposal: adds, updates, a delete as a whole-file removal, a move source → destination", async () => {
    ws = createTempWorkspace({ "src/a.ts": TEN, "src/old.ts": "legacy\n", "src/m.ts": "m\n" });
    const { r, seen } = setReviewer((file) => fileHunks(file).map(() => "accepted"));
    const out = await callTool(tools, "apply_patch", { input: PATCH }, ws.context({ reviewer: r, reviewMode: "ask" }));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.files.map((x) => [x.op, x.relPath, x.from?.relPath, x.before, x.after])).toEqual([
      ["add", "src/new.ts", undefined, null, "export const n = 1;\n"],
      ["update", "src/a.ts", undefined, TEN, TEN_CHANGED],
      ["delete", "src/old.ts", undefined, "legacy\n", ""],
      ["move", "src/moved.ts", "src/m.ts", "m\n", "M\n"],
    ]);
    expect(out.isError).toBeFalsy();
    expect(out.text).toMatch(/^The user accepted the patch \(4 files\):\nA src\/new\.ts \(1 line\)\nM src\/a\.ts: \+2 -2 lines\nD src\/old\.ts\nR src\/m\.ts → src\/moved\.ts: \+1 -1 lines/);
    expect(ws.recorded.filter((e) => e.type === "review_proposed").map((e) => (e as { relPath: string }).relPath)).toEqual(["src/new.ts", "src/a.ts", "src/old.ts", "src/moved.ts"]);
    expect(ws.recorded.filter((e) => e.type === "review_decision").map((e) => (e as { status: string }).status)).toEqual(["accepted", "accepted", "accepted", "accepted"]);
  });

  it("reports a partial acceptance honestly, file by file, and what is on disk matches it", async () => {
    ws = createTempWorkspace({ "src/a.ts": TEN, "src/old.ts": "legacy\n", "src/m.ts": "m\n" });
    const { r } = setReviewer((file) => (file.op === "update" ? ["accepted", "rejected"] : file.op === "delete" ? ["rejected"] : fileHunks(file).map(() => "accepted")));
    const out = await callTool(tools, "apply_patch", { input: PATCH }, ws.context({ reviewer: r, reviewMode: "ask" }));
    expect(out.isError).toBeFalsy();
    expect(out.text).toContain("The user reviewed the patch (4 files) as one change: 2 accepted, 1 partly accepted, 1 rejected. Per file:");
    expect(out.text).toContain("- M src/a.ts: partly accepted: hunk 1 applied, hunk 2 rejected.");
    expect(out.text).toContain("- D src/old.ts: rejected; src/old.ts was not deleted.");
    expect(out.text).toContain("- R src/m.ts → src/moved.ts: accepted. src/m.ts was moved to src/moved.ts.");
    expect(out.text).toMatch(/Read the files again before patching them further\.$/);
    expect(readFileSync(join(ws.root, "src/a.ts"), "utf8")).toBe(TEN.replace("line 2\n", "line two\n"));
    expect(readFileSync(join(ws.root, "src/old.ts"), "utf8")).toBe("legacy\n");
    expect(existsSync(join(ws.root, "src/m.ts"))).toBe(false);
  });

  it("a whole rejection is an error result saying no file was changed", async () => {
    ws = createTempWorkspace({ "src/a.ts": TEN, "src/old.ts": "legacy\n", "src/m.ts": "m\n" });
    const { r } = setReviewer((file) => fileHunks(file).map(() => "rejected"));
    const out = await callTool(tools, "apply_patch", { input: PATCH }, ws.context({ reviewer: r, reviewMode: "ask" }));
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^The user rejected the whole patch \(4 files\); no file was changed\./);
    expect(readFileSync(join(ws.root, "src/a.ts"), "utf8")).toBe(TEN);
    expect(existsSync(join(ws.root, "src/new.ts"))).toBe(false);
  });
});
