/**
 * Variables exported earlier on the line (issue 18, session 20: shell/exports.ts): every command of the
 * line gets them as it would a prefix assignment, whatever spelling bash has for the export. The gate's
 * decisions are in the attack corpus (R33); here: what the reader finds, and that a later command carries it.
 */
import type { Parser } from "web-tree-sitter";
import { beforeAll, describe, expect, it } from "vitest";
import { exportsOf } from "../../../src/core/permissions/shell/exports";
import { analyseCommand } from "../../../src/core/permissions/shell/extract";
import { initShellParser } from "../../../src/core/permissions/shell/parser";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

let parser: Parser;
beforeAll(async () => {
  parser = await initShellParser(() => loadShellWasm());
});

function exported(line: string): { names: string[]; problems: string[] } {
  const tree = parser.parse(line)!;
  try {
    const r = exportsOf(tree.rootNode);
    return { names: r.exported.map((e) => e.name), problems: r.problems };
  } finally {
    tree.delete();
  }
}

/** The assignments the last command of the line runs with. */
function envOf(line: string, program: string): Array<{ name: string; exported?: boolean }> {
  const a = analyseCommand(parser, line, { cwd: ["/w"], home: "/h" });
  const part = a.parts.find((p) => p.views.some((v) => v.words[0]?.value === program));
  expect(part, line).toBeDefined();
  return part!.assignments.map((x) => ({ name: x.name, ...(x.exported ? { exported: true } : {}) }));
}

describe("what a line exports", () => {
  it("reads every spelling of an export", () => {
    for (const [line, names] of [
      ["export PSQLRC=f; psql", ["PSQLRC"]],
      ["export -- A=1 B", ["A", "B"]],
      ["X=1; export X", ["X"]],
      ["export 'Q=1'", ["Q"]],
      ["declare -x A=1", ["A"]],
      ["declare -gx A=1", ["A"]],
      ["typeset -rx A=1", ["A"]],
      ["f() { local -x A=1; }", ["A"]],
      ["set -a; A=1; B[2]=x", ["A", "B"]],
      ["set -eo allexport; A=1", ["A"]],
      ["set -euxa; A=1", ["A"]],
      // The builtin run as a command (tree-sitter reads only a plain first `export` as the keyword).
      ["\\export A=1", ["A"]],
      ["'declare' -x A=1", ["A"]],
      ["builtin export A=1", ["A"]],
      ["command -p declare -x A=1", ["A"]],
      ["builtin set -a; A=1", ["A"]],
      // A reference exports its target.
      ["declare -n r=PSQLRC; export r=f", ["r", "PSQLRC"]],
      ["declare -n r=PSQLRC; r=f; export r", ["r", "PSQLRC"]],
    ] as const)
      expect(exported(line).names, line).toEqual(names);
  });

  it("does not take what exports nothing for an export", () => {
    for (const line of [
      "declare A=1",
      "declare -r A=1",
      "local A=1",
      "export -n A",
      "export -f f",
      "A=1 psql",
      "readonly A=1",
      "set -e; A=1",
      "set -o errexit; A=1",
      "echo export A=1",
      "command -v export A",
    ])
      expect(exported(line).names, line).toEqual([]);
  });

  it("asks under set -a when a variable is set in a way Yoke does not list", () => {
    for (const line of ["set -a; read A", "set -a; printf -v A x", "set -a; mapfile A < f", "set -a; for A in *; do :; done", "set -a; let A=1", "set -a; : ${A:=x}"])
      expect(exported(line).problems.length, line).toBeGreaterThan(0);
    expect(exported("set -a; A=1; read B").problems.length).toBeGreaterThan(0);
    expect(exported("read A; A=1").problems).toEqual([]);
  });
});

describe("a later command gets the exports", () => {
  it("as a prefix assignment, marked as exported, also before the export in the text, inside bash -c and under find -exec", () => {
    expect(envOf("export PSQLRC=f; psql -c x", "psql")).toEqual([{ name: "PSQLRC", exported: true }]);
    expect(envOf("PSQLRC=g psql -c x; export PSQLRC=f", "psql")).toEqual([{ name: "PSQLRC" }]);
    expect(envOf("for i in 1 2; do psql -c x; export PSQLRC=f; done", "psql")).toEqual([{ name: "PSQLRC", exported: true }]);
    expect(envOf("export PSQLRC=f; bash -c 'psql -c x'", "psql")).toEqual([{ name: "PSQLRC", exported: true }]);
    expect(envOf("export PSQLRC=f; find . -exec psql -c x {} +", "psql")).toEqual([{ name: "PSQLRC", exported: true }]);
    expect(envOf("eval 'export PSQLRC=f'; psql -c x", "psql")).toEqual([{ name: "PSQLRC", exported: true }]);
    // A child shell's export stays in the child.
    expect(envOf("bash -c 'export PSQLRC=f'; psql -c x", "psql")).toEqual([]);
  });
});
