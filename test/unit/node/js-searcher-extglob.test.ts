/**
 * Issue 18: the Glob tool's fallback searcher (no rg) matched the model's pattern with picomatch's
 * expression, which backtracks exponentially on an extglob: `+(*a)X` against a 40-character name
 * held the extension host. It now matches in bounded time (src/core/glob) with the same answers.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJsSearcher } from "../../../src/node/ripgrep-searcher";

describe("JS searcher: a model's extglob pattern", () => {
  let root: string;
  const A40 = "a".repeat(40);
  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-ext18-glob-")));
    for (const rel of [`src/${A40}`, `src/${A40}X`, "src/b.ts"]) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), "x\n");
    }
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("answers with exactly the matching files", async () => {
    const js = createJsSearcher();
    for (const [pattern, want] of [
      ["+(*a)X", [`src/${A40}X`]],
      ["**/+(a|a?)+(a|?a)X", [`src/${A40}X`]],
      ["src/!(*X)", [`src/${A40}`, "src/b.ts"]],
    ] as const) {
      const r = await js.glob({ pattern, path: root, maxResults: 50 });
      expect(r.paths.map((p) => path.relative(root, p)).sort(), pattern).toEqual([...want].sort());
    }
  });

  it("refuses a pattern it cannot match in bounded time, saying so", async () => {
    await expect(createJsSearcher().glob({ pattern: "x\\1y", path: root, maxResults: 50 })).rejects.toThrow(/regular-expression syntax/);
  });
});
