/**
 * A Copilot prompt file's `mode` (also spelled `agent`) and `tools`, in Yoke's terms. VS Code runs
 * a prompt file in the agent it names — `ask` (answers, no edits, no commands), `edit` (edits files,
 * no terminal), `agent` (every tool) — with only the tools its `tools` list names. Yoke's tool list
 * is part of every request's cached prefix, so it is not changed mid-session: the run is limited
 * instead — the model is told which tools it may use, and a call to any other is refused.
 *
 * Mapping:
 * - `mode: ask`   → Yoke's read-only tools (those plan mode allows: read_file, list_files, glob, grep, …)
 * - `mode: edit`  → those, plus edit_file and write_file (no run_command)
 * - `mode: agent` → the session's tools (no limit)
 * - `tools: [...]` → the Yoke tools each VS Code tool or tool set stands for (below); with a mode too,
 *   the tools both allow. A name Yoke has no tool for is reported, not silently dropped.
 */
import { isReadOnly, type ToolDefinition } from "../tools/types";

/** VS Code's built-in tool and tool-set names (with or without their `set/` prefix) → Yoke tools. */
const READ = ["read_file", "list_files", "glob", "grep"];
const EDIT = ["edit_file", "write_file"];
const RUN = ["run_command", "command_output", "kill_command"];
const COPILOT_TOOLS: Record<string, readonly string[]> = {
  // search / read
  codebase: READ,
  search: READ,
  read: READ,
  readfile: ["read_file"],
  filesearch: ["glob", "list_files"],
  textsearch: ["grep"],
  listdirectory: ["list_files"],
  usages: READ,
  findtestfiles: READ,
  searchresults: READ,
  problems: READ,
  changes: READ,
  // edit
  edit: EDIT,
  editfiles: EDIT,
  createfile: ["write_file"],
  createdirectory: ["write_file"],
  new: EDIT,
  // run
  execute: RUN,
  runcommands: RUN,
  runinterminal: RUN,
  terminallastcommand: ["command_output"],
  getterminaloutput: ["command_output"],
  runtasks: RUN,
  runtests: RUN,
  testfailure: RUN,
  // other
  todos: ["todo_write"],
  todo: ["todo_write"],
  runsubagent: ["task"],
  agent: ["task"],
};

/** Yoke tools a limited run keeps whatever it names: reading back what compaction stubbed out. */
const ALWAYS = ["recall"];

export interface CopilotToolLimit {
  /** The tools the run may use; undefined: no limit. */
  allowed?: ReadonlySet<string>;
  /** What could not be mapped (`mode` or a tool name), for the log and the listing. */
  unknown: string[];
}

/** The limit a prompt file's `mode` and `tools` put on a run, over the session's tools. */
export function copilotToolLimit(mode: string | undefined, tools: readonly string[] | undefined, session: readonly ToolDefinition[]): CopilotToolLimit {
  const unknown: string[] = [];
  const names = new Set(session.map((t) => t.name));
  let byMode: Set<string> | undefined;
  const m = mode?.trim().toLowerCase();
  if (m === "ask") byMode = new Set(session.filter((t) => isReadOnly(t.capabilities) && t.name !== "task").map((t) => t.name));
  else if (m === "edit") byMode = new Set([...session.filter((t) => isReadOnly(t.capabilities) && t.name !== "task").map((t) => t.name), ...EDIT.filter((n) => names.has(n))]);
  else if (m && m !== "agent") unknown.push(`mode "${mode}" (no custom agent has that name; Yoke runs it with the session's tools)`);
  let byTools: Set<string> | undefined;
  if (tools?.length) {
    byTools = new Set();
    for (const raw of tools) {
      const name = raw.trim().replace(/^#/, "");
      if (!name) continue;
      if (names.has(name)) {
        byTools.add(name);
        continue;
      }
      // `server/*` or `server`: an MCP server's tools (mcp__server__…).
      const server = name.replace(/\/\*$/, "");
      const mcp = session.filter((t) => t.name.startsWith(`mcp__${server}__`)).map((t) => t.name);
      if (mcp.length) {
        mcp.forEach((n) => byTools!.add(n));
        continue;
      }
      // `search/codebase`: the tool after the set's name; `search`: the set.
      const key =
        name
          .toLowerCase()
          .split("/")
          .pop()!
          .replace(/[^a-z]/g, "") || name.toLowerCase().replace(/[^a-z]/g, "");
      const set =
        COPILOT_TOOLS[key] ??
        COPILOT_TOOLS[
          name
            .toLowerCase()
            .split("/")[0]!
            .replace(/[^a-z]/g, "")
        ];
      const mapped = set?.filter((n) => names.has(n)) ?? [];
      if (mapped.length) mapped.forEach((n) => byTools!.add(n));
      else unknown.push(`tool "${raw}"`);
    }
  }
  if (!byMode && !byTools) return { unknown };
  const allowed = byMode && byTools ? new Set([...byTools].filter((n) => byMode.has(n))) : (byTools ?? byMode)!;
  for (const n of ALWAYS) if (names.has(n)) allowed.add(n);
  return { allowed, unknown };
}
