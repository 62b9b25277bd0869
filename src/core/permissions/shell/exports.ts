/**
 * Variables a command line exports to the programs it runs later (issue 18, session 20):
 * `export PSQLRC=f; psql …` gives psql the same environment as `PSQLRC=f psql …`, so the analysis
 * treats both alike — every command of the line gets the line's exports as if they were its prefix
 * assignments (CommandPart.assignments, marked `exported`), and every rule that reads a prefix
 * (psql's startup file, the read-only and file-edit classes, git's push options) reads those too.
 *
 * Exports are `export`, `declare`/`typeset`/`local` with `-x` (in any flag cluster), and under
 * `set -a`/`set -o allexport` every plain assignment. They are collected from the whole line before
 * its commands are read, so an export later in the text still reaches an earlier command (a loop, a
 * function called later): the analysis may over-approximate what a program gets, never under.
 * What cannot be followed asks: an export of a name built at run time (the declaration walker says
 * so), and under `set -a` a variable set by `read`, `printf -v`, `mapfile`, `getopts`, `for`, `let`,
 * arithmetic or `${X:=…}` (its value is exported too, and Yoke does not list those).
 */
import type { Node } from "web-tree-sitter";
import { literalWord, wordOf, type Word } from "./words";

export interface Exported {
  name: string;
  value: Word;
}

export interface LineExports {
  exported: Exported[];
  problems: string[];
}

const ALLEXPORT_SETTERS = /^(read|readarray|mapfile|getopts|printf|let)$/;

/** Does this declaration builtin with these flags export what it declares? */
function exporting(keyword: string, flags: string[]): boolean {
  return keyword === "export" ? !flags.some((f) => /^-[a-zA-Z]*[nf]/.test(f)) : /^(declare|typeset|local)$/.test(keyword) && flags.some((f) => /^-[a-zA-Z]*x/.test(f));
}

/** The exports of a parsed line (see the file comment). */
export function exportsOf(root: Node): LineExports {
  const exported: Exported[] = [];
  const problems: string[] = [];
  // `declare -n r=PSQLRC; export r=f` exports PSQLRC: a name's reference targets are exported with it.
  const refs = new Map<string, string>();
  for (const node of root.descendantsOfType("declaration_command")) {
    if (!node || !node.namedChildren.some((c) => !!c && /^-[a-zA-Z]*n/.test(wordOf(c).value))) continue;
    for (const c of node.namedChildren) {
      if (c?.type !== "variable_assignment") continue;
      const target = c.childForFieldName("value");
      if (target) refs.set(c.childForFieldName("name")?.text ?? "", wordOf(target).value.replace(/\[[\s\S]*$/, ""));
    }
  }
  const add = (name: string, value: Word) => {
    let base = name.replace(/\[[\s\S]*$/, "").replace(/\+$/, "");
    for (let hops = 0; hops < 8 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(base); hops++) {
      if (!exported.some((e) => e.name === base)) exported.push({ name: base, value });
      const next = refs.get(base);
      if (next === undefined) break;
      base = next;
    }
  };
  const unknownValue = (name: string): Word => ({ value: `$${name}`, raw: `$${name}`, dynamic: true, glob: false });
  let allexport = false;
  const declared = (keyword: string, args: Word[]) => {
    if (
      !exporting(
        keyword,
        args.filter((w) => /^[-+]/.test(w.value)).map((w) => w.value),
      )
    )
      return;
    for (const w of args) {
      if (w.dynamic || /^[-+]/.test(w.value)) continue;
      const eq = w.value.indexOf("=");
      const name = eq < 0 ? w.value : w.value.slice(0, eq);
      add(name, eq < 0 ? unknownValue(name) : { ...w, value: w.value.slice(eq + 1) });
    }
  };
  for (const node of root.descendantsOfType(["declaration_command", "command"])) {
    if (!node) continue;
    if (node.type === "command") {
      const name = node.childForFieldName("name");
      // `\export A=1`, `builtin export A=1`, `command declare -x A=1`: the builtin run as a command.
      const all = [name, ...node.childrenForFieldName("argument")].filter((a): a is Node => !!a).map((a) => wordOf(a));
      while (all.length && !all[0]!.dynamic && /^(builtin|command)$/.test(all[0]!.value)) {
        all.shift();
        while (all.length && /^-p+$/.test(all[0]!.value)) all.shift();
      }
      if (all.length && !all[0]!.dynamic && /^(export|declare|typeset|local)$/.test(all[0]!.value)) declared(all[0]!.value, all.slice(1));
      if (all[0]?.dynamic || all[0]?.value !== "set") continue;
      const args = all.slice(1).map((w) => w.value);
      if (args.some((a, i) => /^-[a-zA-Z]*a/.test(a) || (a === "allexport" && /^-[a-zA-Z]*o$/.test(args[i - 1] ?? "")))) allexport = true;
      continue;
    }
    const keyword = node.children[0]?.text ?? "";
    const words = node.namedChildren.filter((c): c is Node => !!c);
    const flags = words.filter((c) => c.type !== "variable_assignment" && c.type !== "variable_name" && /^[-+]/.test(wordOf(c).value)).map((c) => wordOf(c).value);
    if (!exporting(keyword, flags)) continue;
    for (const c of words) {
      if (c.type === "variable_assignment") {
        const nameNode = c.childForFieldName("name");
        const name = nameNode?.type === "subscript" ? (nameNode.childForFieldName("name")?.text ?? "") : (nameNode?.text ?? "");
        const value = c.childForFieldName("value");
        add(name, value ? wordOf(value) : literalWord(""));
      } else if (c.type === "variable_name") add(c.text, unknownValue(c.text));
      else {
        const w = wordOf(c);
        if (w.dynamic || /^[-+]/.test(w.value)) continue;
        const eq = w.value.indexOf("=");
        const name = eq < 0 ? w.value : w.value.slice(0, eq);
        add(name, eq < 0 ? unknownValue(name) : { ...w, value: w.value.slice(eq + 1) });
      }
    }
  }
  if (allexport) {
    for (const node of root.descendantsOfType("variable_assignment")) {
      if (!node || node.parent?.type === "command" || node.parent?.type === "declaration_command") continue;
      const nameNode = node.childForFieldName("name");
      const name = nameNode?.type === "subscript" ? (nameNode.childForFieldName("name")?.text ?? "") : (nameNode?.text ?? "");
      const value = node.childForFieldName("value");
      add(name, value ? wordOf(value) : literalWord(""));
    }
    const setter =
      root.descendantsOfType(["for_statement", "c_style_for_statement", "arithmetic_expansion", "compound_statement"]).find((n) => n && (n.type !== "compound_statement" || n.text.startsWith("(("))) ??
      root.descendantsOfType("command").find((n) => n && ALLEXPORT_SETTERS.test(wordOf(n.childForFieldName("name") ?? n).value)) ??
      root.descendantsOfType("expansion").find((n) => n && /^\$\{[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?:?=/.test(n.text));
    if (setter) problems.push(`set -a exports every variable the line sets, and \`${setter.text.slice(0, 60)}\` sets one Yoke does not follow`);
  }
  return { exported, problems };
}
