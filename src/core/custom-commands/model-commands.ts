/**
 * Custom commands the model runs itself (Claude Code's SlashCommand tool, now its Skill tool): a
 * Claude Code command with a description that does not say `disable-model-invocation: true` is
 * listed beside the skills, and load_skill runs it with arguments — expanded exactly as when the
 * person types `/name args`. The guidance (which owns load_skill and the listing) and the custom
 * commands (which own the expansion) meet here; neither names the other's internals.
 */
import type { CustomCommand } from "./types";

/** The result of a run the model asked for: the text it gets, or why it was not run. */
export type ModelCommandResult = { text: string } | { error: string };

export interface ModelCommands {
  /** Every command (the guidance offers those modelInvocable allows, and says why it will not run the others). */
  list(): Promise<CustomCommand[]>;
  /**
   * Runs one in the session whose model asked (`sessionId`: the main conversation's, or a sub-agent's,
   * whose own tools, mode and questions then hold), as `/name args` would be expanded there.
   */
  run(cmd: CustomCommand, args: string, ctx: { callId: string; signal: AbortSignal; sessionId: string }): Promise<ModelCommandResult>;
}

/**
 * The bridge: custom commands fill `load` when created, and each session they are set up in — the
 * main conversation and every sub-agent — registers its runner under its id (`runners`), removed
 * when the session ends. A call is run only by its own session's runner, never another's.
 */
export interface ModelCommandBridge extends ModelCommands {
  load?: () => Promise<CustomCommand[]>;
  readonly runners: Map<string, (cmd: CustomCommand, args: string, ctx: { callId: string; signal: AbortSignal }) => Promise<ModelCommandResult>>;
}

export function modelCommandBridge(): ModelCommandBridge {
  const b: ModelCommandBridge = {
    runners: new Map(),
    list: async () => (await b.load?.()) ?? [],
    run: (cmd, args, ctx) => {
      const runner = b.runners.get(ctx.sessionId);
      return runner ? runner(cmd, args, ctx) : Promise.resolve({ error: "this session cannot run custom commands" });
    },
  };
  return b;
}

/**
 * Whether the model may run a command itself. Claude Code: its own commands (project, user,
 * plugin) with a `description` in the frontmatter (its SlashCommand tool offered only those; a
 * first paragraph standing in for one would put the command's body — `$ARGUMENTS`, `!` lines — into
 * the model's listing) and without
 * `disable-model-invocation: true`. A SKILL.md is a skill already (the guidance lists it). The
 * other tools' prompt files, workflows and commands are the person's only: Copilot's prompt files,
 * Cline's workflows, Roo's, Cursor's, Windsurf's and Codex's commands are run by typing them, and
 * their tools give the model no way to run one.
 */
export function modelInvocable(cmd: CustomCommand): boolean {
  return cmd.format === "claude" && !cmd.disableModelInvocation && !cmd.descriptionFromBody && !!cmd.description?.trim() && !/(^|\/)SKILL\.md$/.test(cmd.path);
}
