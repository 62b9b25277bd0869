import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashlineReady, lineHash } from "../../../src/core/edit/hashline";
import type { Searcher } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { GLOB_TIME_LIMIT_MS, MAX_GLOB_RANKED, MAX_GLOB_RESULTS } from "../../../src/core/tools/glob";
import { GREP_TIME_LIMIT_MS, MAX_GREP_MATCHES } from "../../../src/core/tools/grep";
import type { ToolContext } from "../../../src/core/tools/types";
import { createJsSearcher, createRipgrepSearcher, findRipgrep } from "../../../src/node/ripgrep-searcher";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

const tools = createBuiltinTools();
const searchers: Array<[string, () => Searcher]> = [
  ["ripgrep", () => createRipgrepSearcher()],
  ["JS fallback", () => createJsSearcher()],
];

const h = (n: number, text: string) => `${n}#${lineHash(n, text)}|${text}`;

describe.each(searchers)("glob and grep tools (%s)", (_label, make) => {
  let ws: TempWorkspace;
  let ctx: ToolContext;
  beforeAll(async () => {
    await hashlineReady();
    expect(findRipgrep()).toBeDefined();
  });
  beforeEach(() => {
    ws = createTempWorkspace(
      {
        ".gitignore": "build/\n*.log\n",
        "src/a.ts": "export function alpha() {\n  return 1;\n}\n\nexport const beta = alpha();\n",
        "src/b.ts": "import { alpha } from './a';\nconsole.log(alpha);\n",
        "src/deep/c.tsx": "const Alpha = () => null;\n",
        "build/out.js": "function alpha() {}\n",
        "trace.log": "alpha\n",
        ".config/settings.json": '{"alpha": true}\n',
        ".git/config": "alpha\n",
      },
      { search: make() },
    );
    const t = Date.now() / 1000;
    fs.utimesSync(path.join(ws.root, "src/a.ts"), t - 300, t - 300);
    fs.utimesSync(path.join(ws.root, "src/b.ts"), t - 100, t - 100);
    fs.utimesSync(path.join(ws.root, "src/deep/c.tsx"), t - 200, t - 200);
    ctx = ws.context();
  });
  afterEach(() => ws.cleanup());

  it("glob lists workspace-relative paths, newest first, honouring .gitignore", async () => {
    const out = await callTool(tools, "glob", { pattern: "**/*.ts*" }, ctx);
    expect(out.text).toBe(['3 files match "**/*.ts*" in the workspace:', "src/b.ts", "src/deep/c.tsx", "src/a.ts"].join("\n"));
  });

  it("glob matches a pattern without / at any depth and is relative to path", async () => {
    expect((await callTool(tools, "glob", { pattern: "*.tsx" }, ctx)).text).toContain("src/deep/c.tsx");
    const inSrc = await callTool(tools, "glob", { pattern: "deep/*.tsx", path: "src" }, ctx);
    expect(inSrc.text).toBe(['1 file matches "deep/*.tsx" in "src":', "src/deep/c.tsx"].join("\n"));
  });

  it("glob finds hidden files but never .git, and says when nothing matched", async () => {
    expect((await callTool(tools, "glob", { pattern: "*.json" }, ctx)).text).toContain(".config/settings.json");
    expect((await callTool(tools, "glob", { pattern: "config" }, ctx)).text).toBe('No files match "config" in the workspace (files ignored by .gitignore are not searched).');
  });

  it("glob shows the 200 most recently modified of all matches and says how many more there are", async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 250; i++) files[`gen/f${String(i).padStart(3, "0")}.py`] = "x\n";
    ws.write(files);
    const t = Date.now() / 1000;
    // The newest are the last 200 by name: f249 first.
    for (let i = 0; i < 250; i++) fs.utimesSync(path.join(ws.root, `gen/f${String(i).padStart(3, "0")}.py`), t - 1000 + i, t - 1000 + i);
    const out = await callTool(tools, "glob", { pattern: "**/*.py" }, ctx);
    const lines = out.text.split("\n");
    expect(lines[0]).toBe(`${MAX_GLOB_RESULTS} of 250 files matching "**/*.py" in the workspace, most recently modified first:`);
    expect(lines[1]).toBe("gen/f249.py");
    expect(lines[MAX_GLOB_RESULTS]).toBe("gen/f050.py");
    expect(lines.slice(MAX_GLOB_RESULTS + 1)).toEqual(["[50 more matching files are not shown. Use a more specific pattern or a path to narrow the search.]"]);
    expect(out.meta).toMatchObject({ truncated: true, found: 250 });
  });

  it("glob stops at the 2000th match it finds, ranks only those, and says so", async () => {
    const files: Record<string, string> = {};
    const name = (i: number) => `gen/f${String(i).padStart(4, "0")}.py`;
    for (let i = 0; i < MAX_GLOB_RANKED + 10; i++) files[name(i)] = "x\n";
    ws.write(files);
    // Every file a different age: f2009 the newest.
    const t = Date.now() / 1000;
    for (let i = 0; i < MAX_GLOB_RANKED + 10; i++) fs.utimesSync(path.join(ws.root, name(i)), t - 5000 + i, t - 5000 + i);
    const out = await callTool(tools, "glob", { pattern: "*.py" }, ctx);
    const lines = out.text.split("\n");
    expect(lines[0]).toBe(`${MAX_GLOB_RESULTS} of more than ${MAX_GLOB_RANKED} files matching "*.py" in the workspace, most recently modified first:`);
    expect(lines).toHaveLength(MAX_GLOB_RESULTS + 2);
    // rg finds the files in no fixed order; 10 were never looked at. The answer is the 200 newest
    // of the 2000 it ranked: newest first, and at most those 10 newer files are missing from it.
    const shown = lines.slice(1, MAX_GLOB_RESULTS + 1).map((l) => Number(/^gen\/f(\d{4})\.py$/.exec(l)![1]));
    expect(shown).toEqual([...shown].sort((a, b) => b - a));
    const skippedNewer = MAX_GLOB_RANKED + 10 - 1 - shown[shown.length - 1]! - (MAX_GLOB_RESULTS - 1);
    expect(skippedNewer).toBeGreaterThanOrEqual(0);
    expect(skippedNewer).toBeLessThanOrEqual(10);
    expect(lines[MAX_GLOB_RESULTS + 1]).toBe(
      `[More than ${MAX_GLOB_RANKED} files match: the search stopped at the ${MAX_GLOB_RANKED}th it found, and these are the most recently modified of those ` +
        "(the files it had not reached were not looked at). Use a more specific pattern or a path to narrow the search.]",
    );
    expect(out.meta).toMatchObject({ truncated: true, found: MAX_GLOB_RANKED, stopped: "limit" });
  });

  it("grep groups results by file with hashline anchors", async () => {
    const out = await callTool(tools, "grep", { pattern: "alpha" }, ctx);
    expect(out.text).toBe(
      [
        "5 matching lines in 3 files (searched the workspace):",
        ".config/settings.json:",
        h(1, '{"alpha": true}'),
        "src/a.ts:",
        h(1, "export function alpha() {"),
        "--",
        h(5, "export const beta = alpha();"),
        "src/b.ts:",
        h(1, "import { alpha } from './a';"),
        h(2, "console.log(alpha);"),
      ].join("\n"),
    );
  });

  it("grep shows context lines in the same format, with ignore_case and glob", async () => {
    const out = await callTool(tools, "grep", { pattern: "^alpha|const alpha", glob: "*.tsx", ignore_case: true, context: 1 }, ctx);
    expect(out.text).toBe(['1 matching line in 1 file (searched the workspace, files matching "*.tsx"):', "src/deep/c.tsx:", h(1, "const Alpha = () => null;")].join("\n"));
    const ctxOut = await callTool(tools, "grep", { pattern: "return", path: "src/a.ts", context: 1 }, ctx);
    expect(ctxOut.text.split("\n").slice(1)).toEqual(["src/a.ts:", h(1, "export function alpha() {"), h(2, "  return 1;"), h(3, "}")]);
  });

  it("grep anchors equal read_file's anchors for CRLF, BOM and non-UTF-8 lines", async () => {
    ws.write({ "w.txt": "\uFEFFfirst\r\nsecond zed\r\n", "l.txt": new Uint8Array([0x7a, 0x65, 0x64, 0xe9, 0x0a]) });
    const read = (await callTool(tools, "read_file", { path: "w.txt" }, ctx)).text.split("\n")[2];
    const grep = await callTool(tools, "grep", { pattern: "zed" }, ctx);
    expect(grep.text).toContain(`w.txt:\n${read}`);
    expect(read).toBe(h(2, "second zed"));
    const latin = (await callTool(tools, "read_file", { path: "l.txt" }, ctx)).text.split("\n")[1];
    expect(grep.text).toContain(`l.txt:\n${latin}`);
  });

  it("grep stops at the match limit and says how to narrow", async () => {
    ws.write({ "many.txt": Array.from({ length: MAX_GREP_MATCHES + 5 }, (_, i) => `hit ${i}`).join("\n") });
    const out = await callTool(tools, "grep", { pattern: "hit" }, ctx);
    expect(out.text.split("\n")[0]).toBe(`${MAX_GREP_MATCHES} matching lines (more exist) in 1 file (searched the workspace):`);
    expect(out.text).toContain(`[Results stop at ${MAX_GREP_MATCHES} matching lines. Narrow the search with path=, glob= or a more specific pattern to see the rest.]`);
  });

  it("grep reports an invalid regex as a model-facing error", async () => {
    const out = await callTool(tools, "grep", { pattern: "foo(" }, ctx);
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^grep failed: .*\. Check the pattern \(ripgrep regex syntax/s);
  });

  it("grep says when nothing matched and refuses paths outside the workspace", async () => {
    expect((await callTool(tools, "grep", { pattern: "zeta" }, ctx)).text).toBe("No matches for /zeta/ in the workspace.");
    expect((await callTool(tools, "grep", { pattern: "x", path: "../" }, ctx)).text).toContain("is outside the workspace");
  });
});

describe("glob and grep tools when the search stops at its time limit", () => {
  let ws: TempWorkspace;
  beforeAll(() => hashlineReady());
  afterEach(() => ws.cleanup());

  // The searchers' time limits are tested with a real process (test/unit/node/ripgrep-streaming.test.ts); here, what the model is told.
  const stoppedSearcher = (root: string): Searcher => ({
    async glob(o) {
      expect(o.timeLimitMs).toBe(GLOB_TIME_LIMIT_MS);
      return { paths: [`${root}/src/b.ts`, `${root}/src/a.ts`], truncated: true, found: 2, stopped: "time" };
    },
    async grep(o) {
      expect(o.timeLimitMs).toBeLessThanOrEqual(GREP_TIME_LIMIT_MS);
      expect(o.timeLimitMs).toBeGreaterThan(GREP_TIME_LIMIT_MS - 5_000);
      return { lines: [{ path: `${root}/src/a.ts`, line: 1, text: "alpha", match: true }], truncated: true, stopped: "time" };
    },
  });

  it("says what was found, that the search did not finish, and where it stopped", async () => {
    ws = createTempWorkspace({ "src/a.ts": "alpha\n", "src/b.ts": "beta\n" });
    const ctx = ws.context({ search: stoppedSearcher(ws.root) });
    const glob = await callTool(tools, "glob", { pattern: "**/*.ts" }, ctx);
    expect(glob.text).toBe(
      [
        `2 of the 2 files matching "**/*.ts" found in the workspace before the search stopped at its time limit of ${GLOB_TIME_LIMIT_MS / 1000} s, most recently modified first:`,
        "src/b.ts",
        "src/a.ts",
        "[The search did not finish: files it had not reached may match too. Give a path or a more specific pattern to search less.]",
      ].join("\n"),
    );
    const grep = await callTool(tools, "grep", { pattern: "alpha" }, ctx);
    expect(grep.text).toBe(
      [
        "1 matching line (the search stopped early) in 1 file (searched the workspace):",
        "src/a.ts:",
        h(1, "alpha"),
        `[The search stopped at its time limit of ${GREP_TIME_LIMIT_MS / 1000} s before it had read every file: files it had not reached may match too. Narrow the search with path=, glob= or a more specific pattern.]`,
      ].join("\n"),
    );
    expect(grep.meta).toMatchObject({ truncated: true, stopped: "time" });
  });

  it("says when nothing was found before the time limit", async () => {
    ws = createTempWorkspace({ "src/a.ts": "alpha\n" });
    const none: Searcher = {
      glob: async () => ({ paths: [], truncated: true, found: 0, stopped: "time" }),
      grep: async () => ({ lines: [], truncated: true, stopped: "time" }),
    };
    const ctx = ws.context({ search: none });
    expect((await callTool(tools, "glob", { pattern: "*.rs" }, ctx)).text).toBe(
      `No files matching "*.rs" found in the workspace before the search stopped at its time limit of ${GLOB_TIME_LIMIT_MS / 1000} s: it did not cover all of the workspace. Give a path to search a smaller folder.`,
    );
    expect((await callTool(tools, "grep", { pattern: "zeta" }, ctx)).text).toBe(
      `No matches for /zeta/ found in the workspace before the search stopped at its time limit of ${GREP_TIME_LIMIT_MS / 1000} s: it did not cover all of the workspace. Give a path or glob to search less.`,
    );
  });
});
