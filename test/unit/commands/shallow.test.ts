import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { falseShallowLines, shallowLines, stripShallowLines } from "../../../src/node/commands/shallow";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, encoding: "utf8" }).trim();

function repo(commits: number): { dir: string; shas: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-shallow-"));
  temps.push(dir);
  git(dir, "init", "-q", "-b", "main");
  const shas: string[] = [];
  for (let k = 1; k <= commits; k++) {
    writeFileSync(join(dir, "f"), `${k}\n`);
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", `c${k}`);
    shas.push(git(dir, "rev-parse", "HEAD"));
  }
  return { dir, shas };
}

describe(".git/shallow lines a command adds (red team round 7)", () => {
  it("names a line for a commit whose parents are in the store, not one for a root commit, an unknown name, or one listed before", () => {
    const { dir, shas } = repo(3);
    const path = join(dir, ".git", "shallow");
    writeFileSync(path, `${shas[1]}\n`);
    const before = shallowLines(path);
    writeFileSync(path, `${shas[1]}\n${shas[2]}\n${shas[0]}\n${"e".repeat(40)}\n`);
    expect(falseShallowLines(path, before)).toEqual([shas[2]]);
    const kept = stripShallowLines(path, [shas[2]!], join(dir, "q"));
    expect(readFileSync(path, "utf8")).toBe(`${shas[1]}\n${shas[0]}\n${"e".repeat(40)}\n`);
    expect(readFileSync(kept!, "utf8")).toBe(`${shas[2]}\n`);
  });

  it("keeps what a real shallow fetch writes (the parents were not fetched), and removes a file left empty", () => {
    const up = repo(3);
    const { dir } = repo(1);
    git(dir, "fetch", "-q", "--depth", "1", `file://${up.dir}`, "main:refs/remotes/up/main");
    const path = join(dir, ".git", "shallow");
    expect(shallowLines(path)).toEqual([up.shas[2]]);
    expect(falseShallowLines(path, [])).toEqual([]);
    const { dir: d2, shas } = repo(2);
    const p2 = join(d2, ".git", "shallow");
    writeFileSync(p2, `${shas[1]}\n`);
    stripShallowLines(p2, falseShallowLines(p2, []), join(d2, "q"));
    expect(existsSync(p2)).toBe(false);
    expect(git(d2, "log", "--format=%s")).toBe("c2\nc1");
  });
});
