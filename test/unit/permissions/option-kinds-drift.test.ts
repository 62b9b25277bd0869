/**
 * Red team J (session 19): the gate's option tables set against the programs' own getopt tables,
 * read from each installed program by the differential checker's preload library
 * (src/bench/diffcheck/option-kinds.ts). A table entry that reads the next word as an option's value
 * when the program does not (an optional value: `grep --color`, `od -w`) lets a file operand go
 * unchecked; the reverse lets a value pass for the program. Programs not installed here are left
 * out by name (the list is printed); the test needs a C compiler and bwrap, which CI installs.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { compareWithGate, parseShort, realOptionTable, uniquePrefix } from "../../../src/bench/diffcheck/option-kinds";
import { NON_PATH_VALUES } from "../../../src/core/permissions/readonly-commands";
import { WRAPPER_OPTIONS } from "../../../src/core/permissions/shell/wrapper-options";

const has = (p: string) => spawnSync("bash", ["-c", `command -v ${p}`]).status === 0;
const tools = has("cc") && has("bwrap");

describe("getopt tables", () => {
  it("parses short-option strings by kind", () => {
    expect(parseShort("+0a:E:e::i::I:")).toEqual({ short: { "0": 0, a: 1, E: 1, e: 2, i: 2, I: 1 }, stopsAtOperand: true });
    expect(parseShort("d:f:I::r:Rs:u").stopsAtOperand).toBe(false);
    expect(uniquePrefix("--replace", ["--replace", "--max-lines", "--max-args", "--max-procs"])).toBe("--r");
    expect(uniquePrefix("--max-lines", ["--replace", "--max-lines", "--max-args", "--max-procs"])).toBe("--max-l");
  });
});

describe.skipIf(!tools)("the gate's tables against the installed programs (needs cc and bwrap)", () => {
  it("reads real tables: xargs's optional values, timeout's required ones", () => {
    const x = realOptionTable("xargs");
    expect(x, "xargs is installed with findutils").not.toBeNull();
    expect(x!.long["--replace"]).toBe(2);
    expect(x!.short.i).toBe(2);
    expect(x!.stopsAtOperand).toBe(true);
    expect(realOptionTable("timeout")!.long["--signal"]).toBe(1);
  });

  it("every value-taking option of the read-only table takes its value the way the program does", () => {
    const wrong: string[] = [];
    const absent: string[] = [];
    for (const [program, set] of Object.entries(NON_PATH_VALUES)) {
      const t = realOptionTable(program);
      if (!t) {
        absent.push(program);
        continue;
      }
      for (const entry of set) {
        const optional = entry.endsWith("=");
        const o = optional ? entry.slice(0, -1) : entry;
        const kind = o.startsWith("--") ? t.long[o] : o.length === 2 ? t.short[o[1]!] : undefined;
        // A plain entry skips the next word: the program must require a value. An `=` entry skips only a glued one.
        if (kind === undefined) wrong.push(`${program} ${o}: the program has no such option`);
        else if (!optional && kind !== 1) wrong.push(`${program} ${o}: the program's value is ${kind === 2 ? "optional (only glued)" : "none"}, the table skips the next word`);
        else if (optional && kind === 0) wrong.push(`${program} ${o}: the program takes no value`);
      }
    }
    console.log(`no getopt table read (not installed here, or the program parses its own options; not compared): ${absent.join(", ")}`);
    expect(wrong).toEqual([]);
  });

  it("the wrapper tables read the next word as the programs do", () => {
    const bypass: string[] = [];
    for (const [program, gate] of Object.entries(WRAPPER_OPTIONS)) {
      const t = realOptionTable(program === "time" ? "/usr/bin/time" : program);
      if (!t) continue;
      for (const m of compareWithGate(t, gate)) {
        // sudo reads `-h HOST` itself after getopt (a remote host, refused unless listing): the gate's reading is sudo's.
        if (program === "sudo" && m.option === "-h") continue;
        if (m.risk === "bypass") bypass.push(`${program} ${m.option}: gate ${m.gate}, real ${m.real}`);
      }
    }
    expect(bypass).toEqual([]);
  });
});
