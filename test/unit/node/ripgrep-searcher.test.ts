import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GrepOptions, Searcher } from "../../../src/core/ports";
import { createJsSearcher, createRipgrepSearcher, findRipgrep } from "../../../src/node/ripgrep-searcher";

const FILES: Record<string, string | Uint8Array> = {
  ".gitignore": "build/\n*.log\n!keep.log\n/top-only.txt\n",
  ".hidden/h.ts": "const needle = 1;\n",
  ".git/HEAD": "needle\n",
  "a.ts": "needle one\nplain\nNeedle two\nplain\nplain\nplain\nneedle three\n",
  "a-b.ts": "needle\n",
  "b/needle.md": "# needle\nx\n",
  "b/c/deep.ts": "x\nx\nneedle deep\nx\n",
  "b/c/.gitignore": "gen.ts\n",
  "b/c/gen.ts": "needle generated\n",
  "b/top-only.txt": "needle kept\n",
  "top-only.txt": "needle ignored\n",
  "build/x.ts": "needle in build\n",
  "debug.log": "needle log\n",
  "keep.log": "needle keep\n",
  "bin.dat": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]),
  "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x0a]),
  "crlf.txt": "needle\r\nother\r\n",
  "bom.txt": "\uFEFFneedle bom\n",
};

describe("ripgrep searcher and JS fallback", () => {
  let root: string;
  let rg: Searcher;
  let js: Searcher;
  beforeAll(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-rg-")));
    for (const [rel, content] of Object.entries(FILES)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), content);
    }
    fs.symlinkSync(path.join(root, "a.ts"), path.join(root, "link.ts"));
    const base = Date.now() / 1000;
    Object.keys(FILES).forEach((rel, i) => fs.utimesSync(path.join(root, rel), base - 1000 + i * 10, base - 1000 + i * 10));
    expect(findRipgrep()).toBeDefined();
    rg = createRipgrepSearcher();
    js = createJsSearcher();
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const grepBoth = async (o: Omit<GrepOptions, "path" | "maxMatches"> & { path?: string; maxMatches?: number }) => {
    const opts = { maxMatches: 100, ...o, path: o.path ?? root };
    const [a, b] = await Promise.all([rg.grep(opts), js.grep(opts)]);
    expect(b).toEqual(a);
    return a;
  };
  const rel = (paths: string[]) => paths.map((p) => path.relative(root, p));

  it("grep: the same matches, honouring nested .gitignore, negation and anchoring, skipping .git, binary files and symlinks", async () => {
    const res = await grepBoth({ pattern: "needle" });
    const files = [...new Set(rel(res.lines.map((l) => l.path)))];
    expect(files).toEqual([".hidden/h.ts", "a-b.ts", "a.ts", "b/c/deep.ts", "b/needle.md", "b/top-only.txt", "bom.txt", "crlf.txt", "keep.log", "latin1.txt"]);
    expect(res.lines.find((l) => l.path.endsWith("bom.txt"))).toEqual({ path: `${root}/bom.txt`, line: 1, text: "needle bom", match: true, bytes: { offset: 0, length: 10 } });
    expect(res.lines.find((l) => l.path.endsWith("latin1.txt"))!.text).toBe("caf\uFFFD needle");
    expect(res.truncated).toBe(false);
  });

  it("grep: the same context lines, case folding and glob filter", async () => {
    const res = await grepBoth({ pattern: "needle", ignoreCase: true, context: 1, glob: "*.ts" });
    const a = res.lines.filter((l) => l.path === `${root}/a.ts`).map((l) => `${l.line}${l.match ? ":" : "-"}${l.text}`);
    expect(a).toEqual(["1:needle one", "2-plain", "3:Needle two", "4-plain", "6-plain", "7:needle three"]);
    await grepBoth({ pattern: "needle", glob: "b/**" });
    await grepBoth({ pattern: "needle", glob: "!*.ts" });
  });

  it("grep: stops at maxMatches across files, with lines the full search holds, files in path order", async () => {
    const all = await grepBoth({ pattern: "needle", context: 2 });
    const key = (l: { path: string; line: number }) => `${l.path}:${l.line}`;
    const known = new Map(all.lines.map((l) => [key(l), l]));
    const order = [...new Set(all.lines.map((l) => l.path))];
    for (const s of [rg, js]) {
      const res = await s.grep({ pattern: "needle", maxMatches: 3, context: 2, path: root });
      expect(res).toMatchObject({ truncated: true, stopped: "limit" });
      expect(res.lines.filter((l) => l.match)).toHaveLength(3);
      // ripgrep searches on every core: which 3 is not fixed, but each line is one the full search
      // shows, and the files come in the full search's (path) order.
      for (const l of res.lines) expect(known.get(key(l))).toEqual(l);
      const files = [...new Set(res.lines.map((l) => l.path))];
      expect(files).toEqual(order.filter((f) => files.includes(f)));
    }
    // The JS searcher walks in path order: its 3 are the first 3.
    const first = await js.grep({ pattern: "needle", maxMatches: 3, context: 2, path: root });
    expect(first.lines.filter((l) => l.match)).toEqual(all.lines.filter((l) => l.match).slice(0, 3));
  });

  it("grep: a complete answer from rg on every core is the JS searcher's, files in path order name by name", async () => {
    // Names that sort one way as whole paths and another name by name ("a/…" before "a-b/…"), in 81 folders.
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-rg-order-")));
    try {
      const names = ["a", "a-b", "a.b", "A", "_x", "\u00e9", "z", "a0", "a b"];
      let n = 0;
      for (const d1 of names)
        for (const d2 of names)
          for (const f of ["a", "a-b", "b.ts", "\u00e9.md"]) {
            const p = path.join(dir, d1, d2, f);
            fs.mkdirSync(path.dirname(p), { recursive: true });
            fs.writeFileSync(p, `needle ${n++}\nx\nneedle again\n`);
          }
      for (let i = 0; i < 3; i++) {
        const o = { pattern: "needle", path: dir, maxMatches: 10_000, context: 1 };
        const [a, b] = await Promise.all([rg.grep(o), js.grep(o)]);
        expect(a.lines).toHaveLength(n * 3);
        expect(b).toEqual(a);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("grep: searches one explicit file even when it is ignored", async () => {
    const res = await grepBoth({ pattern: "needle", path: `${root}/debug.log` });
    expect(res.lines).toEqual([{ path: `${root}/debug.log`, line: 1, text: "needle log", match: true, bytes: { offset: 0, length: 10 } }]);
  });

  it("grep: both reject an invalid regex", async () => {
    await expect(rg.grep({ pattern: "a(", path: root, maxMatches: 5 })).rejects.toThrow(/regex/i);
    await expect(js.grep({ pattern: "a(", path: root, maxMatches: 5 })).rejects.toThrow(/regex/i);
  });

  it("glob: the same files, newest first, with whitelisting globs like ripgrep's", async () => {
    for (const pattern of ["*.ts", "**/*.ts", "b/**", "*.log", "b/c/*", "*.{md,txt}", "needle.md"]) {
      const opts = { pattern, path: root, maxResults: 50 };
      const [a, b] = await Promise.all([rg.glob(opts), js.glob(opts)]);
      expect(b, pattern).toEqual(a);
    }
    const ts = await rg.glob({ pattern: "*.ts", path: root, maxResults: 50 });
    // As in ripgrep, a glob that names a file whitelists it even when a .gitignore ignores it (gen.ts),
    // but ignored folders (build/) are still not entered.
    expect(rel(ts.paths)).toEqual(["b/c/gen.ts", "b/c/deep.ts", "a-b.ts", "a.ts", ".hidden/h.ts"]);
    const logs = await rg.glob({ pattern: "*.log", path: root, maxResults: 50 });
    expect(rel(logs.paths)).toEqual(["keep.log", "debug.log"]);
  });

  it("glob: truncates to the most recent maxResults", async () => {
    const opts = { pattern: "*.ts", path: root, maxResults: 2 };
    const [a, b] = await Promise.all([rg.glob(opts), js.glob(opts)]);
    expect(a).toEqual({ paths: [`${root}/b/c/gen.ts`, `${root}/b/c/deep.ts`], truncated: true, found: 5 });
    expect(b).toEqual(a);
  });

  it("glob: the same bounded answers in path order; a bound on ranked matches ranks the first found", async () => {
    const cases = [
      { pattern: "*.ts", order: "path" as const, maxResults: 2 },
      { pattern: "*.ts", order: "path" as const, maxResults: 50 },
      { pattern: "*.{ts,txt,md}", maxResults: 2, maxRanked: 100 },
    ];
    for (const c of cases) {
      const opts = { ...c, path: root };
      const [a, b] = await Promise.all([rg.glob(opts), js.glob(opts)]);
      expect(b, JSON.stringify(c)).toEqual(a);
    }
    const byPath = await rg.glob({ pattern: "*.ts", path: root, order: "path", maxResults: 2 });
    expect(byPath).toEqual({ paths: [`${root}/.hidden/h.ts`, `${root}/a-b.ts`], truncated: true, found: 2, stopped: "limit" });
    // The JS searcher ranks the first 4 matches in path order only: .gitignore, .hidden/h.ts, a-b.ts, a.ts (the newer files come later).
    const ranked = await js.glob({ pattern: "**/*", path: root, maxResults: 3, maxRanked: 4 });
    expect(ranked).toEqual({ paths: [`${root}/a-b.ts`, `${root}/a.ts`, `${root}/.hidden/h.ts`], truncated: true, found: 4, stopped: "limit" });
    // ripgrep walks on every core: it ranks the first 4 it finds, whichever they are — the 3 newest of
    // those, newest first, and every file newer than the last shown and not shown was never reached.
    const all = await rg.glob({ pattern: "**/*", path: root, maxResults: 100 });
    const some = await rg.glob({ pattern: "**/*", path: root, maxResults: 3, maxRanked: 4 });
    expect(some).toMatchObject({ truncated: true, found: 4, stopped: "limit" });
    expect(some.paths).toHaveLength(3);
    const at = (p: string) => all.paths.indexOf(p);
    expect(some.paths.map(at)).toEqual(some.paths.map(at).sort((a, b) => a - b));
    expect(some.paths.every((p) => at(p) >= 0)).toBe(true);
    expect(at(some.paths[2]!) - 2).toBeLessThanOrEqual(all.paths.length - 4);
  });

  it("aborts a running search when the signal fires", async () => {
    const ac = new AbortController();
    ac.abort(new Error("stop now"));
    await expect(rg.grep({ pattern: "x", path: root, maxMatches: 5, signal: ac.signal })).rejects.toThrow("stop now");
    await expect(js.glob({ pattern: "*", path: root, maxResults: 5, signal: ac.signal })).rejects.toThrow("stop now");
  });
});

describe("findRipgrep", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-findrg-"));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  function fakeRg(at: string): string {
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.writeFileSync(at, "#!/bin/sh\n", { mode: 0o755 });
    return at;
  }

  it("prefers rgPath, then YOKE_RG_PATH, then VS Code's bundled rg, then PATH", () => {
    const explicit = fakeRg(path.join(dir, "explicit/rg"));
    const env = fakeRg(path.join(dir, "env/rg"));
    const app = path.join(dir, "vscode");
    const unpacked = fakeRg(path.join(app, "node_modules.asar.unpacked/@vscode/ripgrep/bin/rg"));
    const saved = process.env.YOKE_RG_PATH;
    try {
      process.env.YOKE_RG_PATH = env;
      expect(findRipgrep({ rgPath: explicit, vscodeAppRoot: app })).toBe(explicit);
      expect(findRipgrep({ rgPath: path.join(dir, "missing"), vscodeAppRoot: app })).toBe(env);
      delete process.env.YOKE_RG_PATH;
      expect(findRipgrep({ vscodeAppRoot: app })).toBe(unpacked);
      const plain = fakeRg(path.join(app, "node_modules/@vscode/ripgrep/bin/rg"));
      expect(findRipgrep({ vscodeAppRoot: app })).toBe(plain);
      expect(findRipgrep()).toMatch(/\/rg$/);
    } finally {
      if (saved === undefined) delete process.env.YOKE_RG_PATH;
      else process.env.YOKE_RG_PATH = saved;
    }
  });

  it("falls back to the JS searcher with one warning when no rg exists", async () => {
    const savedPath = process.env.PATH;
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    try {
      process.env.PATH = dir;
      const s = createRipgrepSearcher({ log });
      createRipgrepSearcher({ log });
      fs.writeFileSync(path.join(dir, "x.txt"), "hello\n");
      const r = await s.grep({ pattern: "hel+o", path: dir, maxMatches: 5 });
      expect(r.lines).toEqual([{ path: `${dir}/x.txt`, line: 1, text: "hello", match: true, bytes: { offset: 0, length: 5 } }]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("ripgrep (rg) not found; using the slower built-in search");
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe("ignore files above the searched folder", () => {
  let parent: string;
  let ws: string;
  beforeAll(() => {
    parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "yoke-parent-")));
    ws = path.join(parent, "ws");
    fs.mkdirSync(path.join(ws, "src"), { recursive: true });
    fs.writeFileSync(path.join(parent, ".gitignore"), "ws/\n*.log\n");
    fs.writeFileSync(path.join(ws, "src/a.ts"), "needle\n");
    fs.writeFileSync(path.join(ws, "b.log"), "needle\n");
  });
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

  async function both(): Promise<string[]> {
    const opts = { pattern: "needle", path: ws, maxMatches: 50 };
    const [a, b] = await Promise.all([createRipgrepSearcher().grep(opts), createJsSearcher().grep(opts)]);
    expect(b).toEqual(a);
    return a.lines.map((l) => path.relative(ws, l.path));
  }

  it("never ignores the searched folder itself, but applies the other parent rules", async () => {
    expect(await both()).toEqual(["src/a.ts"]);
  });

  it("stops at a repository root: rules above a folder holding .git do not apply", async () => {
    fs.mkdirSync(path.join(ws, ".git"));
    try {
      expect(await both()).toEqual(["b.log", "src/a.ts"]);
    } finally {
      fs.rmSync(path.join(ws, ".git"), { recursive: true });
    }
  });
});
