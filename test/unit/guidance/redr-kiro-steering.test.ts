// Kiro steering `inclusion` (kiro.dev/docs/steering) mapped to Yoke's activations, with the shapes
// real repositories write: fileMatchPattern as a YAML list, a brace glob, a comma-separated string;
// an inclusion that cannot work is manual (@name), with the reason.
import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../../src/core/guidance/frontmatter";
import { parseRule } from "../../../src/core/guidance/parse";

const rule = (text: string) => parseRule({ path: "/ws/.kiro/steering/r.md", source: ".kiro/steering/r.md", origin: "workspace", text }, "kiro");

describe("Kiro steering inclusion", () => {
  it("none or always → always; fileMatch → glob (string, list, braces, commas); auto → requested under its name; manual → manual", () => {
    expect(rule("# Tech\nX").entry).toMatchObject({ activation: "always", name: "r" });
    expect(rule("---\ninclusion: always\n---\nX").entry).toMatchObject({ activation: "always" });
    expect(rule('---\ninclusion: fileMatch\nfileMatchPattern: ["app/tests/**/*.py", "conftest.py"]\n---\nX').entry!.match.globs).toEqual(["app/tests/**/*.py", "conftest.py"]);
    expect(rule("---\ninclusion: fileMatch\nfileMatchPattern: '**/*.{js,mjs,ts}'\n---\nX").entry!.match.globs).toEqual(["**/*.{js,mjs,ts}"]);
    expect(rule('---\ninclusion: fileMatch\nfileMatchPattern: "**/*.ts,**/*.tsx"\n---\nX').entry!.match.globs).toEqual(["**/*.ts", "**/*.tsx"]);
    expect(rule("---\ninclusion: fileMatch\nfileMatchPattern: 'api/**'\n---\nX").entry).toMatchObject({ activation: "glob" });
    expect(rule("---\ninclusion: auto\nname: db-migrations\ndescription: Writing schema migrations\n---\nX").entry).toMatchObject({
      activation: "requested",
      name: "db-migrations",
      description: "Writing schema migrations",
    });
    const m = rule("---\ninclusion: manual\n---\nX");
    expect(m.entry).toMatchObject({ activation: "manual", name: "r" });
    expect(m.problems).toEqual([]);
  });
  it("an inclusion that cannot work is manual, with the reason (fileMatch without a pattern — `filePatterns` is not Kiro's key —, auto without a description, an unknown value)", () => {
    const cases: Array<[string, string]> = [
      ['---\ninclusion: fileMatch\nfilePatterns:\n  - "src/**/*.ts"\n---\nX', "inclusion: fileMatch without a fileMatchPattern: it applies only when named with @"],
      ["---\ninclusion: auto\nname: x\n---\nX", "inclusion: auto without a description: the model cannot choose it, so it applies only when named with @"],
      ["---\ninclusion: conditional\n---\nX", 'inclusion "conditional" is not always, fileMatch, auto or manual: it applies only when named with @'],
    ];
    for (const [text, message] of cases) {
      const r = rule(text);
      expect(r.entry, text).toMatchObject({ activation: "manual" });
      expect(
        r.problems.map((p) => p.message),
        text,
      ).toEqual([message]);
      expect(r.problems[0]!.line, text).toBe(2);
    }
  });
  it("an unquoted glob starting with * (a YAML alias to YAML) is the glob, as Kiro reads it; any other value YAML reads as an unresolved alias is plain text, never a crash", () => {
    expect(rule("---\ninclusion: fileMatch\nfileMatchPattern: **/*.py\n---\nX").entry!.match.globs).toEqual(["**/*.py"]);
    const fm = parseFrontmatter("---\ndescription: *Important* rules for the API\nname: *\n---\nbody\n");
    expect(fm.problem).toBeUndefined();
    expect(fm.data).toEqual({ description: "*Important* rules for the API", name: "*" });
  });
});
