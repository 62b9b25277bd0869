import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, renameSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { endedText, quarantineText } from "../../../src/core/commands/result-text";
import { GuardWatch, guardTripped, QUARANTINE_MAX_KEPT, sweepGuards, unlockTree } from "../../../src/node/commands/quarantine";
import type { GuardedPath } from "../../../src/node/commands/sandbox/types";

let base: string;
let ws: string;
let q: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-q-")));
  ws = join(base, "ws");
  q = join(base, "quarantine", "c1");
  mkdirSync(join(ws, "conf"), { recursive: true });
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const guard = (rel: string, before: GuardedPath["before"] = { kind: "none" }): GuardedPath => ({ path: join(ws, rel), root: ws, why: "it runs programs", before });

describe("sweepGuards", () => {
  it("moves what appeared at a guarded path to the quarantine folder, keeping its relative path", () => {
    const g = guard(".vscode");
    expect(guardTripped(g)).toBe(false);
    mkdirSync(join(ws, ".vscode"));
    writeFileSync(join(ws, ".vscode", "tasks.json"), "{}");
    const seen = new Set<string>();
    const out = sweepGuards([g], q, seen);
    expect(out).toEqual([{ path: join(ws, ".vscode"), root: ws, why: "it runs programs", movedTo: join(q, ".vscode") }]);
    expect(existsSync(join(ws, ".vscode"))).toBe(false);
    expect(readFileSync(join(q, ".vscode", "tasks.json"), "utf8")).toBe("{}");
    // A second sweep finds nothing; a new one goes beside the first.
    expect(sweepGuards([g], q, seen)).toEqual([]);
    writeFileSync(join(ws, ".vscode"), "again");
    expect(sweepGuards([g], q, seen)[0]!.movedTo).toBe(join(q, ".vscode.2"));
  });

  it("moves a symbolic link itself, never what it points to", () => {
    writeFileSync(join(base, "outside.txt"), "keep me");
    symlinkSync(join(base, "outside.txt"), join(ws, ".envrc"));
    const out = sweepGuards([guard(".envrc")], q, new Set());
    expect(out[0]!.movedTo).toBe(join(q, ".envrc"));
    expect(readlinkSync(join(q, ".envrc"))).toBe(join(base, "outside.txt"));
    expect(readFileSync(join(base, "outside.txt"), "utf8")).toBe("keep me");
  });

  it("puts back a protected symbolic link that was replaced, or removed", () => {
    symlinkSync("conf", join(ws, ".cursor"));
    const g = guard(".cursor", { kind: "symlink", target: "conf" });
    expect(guardTripped(g)).toBe(false);
    unlinkSync(join(ws, ".cursor"));
    mkdirSync(join(ws, ".cursor"));
    writeFileSync(join(ws, ".cursor", "mcp.json"), "evil");
    const out = sweepGuards([g], q, new Set());
    expect(out).toEqual([{ path: join(ws, ".cursor"), root: ws, why: "it runs programs", movedTo: join(q, ".cursor"), restored: true }]);
    expect(readlinkSync(join(ws, ".cursor"))).toBe("conf");
    unlinkSync(join(ws, ".cursor"));
    expect(sweepGuards([g], q, new Set())).toEqual([{ path: join(ws, ".cursor"), root: ws, why: "it runs programs", restored: true }]);
    expect(readlinkSync(join(ws, ".cursor"))).toBe("conf");
  });
});

describe("GuardWatch", () => {
  it("sweeps as soon as something appears in a watched folder", async () => {
    const g = guard(".husky");
    const found: string[] = [];
    const w = new GuardWatch([g], () => found.push(...sweepGuards([g], q, new Set()).map((x) => x.path)));
    try {
      mkdirSync(join(ws, ".husky"));
      for (let i = 0; i < 100 && found.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(found).toEqual([join(ws, ".husky")]);
      expect(existsSync(join(ws, ".husky"))).toBe(false);
    } finally {
      w.close();
    }
  });
});

describe("sweepGuards: folder allow-lists and honest failures", () => {
  it("quarantines the new entries of a guarded folder that its allow-list does not accept, and puts back a changed link", () => {
    mkdirSync(join(ws, ".git"));
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    symlinkSync("HEAD", join(ws, ".git", "link"));
    const g: GuardedPath = {
      path: join(ws, ".git"),
      root: ws,
      why: "git reads it",
      before: { kind: "entries", names: ["HEAD", "link"], accept: (n) => n === "index" || n.endsWith(".lock"), links: new Map([["link", "HEAD"]]) },
    };
    expect(guardTripped(g)).toBe(false);
    writeFileSync(join(ws, ".git", "index"), "");
    writeFileSync(join(ws, ".git", "HEAD.lock"), "");
    expect(guardTripped(g)).toBe(false);
    writeFileSync(join(ws, ".git", "commondir"), "../evil\n");
    unlinkSync(join(ws, ".git", "link"));
    const out = sweepGuards([g], q, new Set());
    expect(out.map((x) => [x.path, x.movedTo, x.restored])).toEqual([
      [join(ws, ".git", "commondir"), join(q, ".git", "commondir"), undefined],
      [join(ws, ".git", "link"), undefined, true],
    ]);
    expect(existsSync(join(ws, ".git", "commondir"))).toBe(false);
    expect(readFileSync(join(q, ".git", "commondir"), "utf8")).toBe("../evil\n");
    expect(readlinkSync(join(ws, ".git", "link"))).toBe("HEAD");
    expect(existsSync(join(ws, ".git", "index"))).toBe(true);
  });

  it("checks a folder marked endOnly only in the final sweep (temporary files renamed into place are not touched mid-run)", () => {
    const g: GuardedPath = { path: join(ws, "conf"), root: ws, why: "listed writes only", before: { kind: "entries", names: [], accept: (n) => n === "a.txt", endOnly: true } };
    writeFileSync(join(ws, "conf", "sedXYZ"), "tmp");
    expect(sweepGuards([g], q, new Set(), false)).toEqual([]);
    expect(existsSync(join(ws, "conf", "sedXYZ"))).toBe(true);
    expect(sweepGuards([g], q, new Set(), true).map((x) => x.movedTo)).toEqual([join(q, "conf", "sedXYZ")]);
  });

  it("says a path is still there when it cannot be moved, and the model is told so (never 'moved')", () => {
    mkdirSync(join(ws, ".vscode"));
    writeFileSync(join(ws, ".vscode", "tasks.json"), "{}");
    // The quarantine folder cannot be made (a file is in the way): the move fails.
    writeFileSync(join(base, "blocked"), "");
    const out = sweepGuards([guard(".vscode")], join(base, "blocked", "c1"), new Set());
    expect(out).toHaveLength(1);
    expect(out[0]!.movedTo).toBeUndefined();
    expect(out[0]!.error).toMatch(/ENOTDIR|EEXIST|not a directory/i);
    expect(existsSync(join(ws, ".vscode", "tasks.json"))).toBe(true);
    const result = { exitCode: 0, signal: null, timedOut: false, cancelled: false, durationMs: 5, quarantined: out };
    const text = quarantineText(result)!;
    expect(text).toContain("could NOT move out of the workspace: .vscode (it runs programs)");
    expect(text).toContain("They are still there. Tell the user");
    expect(text).not.toContain("They are not in the workspace");
    expect(endedText(result)).toContain("could NOT be moved and are still in the workspace");
  });
});

describe("unlockTree (a command may still be swapping names while the sweep runs)", () => {
  const mode = (p: string) => lstatSync(p).mode & 0o7777;

  it("changes the folder it looked at, not a link swapped in at its name before the chmod", () => {
    // A folder of the user's the command wants made writable (or setuid): outside the workspace, 0500.
    const victim = join(base, "users-folder");
    mkdirSync(victim);
    chmodSync(victim, 0o500);
    const made = join(ws, ".vscode");
    mkdirSync(join(made, "sub"), { recursive: true });
    chmodSync(join(made, "sub"), 0o555);
    chmodSync(made, 0o555);
    const aside = join(ws, "aside");
    // Between the look and the chmod, the command renames its folder away and puts a link to the victim there.
    unlockTree(made, {
      beforeChange: (p) => {
        if (p !== made || existsSync(aside)) return;
        renameSync(made, aside);
        symlinkSync(victim, made);
      },
    });
    expect(mode(victim)).toBe(0o500);
    // The folder the command made was unlocked (it is now at `aside`), mode 0700 exactly.
    expect(mode(aside)).toBe(0o700);
  });

  it("never keeps mode bits of the command's folder: setuid, setgid and sticky are dropped", () => {
    const made = join(ws, ".vscode");
    mkdirSync(made);
    chmodSync(made, 0o7555);
    unlockTree(made);
    expect(mode(made)).toBe(0o700);
  });

  it("does not follow a link inside the tree", () => {
    const victim = join(base, "users-folder");
    mkdirSync(victim);
    chmodSync(victim, 0o500);
    const made = join(ws, ".vscode");
    mkdirSync(made);
    symlinkSync(victim, join(made, "link"));
    chmodSync(made, 0o555);
    unlockTree(made);
    expect(mode(victim)).toBe(0o500);
    expect(mode(made)).toBe(0o700);
  });
});

describe("the quarantine's budget (a command creating a protected path in a loop)", () => {
  it(`keeps ${QUARANTINE_MAX_KEPT} entries per command, then removes what appears and says so once`, () => {
    const g = guard(".vscode");
    const seen = new Set<string>();
    const all = [];
    for (let i = 0; i < QUARANTINE_MAX_KEPT + 30; i++) {
      mkdirSync(join(ws, ".vscode"));
      writeFileSync(join(ws, ".vscode", "tasks.json"), `{"n": ${i}}`);
      all.push(...sweepGuards([g], q, seen));
      expect(existsSync(join(ws, ".vscode"))).toBe(false);
    }
    expect(readdirSync(q)).toHaveLength(QUARANTINE_MAX_KEPT);
    expect(all.filter((x) => x.movedTo)).toHaveLength(QUARANTINE_MAX_KEPT);
    const removed = all.filter((x) => !x.movedTo);
    expect(removed).toHaveLength(1);
    expect(removed[0]!.why).toContain("removed, not kept");
    expect(quarantineText({ exitCode: 0, signal: null, timedOut: false, cancelled: false, durationMs: 5, quarantined: all })).toContain(".vscode");
  });

  it("removes, not keeps, one entry larger than the byte budget", () => {
    mkdirSync(join(ws, ".vscode"));
    writeFileSync(join(ws, ".vscode", "big"), Buffer.alloc(65 * 1024 * 1024));
    const out = sweepGuards([guard(".vscode")], q, new Set());
    expect(out).toHaveLength(1);
    expect(out[0]!.movedTo).toBeUndefined();
    expect(existsSync(join(ws, ".vscode"))).toBe(false);
    expect(existsSync(q)).toBe(false);
  });
});
