// Windsurf's limits on its rule files (windsurf-limits.ts): 6,000 characters a file, 12,000 for the
// always-on global and workspace rules together (global first); characters counted as code points.
import { describe, expect, it } from "vitest";
import type { GuidanceEntry } from "../../../src/core/guidance/types";
import { applyWindsurfLimits, windsurfCharsUsed, WINDSURF_FILE_CHARS } from "../../../src/core/guidance/windsurf-limits";
import type { ExcludedFile } from "../../../src/core/guidance/types";

const rule = (path: string, body: string, activation: GuidanceEntry["activation"] = "always"): GuidanceEntry => ({
  id: `rule:${path}`,
  name: path,
  kind: "rule",
  source: path,
  origin: "workspace",
  path,
  body,
  activation,
  status: "active",
  priority: 1,
  match: { keywords: [], patterns: [], tools: [], globs: [] },
});

describe("Windsurf's limits", () => {
  it("never splits a character outside the BMP at the 6,000-character cut, and counts it as one", () => {
    const e = rule("/w/.windsurf/rules/emoji.md", "😀".repeat(WINDSURF_FILE_CHARS + 5));
    const kept = applyWindsurfLimits([e], []);
    const text = kept[0]!.body.slice(0, kept[0]!.body.indexOf("\n[… "));
    expect(Array.from(text)).toHaveLength(WINDSURF_FILE_CHARS);
    expect(text.endsWith("😀")).toBe(true);
    expect(kept[0]!.cut).toContain("cut to its first 6,000 of 6,005 characters");
  });

  it("puts the global rules first, whatever the order given; a later sub-folder's rules take what is left", () => {
    const ws = rule("/w/.windsurf/rules/a.md", "w".repeat(6_000));
    const global = rule("/home/u/.codeium/windsurf/memories/global_rules.md", "g".repeat(6_000));
    const excluded: ExcludedFile[] = [];
    const kept = applyWindsurfLimits([ws, global], excluded);
    expect(kept).toHaveLength(2);
    expect(global.cut).toBeUndefined();
    expect(ws.cut).toBeUndefined();
    expect(windsurfCharsUsed(kept)).toBe(12_000);
    // Found later in the session (a sub-folder's .windsurf/rules): nothing left of the 12,000.
    const nested = rule("/w/pkg/.windsurf/rules/b.md", "NESTED");
    const glob = rule("/w/pkg/.windsurf/rules/c.md", "GLOB", "glob");
    const later = applyWindsurfLimits([nested, glob], excluded, windsurfCharsUsed(kept));
    expect(later).toEqual([glob]);
    expect(excluded.map((x) => x.source)).toEqual(["/w/pkg/.windsurf/rules/b.md"]);
  });

  it("leaves other tools' rules and Windsurf-named folders of other tools alone", () => {
    const cursor = rule("/w/.cursor/rules/x.mdc", "c".repeat(20_000));
    const notRules = rule("/w/docs/windsurf/rules.md", "d".repeat(20_000));
    applyWindsurfLimits([cursor, notRules], []);
    expect(cursor.body).toHaveLength(20_000);
    expect(notRules.body).toHaveLength(20_000);
  });
});
