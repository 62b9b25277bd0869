// Red team 15: where Yoke may place a worktrees.copy / worktrees.link path in a fresh agent worktree
// (src/node/background/worktree.ts destinationRefused): never through a link of the checkout, never
// over anything already there (a dangling link included), folders made one at a time.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { destinationRefused } from "../../../src/node/background/worktree";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function worktree() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-red15-dest-"));
  temps.push(dir);
  const outside = join(dir, "outside");
  const wt = join(dir, "wt");
  mkdirSync(outside);
  mkdirSync(wt);
  return { wt, outside };
}

it("refuses a path whose folder is a link, even one leading back inside; makes nothing through it", () => {
  const { wt, outside } = worktree();
  symlinkSync(outside, join(wt, "cfg"));
  expect(destinationRefused(wt, "cfg/.local/bin/git")).toMatch(/cfg is a symbolic link/);
  expect(existsSync(join(outside, ".local"))).toBe(false);
  mkdirSync(join(wt, "real"));
  symlinkSync(join(wt, "real"), join(wt, "inner"));
  expect(destinationRefused(wt, "inner/x")).toMatch(/inner is a symbolic link/);
});

it("refuses a dangling link or a file at the destination, and a file on the way", () => {
  const { wt, outside } = worktree();
  symlinkSync(join(outside, "new"), join(wt, ".env"));
  expect(destinationRefused(wt, ".env")).toMatch(/symbolic link/);
  writeFileSync(join(wt, "tracked"), "x");
  expect(destinationRefused(wt, "tracked")).toMatch(/already in the worktree/);
  expect(destinationRefused(wt, "tracked/x")).toMatch(/is a file in the worktree/);
});

it("makes the missing folders of an ordinary path as real folders", () => {
  const { wt } = worktree();
  expect(destinationRefused(wt, "a/b/c.env")).toBeUndefined();
  expect(lstatSync(join(wt, "a", "b")).isDirectory()).toBe(true);
  expect(existsSync(join(wt, "a", "b", "c.env"))).toBe(false);
});
