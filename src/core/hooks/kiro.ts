/**
 * Kiro's IDE hooks (`.kiro/hooks/*.kiro.hook`; issue 23) on Yoke's hook mechanism. A file is one
 * hook: `{"enabled": true, "name": "...", "when": {"type": "promptSubmit"}, "then": {"type":
 * "runCommand", "command": "...", "timeout": 30}}`. Kiro runs a shell command only on promptSubmit
 * and agentStop; its exit status 0 adds its stdout to the agent's context, any other sends its
 * stderr to the agent as the hook's error (never blocks the prompt). On promptSubmit an askAgent
 * hook's prompt is added to the user's prompt. Other triggers (fileEdited, fileCreated, fileDeleted,
 * userTriggered, preToolUse, postToolUse…) and askAgent elsewhere start a new agent loop in Kiro,
 * which Yoke does not do: they are reported, not run. Trust is the settings files': the repository's
 * hooks run only in a trusted workspace, confined.
 */
import type { HookGroupConfig, SettingsProblem, SettingsSourceInfo } from "../permissions/types";
import type { HookEventName } from "./types";

const TRIGGERS: Readonly<Record<string, HookEventName>> = { promptSubmit: "UserPromptSubmit", agentStop: "Stop" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The hook group of one `.kiro.hook` file (none when it is disabled or cannot run in Yoke, with the problem why). */
export function readKiroHook(obj: Record<string, unknown>, info: SettingsSourceInfo, problems: SettingsProblem[]): HookGroupConfig[] {
  const where = info.path ?? info.label;
  const warn = (message: string, level?: "info") => problems.push({ source: info, message: `${where}: ${message}`, ...(level ? { level } : {}) });
  const name = typeof obj.name === "string" && obj.name.trim() ? obj.name.trim() : (info.path ?? info.label).split("/").pop()!;
  if (obj.enabled === false) return [];
  const when = isObject(obj.when) ? obj.when : undefined;
  const then = isObject(obj.then) ? obj.then : undefined;
  if (!when || typeof when.type !== "string" || !then || typeof then.type !== "string") {
    warn('a Kiro hook needs "when": {"type": ...} and "then": {"type": ...}; skipped');
    return [];
  }
  const event = TRIGGERS[when.type];
  if (!event) {
    warn(`the Kiro hook "${name}" (when ${when.type}) starts a new agent loop in Kiro, which Yoke does not do; it does not run (Yoke runs promptSubmit and agentStop hooks)`, "info");
    return [];
  }
  const kiro = { name, trigger: when.type };
  if (then.type === "runCommand") {
    if (typeof then.command !== "string" || then.command.trim() === "") {
      warn(`then.command must be a non-empty string; skipped`);
      return [];
    }
    if (then.timeout !== undefined && (typeof then.timeout !== "number" || !(then.timeout > 0))) {
      warn(`then.timeout must be a number of seconds above 0; skipped`);
      return [];
    }
    return [{ event, matcher: "", hooks: [{ type: "command", command: then.command, ...(typeof then.timeout === "number" ? { timeout: then.timeout } : {}), kiro }], source: info }];
  }
  if (then.type === "askAgent" && when.type === "promptSubmit") {
    if (typeof then.prompt !== "string" || then.prompt.trim() === "") {
      warn(`then.prompt must be a non-empty string; skipped`);
      return [];
    }
    // "Add to prompt": the text is added to the user's prompt. printf in exec form (no shell) prints it as context.
    return [{ event, matcher: "", hooks: [{ type: "command", command: "printf", args: ["%s", then.prompt], kiro }], source: info }];
  }
  warn(`the Kiro hook "${name}" (then ${then.type} on ${when.type}) starts a new agent loop in Kiro, which Yoke does not do; it does not run`, "info");
  return [];
}

/**
 * A Kiro command's outcome in Claude Code's terms: exit 0 gives its stdout as context; another exit
 * status gives the agent its stderr as the hook's error — on agentStop the agent goes on with it,
 * on promptSubmit it is context (Kiro never blocks the prompt).
 */
export function kiroOutcome(kiro: { name: string; trigger: string }, exitCode: number, stdout: string, stderr: string): { plainOutput?: string; blockMessage?: string } {
  if (exitCode === 0) return stdout.trim() ? { plainOutput: stdout.trim() } : {};
  const msg = `The Kiro hook "${kiro.name}" returned an error (exit status ${exitCode})${stderr.trim() ? `: ${stderr.trim()}` : "."}`;
  return kiro.trigger === "agentStop" ? { blockMessage: msg } : { plainOutput: msg };
}
