import { afterEach, describe, expect, it } from "vitest";
import { readInstructions } from "../../../src/core/loop/instructions";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";

let ws: TempWorkspace | undefined;
afterEach(() => ws?.cleanup());

describe("readInstructions", () => {
  it("reads AGENTS.md then CLAUDE.md through the workspace fs, bounding long files", async () => {
    ws = createTempWorkspace({ "AGENTS.md": "Use tabs.\n", "CLAUDE.md": "x".repeat(20_010) });
    const out = await readInstructions(ws.fs);
    expect(out.map((i) => i.source)).toEqual(["AGENTS.md", "CLAUDE.md"]);
    expect(out[0]!.text).toBe("Use tabs.\n");
    expect(out[1]!.text).toBe("x".repeat(20_000) + "\n[truncated]");
  });

  it("skips files that are missing or are folders", async () => {
    ws = createTempWorkspace({ "CLAUDE.md/readme.txt": "not an instruction file" });
    expect(await readInstructions(ws.fs)).toEqual([]);
  });
});
