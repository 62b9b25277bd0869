import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import * as esbuild from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEditInput } from "../../../src/cli/commands/edit";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";

let dir: string;
let cli: string;

/** Builds src/cli/main.ts like esbuild.mjs does (commands that do not exist yet are left out). */
beforeAll(async () => {
  await hashlineReady();
  dir = mkdtempSync(join(tmpdir(), "yoke-edit-cli-"));
  cli = join(dir, "cli.js");
  await esbuild.build({
    entryPoints: [resolve("src/cli/main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: cli,
    logLevel: "silent",
    define: { YOKE_VERSION: '"test"' },
    // As esbuild.mjs: web-tree-sitter's CJS build (the parse check of tolerant edits loads it).
    alias: { "web-tree-sitter": "./node_modules/web-tree-sitter/tree-sitter.cjs" },
    plugins: [
      {
        name: "missing-commands",
        setup(b) {
          b.onResolve({ filter: /^\.\/commands\// }, (a) => (existsSync(resolve(dirname(a.importer), a.path) + ".ts") ? undefined : { path: a.path, external: true }));
        },
      },
    ],
  });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function yoke(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [cli, ...args], { input, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, content: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

describe("yoke edit", () => {
  it("prints the hashline view, with --offset and --limit", () => {
    const p = file("v.txt", "alpha\nbeta\ngamma\n");
    expect(yoke(["edit", "view", p])).toEqual({ code: 0, stdout: `${lineTag(1, "alpha")}|alpha\n${lineTag(2, "beta")}|beta\n${lineTag(3, "gamma")}|gamma\n`, stderr: "" });
    expect(yoke(["edit", "view", p, "--offset", "2", "--limit", "1"]).stdout).toBe(`${lineTag(2, "beta")}|beta\n`);
    const json = JSON.parse(yoke(["edit", "view", p, "--json", "--offset", "3"]).stdout);
    expect(json).toEqual({ ok: true, path: p, totalLines: 3, from: 3, to: 3, lines: [{ line: 3, hash: lineTag(3, "gamma").split("#")[1], text: "gamma" }] });
  });

  it("applies text blocks from stdin and writes the file", () => {
    const p = file("a.ts", "let x = 1;\r\nlet y = 2;\r\n");
    const r = yoke(["edit", "apply", p], "a.ts\n<<<<<<< SEARCH\nlet y = 2;\n=======\nlet y = 3;\n>>>>>>> REPLACE\n");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Edited ${p}: +1 -1 lines\n@@ -1,2 +1,2 @@\n let x = 1;\n-let y = 2;\n+let y = 3;\n`);
    expect(readFileSync(p, "utf8")).toBe("let x = 1;\r\nlet y = 3;\r\n");
  });

  it("prints the result with --dry-run and writes nothing", () => {
    const p = file("d.ts", "one\ntwo\n");
    const r = yoke(["edit", "apply", p, "--dry-run"], JSON.stringify({ edits: [{ op: "append", pos: lineTag(2, "two"), lines: ["three"] }] }));
    expect(r).toEqual({ code: 0, stdout: "one\ntwo\nthree\n", stderr: "" });
    expect(readFileSync(p, "utf8")).toBe("one\ntwo\n");
  });

  it("exits 1 with the reason on stderr when an edit is refused", () => {
    const p = file("r.ts", "one\ntwo\n");
    const r = yoke(["edit", "apply", p], JSON.stringify([{ old_string: "three", new_string: "3" }]));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `yoke edit: Nothing was written to ${p}: the edit failed.\n\nEdit 1 (old_string starting "three"): SEARCH text not found in ${p}. ` +
        `Nothing in the file is close to it (2 lines). Re-read the file (read_file) to see its current content.\n`,
    );
    expect(readFileSync(p, "utf8")).toBe("one\ntwo\n");
  });

  it("reports a refusal as JSON with --json", () => {
    const p = file("j.ts", "one\n");
    const r = yoke(["edit", "apply", p, "--json"], JSON.stringify([{ op: "replace", pos: "1#ZZ", lines: ["1"] }]));
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.failures[0].index).toBe(1);
    expect(out.error).toContain("line 1 has changed since it was read");
  });

  it("checks --format against the edits given", () => {
    const p = file("f.ts", "one\n");
    const r = yoke(["edit", "apply", p, "--format", "hashline"], JSON.stringify([{ old_string: "one", new_string: "1" }]));
    expect(r).toEqual({ code: 1, stdout: "", stderr: "yoke edit: edit 1 is not a hashline op, but --format hashline was given\n" });
  });

  it("refuses a block meant for another file", () => {
    const p = file("g.ts", "one\n");
    const r = yoke(["edit", "apply", p], "other.ts\n<<<<<<< SEARCH\none\n=======\n1\n>>>>>>> REPLACE\n");
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`yoke edit: block 1 is for "other.ts", but the file being edited is ${p}; apply one file's blocks at a time\n`);
  });

  it("exits 2 on bad usage", () => {
    expect(yoke(["edit", "frobnicate"]).code).toBe(2);
    expect(yoke(["edit", "view"]).code).toBe(2);
    const p = file("u.ts", "x\n");
    expect(yoke(["edit", "apply", p, "--format", "diff"], "x").code).toBe(2);
    expect(yoke(["edit", "apply", p], "").stderr).toBe("yoke edit: no edit on stdin\n");
    expect(yoke(["edit", "view", p, "--offset", "0"]).code).toBe(2);
  });

  it("refuses non-UTF-8 files with exit 1", () => {
    const p = file("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const r = yoke(["edit", "view", p]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("it is not valid UTF-8 text");
  });
});

describe("parseEditInput", () => {
  it("reads JSON pairs with --format search_replace and blocks whose filename starts with a bracket", () => {
    expect(parseEditInput('[{"old_string":"a","new_string":"b"}]', "search_replace", "/w/x.ts")).toEqual([{ old_string: "a", new_string: "b" }]);
    expect(parseEditInput("[id].tsx\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "auto", "/w/app/[id].tsx")).toEqual([
      { kind: "block", search: ["a"], replace: ["b"], path: "[id].tsx", startLine: undefined },
    ]);
  });

  it("reads the other harnesses' JSON shapes from stdin, and a named other file is refused", () => {
    const p = file("shapes.ts", "let x = 1;\n");
    expect(yoke(["edit", "apply", p, "--dry-run"], JSON.stringify({ filePath: "shapes.ts", old_string: "x = 1", new_string: "x = 2" }))).toMatchObject({ code: 0, stdout: "let x = 2;\n" });
    expect(yoke(["edit", "apply", p, "--dry-run"], JSON.stringify({ file_path: p, edits: [{ oldString: "x", newString: "y" }] }))).toMatchObject({ code: 0, stdout: "let y = 1;\n" });
    const other = yoke(["edit", "apply", p, "--dry-run"], JSON.stringify({ filePath: "src/other.ts", edits: [{ old_string: "x", new_string: "y" }] }));
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('the edit is for "src/other.ts"');
    const bad = yoke(["edit", "apply", p, "--dry-run"], JSON.stringify({ changes: [] }));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("Accepted shapes:");
    expect(readFileSync(p, "utf8")).toBe("let x = 1;\n");
  });

  it("applies a last block without its REPLACE marker, unless --truncated says the reply was cut off", () => {
    const p = file("u.py", 'def greet():\n    return "hi"\n');
    const text = '<<<<<<< SEARCH\n    return "hi"\n=======\n    return "hello"\n';
    const ok = yoke(["edit", "apply", p, "--dry-run"], text);
    expect(ok).toMatchObject({ code: 0, stdout: 'def greet():\n    return "hello"\n' });
    expect(ok.stderr).toContain("[rule unclosed-final-block]");
    const cut = yoke(["edit", "apply", p, "--dry-run", "--truncated"], text);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toContain("was cut off: the reply ended (it hit the output token limit)");
    expect(readFileSync(p, "utf8")).toBe('def greet():\n    return "hi"\n');
  });

  it("says what is wrong with malformed input", () => {
    expect(() => parseEditInput('[{"old_string": "a"', "auto", "/w/x.ts")).toThrow(/^the edit is not valid JSON \(/);
    expect(() => parseEditInput("<<<<<<< SEARCH\na\n", "hashline", "/w/x.ts")).toThrow('--format hashline expects JSON (an array of ops or {"edits": [...]})');
    expect(() => parseEditInput('{"edits": []}', "auto", "/w/x.ts")).toThrow(/^No edits were given \(an empty list\)\. Accepted shapes: /);
    expect(() => parseEditInput('[{"new_string": "b"}]', "auto", "/w/x.ts")).toThrow('Cannot read 1 edit: edit 1 has no "old_string" (a string). Accepted shapes: ');
    expect(() => parseEditInput('[{"from": "a", "to": "b"}]', "auto", "/w/x.ts")).toThrow(
      'edit 1 ({"from":"a","to":"b"}) is neither a hashline op ({"op": ...}) nor a search/replace pair ({"old_string": ..., "new_string": ...})',
    );
  });
});
