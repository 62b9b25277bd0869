import { spawnSync } from "node:child_process";
import { buildSync } from "esbuild";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileSessionStore } from "../../../src/node/session-store";

describe("createFileSessionStore", () => {
  let base: string;
  let dir: string;
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-store-"));
    dir = path.join(base, "sessions", "nested");
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it("creates the folder on first append and writes one line per append", () => {
    const store = createFileSessionStore(dir);
    expect(store.list()).toEqual([]);
    expect(store.exists("s1")).toBe(false);
    store.append("s1", '{"seq":0}');
    store.append("s1", '{"seq":1}');
    store.sync("s1");
    expect(fs.readFileSync(path.join(dir, "s1.jsonl"), "utf8")).toBe('{"seq":0}\n{"seq":1}\n');
    expect(store.read("s1")).toEqual(['{"seq":0}', '{"seq":1}']);
    expect(store.exists("s1")).toBe(true);
  });

  it("returns a torn last line as it is, and starts the next append on a new line", () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "t.jsonl"), '{"seq":0}\n{"seq":1,"te');
    const store = createFileSessionStore(dir);
    expect(store.read("t")).toEqual(['{"seq":0}', '{"seq":1,"te']);
    store.append("t", '{"seq":2}');
    expect(store.read("t")).toEqual(['{"seq":0}', '{"seq":1,"te', '{"seq":2}']);
  });

  it("loses nothing appended when the process is killed with SIGKILL", () => {
    const bundle = path.join(base, "store.cjs");
    buildSync({ entryPoints: [path.resolve("src/node/session-store.ts")], bundle: true, platform: "node", format: "cjs", outfile: bundle, logLevel: "silent" });
    const script = `
      const { createFileSessionStore } = require(${JSON.stringify(bundle)});
      const s = createFileSessionStore(${JSON.stringify(dir)});
      for (let i = 0; i < 100; i++) s.append("k", JSON.stringify({ seq: i }));
      process.kill(process.pid, "SIGKILL");
    `;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
    expect(r.stderr + String(r.error ?? "")).toBe("");
    expect(r.signal).toBe("SIGKILL");
    const lines = createFileSessionStore(dir).read("k");
    expect(lines).toHaveLength(100);
    expect(lines[99]).toBe('{"seq":99}');
  });

  it("lists sessions newest first", () => {
    const store = createFileSessionStore(dir);
    store.append("old", "{}");
    store.append("mid", "{}");
    store.append("new", "{}");
    const t = Date.now() / 1000;
    fs.utimesSync(path.join(dir, "old.jsonl"), t - 30, t - 30);
    fs.utimesSync(path.join(dir, "mid.jsonl"), t - 20, t - 20);
    fs.writeFileSync(path.join(dir, "notes.txt"), "not a session");
    expect(store.list()).toEqual(["new", "mid", "old"]);
  });

  it("refuses ids that could escape the folder and lines with newlines", () => {
    const store = createFileSessionStore(dir);
    expect(() => store.append("../x", "{}")).toThrow('Invalid session id "../x"');
    expect(() => store.read("a/b")).toThrow("Invalid session id");
    expect(store.exists("../x")).toBe(false);
    expect(() => store.append("ok", "a\nb")).toThrow("must not contain a newline");
    expect(store.read("ok")).toEqual([]);
  });
});
