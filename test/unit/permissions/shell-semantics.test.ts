/**
 * The pieces under the shell analysis, checked against bash itself where bash can say: brace and
 * pathname expansion (compared with real `bash -c 'printf …'` on a real folder), the folders
 * `cd` may leave, Claude Code's Bash rule semantics, and the sed/awk program readers.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Parser } from "web-tree-sitter";
import { matchBashSpec } from "../../../src/core/permissions/bash-spec";
import { awkProgramProblem, sedScriptEffects } from "../../../src/core/permissions/script-scanners";
import { braceExpand, DEFAULT_BUDGET, globExpand, tildeExpand } from "../../../src/core/permissions/shell/expand";
import { analyseCommand } from "../../../src/core/permissions/shell/extract";
import { initShellParser } from "../../../src/core/permissions/shell/parser";
import { literalWord } from "../../../src/core/permissions/shell/words";
import { nodeListDir } from "../../../src/node/settings/files";

const listNames = async (d: string) => (await nodeListDir(d))?.map((e) => e.name);
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

let parser: Parser;
beforeAll(async () => {
  parser = await initShellParser(() => loadShellWasm());
});

const words = (s: string) => s.split(" ").map(literalWord);

describe("expansion, compared with bash", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-glob-")));
  for (const f of [".env", ".envrc", "a.ts", "b.ts", "secrets/key.txt", "secrets/inner/x", "[x]", "-rf"]) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), "");
  }
  const bash = (pattern: string) =>
    execFileSync("bash", ["-c", `printf '%s\\n' ${pattern}`], { cwd: dir, encoding: "utf8" })
      .trim()
      .split("\n");
  const ours = async (pattern: string) => {
    const out: string[] = [];
    for (const p of braceExpand(pattern) ?? []) {
      const e = await globExpand(p, dir, { home: "/h", listDir: listNames, budget: DEFAULT_BUDGET() });
      if ("unknown" in e) throw new Error(e.unknown);
      out.push(...e.words);
    }
    return out;
  };

  for (const pattern of [
    "*",
    ".e*",
    ".e?v",
    "[s]ecrets/*",
    "secr*/*/x",
    "*.ts",
    "{a,b}.ts",
    "{.e,x}nv",
    "*.nomatch",
    "s?crets/k*",
    ".[!x]nv",
    "\\[x\\]",
    "[[:alpha:]].ts",
    "a{1..3}",
    "*/",
    "secrets/*/",
  ]) {
    it(`expands ${pattern} as bash does`, async () => {
      expect(await ours(pattern)).toEqual(bash(pattern));
    });
  }

  it("gives ~ the home folder and leaves ~+, ~user to the running shell", () => {
    expect(tildeExpand("~/x", "/home/u")).toBe("/home/u/x");
    expect(tildeExpand("~+/x", "/home/u")).toMatchObject({ unknown: expect.stringContaining("~+") });
    expect(tildeExpand("~root/x", "/home/u")).toMatchObject({ unknown: expect.stringContaining("~root") });
  });

  it("bounds brace expansion", () => {
    expect(braceExpand("{1..100000}")).toBeUndefined();
    expect(braceExpand("{a,b}{c,d}")).toEqual(["ac", "ad", "bc", "bd"]);
  });
});

describe("the folders cd may leave", () => {
  const cwd = (command: string) => analyseCommand(parser, command, { cwd: ["/w"], home: "/h" }).parts.map((p) => `${p.text} @ ${p.cwd === null ? "?" : p.cwd.join(",")}`);

  it("follows success, failure, subshells, background jobs, exit and loops", () => {
    expect(cwd("(cd a); ls")).toEqual(["cd a @ /w", "ls @ /w"]);
    expect(cwd("cd a || exit 1; ls")).toEqual(["cd a @ /w", "exit 1 @ /w", "ls @ /w/a"]);
    expect(cwd("cd a && ls")).toEqual(["cd a @ /w", "ls @ /w/a"]);
    expect(cwd("cd a; ls")).toEqual(["cd a @ /w", "ls @ /w/a,/w"]);
    expect(cwd("cd a & ls")).toEqual(["cd a @ /w", "ls @ /w"]);
    expect(cwd("if x; then cd a; fi; ls").at(-1)).toBe("ls @ /w/a,/w");
    expect(cwd("echo $(cd a; pwd); ls")).toEqual(["cd a @ /w", "pwd @ /w/a,/w", "echo $(cd a; pwd) @ /w", "ls @ /w"]);
    expect(cwd("cd $X; ls").at(-1)).toBe("ls @ ?");
    expect(cwd("pushd a; popd; ls").at(-1)).toBe("ls @ ?");
    expect(cwd("for i in 1 2; do cd a; done; ls").at(-1)).toBe("ls @ ?");
    expect(cwd("while true; do cd a; break; done; ls").at(-1)).toBe("ls @ /w,/w/a");
    expect(cwd("f() { cd a; }; ls")).toEqual(["cd a @ ?", "ls @ /w"]);
    expect(cwd("cd; ls").at(-1)).toBe("ls @ /h,/w");
    expect(cwd("cd a/.. && ls").at(-1)).toBe("ls @ /w");
    expect(cwd("cd -P a/.. && ls").at(-1)).toBe("ls @ ?");
    expect(cwd("set -P; cd a/..; ls").at(-1)).toBe("ls @ ?");
  });
});

describe("Bash rule specifiers (Claude Code semantics)", () => {
  it("treats :* as a trailing ' *' that also matches nothing, with a word boundary", () => {
    for (const spec of ["rm -rf /*:*", "rm -rf /* *"]) {
      expect(matchBashSpec(spec, words("rm -rf /")), spec).toBe("yes");
      expect(matchBashSpec(spec, words("rm -rf /etc")), spec).toBe("yes");
      expect(matchBashSpec(spec, words("rm -rf /etc /var")), spec).toBe("yes");
      expect(matchBashSpec(spec, words("rm -rf build")), spec).toBe("no");
    }
    expect(matchBashSpec("npm run test:*", words("npm run test"))).toBe("yes");
    expect(matchBashSpec("npm run test:*", words("npm run test:unit"))).toBe("no");
    expect(matchBashSpec("ls *", words("lsof"))).toBe("no");
    expect(matchBashSpec("ls*", words("lsof"))).toBe("yes");
  });

  it("matches * anywhere, exact rules exactly, and quoted words as one word", () => {
    expect(matchBashSpec("git * main", words("git log --oneline main"))).toBe("yes");
    expect(matchBashSpec("* --version", words("node --version"))).toBe("yes");
    expect(matchBashSpec("make build", words("make build -j4"))).toBe("no");
    expect(matchBashSpec('git commit -m "fix bug"', [literalWord("git"), literalWord("commit"), literalWord("-m"), literalWord("fix bug")])).toBe("yes");
    expect(matchBashSpec('git commit -m "fix bug"', words("git commit -m fix bug"))).toBe("no");
  });

  it("says maybe for words known at run time, yes where a * covers them", () => {
    const dyn = { value: "$X", raw: "$X", dynamic: true, glob: false };
    expect(matchBashSpec("git push:*", [literalWord("git"), dyn])).toBe("maybe");
    expect(matchBashSpec("rm -rf:*", [literalWord("rm"), literalWord("-rf"), dyn])).toBe("yes");
    expect(matchBashSpec("git push:*", [literalWord("git")], true)).toBe("maybe");
  });
});

describe("program readers", () => {
  it("reads sed scripts command by command", () => {
    expect(sedScriptEffects("1,5p")).toEqual({ runs: false, writes: [], reads: [] });
    expect(sedScriptEffects("s/a/b/g;/x/d")).toEqual({ runs: false, writes: [], reads: [] });
    expect(sedScriptEffects("e rm -rf src").runs).toBe(true);
    expect(sedScriptEffects("s/x/rm -rf src/e").runs).toBe(true);
    expect(sedScriptEffects("s/x/y/w .git/config").writes).toEqual([".git/config"]);
    expect(sedScriptEffects("1r /etc/passwd").reads).toEqual(["/etc/passwd"]);
    expect(sedScriptEffects("/a/{\ns/a/b/\n}\nw out.txt").writes).toEqual(["out.txt"]);
    expect(sedScriptEffects("s/unterminated").unknown).toBeDefined();
  });

  it("finds the awk programs that run commands or write files", () => {
    expect(awkProgramProblem("{print $1}")).toBeUndefined();
    expect(awkProgramProblem('$1 == "a" || $2 == "b" {print}')).toBeUndefined();
    expect(awkProgramProblem('BEGIN{system("rm -rf src")}')).toMatch(/system/);
    expect(awkProgramProblem('{print | "sh"}')).toMatch(/pipe/);
    expect(awkProgramProblem('{print > "/tmp/x"}')).toMatch(/write/);
    expect(awkProgramProblem('{print ENVIRON["TOKEN"]}')).toMatch(/environment/);
  });
});
