/**
 * apply_patch through a change reviewer (as the panel has one): each text change is proposed in
 * turn; deletions (and a move's source) are made only once every proposal was accepted exactly.
 * Real files in a temp workspace; the reviewer writes what it accepts, as the VS Code one does.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import type { ChangeReviewer, ProposedChange } from "../../../src/core/review";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = createBuiltinTools("apply_patch");
let ws: TempWorkspace;

beforeAll(() => hashlineReady());
afterEach(() => ws?.cleanup());

function reviewer(accept: (c: ProposedChange) => boolean) {
  const seen: ProposedChange[] = [];
  const r: ChangeReviewer = {
    async review(change) {
      seen.push(change);
      if (!accept(change)) return { status: "rejected", finalContent: change.before };
      ws.write({ [change.relPath]: change.after });
      return { status: "accepted", finalContent: change.after };
    },
  };
  return { r, seen };
}

const PATCH = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n-one\n+ONE\n*** Add File: c.txt\n+new\n*** Delete File: d.txt\n*** End Patch\n";

describe("apply_patch with a change reviewer", () => {
  it("proposes every text change, then makes the deletions once all were accepted", async () => {
    ws = createTempWorkspace({ "a.txt": "one\n", "d.txt": "old\n" });
    const { r, seen } = reviewer(() => true);
    const out = await callTool(tools, "apply_patch", { input: PATCH }, ws.context({ reviewer: r, reviewMode: "ask" }));
    expect(seen.map((c) => [c.relPath, c.before, c.after, c.tool])).toEqual([
      ["b.txt", null, "ONE\n", "apply_patch"],
      ["c.txt", null, "new\n", "apply_patch"],
    ]);
    expect(out.isError).toBeFalsy();
    expect(out.text).toContain("The user accepted the patch (3 files):");
    expect(readFileSync(join(ws.root, "b.txt"), "utf8")).toBe("ONE\n");
    expect(existsSync(join(ws.root, "a.txt"))).toBe(false);
    expect(existsSync(join(ws.root, "d.txt"))).toBe(false);
  });

  it("keeps the files it would delete when a proposal is rejected, and says so", async () => {
    ws = createTempWorkspace({ "a.txt": "one\n", "d.txt": "old\n" });
    const { r } = reviewer((c) => c.relPath !== "c.txt");
    const out = await callTool(tools, "apply_patch", { input: PATCH }, ws.context({ reviewer: r, reviewMode: "ask" }));
    expect(out.text).toContain("The patch was put up for review, file by file.");
    expect(out.text).toContain("d.txt was not deleted, because the rest of the change was not accepted as proposed.");
    expect(readFileSync(join(ws.root, "d.txt"), "utf8")).toBe("old\n");
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("one\n");
    expect(existsSync(join(ws.root, "c.txt"))).toBe(false);
  });
});

describe("apply_patch with a file-by-file reviewer, when a write fails", () => {
  it("puts back what was written before it and changes nothing else: all or nothing (auto mode)", async () => {
    ws = createTempWorkspace({ "a.txt": "one\n", "d.txt": "old\n", "e.txt": "keep\n" });
    const patch = "*** Begin Patch\n*** Update File: e.txt\n-keep\n+KEPT\n*** Add File: c.txt\n+new\n*** Update File: a.txt\n-one\n+ONE\n*** Delete File: d.txt\n*** End Patch\n";
    const r: ChangeReviewer = {
      async review(change) {
        // The reviewer writes what it applies (as the VS Code one does); a.txt cannot be written.
        if (change.relPath === "a.txt") return { status: "accepted", finalContent: change.before ?? "", error: "EACCES: permission denied" };
        ws.write({ [change.relPath]: change.after });
        return { status: "accepted", finalContent: change.after, auto: true };
      },
    };
    const out = await callTool(tools, "apply_patch", { input: patch }, ws.context({ reviewer: r, reviewMode: "auto" }));
    expect(out.isError).toBe(true);
    expect(readFileSync(join(ws.root, "e.txt"), "utf8")).toBe("keep\n");
    expect(existsSync(join(ws.root, "c.txt"))).toBe(false);
    expect(readFileSync(join(ws.root, "a.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(ws.root, "d.txt"), "utf8")).toBe("old\n");
    expect(out.text).toContain("e.txt: put back as it was, because a.txt could not be written (EACCES: permission denied), and a patch applies all or nothing.");
    expect(out.text).toContain("c.txt: put back as it was");
    expect(out.text).toContain("d.txt: not changed, because a.txt could not be written.");
  });
});
