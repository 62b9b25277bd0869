// The shipped extension carries no test hook: the extension-host suite gets in through a separate,
// test-only runner extension (test/vscode/runner), never through the production bundle.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

describe("the production bundle", () => {
  let out: string;
  beforeAll(() => {
    // The same command scripts/package.mjs runs for the .vsix, into a private folder.
    out = mkdtempSync(join(tmpdir(), "yoke-prod-bundle-"));
    const r = spawnSync(process.execPath, ["esbuild.mjs", "--production", `--outdir=${out}`], { cwd: root, encoding: "utf8" });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it.each(["extension.js", "session.js"])("%s has no test hook (YOKE_TEST_SUITE, a test runner, mocha)", (file) => {
    const text = readFileSync(join(out, file), "utf8");
    expect(text.length).toBeGreaterThan(1000);
    expect(text).not.toContain("YOKE_TEST_SUITE");
    expect(text).not.toContain("YOKE_TEST_RESULTS");
    expect(text).not.toContain("vscode-suite");
    expect(text).not.toMatch(/require\(["']mocha["']\)/);
  });

  it("keeps activation light: extension.js stays small (zod/mini, no provider SDK)", () => {
    // Every byte of extension.js is compiled when VS Code activates Yoke (target: activate() ≤ 50 ms
    // of CPU, yoke bench --only startup). Full zod alone was 456 KB of it; the settings read at
    // activation use zod/mini.
    const text = readFileSync(join(out, "extension.js"), "utf8");
    expect(text.length).toBeLessThan(400_000);
    expect(text).not.toContain("@anthropic-ai/sdk");
  });

  it("is the real extension (it registers the chat view and its commands), minified", () => {
    const text = readFileSync(join(out, "extension.js"), "utf8");
    expect(text).toContain("yoke.chat");
    expect(text).toContain("yoke.setApiKey");
    // Minified: no source map comment and few, long lines (esbuild keeps the line breaks of
    // multi-line strings, such as the panel's HTML and the prompt texts, as template literals).
    expect(text).not.toContain("sourceMappingURL");
    const lines = text.split("\n");
    expect(lines.length).toBeLessThan(120);
    expect(text.length / lines.length).toBeGreaterThan(1_000);
  });
});
