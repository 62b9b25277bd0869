/**
 * named-later.ts (session 24, bgprot24): what a protected configuration comes to name while a command
 * runs is checked by change time. Real files in a temporary folder; the configuration's change is made
 * after the state is taken, as in a running command.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { namedLaterFindings, type NamedLaterState } from "../../../src/node/commands/named-later";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A workspace with .npmrc naming nothing and tools/pre.js, and the state a command starting now would have. */
function started(): { ws: string; state: NamedLaterState } {
  const ws = mkdtempSync(join(tmpdir(), "yoke-named-later-"));
  temps.push(ws);
  mkdirSync(join(ws, "tools"));
  writeFileSync(join(ws, ".npmrc"), "fund=false\n");
  writeFileSync(join(ws, "tools/pre.js"), "// pre\n");
  writeFileSync(join(ws, "tools/early.js"), "// early\n");
  const state: NamedLaterState = { kind: "references", roots: [ws], homes: [], known: new Set(), sinceNs: BigInt(Date.now() - 50) * 1_000_000n, named: new Map(), ways: new Map() };
  return { ws, state };
}
const name = (ws: string, what: string) => writeFileSync(join(ws, ".npmrc"), `node-options=${what}\n`);
const paths = (ws: string, state: NamedLaterState) => namedLaterFindings(state, ws).map((f) => f.path.slice(ws.length + 1));

describe("what a configuration names after a command started", () => {
  it("nothing newly named, or named and unchanged since: nothing is moved", async () => {
    const { ws, state } = started();
    expect(paths(ws, state)).toEqual([]);
    await sleep(20);
    name(ws, "--require ./tools/pre.js");
    expect(paths(ws, state)).toEqual([]);
    // A sibling created after the first look (a dev server's output) does not make it moved.
    await sleep(20);
    writeFileSync(join(ws, "tools/other.js"), "x");
    expect(paths(ws, state)).toEqual([]);
  });

  it("written after the configuration named it: moved, whenever the check runs", async () => {
    const { ws, state } = started();
    await sleep(20);
    name(ws, "--require ./tools/pre.js --require ./tools/early.js");
    writeFileSync(join(ws, "tools/pre.js"), "planted");
    const found = namedLaterFindings(state, ws);
    expect(found.map((f) => f.path.slice(ws.length + 1))).toEqual(["tools/pre.js"]);
    expect(found[0]!.why).toContain("named by .npmrc after this command started");
  });

  it("written before the configuration named it but after the command started: kept (the person approved naming it as it was)", async () => {
    const { ws, state } = started();
    await sleep(20);
    writeFileSync(join(ws, "tools/pre.js"), "written by the command");
    await sleep(20);
    name(ws, "--require ./tools/pre.js");
    expect(paths(ws, state)).toEqual([]);
    // ... and a write after the first look is seen at the next.
    await sleep(20);
    writeFileSync(join(ws, "tools/pre.js"), "planted");
    expect(paths(ws, state)).toEqual(["tools/pre.js"]);
  });

  it("a folder on the way moved in place after the first look: the named file is moved", async () => {
    const { ws, state } = started();
    mkdirSync(join(ws, "t2"));
    writeFileSync(join(ws, "t2/pre.js"), "prepared before");
    await sleep(20);
    name(ws, "--require ./tools/pre.js");
    expect(paths(ws, state)).toEqual([]);
    renameSync(join(ws, "tools"), join(ws, "old"));
    renameSync(join(ws, "t2"), join(ws, "tools"));
    expect(paths(ws, state)).toEqual(["tools/pre.js"]);
  });

  it("a link put on the way after the configuration named it: the link is moved, never what it leads to", async () => {
    const { ws, state } = started();
    const elsewhere = mkdtempSync(join(tmpdir(), "yoke-named-later-out-"));
    temps.push(elsewhere);
    writeFileSync(join(elsewhere, "pre.js"), "outside");
    await sleep(20);
    name(ws, "--require ./lib/pre.js");
    symlinkSync(elsewhere, join(ws, "lib"));
    expect(paths(ws, state)).toEqual(["lib"]);
  });

  it("a path the command started with is not checked here (its mount protects it)", async () => {
    const { ws, state } = started();
    state.known = new Set([join(ws, "tools/pre.js")]);
    await sleep(20);
    name(ws, "--require ./tools/pre.js");
    writeFileSync(join(ws, "tools/pre.js"), "x");
    expect(paths(ws, state)).toEqual([]);
  });
});
