/**
 * Literal variables set earlier on the line (issue 18, session 21: shell/literal-vars.ts). The
 * gate's decisions are in the corpora (attacks R36, ordinary gate21-*); here: that the rewriting is
 * what real bash runs (each line and its rewriting print the same words), that every form bash has
 * for changing the variable leaves it unknown, and what the analysis then names.
 */
import { spawnSync } from "node:child_process";
import type { Parser } from "web-tree-sitter";
import { beforeAll, describe, expect, it } from "vitest";
import { analyseCommand } from "../../../src/core/permissions/shell/extract";
import { literalVariants } from "../../../src/core/permissions/shell/literal-vars";
import { initShellParser } from "../../../src/core/permissions/shell/parser";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

let parser: Parser;
beforeAll(async () => {
  parser = await initShellParser(() => loadShellWasm());
});

function variants(line: string): string[] | undefined {
  const tree = parser.parse(line)!;
  try {
    return literalVariants(tree.rootNode, line);
  } finally {
    tree.delete();
  }
}

/** Every command the analysis found, as its words (the innermost view). */
function commands(line: string): string[] {
  return analyseCommand(parser, line, { cwd: ["/w"], home: "/h" }).parts.map((p) => p.views[p.views.length - 1]!.words.map((w) => (w.dynamic ? `{${w.raw}}` : w.value)).join(" "));
}

const bash = (line: string) => spawnSync("bash", ["--norc", "--noprofile", "-c", line], { encoding: "utf8", cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });

describe("literal variables: the rewriting runs what bash runs", () => {
  const lines = [
    `F=src/a.ts; printf '<%s>' "$F" $F \${F}`,
    `F='a"b$c\\d\`e'; printf '<%s>' "$F" "x\${F}y"`,
    `F=a=b; printf '<%s>' $F "$F"`,
    `F=; printf '<%s>' "$F" x "$F"`,
    `F="a  b"; printf '<%s>' "$F" $F`,
    `F='*'; printf '<%s>' "$F" $F`,
    `F=x && G=y; printf '<%s>' "$F$G" $F-$G`,
    `F=x G=y; printf '<%s>' "$F" "$G"`,
    `F=x; printf '<%s>' "$(printf '%s' "$F")"`,
    `F=x; g() { printf '<%s>' "$F"; }; g`,
    `F='a\nb'; printf '<%s>' "$F" $F`,
    `F=x; bash -c "printf '<%s>' $F"`,
    `F=é; printf '<%s>' "$F" ü "$F" $F`,
    `F=x; cat <<EOF\n$F\nEOF\nprintf '<%s>' "$F"`,
    `F=x; [[ $F == x ]] && printf '<%s>' yes "$F"`,
    `F=x; case $F in x) printf '<%s>' "$F";; esac; printf '<%s>' "$F"`,
    `F=3; printf '<%s>' $(($F + 1)) "$F"`,
    `F=x; for y in $(seq 2); do printf '<%s>' "$F$y"; done`,
    `F=x; echo "$F" | tr x y`,
    `F=x; H=$F-1; printf '<%s>' "$H" "$F"`,
    `F=a,b; printf '<%s>' {1,2}$F "$F"`,
    `F=x; printf '<%s>' "$F" 2>"/dev/null"`,
    `F=-n; echo $F "$F" x`,
    "F='$(echo no)'; printf '<%s>' \"`printf '%s' \"$F\"`\" \"$F\"",
  ];
  it.each(lines)("%s", (line) => {
    const v = variants(line);
    expect(v, "something is put in place").toBeDefined();
    expect(v!.length).toBe(1);
    const before = bash(line);
    const after = bash(v![0]!);
    expect(before.status).toBe(0);
    expect({ out: after.stdout, err: after.stderr }).toEqual({ out: before.stdout, err: before.stderr });
  });

  it("a loop over literal words is one rewriting per value, and bash runs the body once with each", () => {
    const line = `for f in a.ts "b c.ts"; do printf '<%s>' "$f"; done`;
    const v = variants(line)!;
    expect(v).toEqual([`for f in a.ts "b c.ts"; do printf '<%s>' "a.ts"; done`, `for f in a.ts "b c.ts"; do printf '<%s>' "b c.ts"; done`]);
    expect(bash(line).stdout).toBe("<a.ts><b c.ts>");
    expect(commands(line)).toEqual(["printf <%s> a.ts", "printf <%s> b c.ts"]);
  });

  it("names the values in the commands the analysis hands the rules", () => {
    expect(commands(`F=src/a.ts; wc -l "$F"`)).toEqual(["wc -l src/a.ts"]);
    expect(commands(`d=build; ls "$d"/x $d`)).toEqual(["ls build/x build"]);
    expect(commands(`d=src; rm -rf "$d"`)).toEqual(["rm -rf src"]);
    expect(commands(`p=git; env "$p" status`)).toEqual(["git status"]);
  });
});

describe("literal variables: what bash may change stays unknown", () => {
  const changed = [
    `F=src/a.ts; read F <<< .env; wc -l "$F"`,
    `F=src/a.ts; read -r F <<< .env; wc -l "$F"`,
    `F=src/a.ts; printf -v F %s .env; wc -l "$F"`,
    `F=src/a.ts; printf -vF %s .env; wc -l "$F"`,
    `F=src/a.ts; declare -n r=F; r=.env; wc -l "$F"`,
    `declare -u F; F=src/a.ts; wc -l "$F"`,
    `F=src/a.ts; F+=x; wc -l "$F"`,
    `F=src/a.ts; eval 'F=.env'; wc -l "$F"`,
    `F=src/a.ts; eval $'\\x46=.env'; wc -l "$F"`,
    `F=src/a.ts; trap $'\\x46=.env' DEBUG; wc -l "$F"`,
    `F=src/a.ts; g() { F=.env; }; g; wc -l "$F"`,
    `F=src/a.ts; mapfile -t F <<< .env; wc -l "$F"`,
    `F=src/a.ts; { F=.env; }; wc -l "$F"`,
    `F=src/a.ts; true && F=.env; wc -l "$F"`,
    `true && F=src/a.ts; wc -l "$F"`,
    `F=src/a.ts; unset F; wc -l "$F"`,
    `F=src/a.ts; (( F = 1 )); wc -l "$F"`,
    `F=src/a.ts; : \${F:=x}; wc -l "$F"`,
    `F=src/a.ts & wc -l "$F"`,
    `(F=src/a.ts); wc -l "$F"`,
    `F=src/a.ts | cat; wc -l "$F"`,
    `F=src/a.ts wc -l "$F"`,
    `F=src/a.ts; source ./x.sh; wc -l "$F"`,
    `F=src/a.ts; . ./x.sh; wc -l "$F"`,
    `F=src/a.ts; $CMD; wc -l "$F"`,
    `F=~/x; wc -l "$F"`,
    `F=$HOME/x; wc -l "$F"`,
    `F=(a b); wc -l "$F"`,
    `F[0]=a; wc -l "$F"`,
    `F=src/a.ts; F[1]=b; wc -l "$F"`,
    `F=src/a.ts; getopts x F; wc -l "$F"`,
    `F=src/a.ts; for F in .env; do :; done; wc -l "$F"`,
    `for F in src/*.ts; do wc -l "$F"; done`,
    `for F in $(ls); do wc -l "$F"; done`,
    `for F; do wc -l "$F"; done`,
    `select F in a b; do wc -l "$F"; done`,
    `F='a b'; wc -l $F`,
    `F='src/*.ts'; wc -l $F`,
    `F=; wc -l $F`,
    `RANDOM=1; wc -l "$RANDOM"`,
    `SECONDS=1; wc -l "$SECONDS"`,
    `F=src/a.ts; wc -l "\${F:-x}"`,
    `F=src/a.ts; export -n F; builtin read F; wc -l "$F"`,
    `F=src/a.ts; command read F; wc -l "$F"`,
    `F=src/a.ts; wait -p F; wc -l "$F"`,
    `F=src/a.ts; let F=2; wc -l "$F"`,
    `F=src/a.ts; {eval,} 'F=.env'; wc -l "$F"`,
    `F=src/a.ts; ev{al,} 'F=.env'; wc -l "$F"`,
    `F=src/a.ts; ev?l 'F=.env'; wc -l "$F"`,
  ];
  it.each(changed)("%s", (line) => {
    const wc = commands(line).filter((c) => c.startsWith("wc"));
    expect(wc.length, line).toBeGreaterThan(0);
    for (const c of wc) expect(c, line).toMatch(/\{/);
  });

  it("uses before the assignment, or after a loop, keep the value they have then", () => {
    expect(commands(`wc -l "$F"; F=src/a.ts`)).toEqual(['wc -l {"$F"}']);
    expect(commands(`for f in a b; do :; done; wc -l "$f"`).filter((c) => c.startsWith("wc"))).toEqual(['wc -l {"$f"}']);
  });
});
