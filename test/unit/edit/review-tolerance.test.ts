// The review scenario of test/e2e/review.e2e.test.ts with a hashline edit that used a tolerance
// rule, through a reviewer stand-in that decides hunks as the user would: the file holds exactly
// the accepted hunk, and the model is told both the review outcome and which rule applied.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import type { ChangeReviewer, ProposedChange, ReviewMode, ReviewOutcome } from "../../../src/core/review";
import { applyHunks, computeHunks } from "../../../src/core/review-hunks";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const FILE = "src/tides.ts";
const ORIGINAL = readFileSync(resolve("test/fixtures/sample-workspace/src/tides.ts"), "utf8");
const OLD_1 = "/** Mean lunar semidiurnal period: 12 hours 25 minutes. */";
const NEW_1 = "/** Mean lunar semidiurnal period (the M2 constituent): 12 hours 25 minutes. */";

function reviewer(ws: TempWorkspace, decide: (c: ProposedChange) => Array<"accepted" | "rejected">) {
  const seen: Array<{ change: ProposedChange; mode: ReviewMode }> = [];
  const r: ChangeReviewer = {
    async review(change, mode) {
      seen.push({ change, mode });
      const hunks = computeHunks(change.before, change.after);
      const decisions = mode === "auto" ? hunks.map(() => "accepted" as const) : decide(change);
      const final = applyHunks(change.before, hunks, decisions);
      ws.write({ [change.relPath]: final });
      const accepted = decisions.filter((d) => d === "accepted").length;
      const status: ReviewOutcome["status"] = accepted === hunks.length ? "accepted" : accepted === 0 ? "rejected" : "partial";
      return { status, finalContent: final, hunkDecisions: decisions };
    },
  };
  return { reviewer: r, seen };
}

const tools = createBuiltinTools();
let ws: TempWorkspace;
beforeAll(() => hashlineReady());
afterEach(() => ws?.cleanup());

/** The edit_file call of the e2e variant: line 1 rewritten, line 15 rewritten without its indentation. */
function editCall() {
  const lines = ORIGINAL.split("\n");
  return {
    path: FILE,
    edits: [
      { op: "replace", pos: lineTag(1, lines[0]!), lines: [NEW_1] },
      { op: "replace", pos: lineTag(15, lines[14]!), lines: ["return Object.freeze(result) as Date[];"] },
    ],
  };
}

describe("a reviewed hashline edit that used a tolerance rule", () => {
  it("proposes the restored indentation, writes only the accepted hunk, and tells the model the outcome and the rule", async () => {
    ws = createTempWorkspace({ [FILE]: ORIGINAL });
    const { reviewer: rv, seen } = reviewer(ws, () => ["accepted", "rejected"]);
    const ctx = ws.context({ reviewer: rv, reviewMode: "ask" });
    await callTool(tools, "read_file", { path: FILE }, ctx);
    const call = editCall();
    const out = await callTool(tools, "edit_file", call, ctx);

    expect(seen).toHaveLength(1);
    expect(seen[0]!.change.after).toBe(ORIGINAL.replace(OLD_1, NEW_1).replace("  return result;", "  return Object.freeze(result) as Date[];"));
    expect(ws.read(FILE)).toBe(ORIGINAL.replace(OLD_1, NEW_1));
    expect(out.isError).toBeFalsy();
    expect(out.text).toContain("The user partly accepted the change to src/tides.ts: hunk 1 applied, hunk 2 rejected.");
    expect(out.text).toContain(NEW_1);
    expect(out.text).toContain(
      `Notes on the proposal:\n- Edit 2 (replace ${call.edits[1]!.pos}) [rule indent-restored]: its lines had lost their indentation, so each got the indentation of the line it stands for (2 spaces).`,
    );
    expect(out.text.endsWith("Call read_file on src/tides.ts for fresh anchors before editing it again.")).toBe(true);
  });

  it("tells the model the rule when the whole change is accepted", async () => {
    ws = createTempWorkspace({ [FILE]: ORIGINAL });
    const { reviewer: rv } = reviewer(ws, () => ["accepted", "accepted"]);
    const ctx = ws.context({ reviewer: rv, reviewMode: "ask" });
    const call = editCall();
    const out = await callTool(tools, "edit_file", call, ctx);
    expect(ws.read(FILE)).toBe(ORIGINAL.replace(OLD_1, NEW_1).replace("  return result;", "  return Object.freeze(result) as Date[];"));
    expect(out.text.split("\n")[0]).toBe("The user accepted the edit of src/tides.ts: +2 -2 lines (2 edits). Diff with fresh anchors (- removed, + added):");
    expect(out.text).toContain(`Notes:\n- Edit 2 (replace ${call.edits[1]!.pos}) [rule indent-restored]:`);
  });

  it("writes nothing and proposes nothing when the edit is refused as ambiguous", async () => {
    ws = createTempWorkspace({ [FILE]: ORIGINAL });
    const { reviewer: rv, seen } = reviewer(ws, () => ["accepted"]);
    const ctx = ws.context({ reviewer: rv, reviewMode: "ask" });
    const lines = ORIGINAL.split("\n");
    // A grown replace whose last line repeats the closing brace after it: two readings, refused with the current lines.
    const out = await callTool(
      tools,
      "edit_file",
      { path: FILE, edits: [{ op: "replace", pos: lineTag(6, lines[5]!), lines: ["  return new Date(lastHigh.getTime() + 2 * TIDAL_PERIOD_MS);", "}"] }] },
      ctx,
    );
    expect(out.isError).toBe(true);
    expect(out.text).toContain("Yoke cannot tell which was meant");
    expect(out.text).toContain(`>>> ${lineTag(7, "}")}|}`);
    expect(seen).toHaveLength(0);
    expect(ws.read(FILE)).toBe(ORIGINAL);
  });
});
