// `yoke lessons list` and `yoke lessons match` (contract section 3) on real files, through the built CLI.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-guidance-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

describe("yoke lessons", () => {
  const home = tree({ ".yoke/lessons/mine.md": "---\nmatch: {keywords: [deploy]}\n---\n# Mine\nUser lesson.\n" });
  const cwd = tree({
    "AGENTS.md": "Root memory.\n",
    "pkg/CLAUDE.md": "Nested memory.\n",
    ".cursor/rules/ts.mdc": "---\ndescription: TS\nglobs: src/**/*.ts, lib/*.js\n---\nStrict.\n",
    ".claude/skills/pdf/SKILL.md": "---\nname: pdf-forms\ndescription: Fill PDF forms\n---\nBody.\n",
    ".yoke/lessons/broken.md": "---\nmatch:\n  keywords: [x\n---\nBody\n",
    ".yoke/lessons/flaky.md": "---\nmatch:\n  keywords: ['flak*']\n  tools: [run_command]\n---\n# Flaky\nRerun.\n",
  });
  const env = { HOME: home };

  it("list --json: every lesson, skill, rule and memory file, with problems at file:line", async () => {
    const r = await runCli(["lessons", "list", "--cwd", cwd, "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { entries: Array<Record<string, unknown>>; problems: Array<{ path: string; line: number; message: string; at: string }> };
    const by = (source: string) => out.entries.find((e) => e.source === source);
    expect(by("AGENTS.md")).toMatchObject({ kind: "memory", activation: "always", origin: "workspace" });
    expect(by("pkg/CLAUDE.md")).toMatchObject({ kind: "memory", activation: "folder" });
    expect(by(".cursor/rules/ts.mdc")).toMatchObject({ kind: "rule", name: "ts", activation: "glob", match: { globs: ["src/**/*.ts", "lib/*.js"] } });
    expect(by(".claude/skills/pdf/SKILL.md")).toMatchObject({ kind: "skill", name: "pdf-forms", description: "Fill PDF forms" });
    expect(by("~/.yoke/lessons/mine.md")).toMatchObject({ kind: "lesson", origin: "user" });
    expect(out.entries.filter((e) => e.origin === "builtin").length).toBeGreaterThanOrEqual(12);
    expect(out.problems).toEqual([
      { path: join(cwd, ".yoke/lessons/broken.md"), line: expect.any(Number), message: expect.stringContaining("invalid YAML frontmatter"), at: expect.stringMatching(/broken\.md:\d+$/) },
    ]);
    const human = await runCli(["lessons", "list", "--cwd", cwd], { env });
    expect(human.stdout).toMatch(/problems \(1\):\n {2}.*broken\.md:\d+: invalid YAML frontmatter/);
  });

  it("list applies the Read deny rules a session applies: a denied guidance file is not read, and says so", async () => {
    const denied = tree({
      "AGENTS.md": "Root memory.\n",
      ".cursor/rules/secret.mdc": "---\ndescription: Secret\nalwaysApply: true\n---\nSECRET-RULE-BODY\n",
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(.cursor/rules/secret.mdc)"] } }),
    });
    const r = await runCli(["lessons", "list", "--cwd", denied, "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { entries: Array<Record<string, unknown>>; problems: Array<{ path: string; message: string }> };
    expect(out.entries.find((e) => e.source === "AGENTS.md")).toBeDefined();
    expect(out.entries.find((e) => e.source === ".cursor/rules/secret.mdc")).toBeUndefined();
    expect(out.problems).toEqual([expect.objectContaining({ path: expect.stringContaining("secret.mdc"), message: expect.stringContaining("not read: reading it is denied by") })]);
    expect(r.stdout).not.toContain("SECRET-RULE-BODY");
  });

  it("match --json: ranked best first, with kind, source, score and reasons", async () => {
    const r = await runCli(["lessons", "match", "--message", "the flaky deploy", "--tool", "run_command", "--file", "src/a.ts", "--file", "pkg/x.py", "--cwd", cwd, "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("broken.md");
    const { matches } = JSON.parse(r.stdout) as { matches: Array<{ name: string; kind: string; source: string; score: number; reasons: string[] }> };
    expect(Object.keys(JSON.parse(r.stdout))).toEqual(["matches"]);
    for (const m of matches) expect(Object.keys(m)).toEqual(["name", "kind", "source", "score", "reasons"]);
    expect(matches.map((m) => m.score)).toEqual([...matches.map((m) => m.score)].sort((a, b) => b - a));
    const of = (source: string) => matches.find((m) => m.source === source);
    expect(of(".yoke/lessons/flaky.md")).toMatchObject({ kind: "lesson", score: 2, reasons: ['keyword "flak*"', "tool run_command"] });
    expect(of("~/.yoke/lessons/mine.md")).toMatchObject({ kind: "lesson", reasons: ['keyword "deploy"'] });
    expect(of(".cursor/rules/ts.mdc")).toMatchObject({ kind: "rule", reasons: ["glob src/**/*.ts (src/a.ts)"] });
    expect(of("pkg/CLAUDE.md")).toMatchObject({ kind: "memory", reasons: ["file pkg/x.py in its folder"] });
    expect(of("AGENTS.md")).toMatchObject({ kind: "memory", reasons: ["always"] });
    expect(matches[0]!.source).toBe(".yoke/lessons/flaky.md");
  });

  it("bad usage exits 2", async () => {
    expect((await runCli(["lessons", "match", "--cwd", cwd], { env })).code).toBe(2);
    expect((await runCli(["lessons", "nope"], { env })).code).toBe(2);
  });
});
