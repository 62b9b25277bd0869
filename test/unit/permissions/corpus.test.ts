/**
 * Runs every case of test/fixtures/permissions-corpus.json through the CLI code path
 * (`yoke permissions check --json`) in a fresh temporary workspace and requires 100% agreement.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createCorpusRunner, loadPermissionCorpus } from "../../../src/bench/permissions-corpus";

const corpus = loadPermissionCorpus();
const runner = createCorpusRunner(corpus);
afterAll(() => runner.dispose(), 180_000);

describe("permissions corpus", () => {
  it("has at least 150 cases with unique ids", () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(150);
    expect(new Set(corpus.cases.map((c) => c.id)).size).toBe(corpus.cases.length);
  });

  it("agrees with every expected decision and rule (100%)", async () => {
    const failures: string[] = [];
    const byCategory = new Map<string, { total: number; ok: number }>();
    for (const c of corpus.cases) {
      const got = await runner.run(c);
      expect(got.exitCode).toBe(0);
      const stat = byCategory.get(c.category) ?? { total: 0, ok: 0 };
      stat.total++;
      if (got.agrees) stat.ok++;
      else
        failures.push(
          `${c.id} [${c.category}] ${c.tool} ${JSON.stringify(c.input)} mode=${c.mode}: expected ${got.expected.decision} ${got.expected.rule}, got ${got.decision} ${got.rule} — ${got.reason}`,
        );
      byCategory.set(c.category, stat);
    }
    const summary = [...byCategory].map(([k, v]) => `${k}: ${v.ok}/${v.total}`).join("\n");
    expect(failures, `${summary}\n\n${failures.join("\n")}`).toEqual([]);
  }, 120_000);

  it("covers every decision and the categories the docs list", () => {
    const categories = new Set(corpus.cases.map((c) => c.category));
    for (const k of [
      "compound commands",
      "substitution",
      "bash -c and eval",
      "wrappers",
      "environment prefixes",
      "quoting tricks",
      "command paths",
      "redirections",
      "unanalysable",
      "read-only commands",
      "modes",
      "bash rule syntax",
      "file paths",
      "other tools",
      "settings sources",
    ]) {
      expect(categories.has(k), k).toBe(true);
    }
    for (const d of ["allow", "ask", "deny"]) expect(corpus.cases.some((c) => c.expect.decision === d)).toBe(true);
  });

  it("warns about a malformed settings file, naming the file and position", async () => {
    const c = corpus.cases.find((x) => x.note?.startsWith("malformed file"))!;
    const got = await runner.run(c);
    expect(got.stderr).toMatch(
      /warning: .*\.claude\/settings\.json: the file is not valid JSON \(1:47: unexpected "\}" .*\); Yoke cannot know which rules it holds, so every tool call asks until it is fixed/,
    );
  });
});
