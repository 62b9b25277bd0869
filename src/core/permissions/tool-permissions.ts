/**
 * The permission names Yoke checks and how each is checked, derived from what the tools declare
 * (ToolIdentity: name, permission, permissionClass, capabilities) — never a second list of names.
 */
import { yokeToolIdentities } from "../tools/catalogue";
import type { PermissionClass, ToolIdentity } from "../tools/types";

export interface ToolPermissions {
  /** Yoke's tool names → their permission names (people may write a tool's name in a rule). */
  names: Readonly<Record<string, string>>;
  /** Every permission name a Yoke tool is checked under. */
  known: ReadonlySet<string>;
  /** Permission names by how their calls are checked. */
  path: ReadonlySet<string>;
  command: ReadonlySet<string>;
  session: ReadonlySet<string>;
  /** Path permissions none of whose tools writes (Read, Glob, Grep): they only read what they name. */
  reading: ReadonlySet<string>;
}

/** The tables of `tools`. Throws when two tools of one permission name declare different classes. */
export function toolPermissions(tools: readonly ToolIdentity[]): ToolPermissions {
  const names: Record<string, string> = {};
  const classOf = new Map<string, PermissionClass | undefined>();
  const writes = new Set<string>();
  for (const t of tools) {
    names[t.name] = t.permission;
    if (classOf.has(t.permission) && classOf.get(t.permission) !== t.permissionClass) {
      throw new Error(`the tools of the permission ${t.permission} are checked in different ways (${String(classOf.get(t.permission))}, ${String(t.permissionClass)}: ${t.name})`);
    }
    classOf.set(t.permission, t.permissionClass);
    if (t.capabilities.writes) writes.add(t.permission);
  }
  const having = (c: PermissionClass) => new Set([...classOf].filter(([, v]) => v === c).map(([k]) => k));
  const path = having("path");
  return {
    names,
    known: new Set(classOf.keys()),
    path,
    command: having("command"),
    session: having("session"),
    reading: new Set([...path].filter((p) => !writes.has(p))),
  };
}

/** Yoke's own tools' tables. */
export const TOOL_PERMISSIONS: ToolPermissions = toolPermissions(yokeToolIdentities());
