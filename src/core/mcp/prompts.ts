/**
 * MCP prompts as slash commands: `/mcp__<server>__<prompt> args` (Claude Code's form), expanded
 * before the message is sent through the same extension point as custom commands (prompt.expand),
 * so the panel and `yoke run` behave the same. Arguments are positional (in the prompt's order)
 * or `name=value`; a missing required one refuses the message with the prompt's usage. The
 * prompt's messages (text, embedded resources, images) become the user's turn.
 */
import type { ImagePart } from "../events";
import { splitArgs } from "../custom-commands/expand";
import { keepHeadAndTail } from "../tools/output";
import { describeContent } from "./adapter";
import { mcpToolName } from "./names";
import type { McpHub, McpPromptInfo, McpPromptResult } from "./types";

/** The longest text a prompt gives the model (the rest is cut, with a note). */
export const MAX_PROMPT_BYTES = 100_000;
const MAX_PROMPT_LINES = 5_000;

/** The command name of a prompt, without the slash: `mcp__<server>__<prompt>`, sanitised like tool names. */
export function promptCommandName(server: string, prompt: string): string {
  return mcpToolName(server, prompt);
}

/** `<city> [state]`: the prompt's arguments as typed. */
export function promptUsage(p: McpPromptInfo): string {
  return (p.arguments ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`)).join(" ");
}

/**
 * The arguments of `/mcp__s__p ARGS`: `name=value` words set that argument; the other words fill
 * the arguments not set yet, in the prompt's order (words beyond the last argument join it).
 * A required argument not given: the error to show.
 */
export function parsePromptArgs(p: McpPromptInfo, command: string, args: string): { values: Record<string, string> } | { error: string } {
  const declared = p.arguments ?? [];
  const values: Record<string, string> = {};
  const positional: string[] = [];
  for (const w of splitArgs(args)) {
    const eq = w.indexOf("=");
    const name = eq > 0 ? w.slice(0, eq) : "";
    if (name && declared.some((a) => a.name === name)) values[name] = w.slice(eq + 1);
    else positional.push(w);
  }
  const open = declared.filter((a) => values[a.name] === undefined);
  for (let i = 0; i < open.length && positional.length; i++) {
    values[open[i]!.name] = i === open.length - 1 ? positional.splice(0).join(" ") : positional.shift()!;
  }
  if (positional.length)
    return {
      error:
        `/${command} takes ${declared.length ? `${declared.length} argument${declared.length > 1 ? "s" : ""}` : "no arguments"}: ${positional.join(" ")} is left over. Usage: /${command} ${promptUsage(p)}`.trim(),
    };
  const missing = declared.filter((a) => a.required && !values[a.name]);
  if (missing.length) {
    const what = missing.map((a) => `${a.name}${a.description ? ` (${a.description})` : ""}`).join(", ");
    return { error: `/${command} needs ${what}. Usage: /${command} ${promptUsage(p)} — positional, or name=value` };
  }
  return { values };
}

/**
 * A prompt's messages as the user's turn: each message's content in order (text as it is, an
 * embedded text resource with its URI, images attached, audio and binary content described). A
 * message the prompt gives as the assistant's is marked so. Bounded at MAX_PROMPT_BYTES.
 */
export function promptTurn(result: McpPromptResult, server: string): { text: string; images: ImagePart[] } {
  const images: ImagePart[] = [];
  const mixed = result.messages.some((m) => m.role !== "user");
  const parts = result.messages
    .map((m) => {
      const body = describeContent(m.content, images, `the prompt of "${server}"`);
      return mixed && body ? `[${m.role === "user" ? "user" : "assistant"} message of the prompt]\n${body}` : body;
    })
    .filter((t) => t !== "");
  const text = parts.join("\n\n") || "(the prompt has no content)";
  return { text: keepHeadAndTail(text, MAX_PROMPT_LINES, MAX_PROMPT_BYTES, "the prompt's text was cut to fit"), images };
}

/** The prompts of the servers, by command name (listing starts a server that is not running). */
export async function listPrompts(hub: McpHub, servers: ReadonlyMap<string, string>, signal: AbortSignal): Promise<Array<{ command: string; server: string; prompt: McpPromptInfo }>> {
  if (!hub.prompts) return [];
  const out: Array<{ command: string; server: string; prompt: McpPromptInfo }> = [];
  for (const [server, part] of servers) {
    const prompts = await hub.prompts(server, signal).catch(() => undefined);
    for (const p of prompts ?? []) out.push({ command: promptCommandName(part, p.name), server, prompt: p });
  }
  return out;
}

/**
 * Expands `/mcp__<server>__<prompt> args`: undefined when the message names no server of the
 * session (another handler, or the model, gets it as typed).
 */
export async function expandPromptCommand(
  hub: McpHub,
  servers: ReadonlyMap<string, string>,
  name: string,
  args: string,
  signal: AbortSignal,
): Promise<{ text: string; images: ImagePart[]; detail: string } | { block: string } | undefined> {
  if (!name.startsWith("mcp__") || !hub.prompts || !hub.getPrompt) return undefined;
  const entry = [...servers].find(([, part]) => name.startsWith(`mcp__${part}__`));
  if (!entry) return undefined;
  const [server] = entry;
  let prompts: McpPromptInfo[] | undefined;
  try {
    prompts = await hub.prompts(server, signal);
  } catch (err) {
    return { block: `/${name}: ${err instanceof Error ? err.message : String(err)}` };
  }
  const prompt = (prompts ?? []).find((p) => promptCommandName(entry[1], p.name) === name);
  if (!prompt) {
    const known = (prompts ?? []).map((p) => `/${promptCommandName(entry[1], p.name)}`);
    return { block: `/${name}: the MCP server "${server}" has no such prompt (${known.length ? `its prompts: ${known.join(", ")}` : "it offers no prompts"})` };
  }
  const parsed = parsePromptArgs(prompt, name, args);
  if ("error" in parsed) return { block: parsed.error };
  let result: McpPromptResult;
  try {
    result = await hub.getPrompt(server, prompt.name, parsed.values, signal);
  } catch (err) {
    return { block: `/${name}: ${err instanceof Error ? err.message : String(err)}` };
  }
  const turn = promptTurn(result, server);
  const given = (prompt.arguments ?? []).filter((a) => parsed.values[a.name] !== undefined).map((a) => `${a.name}=${JSON.stringify(parsed.values[a.name])}`);
  return {
    ...turn,
    detail: `/${name}: the prompt "${prompt.name}" of the MCP server "${server}"${given.length ? ` (${given.join(", ")})` : ""}: ${result.messages.length} message${result.messages.length === 1 ? "" : "s"}${turn.images.length ? `, ${turn.images.length} image${turn.images.length === 1 ? "" : "s"}` : ""}`,
  };
}
