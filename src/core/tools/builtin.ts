/** The built-in tools of this module's owner: reading, searching, writing files and the todo list. */
import { globTool } from "./glob";
import { grepTool } from "./grep";
import { listFilesTool } from "./list-files";
import { readFileTool } from "./read-file";
import { todoWriteTool } from "./todo-write";
import type { ToolDefinition } from "./types";
import { writeFileTool } from "./write-file";

/** read_file, list_files, glob, grep, write_file, todo_write — in a fixed order (stable tool specs). */
export function createBuiltinTools(): ToolDefinition[] {
  return [readFileTool, listFilesTool, globTool, grepTool, writeFileTool, todoWriteTool] as ToolDefinition[];
}
