/**
 * Issue 18, session 19 (red team J): every program's real option table, read from the program itself.
 * A small preload library (compiled here with the system's C compiler) replaces `getopt_long`,
 * `getopt_long_only` and `getopt`: the first call prints the program's short-option string and its
 * `struct option` array (each long option's name and `has_arg`: 0 none, 1 required, 2 optional — a
 * value only after `=`) and exits before the program does anything. The program runs in a bwrap
 * sandbox with nothing writable and no network, given `--version` only.
 *
 * `compareWithGate` then sets each table the gate has (shell/wrapper-options.ts) against the real one,
 * mechanically: an option the gate reads as taking the next word that really takes none (or only
 * `=VALUE`) makes the gate skip the program's name (red team I's `xargs --replace rm -rf {}`); one the
 * gate reads as a flag that really takes a value makes the gate take the value for the program. The
 * generator (grammar19j.ts) makes its inputs from these tables.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WrapperOptions } from "../../core/permissions/shell/wrapper-options";

/** 0: no value; 1: a value (glued or the next word); 2: a value only glued (`-eX`, `--opt=X`). */
export type ArgKind = 0 | 1 | 2;

export interface RealOptionTable {
  program: string;
  /** The path run. */
  path: string;
  how: "getopt_long" | "getopt_long_only" | "getopt";
  /** Short options and their kinds. */
  short: Record<string, ArgKind>;
  /** Long options (with `--`) and their kinds. */
  long: Record<string, ArgKind>;
  /** Options end at the first operand (`+` first, or POSIXLY_CORRECT); otherwise GNU permutes them. */
  stopsAtOperand: boolean;
}

const SHIM_C = String.raw`
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static void str(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    if (*p == '"' || *p == '\\') printf("\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f) printf("\\u%04x", *p);
    else putchar(*p);
  }
}
static void dump(const char *how, const char *o, const struct option *lo) {
  printf("\n@@OPTDUMP@@{\"how\":\"%s\",\"short\":\"", how);
  str(o);
  printf("\",\"long\":[");
  for (int i = 0; lo && lo[i].name; i++) { printf("%s[\"", i ? "," : ""); str(lo[i].name); printf("\",%d]", lo[i].has_arg); }
  printf("]}\n");
  fflush(stdout);
  _exit(0);
}
int getopt_long(int c, char *const v[], const char *o, const struct option *lo, int *li) { dump("getopt_long", o, lo); return -1; }
int getopt_long_only(int c, char *const v[], const char *o, const struct option *lo, int *li) { dump("getopt_long_only", o, lo); return -1; }
int getopt(int c, char *const v[], const char *o) { dump("getopt", o, 0); return -1; }
`;

let shimPath: string | null | undefined;

/** The preload library, compiled once per process (null when there is no C compiler). */
export function optionShim(): string | null {
  if (shimPath !== undefined) return shimPath;
  const dir = join(tmpdir(), `yoke-optdump-${process.getuid?.() ?? 0}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const src = join(dir, "optdump.c");
  const so = join(dir, "optdump.so");
  writeFileSync(src, SHIM_C);
  const r = spawnSync("cc", ["-shared", "-fPIC", "-O2", "-o", so, src], { encoding: "utf8" });
  shimPath = r.status === 0 && existsSync(so) ? so : null;
  return shimPath;
}

/** Parses getopt's short-option string: `a:` required, `e::` optional. */
export function parseShort(optstring: string): { short: Record<string, ArgKind>; stopsAtOperand: boolean } {
  const short: Record<string, ArgKind> = {};
  let s = optstring;
  const stopsAtOperand = s.startsWith("+");
  s = s.replace(/^[-+]/, "").replace(/^:/, "");
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!/[A-Za-z0-9]/.test(c)) continue;
    let kind: ArgKind = 0;
    if (s[i + 1] === ":") {
      kind = s[i + 2] === ":" ? 2 : 1;
      i += kind;
    }
    short[c] = kind;
  }
  return { short, stopsAtOperand };
}

const cache = new Map<string, RealOptionTable | null>();

/** The real option table of `program` (a name on PATH or a path), or null when it does not use getopt or is absent. */
export function realOptionTable(program: string): RealOptionTable | null {
  if (cache.has(program)) return cache.get(program)!;
  let table: RealOptionTable | null = null;
  const shim = optionShim();
  const which = spawnSync("bash", ["-c", 'type -P -- "$1"', "_", program], { encoding: "utf8" });
  const path = which.stdout.trim();
  if (shim && which.status === 0 && path) {
    // Nothing writable, no network, no terminal: the shim exits at the program's first getopt call.
    const r = spawnSync(
      "bwrap",
      [
        "--ro-bind",
        "/",
        "/",
        "--tmpfs",
        "/tmp",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        shim,
        shim,
        "--setenv",
        "LD_PRELOAD",
        shim,
        "--",
        path,
        "--version",
      ],
      { encoding: "utf8", timeout: 5000, stdio: ["ignore", "pipe", "pipe"] },
    );
    const line = (r.stdout ?? "").split("\n").find((l) => l.startsWith("@@OPTDUMP@@"));
    if (line) {
      const j = JSON.parse(line.slice("@@OPTDUMP@@".length)) as { how: RealOptionTable["how"]; short: string; long: Array<[string, number]> };
      const { short, stopsAtOperand } = parseShort(j.short);
      const long: Record<string, ArgKind> = {};
      for (const [n, k] of j.long) long[`--${n}`] = (k === 1 || k === 2 ? k : 0) as ArgKind;
      table = { program, path, how: j.how, short, long, stopsAtOperand };
    }
  }
  cache.set(program, table);
  return table;
}

export interface TableMismatch {
  program: string;
  option: string;
  gate: ArgKind | "unknown";
  real: ArgKind | "absent";
  /** bypass-prone: the gate could take the program's name for a value, or a value for the program. */
  risk: "bypass" | "asks";
}

/** The gate's kind of each option in a wrapper table. */
export function gateKinds(t: WrapperOptions): { short: Record<string, ArgKind>; long: Record<string, ArgKind> } {
  const short: Record<string, ArgKind> = {};
  const long: Record<string, ArgKind> = {};
  for (const c of t.flags) short[c] = 0;
  for (const c of t.valued) short[c] = 1;
  for (const l of t.long) long[l] = 0;
  for (const l of t.longValued) long[l] = 1;
  for (const l of t.longOptional ?? []) long[l] = 2;
  return { short, long };
}

/**
 * Every difference between the gate's table and the real one. `bypass`: the gate reads the next
 * word differently from the program (it takes a value the program does not, or not one it does).
 * `asks`: the gate does not know an option the program has (the gate asks) or knows one it lacks.
 */
export function compareWithGate(real: RealOptionTable, gate: WrapperOptions): TableMismatch[] {
  const g = gateKinds(gate);
  const out: TableMismatch[] = [];
  const next = (k: ArgKind | "unknown" | "absent") => k === 1;
  const add = (option: string, gk: ArgKind | "unknown", rk: ArgKind | "absent") => {
    if (gk === rk) return;
    const risk = gk === "unknown" || rk === "absent" ? "asks" : next(gk) !== next(rk) ? "bypass" : "asks";
    out.push({ program: real.program, option, gate: gk, real: rk, risk });
  };
  for (const [c, k] of Object.entries(real.short)) add(`-${c}`, g.short[c] ?? "unknown", k);
  for (const c of Object.keys(g.short)) if (!(c in real.short)) add(`-${c}`, g.short[c]!, "absent");
  for (const [l, k] of Object.entries(real.long)) add(l, g.long[l] ?? "unknown", k);
  for (const l of Object.keys(g.long)) if (!(l in real.long)) add(l, g.long[l]!, "absent");
  return out;
}

/** The shortest prefix of `long` that no other of `all` starts with (GNU getopt_long takes it), or the full name. */
export function uniquePrefix(long: string, all: readonly string[]): string {
  for (let n = 3; n < long.length; n++) {
    const p = long.slice(0, n);
    if (all.every((o) => o === long || !o.startsWith(p))) return p;
  }
  return long;
}
