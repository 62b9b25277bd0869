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
