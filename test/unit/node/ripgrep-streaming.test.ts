/**
 * Bounded streaming of ripgrep's output: a stand-in `rg` (a real process) writes a million lines;
 * the searcher must stop reading at its bound, kill the process before it has written them all,
 * stop at its time limit with what it found, and hold memory flat while it reads.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRipgrepSearcher, runRg } from "../../../src/node/ripgrep-searcher";

const LINES = 1_000_000;

// Writes LINES lines (file paths, or rg --json match events when called with --json), with
// back-pressure, then a marker file; "slow" mode writes 5 lines, then nothing, for ever.
const FAKE_RG = `#!/usr/bin/env node
const fs = require("node:fs");
const dir = process.env.FAKE_RG_DIR;
fs.writeFileSync(dir + "/pid", String(process.pid));
fs.writeFileSync(dir + "/args", JSON.stringify(process.argv.slice(2)));
const json = process.argv.includes("--json");
if (process.env.FAKE_RG_MODE === "shuffled") {
  // As rg on several cores prints: each file's lines together and in order, the files in any order.
  const ev = (type, p, n, t) => JSON.stringify({ type, data: { path: { text: p }, lines: { text: t + "\\n" }, line_number: n } }) + "\\n";
  for (const p of ["src/b.ts", "a-z.ts", "src/a/x.ts", "a/z.ts"]) {
    process.stdout.write(ev("begin", p, 0, "") + ev("match", p, 1, "needle " + p) + ev("context", p, 2, "after " + p) + ev("end", p, 0, ""));
  }
  process.exit(0);
}
const line = (i) => json
  ? JSON.stringify({ type: "match", data: { path: { text: "src/f" + String(i).padStart(7, "0") + ".ts" }, lines: { text: "needle " + i + "\\n" }, line_number: 1 } }) + "\\n"
  : "packages/app/src/components/f" + String(i).padStart(7, "0") + ".ts\\n";
if (process.env.FAKE_RG_MODE === "slow") {
  for (let i = 0; i < 5; i++) process.stdout.write(line(i));
  setInterval(() => {}, 1000);
} else {
  let i = 0;
  const more = () => {
    while (i < ${LINES}) {
      if (!process.stdout.write(line(i++))) return void process.stdout.once("drain", more);
    }
    fs.writeFileSync(dir + "/finished", "yes");
  };
  more();
}
`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("ripgrep output, streamed with bounds", () => {
  let dir: string;
  let rgPath: string;
  beforeAll(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-fakerg-")));
    rgPath = path.join(dir, "rg");
    fs.writeFileSync(rgPath, FAKE_RG, { mode: 0o755 });
    process.env.FAKE_RG_DIR = dir;
  });
  afterAll(() => {
    delete process.env.FAKE_RG_DIR;
    delete process.env.FAKE_RG_MODE;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    fs.rmSync(path.join(dir, "finished"), { force: true });
    fs.rmSync(path.join(dir, "pid"), { force: true });
  };
  const pid = () => Number(fs.readFileSync(path.join(dir, "pid"), "utf8"));

  it("glob in path order takes the first maxResults lines and kills rg before it has written the rest", async () => {
    fresh();
    const res = await createRipgrepSearcher({ rgPath }).glob({ pattern: "**/*.ts", path: dir, order: "path", maxResults: 200 });
    expect(res.paths).toHaveLength(200);
    expect(res.paths[0]).toBe(`${dir}/packages/app/src/components/f0000000.ts`);
    expect(res.paths[199]).toBe(`${dir}/packages/app/src/components/f0000199.ts`);
    expect(res).toMatchObject({ truncated: true, found: 200, stopped: "limit" });
    expect(fs.existsSync(path.join(dir, "finished"))).toBe(false);
    expect(alive(pid())).toBe(false);
  });

  it("glob by modification time ranks only the first maxRanked matches, then kills rg", async () => {
    fresh();
    const res = await createRipgrepSearcher({ rgPath }).glob({ pattern: "**/*.ts", path: dir, maxResults: 200, maxRanked: 2000 });
    // None of the listed files exists (modification time 0): ties are in path order.
    expect(res.paths).toHaveLength(200);
    expect(res.paths[0]).toBe(`${dir}/packages/app/src/components/f0000000.ts`);
    expect(res).toMatchObject({ truncated: true, found: 2000, stopped: "limit" });
    expect(fs.existsSync(path.join(dir, "finished"))).toBe(false);
    expect(alive(pid())).toBe(false);
  });

  it("grep stops at maxMatches and kills rg", async () => {
    fresh();
    const res = await createRipgrepSearcher({ rgPath }).grep({ pattern: "needle", path: dir, maxMatches: 200 });
    expect(res.lines.filter((l) => l.match)).toHaveLength(200);
    expect(res.lines[0]).toEqual({ path: `${dir}/src/f0000000.ts`, line: 1, text: "needle 0", match: true });
    expect(res).toMatchObject({ truncated: true, stopped: "limit" });
    expect(fs.existsSync(path.join(dir, "finished"))).toBe(false);
    expect(alive(pid())).toBe(false);
  });

  it("grep and glob stop at the time limit with what they found so far", async () => {
    process.env.FAKE_RG_MODE = "slow";
    try {
      fresh();
      const search = createRipgrepSearcher({ rgPath });
      const started = Date.now();
      const g = await search.grep({ pattern: "needle", path: dir, maxMatches: 200, timeLimitMs: 3_000 });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(g.truncated).toBe(true);
      expect(g.stopped).toBe("time");
      expect(g.lines.map((l) => l.text)).toEqual(["needle 0", "needle 1", "needle 2", "needle 3", "needle 4"]);
      expect(alive(pid())).toBe(false);
      fresh();
      const f = await search.glob({ pattern: "**/*.ts", path: dir, maxResults: 200, order: "path", timeLimitMs: 3_000 });
      expect(f).toMatchObject({ truncated: true, stopped: "time", found: 5 });
      expect(f.paths).toHaveLength(5);
      expect(alive(pid())).toBe(false);
    } finally {
      delete process.env.FAKE_RG_MODE;
    }
  });

  it("grep and a glob by modification time let rg search on every core; a glob in path order has it sort", async () => {
    const search = createRipgrepSearcher({ rgPath });
    const args = () => JSON.parse(fs.readFileSync(path.join(dir, "args"), "utf8")) as string[];
    fresh();
    await search.grep({ pattern: "needle", path: dir, maxMatches: 5 });
    expect(args()).toContain("--json");
    expect(args()).not.toContain("--sort");
    fresh();
    await search.glob({ pattern: "**/*.ts", path: dir, maxResults: 5, maxRanked: 10 });
    expect(args()).not.toContain("--sort");
    fresh();
    await search.glob({ pattern: "**/*.ts", path: dir, maxResults: 5, order: "path" });
    expect(args().join(" ")).toContain("--sort path");
  });

  it("grep puts files that rg printed in any order into path order, each file's lines kept together", async () => {
    process.env.FAKE_RG_MODE = "shuffled";
    try {
      fresh();
      const res = await createRipgrepSearcher({ rgPath }).grep({ pattern: "needle", path: dir, maxMatches: 50, context: 1 });
      // Path order as a sorted walk lists it: a/z.ts before a-z.ts ("a" before "a-z"), src/a/x.ts before src/b.ts.
      expect(res.lines.map((l) => `${path.relative(dir, l.path)}:${l.line}:${l.text}`)).toEqual([
        "a/z.ts:1:needle a/z.ts",
        "a/z.ts:2:after a/z.ts",
        "a-z.ts:1:needle a-z.ts",
        "a-z.ts:2:after a-z.ts",
        "src/a/x.ts:1:needle src/a/x.ts",
        "src/a/x.ts:2:after src/a/x.ts",
        "src/b.ts:1:needle src/b.ts",
        "src/b.ts:2:after src/b.ts",
      ]);
      expect(res.truncated).toBe(false);
    } finally {
      delete process.env.FAKE_RG_MODE;
    }
  });

  it("reads a million lines with memory flat: no line is kept once handled", async () => {
    fresh();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    let count = 0;
    let bytes = 0;
    const run = await runRg(rgPath, ["--files"], dir, {}, (line) => {
      count++;
      bytes += line.length + 1;
      if (count % 50_000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      return true;
    });
    expect(run.code).toBe(0);
    expect(count).toBe(LINES);
    expect(fs.existsSync(path.join(dir, "finished"))).toBe(true);
    // 40 MB of output went through (80 MB as JS strings); the heap grew by far less than that.
    expect(bytes).toBe(40 * LINES);
    expect(peak - before).toBeLessThan(16 * 1024 * 1024);
  });
});
