/** The built-in tool set every session gets (MCP tools, skills and sub-agents are added elsewhere). */
import { commandOutputTool } from "./command-output";
import { applyPatchTool } from "./apply-patch";
import { editFileTool } from "./edit-file";
import { withFreeformSetting, type EditToolName, type FreeformSetting } from "./edit-tool";
import { globTool } from "./glob";
import { grepTool } from "./grep";
import { killCommandTool } from "./kill-command";
import { listFilesTool } from "./list-files";
import { readFileTool } from "./read-file";
import { runCommandTool } from "./run-command";
import { todoWriteTool } from "./todo-write";
import { trimTools, type ToolDefinition } from "./types";
import { writeFileTool } from "./write-file";

/**
 * read_file, list_files, glob, grep, edit_file, write_file, run_command, command_output,
 * kill_command, todo_write — always in this order, so the tool specs (and provider prompt
 * caches) stay stable. `edit`: the edit tool in edit_file's place (edit_file, or apply_patch for
 * the models trained on it: edit-tool.ts); `freeform`: whether apply_patch may be a freeform tool.
 */
export function createBuiltinTools(edit: EditToolName = "edit_file", freeform: FreeformSetting = "auto"): ToolDefinition[] {
  const editTool = edit === "apply_patch" ? withFreeformSetting(applyPatchTool as ToolDefinition, freeform) : editFileTool;
  // Each tool's texts name only tools of this set (ToolDefinition.trimmed): beside apply_patch, none names edit_file.
  return trimTools([readFileTool, listFilesTool, globTool, grepTool, editTool, writeFileTool, runCommandTool, commandOutputTool, killCommandTool, todoWriteTool]);
}
