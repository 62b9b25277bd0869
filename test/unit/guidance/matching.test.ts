// Matching a request to a skill by what it means (stems, stop words, rare terms weigh more, format
// names), measured as precision@1 on a query set written from the skills' own descriptions
// (test/fixtures/skill-queries.json), against the word-for-word matcher it replaced.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rank } from "../../../src/core/guidance";
import { termsOf } from "../../../src/core/guidance/match";
import { parseSkill } from "../../../src/core/guidance/parse";
import type { GuidanceEntry } from "../../../src/core/guidance/types";

interface Fixture {
  skills: Array<{ name: string; description: string }>;
  queries: Array<{ q: string; expect: string }>;
}
const fixture = JSON.parse(readFileSync(join(__dirname, "../../fixtures/skill-queries.json"), "utf8")) as Fixture;

const skills: GuidanceEntry[] = fixture.skills.map(({ name, description }) => {
  const text = `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n# ${name}\nBody.\n`;
  const p = parseSkill({ path: `/ws/.claude/skills/${name}/SKILL.md`, source: `.claude/skills/${name}/SKILL.md`, origin: "workspace", text });
  return p.entry!;
});

/** The matcher before this change, as it was: shared lower-case words (3+ letters, a short stop list), 0.25 each, ties by name. */
const OLD_STOP = new Set("a an and are as at be by do for from how i in is it me my of on or so that the this to use using we what when with you your can should would not fix file".split(" "));
function oldTop(q: string): string | undefined {
  const words = new Set(q.toLowerCase().split(/[^\p{L}\p{N}]+/u));
  const scored = skills
    .map((e) => {
      const own = new Set(
        `${e.name} ${e.description ?? ""}`
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)
          .filter((w) => w.length > 2 && !OLD_STOP.has(w)),
      );
      return { name: e.name, score: [...own].filter((w) => words.has(w)).length * 0.25 };
    })
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
  return scored[0]?.name;
}

const newTop = (q: string) => rank(skills, { message: q })[0]?.entry.name;

function precision(top: (q: string) => string | undefined): { p: number; misses: string[] } {
  const misses = fixture.queries.filter(({ q, expect: want }) => top(q) !== want).map(({ q, expect: want }) => `${q} → ${top(q) ?? "(nothing)"} (want ${want})`);
  return { p: (fixture.queries.length - misses.length) / fixture.queries.length, misses };
}

describe("matching a request to a skill", () => {
  it("the query set is real: at least 30 queries over at least 12 skills, each expecting a skill of the set", () => {
    expect(fixture.queries.length).toBeGreaterThanOrEqual(30);
    expect(fixture.skills.length).toBeGreaterThanOrEqual(12);
    for (const q of fixture.queries) expect(fixture.skills.map((s) => s.name)).toContain(q.expect);
  });

  it('"make an Excel spreadsheet with a formula column" ranks xlsx first (it ranked below pdf and slack-gif-creator)', () => {
    const ranked = rank(skills, { message: "make an Excel spreadsheet with a formula column" });
    expect(ranked[0]!.entry.name).toBe("xlsx");
    expect(ranked[0]!.reasons[0]).toMatch(/words .*"spreadsheet"/);
    expect(oldTop("make an Excel spreadsheet with a formula column")).not.toBe("xlsx");
  });

  it("plurals and verb forms fold, stop words do not match, format names map to their files", () => {
    expect([...termsOf("spreadsheets formulas creating")]).toEqual(["spreadsheet", "formula"]);
    expect(termsOf("the with make a for")).toEqual(new Set());
    expect(termsOf("Excel")).toEqual(new Set(["excel", "xlsx", "spreadsheet"]));
    expect(newTop("add the formulas to the spreadsheets")).toBe("xlsx");
  });

  it("ties are not broken by name: the order given stands when nothing tells two skills apart", () => {
    const twin = (name: string) =>
      parseSkill({ path: `/ws/s/${name}/SKILL.md`, source: `s/${name}/SKILL.md`, origin: "workspace", text: `---\nname: ${name}\ndescription: Render charts\n---\nx\n` }).entry!;
    expect(rank([twin("zeta"), twin("alpha")], { message: "render charts" }).map((s) => s.entry.name)).toEqual(["zeta", "alpha"]);
    expect(rank([twin("alpha"), twin("zeta")], { message: "render charts" }).map((s) => s.entry.name)).toEqual(["alpha", "zeta"]);
  });

  it("precision@1 on the query set: measured before and after", () => {
    const before = precision(oldTop);
    const after = precision(newTop);
    console.log(`precision@1 over ${fixture.queries.length} queries: before ${before.p.toFixed(3)}, after ${after.p.toFixed(3)}`);
    if (after.misses.length) console.log(`misses after:\n  ${after.misses.join("\n  ")}`);
    expect(after.p).toBeGreaterThan(before.p);
    expect(after.p).toBeGreaterThanOrEqual(0.9);
  });
});

describe("matching a lesson's keywords", () => {
  it("a plain one-word keyword matches the word's other forms; a wildcard keyword keeps its own rule", async () => {
    const { parseLesson } = await import("../../../src/core/guidance/parse");
    const lesson = parseLesson({ path: "/ws/l.md", source: "l.md", origin: "workspace", text: "---\nmatch:\n  keywords: [migration, 'flak*']\n---\n# M\nBody.\n" }).entry!;
    expect(rank([lesson], { message: "the migrations fail" })[0]?.reasons).toEqual(['keyword "migration" (a form of it)']);
    expect(rank([lesson], { message: "a migration" })[0]?.reasons).toEqual(['keyword "migration"']);
    expect(rank([lesson], { message: "the emigrant" })).toEqual([]);
    expect(rank([lesson], { message: "flakiness again" })[0]?.reasons).toEqual(['keyword "flak*"']);
  });
});
