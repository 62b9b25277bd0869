/**
 * The system prompt. It is built once per session and stored in the session_start event, so every
 * turn (and a resumed session) sends the same prefix and provider prompt caches keep hitting.
 */
import type { WorkspaceFolder } from "../ports";
import { howToWork } from "../tools/how-to-work";

export interface SystemPromptInput {
  workspaceRoot: string;
  /** The folders of a multi-root workspace (the first is the root commands run in). */
  folders?: readonly WorkspaceFolder[];
  platform: string;
  trusted: boolean;
  /** How the user trusts the workspace, for Restricted Mode (the CLI names `yoke trust`). */
  restrictedHint?: string;
  permissionMode: string;
  /** Project instructions (AGENTS.md, CLAUDE.md...), already read by the host. */
  instructions?: Array<{ source: string; text: string }>;
  /**
   * The session's output style (src/core/output-styles): it replaces the "How to work" coding
   * instructions unless it keeps them, and its instructions end the prompt.
   */
  outputStyle?: { name: string; text: string; keepCodingInstructions: boolean };
  /**
   * The tools the session offers (its built-in tools, or what `yoke run --tools` kept); undefined:
   * Yoke's default set. "How to work" (src/core/tools/how-to-work.ts) names only these, so a
   * one-tool session is not told to call file tools it lacks.
   */
  tools?: readonly string[];
}

export { HASHLINE_NOTE } from "../tools/how-to-work";

/**
 * The parts of a built system prompt the harness needs whatever prose replaces Yoke's (a custom
 * agent's body, as Claude Code does): where the workspace is and how paths are written, Restricted
 * Mode and plan mode. Yoke's identity line, its "How to work" prose and an output style are left out.
 */
export function harnessParts(system: string): string[] {
  return system.split("\n\n").filter((p) => /^(Workspace root: |This workspace has \d+ folders\.|The workspace is in Restricted Mode|Plan mode is on)/.test(p));
}

export function buildSystemPrompt(input: SystemPromptInput): string {
  const style = input.outputStyle;
  const parts = ["You are Yoke, a coding agent working in the user's workspace through tools.", workspaceLine(input)];
  if (!style || style.keepCodingInstructions) parts.push(howToWork(input.tools));
  if (!input.trusted) {
    const hint = input.restrictedHint ? `; ${input.restrictedHint}` : "";
    parts.push(
      `The workspace is in Restricted Mode (not trusted by the user): you may read files and answer, but tools that write files or run commands are refused. Say so if the task needs them${hint}.`,
    );
  } else if (input.permissionMode === "plan") {
    parts.push("Plan mode is on: you may read and investigate, but not change files or run commands with side effects. Finish with a concrete plan for the user to approve.");
  }
  for (const ins of input.instructions ?? []) {
    parts.push(`Project instructions from ${ins.source}:\n${ins.text.trim()}`);
  }
  if (style) parts.push(`Output style "${style.name}" (chosen by the user; follow it in every answer):\n${style.text.trim()}`);
  return parts.join("\n\n");
}

function workspaceLine(input: SystemPromptInput): string {
  const folders = input.folders ?? [];
  if (folders.length < 2) return `Workspace root: ${input.workspaceRoot}. Platform: ${input.platform}. Paths in tool calls are relative to the workspace root.`;
  return [
    `This workspace has ${folders.length} folders. Platform: ${input.platform}.`,
    ...folders.map((f, i) => `- ${f.name}: ${f.root}${i === 0 ? " (commands run here)" : ""}`),
    `In tool calls, start a relative path with the folder's name (e.g. "${folders[1]!.name}/src/index.ts"), or give an absolute path inside a folder. Tool results show paths the same way.`,
  ].join("\n");
}
