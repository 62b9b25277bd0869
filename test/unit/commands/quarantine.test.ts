import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GuardWatch, guardTripped, sweepGuards } from "../../../src/node/commands/quarantine";
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
