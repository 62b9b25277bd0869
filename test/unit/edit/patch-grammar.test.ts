/**
 * The V4A Lark grammar apply_patch is offered with as a freeform tool: read from its own text by a
 * small reader of the Lark subset it uses (rules of alternatives, sequences, `?` `*` `+`, quoted
 * literals, /regex/ terminals matched greedily as a lexer does), it accepts the patches parse.ts
 * applies and rejects what is not the format, so the model's constrained output is always readable.
 */
import { describe, expect, it } from "vitest";
import { V4A_LARK_GRAMMAR } from "../../../src/core/edit/patch/grammar";
import { parsePatch } from "../../../src/core/edit/patch/parse";

type Atom = { lit: string } | { re: RegExp } | { ref: string };
type Item = { atom: Atom; rep: "" | "?" | "*" | "+" };
type Rules = Map<string, Item[][]>;

function readGrammar(text: string): Rules {
  const rules: Rules = new Map();
  for (const line of text.split("\n")) {
    const m = /^([A-Za-z_]+):\s*(.*)$/.exec(line.trim());
    if (!m) {
      expect(line.trim(), "every non-blank line is a rule").toBe("");
      continue;
    }
    const alts = m[2]!.split(/\s\|\s/).map((alt) => {
      const items: Item[] = [];
      const token = /"((?:[^"\\]|\\.)*)"([?*+]?)|\/((?:[^/\\]|\\.)*)\/([?*+]?)|([A-Za-z_]+)([?*+]?)/g;
      for (const t of alt.matchAll(token)) {
        if (t[1] !== undefined) items.push({ atom: { lit: JSON.parse(`"${t[1]}"`) as string }, rep: t[2] as Item["rep"] });
        else if (t[3] !== undefined) items.push({ atom: { re: new RegExp(t[3], "y") }, rep: t[4] as Item["rep"] });
        else items.push({ atom: { ref: t[5]! }, rep: t[6] as Item["rep"] });
      }
      return items;
    });
    rules.set(m[1]!, alts);
  }
  return rules;
}

/** Every end position reachable by matching `name` at `pos`. */
function ends(rules: Rules, name: string, s: string, pos: number): Set<number> {
  const alts = rules.get(name);
  if (!alts) throw new Error(`undefined rule ${name}`);
  const out = new Set<number>();
  for (const alt of alts) for (const e of seq(rules, alt, 0, s, pos)) out.add(e);
  return out;
}

function atomEnds(rules: Rules, a: Atom, s: string, pos: number): Set<number> {
  if ("lit" in a) return s.startsWith(a.lit, pos) ? new Set([pos + a.lit.length]) : new Set();
  if ("re" in a) {
    a.re.lastIndex = pos;
    const m = a.re.exec(s);
    return m && m[0].length > 0 ? new Set([pos + m[0].length]) : new Set();
  }
  return ends(rules, a.ref, s, pos);
}

function seq(rules: Rules, items: Item[], i: number, s: string, pos: number): Set<number> {
  if (i === items.length) return new Set([pos]);
  const { atom, rep } = items[i]!;
  const starts = new Set<number>();
  if (rep === "?" || rep === "*") starts.add(pos);
  let frontier = atomEnds(rules, atom, s, pos);
  const seen = new Set<number>();
  while (frontier.size) {
    const next = new Set<number>();
    for (const e of frontier) {
      if (seen.has(e)) continue;
      seen.add(e);
      starts.add(e);
      if (rep === "*" || rep === "+") for (const f of atomEnds(rules, atom, s, e)) next.add(f);
    }
    frontier = next;
  }
  const out = new Set<number>();
  for (const st of starts) for (const e of seq(rules, items, i + 1, s, st)) out.add(e);
  return out;
}

const rules = readGrammar(V4A_LARK_GRAMMAR);
const accepts = (patch: string) => ends(rules, "start", patch, 0).has(patch.length);

const GOOD = [
  "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n",
  "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@ class A\n@@     def g(self):\n     x = 1\n-    y = 2\n+    y = 3\n \n*** End of File\n*** End Patch",
  "*** Begin Patch\n*** Add File: src/new.ts\n+export const a = 1;\n+\n+export const b = 2;\n*** Delete File: old.txt\n*** Update File: c.md\n@@\n-old\n+new\n*** End Patch\n",
  "*** Begin Patch\r\n*** Add File: empty.txt\r\n*** End Patch\r\n",
  "*** Begin Patch\n*** Update File: x.py\n@@ -1,3 +1,3 @@\n a\n--b\n+-b\n*** End Patch\n",
];

const BAD = [
  "*** Update File: a.py\n-x\n+y\n*** End Patch\n", // no envelope start
  "*** Begin Patch\n*** End Patch\n", // no file section
  "*** Begin Patch\n*** Update File: a.py\nx\n*** End Patch\n", // a body line without its prefix
  "*** Begin Patch\n*** Add File: a.py\n x\n*** End Patch\n", // an added file's line that is not +
  "*** Begin Patch\n*** Rename File: a.py\n*** End Patch\n",
  "*** Begin Patch\n*** Update File: a.py\n-x\n+y\n", // no end
  "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", // a unified diff is not the freeform format
];

describe("the V4A Lark grammar of the freeform apply_patch tool", () => {
  it("defines every rule and terminal it uses", () => {
    for (const alts of rules.values()) for (const alt of alts) for (const it of alt) if ("ref" in it.atom) expect(rules.has(it.atom.ref), it.atom.ref).toBe(true);
    expect(rules.has("start")).toBe(true);
  });

  it("accepts the patches apply_patch reads: updates with headers and End of File, moves, adds, deletes, several files, CRLF", () => {
    for (const p of GOOD) {
      expect(accepts(p), p).toBe(true);
      expect(parsePatch(p).ok, p).toBe(true);
    }
  });

  it("rejects what is not the format", () => {
    for (const p of BAD) expect(accepts(p), p).toBe(false);
  });
});
