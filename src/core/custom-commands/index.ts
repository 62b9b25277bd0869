/** Custom slash commands (issue 23): Claude Code commands, Copilot prompt files, Cline workflows, Roo commands. */
export { customCommandsExtension, CUSTOM_COMMANDS_EXTENSION, skillPreprocessor, type CustomCommandsOptions, type LoadedSkill } from "./extension";
export { copilotInputs, expandCommand, hasShellLines, parseInvocation, splitArgs, type EditorContext, type ExpandEnv } from "./expand";
export { copilotToolLimit, type CopilotToolLimit } from "./copilot-tools";
export { findCommand, loadCustomCommands, originLabel, parseCommandFile } from "./loader";
export { switchableProvider, type SwitchableProvider } from "./model-switch";
export type { CommandFiles, CommandFormat, CommandProblem, CommandSource, CustomCommand, LoadedCommands } from "./types";
export { modelCommandBridge, modelInvocable, type ModelCommandBridge, type ModelCommands, type ModelCommandResult } from "./model-commands";
