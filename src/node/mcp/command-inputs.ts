/**
 * VS Code's `inputs` of `type: "command"` in an mcp.json (`{"id": "token", "type": "command",
 * "command": "someExtension.getToken", "args": {...}}`, used as `${input:token}`): the value is
 * what that VS Code command returns. Yoke runs such a command through the host (the panel) only
 * for the user's own file — VS Code's user-profile `mcp.json` — never for a repository's
 * `.vscode/mcp.json`: a command input there would let a repository make the editor run any command
 * it names (with its arguments) as soon as the panel opens, before any server is approved. A
 * repository's command input leaves that server unstarted, saying why; the CLI, which has no
 * VS Code, says so too (src/node/mcp/setup.ts, inputFromEnv). No vscode import here: the host
 * passes how to run a command.
 */
import { parseJsonc, type McpInputAnswer, type McpInputSpec, type McpSourceKind } from "../../core/mcp/config";

/** The kind of file whose command inputs are run (the user's own). */
export const COMMAND_INPUT_SOURCES: ReadonlySet<McpSourceKind> = new Set(["vscode-user-mcp-json"]);

/** The command inputs a file's text defines and uses (`${input:id}` somewhere in it). */
export function commandInputsOf(text: string): Array<{ id: string; command: string; args?: unknown }> {
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch {
    return []; // reported as a problem by the config parser
  }
  const inputs = value && typeof value === "object" && Array.isArray((value as { inputs?: unknown }).inputs) ? ((value as { inputs: unknown[] }).inputs as Array<Record<string, unknown>>) : [];
  return inputs.flatMap((x) =>
    x && typeof x === "object" && x.type === "command" && typeof x.id === "string" && typeof x.command === "string" && text.includes(`\${input:${x.id}}`)
      ? [{ id: x.id, command: x.command, ...(x.args !== undefined ? { args: x.args } : {}) }]
      : [],
  );
}

/** Runs the user's file's command inputs (`run`: the host's executeCommand); each id's value, or why there is none. */
export async function runCommandInputs(text: string, run: (command: string, args?: unknown) => Promise<unknown>): Promise<Map<string, McpInputAnswer>> {
  const out = new Map<string, McpInputAnswer>();
  for (const c of commandInputsOf(text)) {
    try {
      const r = await run(c.command, c.args);
      if (typeof r === "string") out.set(c.id, r);
      else if (typeof r === "number" || typeof r === "boolean") out.set(c.id, String(r));
      else out.set(c.id, { unavailable: `the VS Code command "${c.command}" returned ${r === undefined ? "nothing" : "no text"} (cancelled, or not a command that gives a value)` });
    } catch (err) {
      out.set(c.id, { unavailable: `the VS Code command "${c.command}" failed: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return out;
}

/**
 * The editor's `${input:id}` answers: a command input from the user's own file by the command's
 * result (`commands`), one from any other file refused with why; any other input by what the user
 * typed or picked (`prompted`: by id, or asked of the file it was declared in, src/node/mcp/prompt-inputs.ts).
 */
export function editorInputs(
  prompted: ReadonlyMap<string, string> | ((spec: McpInputSpec, source: McpSourceKind) => string | undefined),
  commands: ReadonlyMap<string, McpInputAnswer>,
): (spec: McpInputSpec, source: McpSourceKind) => McpInputAnswer {
  return (spec, source) => {
    if (spec.type !== "command") return typeof prompted === "function" ? prompted(spec, source) : prompted.get(spec.id);
    if (!COMMAND_INPUT_SOURCES.has(source)) {
      return {
        unavailable: `it runs the VS Code command "${spec.command ?? "?"}", and Yoke runs an input's command only for your own user mcp.json, never for a repository's file (it could run any command); define the server in your user mcp.json ("MCP: Open User Configuration") to use it`,
      };
    }
    return commands.get(spec.id) ?? { unavailable: `the VS Code command "${spec.command ?? "?"}" was not run` };
  };
}
