/**
 * Finds the tree-sitter WebAssembly files: next to the bundle (dist/, copied by esbuild.mjs) or,
 * when running from sources (tests), in node_modules.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

export async function loadShellWasm(extraDirs?: string[]): Promise<ShellParserWasm> {
  const paths = locateShellWasm(extraDirs);
  return { runtime: readFileSync(paths.runtime), bash: readFileSync(paths.bash) };
}
