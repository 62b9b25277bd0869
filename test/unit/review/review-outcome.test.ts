import { describe, expect, it } from "vitest";
import type { ProposedChange } from "../../../src/core/review";
import { applyHunks, computeHunks } from "../../../src/core/review-hunks";
import { decisionList, describeOutcome, userEditsDiff } from "../../../src/core/review-outcome";

const before = "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\n";
const after = "ALPHA\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\ntheta\niota\n";

function change(b: string | null, a: string): ProposedChange {
  return { editId: "c1:0", callId: "c1", path: "/ws/src/greek.txt", relPath: "src/greek.txt", before: b, after: a, tool: "edit_file" };
}

describe("describeOutcome", () => {
  it("says accepted when every hunk was accepted and nothing else changed", () => {
    expect(describeOutcome(change(before, after), { status: "accepted", finalContent: after, hunkDecisions: ["accepted", "accepted"] })).toBe("The user accepted the change to src/greek.txt.");
  });

  it("says applied without claiming a user decision in auto mode", () => {
    expect(describeOutcome(change(before, after), { status: "accepted", finalContent: after, auto: true })).toBe("The change to src/greek.txt was applied.");
  });

  it("says rejected with the user's reason and that the file is unchanged", () => {
    expect(describeOutcome(change(before, after), { status: "rejected", finalContent: before, hunkDecisions: ["rejected", "rejected"], message: "keep lowercase" })).toBe(
      "The user rejected the change to src/greek.txt; the file is unchanged. Reason: keep lowercase",
    );
  });

  it("says a rejected new file was not created", () => {
    expect(describeOutcome(change(null, "x\n"), { status: "rejected", finalContent: null, message: "the agent was stopped" })).toBe(
      "The user rejected the change to src/greek.txt; the file was not created. Reason: the agent was stopped",
    );
  });

  it("lists applied and rejected hunks and the changed regions as they now read", () => {
    const hunks = computeHunks(before, after);
    const final = applyHunks(before, hunks, ["accepted", "rejected"]);
    expect(describeOutcome(change(before, after), { status: "partial", finalContent: final, hunkDecisions: ["accepted", "rejected"] })).toBe(
      [
        "The user partly accepted the change to src/greek.txt: hunk 1 applied, hunk 2 rejected.",
        "The changed regions now read:",
        "hunk 1 (applied), lines 1-1:",
        "ALPHA",
        "hunk 2 (rejected, as before): no lines here now (after line 8)",
      ].join("\n"),
    );
  });

  it("shows the text of a rejected replacement as it was", () => {
    const b = "a\nb\nc\nd\ne\nf\ng\n";
    const a = "A\nb\nc\nd\nE\nf\ng\n";
    const out = describeOutcome(change(b, a), { status: "partial", finalContent: "a\nb\nc\nd\nE\nf\ng\n", hunkDecisions: ["rejected", "accepted"] });
    expect(out).toBe(
      [
        "The user partly accepted the change to src/greek.txt: hunk 2 applied, hunk 1 rejected.",
        "The changed regions now read:",
        "hunk 1 (rejected, as before), lines 1-1:",
        "a",
        "hunk 2 (applied), lines 5-5:",
        "E",
      ].join("\n"),
    );
  });

  it("adds a diff of the user's own edits when the file differs from the accepted proposal", () => {
    const final = after.replace("ALPHA", "Alpha!");
    expect(describeOutcome(change(before, after), { status: "accepted", finalContent: final, hunkDecisions: ["accepted", "accepted"], userEdited: true })).toBe(
      [
        "The user accepted the change to src/greek.txt.",
        "The user edited the proposal before accepting:",
        "--- src/greek.txt (as proposed)",
        "+++ src/greek.txt (as saved)",
        "@@ -1,3 +1,3 @@",
        "-ALPHA",
        "+Alpha!",
        " beta",
        " gamma",
      ].join("\n"),
    );
  });

  it("does not claim the file is unchanged when the user rejected but edited by hand", () => {
    const out = describeOutcome(change(before, after), { status: "rejected", finalContent: before.replace("zeta", "ZETA") });
    expect(out.split("\n").slice(0, 2)).toEqual(["The user rejected the change to src/greek.txt.", "The user edited the file by hand:"]);
    expect(out).toContain("-zeta\n+ZETA");
  });
});

describe("userEditsDiff", () => {
  it("ignores line-ending differences the editor may introduce", () => {
    expect(userEditsDiff("a\r\nb\r\n", "a\nb\n", "f")).toBeNull();
  });
});

describe("decisionList", () => {
  it("groups hunk numbers by decision", () => {
    expect(decisionList(["accepted", "rejected", "accepted"])).toBe("hunks 1, 3 applied, hunk 2 rejected");
  });
});

describe("describeOutcome with a refusal", () => {
  it("gives the host's reason as is when the change could not be reviewed", () => {
    const error = "src/greek.txt changed after you read it, so your change was not applied. Read it again and redo the edit.";
    expect(describeOutcome(change(before, after), { status: "rejected", finalContent: before, error })).toBe(error);
  });
});

describe("describeOutcome for a partial review with hand edits", () => {
  it("shows the regions as the decisions give them, then the user's edits", () => {
    const final = "ALPHA\nbeta\ngamma!\ndelta\nepsilon\nzeta\neta\ntheta\n";
    const out = describeOutcome(change(before, after), { status: "partial", finalContent: final, hunkDecisions: ["accepted", "rejected"], userEdited: true });
    expect(out).toBe(
      [
        "The user partly accepted the change to src/greek.txt: hunk 1 applied, hunk 2 rejected.",
        "With these decisions the changed regions read:",
        "hunk 1 (applied), lines 1-1:",
        "ALPHA",
        "hunk 2 (rejected, as before): no lines here now (after line 8)",
        "The user edited the proposal before accepting:",
        "--- src/greek.txt (as proposed)",
        "+++ src/greek.txt (as saved)",
        "@@ -1,5 +1,5 @@",
        " ALPHA",
        " beta",
        "-gamma",
        "+gamma!",
        " delta",
        " epsilon",
      ].join("\n"),
    );
  });
});
