/**
 * Loads the bash grammar (tree-sitter, WebAssembly) once. The core gets the wasm bytes from its host
 * (src/node/tree-sitter-wasm.ts), so it never touches the file system itself.
 */
import { Language, Parser } from "web-tree-sitter";

/** The two WebAssembly modules the shell parser needs. */
export interface ShellParserWasm {
  /** web-tree-sitter's runtime (tree-sitter.wasm). */
  runtime: Uint8Array;
  /** The bash grammar (tree-sitter-bash.wasm). */
  bash: Uint8Array;
}

let ready: Promise<Parser> | undefined;

/** Initialises the parser (idempotent: later calls reuse the first one's result). */
export function initShellParser(wasm: ShellParserWasm | (() => Promise<ShellParserWasm>)): Promise<Parser> {
  ready ??= (async () => {
    const bytes = typeof wasm === "function" ? await wasm() : wasm;
    await Parser.init({ wasmBinary: bytes.runtime });
    const language = await Language.load(bytes.bash);
    const parser = new Parser();
    parser.setLanguage(language);
    return parser;
  })();
  ready.catch(() => (ready = undefined));
  return ready;
}
