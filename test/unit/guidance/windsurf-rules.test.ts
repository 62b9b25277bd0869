// Windsurf rules read as Windsurf reads them: `.windsurf/rules/*.md` with `trigger: always_on |
// glob | model_decision | manual` (+ `globs`, `description`) get the activation Yoke gives Cursor's
// rules; a file whose trigger cannot work is manual (@name), with a problem that says why.
import { describe, expect, it } from "vitest";
import { parseRule } from "../../../src/core/guidance/parse";

const rule = (text: string) => parseRule({ path: "/ws/.windsurf/rules/r.md", source: ".windsurf/rules/r.md", origin: "workspace", text }, "windsurf");

describe("Windsurf rule triggers", () => {
  it("always_on → always; glob + globs → glob; model_decision + description → requested; manual → manual", () => {
    expect(rule("---\ntrigger: always_on\n---\nA").entry).toMatchObject({ activation: "always" });
    const g = rule("---\ntrigger: glob\nglobs: src/**/*.tsx, *.css\n---\nG");
    expect(g.entry).toMatchObject({ activation: "glob" });
    expect(g.entry!.match.globs).toEqual(["src/**/*.tsx", "*.css"]);
    expect(rule("---\ntrigger: model_decision\ndescription: When writing migrations\n---\nM").entry).toMatchObject({ activation: "requested", description: "When writing migrations" });
    const m = rule("---\ntrigger: manual\n---\nX");
    expect(m.entry).toMatchObject({ activation: "manual" });
    expect(m.problems).toEqual([]);
  });
  it("model_decision without a description is still the model's to choose (Windsurf lists it to Cascade): requested, listed by its heading or name, no problem", () => {
    const withHeading = rule("---\ntrigger: model_decision\n---\n# Database migrations\nUse the migrate tool.");
    expect(withHeading.entry).toMatchObject({ activation: "requested", description: "Database migrations", name: "r" });
    expect(withHeading.problems).toEqual([]);
    const bare = rule("---\ntrigger: model_decision\n---\nUse the migrate tool.");
    expect(bare.entry).toMatchObject({ activation: "requested", name: "r" });
    expect(bare.problems).toEqual([]);
  });
  it("a trigger that cannot work is manual, with the reason: glob without globs, an unknown or missing trigger", () => {
    const cases: Array<[string, string]> = [
      ["---\ntrigger: glob\n---\nX", "trigger: glob without globs: it applies only when named with @"],
      ["---\ntrigger: sometimes\n---\nX", 'trigger "sometimes" is not always_on, glob, model_decision or manual: it applies only when named with @'],
      ["# No frontmatter\nX", "no trigger: it applies only when named with @ (set trigger: always_on to apply it always)"],
    ];
    for (const [text, message] of cases) {
      const r = rule(text);
      expect(r.entry, text).toMatchObject({ activation: "manual" });
      expect(
        r.problems.map((p) => p.message),
        text,
      ).toEqual([message]);
    }
  });
});
