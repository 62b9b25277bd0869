/**
 * VS Code's `${input:id}` prompts (`promptString`, `pickString`) of every file VS Code asks them
 * for: the workspace's `.vscode/mcp.json` and `.vscode/settings.json` (`mcp.inputs`), and the
 * user's `mcp.json` and `settings.json` (`mcp.inputs`). As VS Code does, each value is asked once
 * (an input box — a password box for `"password": true` — or a pick list for `options`) and kept:
 * in the secret storage (the host passes it), so the next window starts the server without asking;
 * "Yoke: Reset MCP Inputs" forgets them all (VS Code's "MCP: Reset Cached Inputs").
 * Command inputs are not asked (src/node/mcp/command-inputs.ts runs the user's own).
 *
 * A value is kept under its file's kind and id, and, for the repository's files, the workspace
 * folder: a repository declaring an input with the id of yours (or of another repository's) is
 * asked its own value, never given the kept one. No vscode import: the host passes how to ask and
 * where to keep.
 */
import { fileInputs, parseJsonc, type McpInputSpec, type McpSourceKind } from "../../core/mcp/config";

/** The files whose prompts are asked, with what the prompt names as the place. */
export interface InputFile {
  kind: McpSourceKind;
  /** The file's text (undefined: there is no file). */
  text: string | undefined;
  /** How the prompt names the file (".vscode/settings.json", "your settings.json"…). */
  label: string;
}

/** Where the values are kept (VS Code's SecretStorage). */
export interface InputStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

/** The key listing the kept values' keys (the secret storage cannot list its own). */
const INDEX_KEY = "yoke.mcp.inputs";

async function keptKeys(store: InputStore): Promise<string[]> {
  try {
    const v = JSON.parse((await store.get(INDEX_KEY)) ?? "[]") as unknown;
    return Array.isArray(v) ? v.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
}

/** Forgets every kept value (the command "Yoke: Reset MCP Inputs"): each is asked again at the next session. Returns how many. */
export async function forgetInputs(store: InputStore, values: Map<string, string>): Promise<number> {
  const keys = await keptKeys(store);
  for (const k of keys) await store.delete(k);
  await store.delete(INDEX_KEY);
  values.clear();
  return keys.length;
}

const WORKSPACE_INPUT_KINDS: ReadonlySet<McpSourceKind> = new Set(["vscode-mcp-json", "vscode-settings", "workspace-mcp-json"]);

/** The key a value is kept under: its file's kind, the workspace folder for a repository's file, its id. */
export function inputKey(kind: McpSourceKind, id: string, folder: string): string {
  return `yoke.mcp.input\u0000${kind}\u0000${WORKSPACE_INPUT_KINDS.has(kind) ? folder : ""}\u0000${id}`;
}

/** The prompts a file declares and uses (`${input:id}` somewhere in its text), command inputs left out. */
export function promptInputsOf(file: InputFile): McpInputSpec[] {
  if (file.text === undefined) return [];
  let value: unknown;
  try {
    value = parseJsonc(file.text);
  } catch {
    return []; // reported as a problem by the config parser
  }
  return [...fileInputs(value, file.kind).values()].filter((s) => s.type !== "command" && file.text!.includes(`\${input:${s.id}}`));
}

/**
 * Asks the prompts of `files` that have no value yet (kept ones are read from `store`), once each,
 * and returns how the config parser gets them (editorInputs' `prompted`). A cancelled prompt leaves
 * the value unset (its server is not started, the problem names the input) and is asked again next time.
 */
export async function askFileInputs(
  files: readonly InputFile[],
  folder: string,
  values: Map<string, string>,
  ask: (spec: McpInputSpec, file: InputFile) => PromiseLike<string | undefined>,
  store?: InputStore,
): Promise<(spec: McpInputSpec, source: McpSourceKind) => string | undefined> {
  for (const file of files) {
    for (const spec of promptInputsOf(file)) {
      const key = inputKey(file.kind, spec.id, folder);
      if (values.has(key)) continue;
      const kept = await store?.get(key);
      if (kept !== undefined) {
        values.set(key, kept);
        continue;
      }
      const answer = await ask(spec, file);
      if (answer === undefined) continue;
      values.set(key, answer);
      if (store) {
        await store.store(key, answer);
        const keys = await keptKeys(store);
        if (!keys.includes(key)) await store.store(INDEX_KEY, JSON.stringify([...keys, key]));
      }
    }
  }
  return (spec, source) => values.get(inputKey(source, spec.id, folder));
}
