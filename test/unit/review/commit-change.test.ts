import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { applyHunks, computeHunks } from "../../../src/core/review-hunks";
import type { ChangeReviewer, ProposedChange, ReviewMode, ReviewOutcome } from "../../../src/core/review";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

/** A reviewer that decides hunks as told and writes the result to disk, as the VS Code one does. */
function scriptedReviewer(ws: TempWorkspace, decide: (change: ProposedChange) => Array<"accepted" | "rejected">) {
  const seen: Array<{ change: ProposedChange; mode: ReviewMode }> = [];
  const reviewer: ChangeReviewer = {
    async review(change, mode) {
      seen.push({ change, mode });
      const hunks = computeHunks(change.before, change.after);
      const decisions = mode === "auto" ? hunks.map(() => "accepted" as const) : decide(change);
      const accepted = decisions.filter((d) => d === "accepted").length;
      const final = change.before === null && accepted === 0 ? null : applyHunks(change.before, hunks, decisions);
      if (final !== null) ws.write({ [change.relPath]: final });
      const status: ReviewOutcome["status"] = accepted === hunks.length ? "accepted" : accepted === 0 ? "rejected" : "partial";
      return { status, finalContent: final, hunkDecisions: decisions, auto: mode === "auto" };
    },
  };
  return { reviewer, seen };
}

const tools = createBuiltinTools();
const FILE = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].map((x) => `const ${x} = 1;`).join("\n") + "\n";
let ws: TempWorkspace;

beforeAll(() => hashlineReady());
afterEach(() => ws?.cleanup());

async function proposeTwoHunks(decide: (c: ProposedChange) => Array<"accepted" | "rejected">, mode: ReviewMode = "ask") {
  ws = createTempWorkspace({ "src/x.ts": FILE });
  const { reviewer, seen } = scriptedReviewer(ws, decide);
  const ctx = ws.context({ reviewer, reviewMode: mode });
  await callTool(tools, "read_file", { path: "src/x.ts" }, ctx);
  const out = await callTool(
    tools,
    "edit_file",
    {
      path: "src/x.ts",
      edits: [
        { old_string: "const a = 1;", new_string: "const a = 2;" },
        { old_string: "const j = 1;", new_string: "const j = 2;" },
      ],
    },
    ctx,
  );
  return { out, seen };
}

describe("edit_file through a change reviewer", () => {
  it("sends the proposal to review with before/after and tells the model it was accepted", async () => {
    const { out, seen } = await proposeTwoHunks(() => ["accepted", "accepted"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.mode).toBe("ask");
    expect(seen[0]!.change).toMatchObject({ relPath: "src/x.ts", tool: "edit_file", before: FILE, callId: "call-1" });
    expect(out.isError).toBeFalsy();
    expect(out.text.split("\n")[0]).toBe("The user accepted the edit of src/x.ts: +2 -2 lines (2 edits). Diff with fresh anchors (- removed, + added):");
    expect(ws.read("src/x.ts")).toBe(FILE.replace("const a = 1;", "const a = 2;").replace("const j = 1;", "const j = 2;"));
  });

  it("reports exactly which hunk was applied when the user accepts one and rejects the other", async () => {
    const { out } = await proposeTwoHunks(() => ["accepted", "rejected"]);
    expect(ws.read("src/x.ts")).toBe(FILE.replace("const a = 1;", "const a = 2;"));
    expect(out.text).toContain("The user partly accepted the change to src/x.ts: hunk 1 applied, hunk 2 rejected.");
    expect(out.text).toContain("const a = 2;");
    expect(out.text).toContain("Call read_file on src/x.ts for fresh anchors before editing it again.");
  });

  it("tells the model a rejected change left the file unchanged", async () => {
    const { out } = await proposeTwoHunks(() => ["rejected", "rejected"]);
    expect(ws.read("src/x.ts")).toBe(FILE);
    expect(out.text).toBe("The user rejected the change to src/x.ts; the file is unchanged.");
  });

  it("applies at once in auto mode and says so", async () => {
    const { out, seen } = await proposeTwoHunks(() => {
      throw new Error("not asked in auto mode");
    }, "auto");
    expect(seen[0]!.mode).toBe("auto");
    expect(out.text.split("\n")[0]).toBe("Edited src/x.ts: +2 -2 lines (2 edits). Diff with fresh anchors (- removed, + added):");
  });

  it("sends write_file creations to review with before = null", async () => {
    ws = createTempWorkspace({});
    const { reviewer, seen } = scriptedReviewer(ws, () => ["rejected"]);
    const out = await callTool(tools, "write_file", { path: "new.txt", content: "hello\n" }, ws.context({ reviewer, reviewMode: "ask" }));
    expect(seen[0]!.change.before).toBeNull();
    expect(ws.exists("new.txt")).toBe(false);
    expect(out.text).toBe("The user rejected the change to new.txt; the file was not created.");
  });
});
