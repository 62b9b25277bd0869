/**
 * Finds the tree-sitter WebAssembly files: next to the bundle (dist/, copied by esbuild.mjs) or,
 * when running from sources (tests), in node_modules.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import type { GrammarWasm } from "../core/edit/syntax-check";
import type { ShellParserWasm } from "../core/permissions/shell/parser";

const FILES = {
  runtime: ["tree-sitter.wasm", "web-tree-sitter/tree-sitter.wasm"],
  bash: ["tree-sitter-bash.wasm", "@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"],
} as const;

/** Absolute paths of the two wasm files, or an error naming where it looked. */
export function locateShellWasm(extraDirs: string[] = []): { runtime: string; bash: string } {
  const dirs = [...extraDirs, __dirname, join(__dirname, "..", "dist")];
  const find = (kind: keyof typeof FILES): string => {
    const [bundled, packaged] = FILES[kind];
    const tried: string[] = [];
    for (const d of dirs) {
      const p = join(d, bundled);
      tried.push(p);
      if (existsSync(p)) return p;
    }
    for (const root of [process.cwd(), join(__dirname, "..", ".."), join(__dirname, "..")]) {
      const p = join(root, "node_modules", packaged);
      tried.push(p);
      if (existsSync(p)) return p;
    }
    throw new Error(`cannot find ${bundled} (looked in ${tried.join(", ")})`);
  };
  return { runtime: find("runtime"), bash: find("bash") };
}

/**
 * The grammars of the parse check of tolerant edits (src/core/edit/syntax-check.ts): each read on
 * its first use, next to the bundle (dist/, copied by esbuild.mjs) or in node_modules.
 */
export function nodeGrammarWasm(extraDirs: string[] = []): GrammarWasm {
  const dirs = [...extraDirs, __dirname, join(__dirname, "..", "dist")];
  const roots = [process.cwd(), join(__dirname, "..", ".."), join(__dirname, "..")];
  const find = (bundled: string, packaged: string): string | undefined => {
    for (const d of dirs) if (existsSync(join(d, bundled))) return join(d, bundled);
    for (const r of roots) if (existsSync(join(r, "node_modules", packaged))) return join(r, "node_modules", packaged);
    return undefined;
  };
  return {
    runtime: async () => readFileSync(locateShellWasm(extraDirs).runtime),
    grammar: async (name) => {
      if (!/^[a-z-]+$/.test(name)) return undefined;
      const p = find(`tree-sitter-${name}.wasm`, `@vscode/tree-sitter-wasm/wasm/tree-sitter-${name}.wasm`);
      return p ? readFileSync(p) : undefined;
    },
  };
}

export async function loadShellWasm(extraDirs?: string[]): Promise<ShellParserWasm> {
  const paths = locateShellWasm(extraDirs);
  return { runtime: readFileSync(paths.runtime), bash: readFileSync(paths.bash) };
}

/**
 * For a process that parses a few command lines and ends (the command line): keep WebAssembly
 * at V8's baseline tier (Liftoff). By default V8 compiles the functions that run often again
 * with its optimizing compiler on a background thread; for the bash grammar that is seconds of
 * CPU (its lexer is one huge function), and Node waits for every background compile job
 * before the process may end. So `yoke run` sat 5-40 s after the answer of a session that ran
 * a command (its first parse started the job), and `yoke permissions check` the same. The
 * baseline code parses a command line in well under a millisecond. The flags are process-wide
 * and are read when a module is compiled: call this first thing, and only in a process Yoke
 * owns (never in the extension host, which other extensions share).
 */
export function keepWasmAtBaselineTier(): void {
  setFlagsFromString("--no-wasm-dynamic-tiering");
  setFlagsFromString("--no-wasm-tier-up");
}
