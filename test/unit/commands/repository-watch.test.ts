/**
 * Issue 18, the new-repository window (src/node/commands/repository-watch.ts): a repository that
 * appears below a writable folder, or a known nested one whose hooks or configuration change, is
 * checked as the change lands — not at the next walk, 1 s later. Real git, real inotify.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { repositoryMarkers, type RepositoryFinding } from "../../../src/node/commands/new-repositories";
import { FOLLOW_MAX_HOLDERS, RepositoryWatch } from "../../../src/node/commands/repository-watch";
import { buildSlowMkdir } from "../../support/slow-mkdir";

const temps: string[] = [];
const watches: RepositoryWatch[] = [];
afterEach(() => {
  for (const w of watches.splice(0)) w.close();
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function setup(prepare?: (root: string) => void) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-rwatch-")));
  temps.push(root);
  mkdirSync(join(root, "src/deep"), { recursive: true });
  prepare?.(root);
  const found: Array<{ at: number; f: RepositoryFinding }> = [];
  const since = Date.now() - 50;
  const w = new RepositoryWatch([{ root, since, known: repositoryMarkers(root), approved: [] }], (_t, fs) => found.push(...fs.map((f) => ({ at: Date.now(), f }))));
  watches.push(w);
  return { root, found };
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
};

describe("RepositoryWatch", () => {
  it("a repository made in a new folder, then a hook written: found as it lands", async () => {
    const { root, found } = setup();
    execFileSync("git", ["init", "-q", join(root, "fresh")]);
    const t0 = Date.now();
    writeFileSync(join(root, "fresh/.git/hooks/pre-commit"), "#!/bin/sh\necho x\n", { mode: 0o755 });
    expect(await until(() => found.some((x) => x.f.path === join(root, "fresh/.git")))).toBe(true);
    expect(found.find((x) => x.f.path === join(root, "fresh/.git"))!.at - t0).toBeLessThan(800);
    expect(found[0]!.f.why).toMatch(/hooks\/pre-commit/);
  });

  it("a repository made in an existing deep folder with core.fsmonitor: found", async () => {
    const { root, found } = setup();
    execFileSync("git", ["init", "-q", join(root, "src/deep")]);
    execFileSync("git", ["-C", join(root, "src/deep"), "config", "core.fsmonitor", "touch /tmp/x"]);
    expect(await until(() => found.some((x) => x.f.path === join(root, "src/deep/.git")))).toBe(true);
    expect(found.map((x) => x.f.why).join("\n")).toMatch(/core\.fsmonitor/);
  });

  it("a repository the session knew: a hook written later is found; ordinary git work there is not", async () => {
    const { root, found } = setup((r) => {
      execFileSync("git", ["init", "-q", join(r, "known")]);
    });
    execFileSync("git", ["-C", join(root, "known"), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"]);
    await new Promise((r) => setTimeout(r, 300));
    expect(found).toEqual([]);
    writeFileSync(join(root, "known/.git/hooks/post-checkout"), "#!/bin/sh\necho x\n", { mode: 0o755 });
    expect(await until(() => found.some((x) => x.f.path.startsWith(join(root, "known/.git"))))).toBe(true);
  });

  it("red18g: after 3,000 folders made in one folder (each event once read that folder: 2,000 held the host 6.1 s), a repository made next is still found", async () => {
    const { root, found } = setup();
    execFileSync("bash", ["-c", "mkdir many && cd many && seq 1 3000 | xargs mkdir"], { cwd: root });
    execFileSync("git", ["init", "-q", join(root, "many/1")]);
    writeFileSync(join(root, "many/1/.git/hooks/pre-commit"), "#!/bin/sh\necho x\n", { mode: 0o755 });
    expect(await until(() => found.some((x) => x.f.path === join(root, "many/1/.git")), 10_000)).toBe(true);
    expect(found.map((x) => x.f.why).join("\n")).toMatch(/hooks\/pre-commit/);
  }, 30_000);

  it("nothing to find: a plain folder tree with files written stays quiet", async () => {
    const { root, found } = setup();
    mkdirSync(join(root, "a/b/c"), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(join(root, `a/b/c/f${i}.txt`), "x");
    writeFileSync(join(root, "a/HEAD.txt"), "x");
    await new Promise((r) => setTimeout(r, 300));
    expect(found).toEqual([]);
  });

  it("door18b: git init --separate-git-dir held 2 s between writing the .git file and making the folder it names (git's own order): nothing found while it runs, nothing when it is done", async () => {
    const { root, found } = setup((r) => mkdirSync(join(r, "gitdirs")));
    const so = buildSlowMkdir(join(root, "lib"));
    const env = { ...process.env, LD_PRELOAD: so, SLOW_MKDIR_SUFFIX: "/gitdirs/x", SLOW_MKDIR_SECONDS: "2" };
    // A control: the .git file does name nothing for those 2 s (looked at from here while git waits).
    let namedNothing = false;
    const git = new Promise<void>((resolve, reject) =>
      execFile("git", ["init", "-q", "--separate-git-dir", join(root, "gitdirs/x"), join(root, "x")], { env }, (err) => (err ? reject(err) : resolve())),
    );
    const seen = until(() => {
      try {
        namedNothing ||= readFileSync(join(root, "x/.git"), "utf8").startsWith("gitdir: ") && !existsSync(join(root, "gitdirs/x"));
      } catch {
        // not written yet
      }
      return namedNothing;
    }, 10_000);
    await git;
    expect(await seen).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(found).toEqual([]);
    expect(readFileSync(join(root, "x/.git"), "utf8")).toContain(join(root, "gitdirs/x"));
  }, 30_000);

  it("door18b: a .git file naming nothing, then the folder it names made with a core.fsmonitor: found as it lands (the folder is followed, not the next walk)", async () => {
    const { root, found } = setup();
    mkdirSync(join(root, "y"));
    mkdirSync(join(root, "gitdirs"));
    writeFileSync(join(root, "y/.git"), "gitdir: ../gitdirs/y\n");
    await new Promise((r) => setTimeout(r, 300));
    expect(found).toEqual([]);
    execFileSync("git", ["init", "-q", "--bare", join(root, "gitdirs/y")]);
    execFileSync("git", ["config", "-f", join(root, "gitdirs/y/config"), "core.fsmonitor", "touch /tmp/x"]);
    expect(await until(() => found.some((x) => x.f.path === join(root, "y/.git")))).toBe(true);
    expect(found.map((x) => x.f.why).join("\n")).toMatch(/core\.fsmonitor/);
  });

  it("door18b: a .git file naming a clean git folder, then a hook written there: found as it lands", async () => {
    const { root, found } = setup((r) => mkdirSync(join(r, "gitdirs")));
    execFileSync("git", ["init", "-q", "--separate-git-dir", join(root, "gitdirs/z"), join(root, "z")]);
    await new Promise((r) => setTimeout(r, 300));
    expect(found).toEqual([]);
    writeFileSync(join(root, "gitdirs/z/hooks/post-checkout"), "#!/bin/sh\necho x\n", { mode: 0o755 });
    expect(await until(() => found.some((x) => x.f.path === join(root, "z/.git")))).toBe(true);
    expect(found.map((x) => x.f.why).join("\n")).toMatch(/hooks\/post-checkout/);
  });

  it("door18b: 400 .git files naming nothing follow at most FOLLOW_MAX_HOLDERS folders (each change there checks them all again)", async () => {
    const { root, found } = setup();
    const w = watches[watches.length - 1]!;
    for (let i = 0; i < 400; i++) {
      mkdirSync(join(root, `p${i}`));
      writeFileSync(join(root, `p${i}/.git`), `gitdir: ../nothing/p${i}\n`);
    }
    expect(await until(() => w.following >= FOLLOW_MAX_HOLDERS, 20_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(w.following).toBe(FOLLOW_MAX_HOLDERS);
    expect(found).toEqual([]);
  }, 30_000);
});
