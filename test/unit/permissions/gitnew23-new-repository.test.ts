/**
 * Session 23 (gitnew23): the folders `git clone`, `git init`, `git worktree add` and `git submodule add` make, as the
 * gate names them (src/core/permissions/git-new-repository.ts), against what real git makes. The gate's answers are in
 * the attack corpus (R47-01…17); here: the default folder name (git_url_basename) and the folders each spelling makes.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitNewRepository, gitUrlBasename } from "../../../src/core/permissions/git-new-repository";
import { tokenize } from "../../../src/core/permissions/bash-spec";
import { literalWord } from "../../../src/core/permissions/shell/words";

let dir: string;
/** A clean environment: no configuration of this machine, no network, no prompts. */
const env = () => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: dir,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_SSH_COMMAND: "false",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
});
const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, env: env(), encoding: "utf8", timeout: 20_000 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gitnew23-"));
  mkdirSync(join(dir, "up"));
  execFileSync("git", ["init", "-q", "-b", "main", "proj"], { cwd: join(dir, "up"), env: env() });
  writeFileSync(join(dir, "up/proj/README.md"), "x\n");
  execFileSync("git", ["add", "."], { cwd: join(dir, "up/proj"), env: env() });
  execFileSync("git", ["commit", "-qm", "x"], { cwd: join(dir, "up/proj"), env: env() });
  execFileSync("git", ["bundle", "create", "-q", join(dir, "up/b.bundle"), "HEAD"], { cwd: join(dir, "up/proj"), env: env() });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the folder git clone names when none is given", () => {
  it("is git's own (git_url_basename), for every URL shape", () => {
    const urls = [
      "http://127.0.0.1:1/a/b.git/",
      "http://u@127.0.0.1:1/a/b/.git",
      "http://127.0.0.1:1/",
      "http://127.0.0.1:1/a/ b  c .git",
      "http://127.0.0.1:1/a/x.git//",
      "http://127.0.0.1:1/a/.vscode/.git",
      "http://127.0.0.1:1/a/x.bundle",
      "http://127.0.0.1:1/a/b:3.git",
      "http://a@b@127.0.0.1:1/x/y",
      "h:x/y.git",
      "h:2222",
      "h:x/2222",
      "u@h:x.git",
      "u@h:.claude",
    ];
    const got: string[] = [];
    const want: string[] = [];
    for (const bare of [false, true]) {
      for (const url of urls) {
        const r = git(dir, "clone", ...(bare ? ["--bare"] : []), url);
        const m = /Cloning into (?:bare repository )?'([^']*)'/.exec(r.stderr);
        want.push(`${bare ? "bare " : ""}${url} -> ${m ? m[1] : "(none)"}`);
        got.push(`${bare ? "bare " : ""}${url} -> ${gitUrlBasename(url, false, bare) ?? "(none)"}`);
      }
    }
    expect(got).toEqual(want);
  });
});

/** What a command line makes at the top of `cwd`, as the gate names it: the new entries, relative to `dir`. */
function predicted(line: string, cwd: string): string[] {
  const words = tokenize(line).map(literalWord);
  const made = gitNewRepository(words.slice(1))!;
  expect(made, line).toBeDefined();
  return made.regions.map((w) => join(cwd, w.value).slice(dir.length + 1)).sort();
}

describe("the folders each spelling makes", () => {
  it("are the written regions the gate names (real git 2.x)", () => {
    mkdirSync(join(dir, "ws/sub"), { recursive: true });
    const ws = join(dir, "ws");
    const cases: Array<[string, string[]]> = [
      ["git clone -q ../up/proj", ["ws/proj"]],
      ["git clone -q --bare ../up/proj", ["ws/proj.git"]],
      ["git clone -q --mirror ../up/proj m1", ["ws/m1"]],
      ["git clone -q --sep=g2 ../up/proj d2", ["ws/d2", "ws/g2"]],
      ["git clone -q --separate-git-dir g3 -- ../up/proj d3", ["ws/d3", "ws/g3"]],
      ["git -C sub clone -q ../../up/proj", ["ws/sub/proj"]],
      ["git clone -qbmain ../up/proj d4", ["ws/d4"]],
      ["git clone -q ../up/b.bundle", ["ws/b", "ws/b.bundle"]],
      ["git clone -q --no-checkout --depth=1 file://" + join(dir, "up/proj") + " d5", ["ws/d5"]],
    ];
    for (const [line, want] of cases) {
      const before = new Set(readdirSync(ws));
      const r = git(ws, ...tokenize(line).slice(1));
      expect(r.status, `${line}: ${r.stderr}`).toBe(0);
      const made = readdirSync(ws)
        .filter((n) => !before.has(n))
        .map((n) => `ws/${n}`);
      const sub = line.includes("-C sub") ? ["ws/sub/proj"] : [];
      // A bundle's folder is known only when git looks at the file: both candidates are named.
      const pred = predicted(line, ws);
      expect(pred, line).toEqual(want);
      for (const m of [...made, ...sub]) expect(pred, `${line} made ${m}`).toContain(m);
    }
    // worktree add and init, in a repository.
    git(ws, "init", "-q", "-b", "main", "r");
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "x"], { cwd: join(ws, "r"), env: env() });
    for (const [line, want] of [
      ["git worktree add -q ../w1", ["ws/w1"]],
      ["git worktree add -qf --detach -- ../w2 HEAD", ["ws/w2"]],
      ["git init -q --sep ../g4 ../i4", ["ws/g4", "ws/i4/.git"]],
      ["git init -q ../i5", ["ws/i5/.git"]],
    ] as const) {
      const before = new Set(readdirSync(ws));
      const r = git(join(ws, "r"), ...tokenize(line).slice(1));
      expect(r.status, `${line}: ${r.stderr}`).toBe(0);
      const made = readdirSync(ws).filter((n) => !before.has(n));
      const pred = predicted(line, join(ws, "r"));
      expect(pred, line).toEqual(want);
      // init names its marker (i4/.git) as a write, its --separate-git-dir as a region.
      for (const m of made) if (!line.startsWith("git init")) expect(pred, `${line} made ${m}`).toContain(`ws/${m}`);
    }
  }, 60_000);

  it("git's own --bare before init makes a bare repository at DIR, and the gate names DIR/HEAD (red team F, session 23)", () => {
    const ws = join(dir, "ws");
    mkdirSync(ws, { recursive: true });
    const r = git(ws, "--bare", "init", "-q", "i6");
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(ws, "i6/HEAD"))).toBe(true);
    expect(existsSync(join(ws, "i6/.git"))).toBe(false);
    const made = gitNewRepository(tokenize("git --bare init -q i6").map(literalWord).slice(1))!;
    expect(made.writes.map((w) => w.value)).toContain("i6/HEAD");
    expect(made.writes.map((w) => w.value)).not.toContain("i6/.git");
  });

  it("takes a folder it cannot place as one only known when git runs", () => {
    for (const line of ["git --git-dir=x clone u d", "git clone --frobnicate u d", "git -C $X init", "git worktree add --bogus w"]) {
      const words = tokenize(line).map((v) => ({ ...literalWord(v), dynamic: v.startsWith("$") }));
      const made = gitNewRepository(words.slice(1))!;
      expect(
        made.regions.some((w) => w.dynamic),
        line,
      ).toBe(true);
    }
  });
});
