/**
 * `yoke lessons list` starts git's index listing of nested memory before its bundle loads
 * (issue 19: at a million files git reads its index for seconds while Node starts): the
 * listing that asks for the same folder and globs takes the running git — one `git ls-files`
 * per run — and an unclaimed one is not used for another folder. Real git, real CLI.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NESTED_GUIDANCE_GLOBS } from "../../src/core/guidance/nested-globs";
import { gitTracked } from "../../src/node/git-tracked";
import { prefetchTracked } from "../../src/node/git-ls-files";
import { ensureBuilt, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@x", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@x" };

/** A committed repository with nested memory, and a folder with a `git` that logs its calls. */
function fixture(): { root: string; other: string; bin: string; calls: () => string[]; home: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-lessons-prefetch-"));
  temps.push(dir);
  const make = (root: string, files: Record<string, string>) => {
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, rel)), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    execFileSync("git", ["init", "-q"], { cwd: root, env: gitEnv });
    execFileSync("git", ["add", "-A"], { cwd: root, env: gitEnv });
    execFileSync("git", ["commit", "-qm", "base"], { cwd: root, env: gitEnv });
  };
  const root = join(dir, "ws");
  make(root, { "AGENTS.md": "Root.\n", "pkg/a/AGENTS.md": "Nested a.\n", "pkg/b/CLAUDE.md": "Nested b.\n", "src/x.ts": "x\n" });
  const other = join(dir, "other");
  make(other, { "AGENTS.md": "Other root.\n", "lib/AGENTS.md": "Other nested.\n" });
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const log = join(dir, "git-calls.log");
  writeFileSync(log, "");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, "git"), 0o755);
  const home = join(dir, "home");
  mkdirSync(home);
  return {
    root,
    other,
    bin,
    home,
    calls: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((l) => / ls-files /.test(l)),
  };
}

describe("git's index listing of nested memory, started early", () => {
  it("is taken by the listing of the same folder and globs (one git), not by another folder's", async () => {
    const f = fixture();
    const path = process.env.PATH;
    process.env.PATH = `${f.bin}:${path}`;
    try {
      prefetchTracked(f.root, NESTED_GUIDANCE_GLOBS);
      // Let git finish before anyone listens: what it printed meanwhile is kept.
      await new Promise((r) => setTimeout(r, 1500));
      const got = await gitTracked({ path: f.root, globs: [...NESTED_GUIDANCE_GLOBS], maxResults: 100 });
      expect(got?.paths.sort()).toEqual([`${f.root}/AGENTS.md`, `${f.root}/pkg/a/AGENTS.md`, `${f.root}/pkg/b/CLAUDE.md`]);
      expect(f.calls()).toHaveLength(1);
      // Taken once: the next listing runs git again.
      expect((await gitTracked({ path: f.root, globs: [...NESTED_GUIDANCE_GLOBS], maxResults: 100 }))?.paths).toHaveLength(3);
      expect(f.calls()).toHaveLength(2);
      // A prefetch of one folder never answers for another.
      prefetchTracked(f.root, NESTED_GUIDANCE_GLOBS);
      const other = await gitTracked({ path: f.other, globs: [...NESTED_GUIDANCE_GLOBS], maxResults: 100 });
      expect(other?.paths.sort()).toEqual([`${f.other}/AGENTS.md`, `${f.other}/lib/AGENTS.md`]);
      // Nor for other globs, and its bound still applies to the answer.
      prefetchTracked(f.root, NESTED_GUIDANCE_GLOBS);
      const bounded = await gitTracked({ path: f.root, globs: [...NESTED_GUIDANCE_GLOBS], maxResults: 2 });
      expect(bounded).toMatchObject({ truncated: true, stopped: "limit" });
      expect(bounded?.paths).toHaveLength(2);
    } finally {
      process.env.PATH = path;
    }
  }, 60_000);

  it("`yoke lessons list` runs git's listing once and lists every nested memory file", async () => {
    const f = fixture();
    const r = await runCli(["lessons", "list", "--cwd", f.root, "--json"], { env: { HOME: f.home, PATH: `${f.bin}:${process.env.PATH}` } });
    expect(r.code, r.stderr).toBe(0);
    const sources = (JSON.parse(r.stdout) as { entries: Array<{ source: string }> }).entries.map((e) => e.source);
    for (const s of ["AGENTS.md", "pkg/a/AGENTS.md", "pkg/b/CLAUDE.md"]) expect(sources.some((x) => x === s || x.endsWith(`/${s}`))).toBe(true);
    expect(f.calls()).toHaveLength(1);
    // A usage error: the early git never holds the process open, and nothing is listed.
    const bad = await runCli(["lessons", "list", "--cwd", f.root, "--nope"], { env: { HOME: f.home, PATH: `${f.bin}:${process.env.PATH}` } });
    expect(bad.code).toBe(2);
  }, 120_000);
});
