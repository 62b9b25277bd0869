/**
 * Reads the `hooks` section of one settings file (Claude Code's shape) into hook groups, and
 * reports what it cannot use. Every event of Claude Code's reference is accepted; the ones Yoke
 * does not fire yet are an info-level problem, not "unknown".
 */
import type { HookGroupConfig, SettingsProblem, SettingsSourceInfo } from "../permissions/types";
import { EVENT_TRAITS, HOOK_EVENTS, isHookEvent } from "./events";
import { compileMatcher } from "./matcher";

export { HOOK_EVENTS } from "./events";

type HookEntry = HookGroupConfig["hooks"][number];

/** Handler types of Claude Code that need a model, an HTTP client or MCP: accepted, never run. */
const UNSUPPORTED_TYPES = new Set(["prompt", "agent", "http", "mcp_tool"]);

/** `hooks` of one settings file → its hook groups (in file order); problems are appended to `problems`. */
export function readHooks(hooks: Record<string, unknown>, info: SettingsSourceInfo, problems: SettingsProblem[]): HookGroupConfig[] {
  const out: HookGroupConfig[] = [];
  const where = info.path ?? info.label;
  const warn = (message: string) => problems.push({ source: info, message: `${where}: ${message}` });
  for (const [event, groups] of Object.entries(hooks)) {
    if (!isHookEvent(event)) {
      warn(`hooks.${event}: unknown hook event (Claude Code's events are ${HOOK_EVENTS.join(", ")}); skipped`);
      continue;
    }
    if (!Array.isArray(groups)) {
      warn(`hooks.${event} must be an array of {"matcher": string, "hooks": [...]}; skipped`);
      continue;
    }
    const traits = EVENT_TRAITS[event];
    if (!traits.fires && groups.length > 0) {
      problems.push({ source: info, level: "info", message: `${where}: hooks.${event}: accepted, never fires in Yoke yet (${traits.missing ?? "not wired"})` });
    }
    groups.forEach((group: unknown, i) => {
      const at = `hooks.${event}[${i}]`;
      const g = group as { matcher?: unknown; hooks?: unknown };
      if (typeof g !== "object" || g === null || Array.isArray(g) || !Array.isArray(g.hooks) || (g.matcher !== undefined && g.matcher !== null && typeof g.matcher !== "string")) {
        warn(`${at} must be {"matcher": string, "hooks": [...]}; skipped`);
        return;
      }
      const matcher = typeof g.matcher === "string" ? g.matcher : "";
      if (traits.matcherField && compileMatcher(matcher).invalid) {
        warn(`${at}.matcher ${JSON.stringify(matcher)} is not a valid regular expression, so this group never runs; fix it (Claude Code ignores it too)`);
        return;
      }
      const commands: HookEntry[] = [];
      const unsupported: Array<{ type: string }> = [];
      g.hooks.forEach((h: unknown, j) => {
        const r = readEntry(h);
        if ("error" in r) warn(`${at}.hooks[${j}]: ${r.error}; skipped`);
        else if ("unsupported" in r) {
          unsupported.push({ type: r.unsupported });
          const gate = event === "PreToolUse" || event === "PermissionRequest";
          warn(
            `${at}.hooks[${j}]: hooks of type ${JSON.stringify(r.unsupported)} cannot run in Yoke (only "command" hooks do)` +
              (gate ? "; tool calls it matches will ask for approval instead" : "; skipped"),
          );
        } else commands.push(r.entry);
      });
      if (commands.length || unsupported.length) out.push({ event, matcher, hooks: commands, ...(unsupported.length ? { unsupported } : {}), source: info });
    });
  }
  return out;
}

function readEntry(h: unknown): { entry: HookEntry } | { unsupported: string } | { error: string } {
  if (typeof h !== "object" || h === null || Array.isArray(h)) return { error: 'must be {"type": "command", "command": string}' };
  const x = h as Record<string, unknown>;
  if (typeof x.type === "string" && x.type !== "command") {
    return UNSUPPORTED_TYPES.has(x.type) ? { unsupported: x.type } : { error: `unknown hook type ${JSON.stringify(x.type)} (Claude Code's are command, http, mcp_tool, prompt, agent)` };
  }
  if (x.type !== "command") return { error: '"type" must be "command"' };
  if (typeof x.command !== "string" || x.command.trim() === "") return { error: '"command" must be a non-empty string' };
  if (x.timeout !== undefined && (typeof x.timeout !== "number" || !(x.timeout > 0))) return { error: '"timeout" must be a number of seconds above 0' };
  if (x.args !== undefined && (!Array.isArray(x.args) || x.args.some((a) => typeof a !== "string"))) return { error: '"args" must be an array of strings' };
  if (x.if !== undefined && typeof x.if !== "string") return { error: '"if" must be a permission rule such as "Bash(git *)"' };
  for (const k of ["async", "asyncRewake", "once", "sandbox"]) if (x[k] !== undefined && typeof x[k] !== "boolean") return { error: `"${k}" must be true or false` };
  if (x.shell !== undefined && x.shell !== "bash" && x.shell !== "powershell") return { error: '"shell" must be "bash" or "powershell"' };
  if (x.onFailure !== undefined && x.onFailure !== "block" && x.onFailure !== "ignore") return { error: '"onFailure" must be "block" or "ignore"' };
  const entry: HookEntry = { type: "command", command: x.command };
  if (x.timeout !== undefined) entry.timeout = x.timeout as number;
  if (x.args !== undefined) entry.args = x.args as string[];
  if (typeof x.if === "string" && x.if.trim() !== "") entry.if = x.if.trim();
  if (x.async === true) entry.async = true;
  if (x.asyncRewake === true) entry.asyncRewake = true;
  if (x.once === true) entry.once = true;
  if (x.shell !== undefined) entry.shell = x.shell as "bash" | "powershell";
  if (x.onFailure !== undefined) entry.onFailure = x.onFailure as "block" | "ignore";
  if (typeof x.statusMessage === "string") entry.statusMessage = x.statusMessage;
  if (typeof x.sandbox === "boolean") entry.sandbox = x.sandbox;
  return { entry };
}
