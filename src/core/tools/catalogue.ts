/**
 * Every tool Yoke itself offers (MCP tools come from servers), as each declares itself: the
 * built-in set and the tools built per session, through the identity constants their definitions
 * spread. The permission engine derives its tables of names from this list (permissions/tool-permissions.ts).
 */
import { RECALL_TOOL } from "../compaction/recall";
import { LOAD_TOOLS_TOOL } from "../deferred-tools";
import { LOAD_SKILL_TOOL } from "../guidance/extension";
import { MCP_SEARCH_IDENTITY } from "../mcp/search";
import { MCP_SAMPLING_IDENTITY } from "../mcp/client-requests";
import { LIST_MCP_RESOURCES_IDENTITY, READ_MCP_RESOURCE_IDENTITY } from "../mcp/resources";
import { TASK_TOOL } from "../subagents/index";
import { APPLY_PATCH_TOOL } from "./apply-patch";
import { createBuiltinTools } from "./builtin";
import type { ToolIdentity } from "./types";

export function yokeToolIdentities(): ToolIdentity[] {
  return [
    ...createBuiltinTools(),
    APPLY_PATCH_TOOL,
    RECALL_TOOL,
    TASK_TOOL,
    LOAD_SKILL_TOOL,
    MCP_SEARCH_IDENTITY,
    LIST_MCP_RESOURCES_IDENTITY,
    READ_MCP_RESOURCE_IDENTITY,
    MCP_SAMPLING_IDENTITY,
    LOAD_TOOLS_TOOL,
  ].map(({ name, permission, permissionClass, capabilities }) => ({
    name,
    permission,
    ...(permissionClass ? { permissionClass } : {}),
    capabilities,
  }));
}
