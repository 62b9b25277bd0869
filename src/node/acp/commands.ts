/**
 * The slash commands `yoke acp` offers the editor (`available_commands_update`): the custom
 * commands of the session's folders, the user's and the enabled plugins' (src/core/custom-commands),
 * the MCP servers' prompts (`mcp__server__prompt`), and `output-style` — what the session expands
 * when a prompt starts with `/name` (its prompt.expand extensions), as in the panel and the CLI.
 */
import type { AvailableCommand } from "@agentclientprotocol/sdk";
import { originLabel } from "../../core/custom-commands";
import { usableServers } from "../../core/mcp/completion";
import { listPrompts, promptUsage } from "../../core/mcp/prompts";
import type { McpHub } from "../../core/mcp/types";
import { loadNodeCommands } from "../custom-commands";
import { pluginCommandSources } from "../plugins";

/** How long the list waits for the MCP servers' prompts (listing starts a server not yet running). */
const MCP_PROMPTS_MS = 10_000;

export interface CommandsPlace {
  cwd: string;
  /** The session's other workspace folders. */
  folders: string[];
  home: string;
  /** The folders are trusted: the enabled plugins' commands are listed only then, as they run only then. */
  trusted: boolean;
  hub?: McpHub;
  warn(message: string): void;
}

export async function availableCommands(p: CommandsPlace): Promise<AvailableCommand[]> {
  const out: AvailableCommand[] = [{ name: "output-style", description: "Choose the output style for the rest of the session (alone: list them)", input: { hint: "[name]" } }];
  const seen = new Set(out.map((c) => c.name));
  const { commands } = await loadNodeCommands({ cwd: p.cwd, folders: p.folders, home: p.home }, pluginCommandSources({ home: p.home, cwd: p.cwd, trusted: p.trusted })).catch((err: unknown) => {
    p.warn(`slash commands: ${String(err)}`);
    return { commands: [] };
  });
  for (const c of commands) {
    if (seen.has(c.name)) continue;
    seen.add(c.name);
    out.push({ name: c.name, description: [c.description, originLabel(c)].filter(Boolean).join(" ") || c.name, input: { hint: c.argumentHint || "arguments" } });
  }
  if (p.hub) {
    const prompts = await listPrompts(p.hub, usableServers(p.hub.status()), AbortSignal.timeout(MCP_PROMPTS_MS)).catch(() => []);
    for (const x of prompts) {
      if (seen.has(x.command)) continue;
      seen.add(x.command);
      const usage = promptUsage(x.prompt);
      out.push({ name: x.command, description: [x.prompt.description ?? x.prompt.title, `(MCP: ${x.server})`].filter(Boolean).join(" "), ...(usage ? { input: { hint: usage } } : {}) });
    }
  }
  return out;
}
