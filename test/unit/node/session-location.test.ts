// Where a workspace folder's sessions live: one key however the folder is named (relative,
// trailing slash, `..`, through a symlink), distinct keys for distinct folders, readable and
// bounded; and the move of sessions from the old per-path (CLI) and per-window (panel) folders.
import { spawn } from "node:child_process";
import { buildSync } from "esbuild";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalFolder, defaultSessionDir, importSessions, legacyCliSessionDir, workspaceKey } from "../../../src/node/session-location";

let base: string;
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-location-")));
});
afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

const mk = (...parts: string[]) => {
  const p = path.join(base, ...parts);
  fs.mkdirSync(p, { recursive: true });
  return p;
};

describe("workspaceKey", () => {
  it("gives one key however the folder is named", () => {
    const ws = mk("projects", "tidewatch");
    mk("projects", "other");
    fs.symlinkSync(ws, path.join(base, "link"));
    mk("elsewhere");
    fs.symlinkSync(path.join(base, "projects"), path.join(base, "elsewhere", "p"));
    const key = workspaceKey(ws);
    expect(workspaceKey(ws + "/")).toBe(key);
    expect(workspaceKey(path.join(base, "projects", "other", "..", "tidewatch"))).toBe(key);
    expect(workspaceKey(path.join(base, "link"))).toBe(key); // the folder itself a symlink
    expect(workspaceKey(path.join(base, "elsewhere", "p", "tidewatch"))).toBe(key); // a symlinked parent
    expect(workspaceKey(path.relative(process.cwd(), ws))).toBe(key);
    expect(canonicalFolder(path.join(base, "link"))).toBe(ws);
  });

  it("is readable: the folder's name, then a hash of its path", () => {
    expect(workspaceKey(mk("tidewatch"))).toMatch(/^tidewatch-[0-9a-f]{16}$/);
    expect(workspaceKey(mk("My Project (v2)"))).toMatch(/^my-project-v2-[0-9a-f]{16}$/);
    expect(workspaceKey(mk("Café"))).toMatch(/^cafe-[0-9a-f]{16}$/);
    expect(workspaceKey(mk("日本語"))).toMatch(/^folder-[0-9a-f]{16}$/);
    expect(workspaceKey(mk(".hidden"))).toMatch(/^hidden-[0-9a-f]{16}$/);
    expect(workspaceKey("/")).toMatch(/^root-[0-9a-f]{16}$/);
  });

  it("gives distinct folders distinct keys: same name elsewhere, a long shared prefix, case on a case-sensitive disk", () => {
    const a = workspaceKey(mk("a", "app"));
    const b = workspaceKey(mk("b", "app"));
    expect(a).not.toBe(b);
    expect(a.split("-")[0]).toBe("app");
    const long = "x".repeat(200);
    const k1 = workspaceKey(mk(long + "1"));
    const k2 = workspaceKey(mk(long + "2"));
    expect(k1).not.toBe(k2);
    expect(k1.length).toBeLessThanOrEqual(40 + 1 + 16);
    // This disk tells Foo from foo (Linux): two folders, two keys.
    const upper = mk("case", "Foo");
    const lower = mk("case", "foo");
    expect(fs.statSync(upper).ino).not.toBe(fs.statSync(lower).ino);
    expect(workspaceKey(upper)).not.toBe(workspaceKey(lower));
  });

  it("does not fold case because a case-swapped symlink stands beside the folder", () => {
    const real = mk("cs", "Proj");
    fs.symlinkSync(real, path.join(base, "cs", "pROJ"));
    expect(canonicalFolder(real)).toBe(real);
    // A folder named like the folded path is another folder with another key.
    expect(workspaceKey(mk("cs2", "proj"))).not.toBe(workspaceKey(real));
  });

  it("keys a folder that does not exist yet by its resolved path, the same once it is made", () => {
    const later = path.join(base, "later");
    const before = workspaceKey(later);
    fs.mkdirSync(later);
    expect(workspaceKey(later)).toBe(before);
  });

  it("puts the store under the given home's .yoke/sessions", () => {
    const ws = mk("tidewatch");
    expect(defaultSessionDir(ws, "/home/u")).toBe(path.join("/home/u", ".yoke", "sessions", workspaceKey(ws)));
  });
});

/** A minimal log whose session_start names `cwd`. */
function writeLog(dir: string, id: string, cwd: string | undefined, extra = ""): string {
  fs.mkdirSync(dir, { recursive: true });
  const start =
    cwd === undefined
      ? "not json"
      : JSON.stringify({ seq: 0, ts: "2026-01-01T00:00:00.000Z", type: "session_start", sessionId: id, cwd, provider: "p", model: "m", systemPrompt: "s".repeat(100_000), version: 1 });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, start + "\n" + extra);
  return file;
}

describe("importSessions", () => {
  it("moves each old session to the store of the folder its log names, with its command output", () => {
    const home = mk("home");
    const wsA = mk("ws", "alpha");
    const wsB = mk("ws", "beta");
    const old = path.join(base, "window-storage", "sessions");
    writeLog(old, "s-a", wsA, '{"seq":1}\n');
    writeLog(old, "s-b", wsB);
    writeLog(old, "s-bad", undefined);
    fs.mkdirSync(path.join(old, "s-a.commands"));
    fs.writeFileSync(path.join(old, "s-a.commands", "1.log"), "output");
    fs.writeFileSync(path.join(old, "notes.txt"), "not a session");

    const r = importSessions(old, { home });
    expect(r.moved.sort()).toEqual(["s-a", "s-b"]);
    expect(r.skipped).toEqual([{ id: "s-bad", reason: "its log does not say which folder it belongs to" }]);
    const storeA = defaultSessionDir(wsA, home);
    expect(fs.readFileSync(path.join(storeA, "s-a.jsonl"), "utf8")).toContain('{"seq":1}');
    expect(fs.readFileSync(path.join(storeA, "s-a.commands", "1.log"), "utf8")).toBe("output");
    expect(fs.existsSync(path.join(defaultSessionDir(wsB, home), "s-b.jsonl"))).toBe(true);
    expect(fs.readdirSync(old).sort()).toEqual(["notes.txt", "s-bad.jsonl"]); // what could not be placed stays
    // Again: nothing left to move, nothing moved twice.
    expect(importSessions(old, { home })).toEqual({ moved: [], skipped: [{ id: "s-bad", reason: "its log does not say which folder it belongs to" }] });
  });

  it("never replaces a session the store already has, and removes an emptied old folder", () => {
    const home = mk("home");
    const ws = mk("ws");
    const store = defaultSessionDir(ws, home);
    writeLog(store, "same", ws, '{"kept":true}\n');
    const old = path.join(base, "old");
    writeLog(old, "same", ws, '{"old":true}\n');
    const r = importSessions(old, { home });
    expect(r.moved).toEqual([]);
    expect(r.skipped[0]!.reason).toContain("already has a session same");
    expect(fs.readFileSync(path.join(store, "same.jsonl"), "utf8")).toContain('"kept":true');
    fs.rmSync(path.join(old, "same.jsonl"));
    writeLog(old, "fresh", ws);
    expect(importSessions(old, { home }).moved).toEqual(["fresh"]);
    expect(fs.existsSync(old)).toBe(false);
  });

  it("moves every session exactly once when two processes import at the same time", async () => {
    const home = mk("home");
    const ws = mk("ws");
    const old = path.join(base, "old");
    const ids = Array.from({ length: 40 }, (_, i) => `s${i}`);
    for (const id of ids) writeLog(old, id, ws, `{"id":"${id}"}\n`);
    const bundle = path.join(base, "location.cjs");
    buildSync({ entryPoints: [path.resolve("src/node/session-location.ts")], bundle: true, platform: "node", format: "cjs", outfile: bundle, logLevel: "silent" });
    const importer = () =>
      new Promise<{ moved: string[] }>((resolve, reject) => {
        const c = spawn(process.execPath, ["-e", `process.stdout.write(JSON.stringify(require(${JSON.stringify(bundle)}).importSessions(${JSON.stringify(old)}, { home: ${JSON.stringify(home)} })))`]);
        let out = "";
        c.stdout.on("data", (d) => (out += d));
        c.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
      });
    const [a, b] = await Promise.all([importer(), importer()]);
    expect([...a.moved, ...b.moved].sort()).toEqual([...ids].sort());
    const store = defaultSessionDir(ws, home);
    for (const id of ids) expect(fs.readFileSync(path.join(store, `${id}.jsonl`), "utf8")).toContain(`{"id":"${id}"}`);
    expect(fs.existsSync(old)).toBe(false);
  });

  it("knows the CLI's old per-path folder", () => {
    expect(legacyCliSessionDir("/work/my proj", "/home/u")).toBe(path.join("/home/u", ".yoke", "sessions", "work-my-proj"));
  });
});
