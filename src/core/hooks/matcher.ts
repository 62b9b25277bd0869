/** Which hook groups apply to an event: the matcher is a regular expression over the whole target. */
import type { HookEventFields, HookEventName } from "./types";

/** The value a matcher is tested against, or undefined for events without matchers. */
export function matcherTarget(event: HookEventName, fields: HookEventFields): string | undefined {
  if (event === "PreToolUse" || event === "PostToolUse") return fields.tool_name ?? "";
  if (event === "SessionStart") return fields.source ?? "";
  if (event === "PreCompact") return fields.trigger ?? "";
  return undefined;
}

/** Empty and `*` match everything; otherwise the regex must match the whole target (`Edit|Write`, `mcp__.*`). */
export function matcherMatches(matcher: string | undefined, target: string | undefined): boolean {
  if (target === undefined || matcher === undefined) return true;
  const m = matcher.trim();
  if (m === "" || m === "*") return true;
  try {
    return new RegExp(`^(?:${m})$`).test(target);
  } catch {
    return false;
  }
}
