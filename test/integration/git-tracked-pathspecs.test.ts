/**
 * gitTracked asks git with plain pathspecs (cheaper for git than `:(glob)` ones: no wildmatch per
 * index entry for the memory names) and keeps what the globs match. Its answer must be exactly,
 * and in the same order, what `git ls-files` lists for the `:(glob)` pathspecs, on paths made to
 * tell them apart: look-alike names, a folder named like the file, rule folders at every depth,
 * a folder literally named `**`, names with newlines, spaces, non-ASCII and glob characters, from
 * the top and from a sub-folder, with the result bound hit, and whatever GIT_*_PATHSPECS the
 * environment sets. Real git.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NESTED_GUIDANCE_GLOBS } from "../../src/core/guidance/nested-globs";
import { globLsFilesArgs, LS_FILES_ENV, trackedPathspecs } from "../../src/node/git-ls-files";
import { gitTracked } from "../../src/node/git-tracked";

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };

const FILES = [
  "AGENTS.md",
  "CLAUDE.md",
  "XAGENTS.md",
  "AGENTS.md.bak",
  "agents.md",
  "docs/MY_AGENTS.md",
  "docs/AGENTS.md",
  "docs/AGENTS.mdx",
  "a/b/c/d/e/f/g/AGENTS.md",
  "a/b/CLAUDE.md",
  "AGENTS.md.d/AGENTS.md",
  "dir/AGENTS.md/inner.txt",
  "dir/AGENTS.md/AGENTS.md",
  "**/AGENTS.md/x.txt",
  "**/CLAUDE.md",
  "**/.cursor/rules/**/*.mdc/y.txt",
  "**/.windsurf/rules/**/*.md",
  "** /AGENTS.md",
  "star*/AGENTS.md",
  "q?/AGENTS.md",
  "br[a]/CLAUDE.md",
  "sp ace/AGENTS.md",
  "ünï/CLAUDE.md",
  "new\nline/AGENTS.md",
  "tail/AGENTS.md\n",
  ".cursor/rules/root.mdc",
  ".cursor/rules/deep/er/x.mdc",
  ".cursor/rules/.mdc",
  ".cursor/rules/x.mdc.txt",
  ".cursor/rulesX/y.mdc",
  "x.cursor/rules/z.mdc",
  "web/.cursor/rules/a.mdc",
  "web/.cursor/rules/sub/b.mdc",
  "web/.cursor/rule/c.mdc",
  "web/cursor/rules/d.mdc",
  "web2/.cursor/rules",
  "a/.cursor/rules/x/.cursor/rules/y.mdc",
  "stray.mdc",
  ".windsurf/rules/root.md",
  ".windsurf/rules/deep/x.md",
  ".windsurf/rules/x.MD",
  ".windsurf/rules/x.mdc",
  "app/.windsurf/rules/a.md",
  "app/.windsurf/rules/a.md.txt",
  "app/x.windsurf/rules/b.md",
  "app/.windsurf/rulesy/c.md",
  "app/.windsurf/rules/.md",
  "node_modules/pkg/AGENTS.md",
  "src/index.ts",
  "src/deep/index.ts",
  "src/x.tsx",
  "src/a.ts/b.js",
  "src/*.tsx/inner.txt",
  "src/*.ts/inner.txt",
  "a/**/x/AGENTS.md",
  "a/**/AGENTS.md/z.txt",
  "**/AGENTS.mdx/q.txt",
  "README.md",
];

let root = "";
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "yoke-tracked-pathspecs-"));
  for (const rel of FILES) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), `${rel}\n`);
  }
  execFileSync("git", ["init", "-q"], { cwd: root, env: gitEnv });
  execFileSync("git", ["add", "-A"], { cwd: root, env: gitEnv });
  execFileSync("git", ["commit", "-qm", "base"], { cwd: root, env: gitEnv });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What git lists for the `:(glob)` pathspecs (the reference), as absolute paths. */
function globListing(path: string, globs: readonly string[]): string[] {
  const out = execFileSync("git", globLsFilesArgs(path, globs), { env: { ...process.env, ...LS_FILES_ENV }, encoding: "utf8" });
  return out
    .split("\0")
    .filter((p) => p !== "")
    .map((p) => `${path}/${p}`);
}

const GLOB_SETS: ReadonlyArray<readonly string[]> = [
  NESTED_GUIDANCE_GLOBS,
  ["**/AGENTS.md"],
  ["**/.cursor/rules/**/*.mdc"],
  ["src/*.ts", "**/*.tsx"],
  ["src/*.ts", "src/*.tsx"],
  ["a/**/AGENTS.md", "a/b/CLAUDE.md"],
  ["a/**/AGENTS.md", "**/b/**/CLAUDE.md"],
  ["**/AGENTS.md", "**/AGENTS.mdx"],
  ["**/src/**/index.ts"],
  ["*.md"],
  ["AGENTS.md"],
  ["a/**/AGENTS.md", "**/CLAUDE.md"],
  // Not plain: asked as `:(glob)` as before.
  ["**/?GENTS.md"],
  ["**/{AGENTS,CLAUDE}.md"],
  ["src/**"],
];

describe("gitTracked: plain pathspecs, kept as the :(glob) ones list", () => {
  it("every memory glob and both rule globs are asked without wildmatch on the memory names", () => {
    const { pathspecs, exact } = trackedPathspecs(NESTED_GUIDANCE_GLOBS);
    expect(exact).toBe(false);
    expect(pathspecs).toEqual(["*AGENTS.md", "*CLAUDE.md", "*.cursor/rules/*.mdc", "*.cursor/rules/*.md", "*.windsurf/rules/*.md", ":(literal)**/"]);
    expect(trackedPathspecs(["**/?GENTS.md"])).toEqual({ pathspecs: [":(glob)**/?GENTS.md"], exact: true });
    expect(trackedPathspecs([])).toEqual({ pathspecs: [], exact: true });
    // No shared start like `**/`: the changed glob's own text, asked literally (not all of `a/`).
    expect(trackedPathspecs(["a/**/AGENTS.md", "b/**/CLAUDE.md"]).pathspecs).toEqual(["a/*AGENTS.md", "b/*CLAUDE.md", ":(literal)a/**/AGENTS.md", ":(literal)b/**/CLAUDE.md"]);
    expect(trackedPathspecs(["a/**/AGENTS.md", "a/b/CLAUDE.md"]).pathspecs).toEqual(["a/*AGENTS.md", "a/b/CLAUDE.md", ":(literal)a/**/"]);
  });

  for (const globs of GLOB_SETS) {
    it(`the same paths in the same order: ${globs.join(" ")}`, async () => {
      const want = globListing(root, globs);
      const got = await gitTracked({ path: root, globs, maxResults: 10_000 });
      expect(got?.paths).toEqual(want);
      expect(got?.truncated).toBe(false);
      // From a sub-folder: git's paths (and pathspecs) are relative to it.
      for (const sub of ["a", "web", "**", ".cursor"]) {
        const subWant = globListing(join(root, sub), globs);
        const subGot = await gitTracked({ path: join(root, sub), globs, maxResults: 10_000 });
        expect(subGot?.paths).toEqual(subWant);
      }
    });
  }

  it("the guidance globs matched something of each kind (the comparison is not vacuous)", () => {
    const want = globListing(root, NESTED_GUIDANCE_GLOBS).map((p) => p.slice(root.length + 1));
    expect(want).toEqual(
      expect.arrayContaining(["**/CLAUDE.md", "**/AGENTS.md/x.txt", "a/b/c/d/e/f/g/AGENTS.md", "new\nline/AGENTS.md", "web/.cursor/rules/sub/b.mdc", ".cursor/rules/.mdc", "app/.windsurf/rules/a.md"]),
    );
    for (const not of ["XAGENTS.md", "docs/MY_AGENTS.md", "stray.mdc", "x.cursor/rules/z.mdc", "app/x.windsurf/rules/b.md", ".windsurf/rules/x.MD", "tail/AGENTS.md\n"])
      expect(want).not.toContain(not);
  });

  it("the bound cuts the same list at the same place", async () => {
    const want = globListing(root, NESTED_GUIDANCE_GLOBS);
    for (const max of [1, 3, 7]) {
      const got = await gitTracked({ path: root, globs: NESTED_GUIDANCE_GLOBS, maxResults: max });
      expect(got?.paths).toEqual(want.slice(0, max));
      expect(got?.truncated).toBe(true);
      expect(got?.stopped).toBe("limit");
    }
  });

  it("GIT_*_PATHSPECS in the environment change nothing", async () => {
    const want = globListing(root, NESTED_GUIDANCE_GLOBS);
    for (const name of ["GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS", "GIT_LITERAL_PATHSPECS", "GIT_ICASE_PATHSPECS"]) {
      const before = process.env[name];
      process.env[name] = "1";
      try {
        expect((await gitTracked({ path: root, globs: NESTED_GUIDANCE_GLOBS, maxResults: 10_000 }))?.paths, name).toEqual(want);
      } finally {
        if (before === undefined) delete process.env[name];
        else process.env[name] = before;
      }
    }
  });

  it("outside a git work tree: no answer (the caller walks)", async () => {
    const plain = mkdtempSync(join(tmpdir(), "yoke-tracked-plain-"));
    try {
      expect(await gitTracked({ path: plain, globs: NESTED_GUIDANCE_GLOBS, maxResults: 10 })).toBeUndefined();
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});
