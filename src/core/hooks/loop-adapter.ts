/**
 * Claude Code–compatible hooks as one loop extension: each hook event is a handler on the
 * matching extension point. SessionStart → session.start, UserPromptSubmit → prompt.submit,
 * PreToolUse → tool.before (before the permission gate, so an updated input is what is checked),
 * Notification → permission.request, PostToolUse → tool.after, Stop → turn.after (final turns),
 * SessionEnd → session.end. What the hooks said that the user should see is recorded as events.
 */
import type { Extension, ExtensionApi, ExtensionDecision } from "../extensions/types";
import type { ToolDefinition } from "../tools/types";
import type { HookRunner } from "./run-hooks";
import type { HookEventFields, HookEventName, HookOutcome } from "./types";

/** PreToolUse runs before the permission engine (priority 0). */
export const HOOKS_PRIORITY = 100;

/** Hook-style argument names mapped back to tool argument names (for PreToolUse updatedInput). */
const HOOK_TO_ARG: Record<string, string> = { file_path: "path", run_in_background: "background", timeout: "timeout_s" };

/** A PreToolUse hook's updatedInput as the tool's own arguments. */
export function argsFromHookInput(args: unknown, updated: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const [k, v] of Object.entries(updated)) merged[HOOK_TO_ARG[k] ?? k] = k === "timeout" && typeof v === "number" ? v / 1000 : v;
  return merged;
}

function toolResponse(tool: ToolDefinition, args: unknown, output: { text: string; isError?: boolean; meta?: unknown }): unknown {
  return tool.hookResponse ? tool.hookResponse(args as never, output) : { output: output.text, is_error: output.isError ?? false };
}

export function claudeHooksExtension(runner: HookRunner): Extension {
  return {
    name: "claude-hooks",
    setup(api) {
      const run = async (event: HookEventName, fields: HookEventFields, signal?: AbortSignal): Promise<HookOutcome | undefined> => {
        try {
          const out = await runner.runHooks(event, { permission_mode: api.session.mode, ...fields }, signal);
          report(api, event, out);
          return out;
        } catch (err) {
          if (signal?.aborted) throw err;
          api.record({ type: "error", message: `${event} hooks failed: ${err instanceof Error ? err.message : String(err)}`, code: "hook" });
          return undefined;
        }
      };

      api.on("session.start", async ({ source }, { signal }) => {
        const out = await run("SessionStart", { source, model: api.session.model }, signal);
        return { context: out?.additionalContext ?? [] };
      });

      api.on("prompt.submit", async ({ text }, { signal }) => {
        const out = await run("UserPromptSubmit", { prompt: text }, signal);
        if (out?.blocked || out?.stop) return { block: out.message ?? out.stop?.reason ?? "a UserPromptSubmit hook blocked it" };
        return { context: out?.additionalContext ?? [] };
      });

      api.on(
        "tool.before",
        async ({ call, tool, args }, { signal }) => {
          const out = await run("PreToolUse", { tool_name: tool.permission, tool_input: tool.hookInput(args as never), tool_use_id: call.id }, signal);
          if (!out) return undefined;
          const reason = out.decisionReason ?? out.message ?? "a PreToolUse hook decided";
          let decision: ExtensionDecision | undefined;
          if (out.decision === "deny" || out.blocked) decision = { decision: "deny", by: "hook", reason: out.message ?? reason };
          else if (out.decision === "ask") decision = { decision: "ask", by: "hook", reason };
          else if (out.decision === "allow") decision = { decision: "allow", by: "hook", reason };
          return {
            ...(decision ? { decision } : {}),
            ...(out.updatedInput ? { args: argsFromHookInput(args, out.updatedInput) } : {}),
            ...(out.additionalContext.length ? { context: out.additionalContext } : {}),
            ...(out.stop ? { stop: `stopped by a hook: ${out.stop.reason}` } : {}),
          };
        },
        { priority: HOOKS_PRIORITY },
      );

      api.on("permission.request", async ({ tool }, { signal }) => {
        await run("Notification", { message: `Yoke needs your permission to use ${tool.permission}`, notification_type: "permission_prompt" }, signal);
        return undefined;
      });

      api.on("tool.after", async ({ call, tool, args, output }, { signal }) => {
        const out = await run("PostToolUse", { tool_name: tool.permission, tool_input: tool.hookInput(args as never), tool_response: toolResponse(tool, args, output), tool_use_id: call.id }, signal);
        if (!out) return undefined;
        const append = [...(out.blocked && out.message ? [`PostToolUse hook: ${out.message}`] : []), ...out.additionalContext];
        return append.length ? { append } : undefined;
      });

      api.on("turn.after", async ({ final, continued, text }, { signal }) => {
        if (!final) return undefined;
        const out = await run("Stop", { stop_hook_active: continued > 0, last_assistant_message: text }, signal);
        if (out?.stop) return { stop: `stopped by a hook: ${out.stop.reason}` };
        if (out?.blocked) return { nudge: `A Stop hook asks you to continue: ${out.message ?? "(no reason given)"}`, by: "hook" };
        return undefined;
      });

      api.on("session.end", async ({ reason }) => {
        await run("SessionEnd", { reason });
      });
    },
  };
}

/** Messages for the user and non-blocking failures become error events (shown in the panel and the CLI). */
function report(api: ExtensionApi, event: HookEventName, out: HookOutcome): void {
  for (const m of [...out.userMessages, ...out.errors.map((e) => `${event} hook: ${e}`)]) {
    api.record({ type: "error", message: m, code: "hook" });
  }
}
