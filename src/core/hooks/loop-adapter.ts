/**
 * Claude Code–compatible hooks as one loop extension: each hook event is a handler on the
 * matching extension point.
 *
 * | loop point         | Claude events                                                   |
 * |--------------------|-----------------------------------------------------------------|
 * | session.start      | SessionStart (`source`, `model`); in a sub-agent SubagentStart (`agent_id`, `agent_type`) |
 * | prompt.submit      | UserPromptSubmit                                                |
 * | request.prepare    | what background (`async`) hooks produced since the last request |
 * | tool.before        | PreToolUse — before the permission engine, so an updated input is what is checked |
 * | permission.request | PermissionRequest; unanswered: Notification `permission_prompt` |
 * | tool.after         | PostToolUse, or PostToolUseFailure for a failed call            |
 * | turn.after (final) | Stop (`last_assistant_message`); in a sub-agent SubagentStop    |
 * | compaction         | PreCompact (`trigger` manual/auto): a block vetoes the compaction, context is kept in mind by its summary |
 * | compaction.after   | PostCompact (`trigger`, `compact_summary`), then SessionStart (`source` "compact"): its context follows the summary |
 * | session.end        | SessionEnd, then background hooks are stopped (not in a sub-agent) |
 *
 * A hook's "allow" is exactly as strong as bypassPermissions mode: it lifts a question only when
 * the permission engine, asked in that mode, allows the call (see permissions/extension.ts).
 * What the hooks said that the user should see is recorded as events.
 */
import type { Extension, ExtensionApi, ExtensionDecision } from "../extensions/types";
import type { ToolDefinition, ToolOutput } from "../tools/types";
import { argsFromHookInput } from "./claude-shapes";
import { permissionRequestAnswer, type HookRunner } from "./run-hooks";
import type { HookEventFields, HookEventName, HookOutcome } from "./types";

/** Claude Code's `agent_type` of its default sub-agent, the one `task` starts. */
export const SUBAGENT_TYPE = "general-purpose";

/** PreToolUse runs before the permission engine (PERMISSION_PRIORITY, -100). */
export const HOOKS_PRIORITY = 100;

function toolResponse(tool: ToolDefinition, args: unknown, output: ToolOutput): unknown {
  return tool.hookResponse ? tool.hookResponse(args, output) : { output: output.text, is_error: output.isError ?? false };
}

export function claudeHooksExtension(runner: HookRunner): Extension {
  return {
    name: "claude-hooks",
    setup(api) {
      const root = api.session.services.fs.root;
      /** The input PreToolUse was sent for each call: PostToolUse gets the same (an edit's old text is read before it). */
      const sentInput = new Map<string, Record<string, unknown>>();
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

      // A sub-agent (src/core/subagents) is Claude's SubagentStart, not SessionStart: its
      // additionalContext goes to the sub-agent, ahead of its first request.
      const sub = api.session.parentId !== undefined;
      const agent = { agent_id: api.session.id, agent_type: api.session.agentType ?? SUBAGENT_TYPE };
      api.on("session.start", async ({ source }, { signal }) => {
        const out = sub ? await run("SubagentStart", { ...agent, source, model: api.session.model }, signal) : await run("SessionStart", { source, model: api.session.model }, signal);
        return { context: out?.additionalContext ?? [] };
      });

      api.on("prompt.submit", async ({ text }, { signal }) => {
        const out = await run("UserPromptSubmit", { prompt: text }, signal);
        if (out?.blocked || out?.stop) return { block: out.message ?? out.stop?.reason ?? "a UserPromptSubmit hook blocked it" };
        return { context: out?.additionalContext ?? [] };
      });

      api.on("request.prepare", () => {
        const out = runner.takeAsyncOutput?.();
        if (!out) return undefined;
        for (const m of out.userMessages) api.record({ type: "error", message: m, code: "hook" });
        const text = [...out.additionalContext, ...out.rewake.map((r) => `A background hook reports: ${r}`)].filter((t) => t.trim());
        return text.length ? { append: [{ source: "hooks", text: text.join("\n\n") }] } : undefined;
      });

      api.on(
        "tool.before",
        async ({ call, tool, args }, { signal }) => {
          const out = await run("PreToolUse", { tool_name: tool.hookName ?? tool.permission, tool_input: tool.hookInput(args), tool_use_id: call.id }, signal);
          if (!out) return undefined;
          if (out.toolInput) sentInput.set(call.id, out.toolInput);
          const reason = out.decisionReason ?? out.message ?? "a PreToolUse hook decided";
          let decision: ExtensionDecision | undefined;
          if (out.decision === "deny" || out.blocked) decision = { decision: "deny", by: "hook", reason: out.message ?? reason };
          else if (out.decision === "ask") decision = { decision: "ask", by: "hook", reason };
          else if (out.decision === "allow") decision = { decision: "allow", by: "hook", reason };
          const updated = out.updatedInput ? argsFromHookInput(tool, args, out.updatedInput, out.toolInput, root) : undefined;
          return {
            ...(decision ? { decision } : {}),
            ...(updated ? { args: updated } : {}),
            ...(out.additionalContext.length ? { context: out.additionalContext } : {}),
            ...(out.stop ? { stop: `stopped by a hook: ${out.stop.reason}` } : {}),
          };
        },
        { priority: HOOKS_PRIORITY },
      );

      api.on("permission.request", async ({ call, tool, args }, { signal }) => {
        const out = await run("PermissionRequest", { tool_name: tool.hookName ?? tool.permission, tool_input: tool.hookInput(args), tool_use_id: call.id }, signal);
        const answer = permissionRequestAnswer(out);
        if (answer) return { decision: answer.decision, by: "hook", message: answer.message ?? (answer.decision === "deny" ? "a PermissionRequest hook denied it" : undefined) };
        void run("Notification", { message: `Yoke needs your permission to use ${tool.hookName ?? tool.permission}`, notification_type: "permission_prompt" });
        return undefined;
      });

      api.on("tool.after", async ({ call, tool, args, output }, { signal }) => {
        const input = sentInput.get(call.id) ?? tool.hookInput(args);
        sentInput.delete(call.id);
        const failed = output.isError === true;
        const out = failed
          ? await run("PostToolUseFailure", { tool_name: tool.hookName ?? tool.permission, tool_input: input, tool_use_id: call.id, error: output.text, is_interrupt: false }, signal)
          : await run("PostToolUse", { tool_name: tool.hookName ?? tool.permission, tool_input: input, tool_response: toolResponse(tool, args, output), tool_use_id: call.id }, signal);
        if (!out) return undefined;
        const append = [...(out.blocked && out.message ? [`${out.event} hook: ${out.message}`] : []), ...out.additionalContext];
        return { ...(out.updatedToolOutput !== undefined ? { text: out.updatedToolOutput } : {}), ...(append.length ? { append } : {}) };
      });

      api.on("turn.after", async ({ final, continued, text }, { signal }) => {
        if (!final) return undefined;
        // A sub-agent finishing is Claude's SubagentStop, not Stop.
        const fields = { stop_hook_active: continued > 0, last_assistant_message: text };
        const out = sub ? await run("SubagentStop", { ...fields, ...agent }, signal) : await run("Stop", fields, signal);
        if (out?.stop) return { stop: `stopped by a hook: ${out.stop.reason}` };
        if (out?.blocked) return { nudge: `A ${sub ? "SubagentStop" : "Stop"} hook asks you to continue: ${out.message ?? "(no reason given)"}`, by: "hook" };
        return undefined;
      });

      api.on("compaction", async ({ trigger }, { signal }) => {
        const out = await run("PreCompact", { trigger, custom_instructions: "" }, signal);
        if (out?.blocked || out?.stop) return { veto: `a PreCompact hook blocked it: ${out.message ?? out.stop?.reason ?? "(no reason given)"}` };
        return out?.additionalContext.length ? { instructions: out.additionalContext } : undefined;
      });

      // After a compaction: PostCompact (observes), then SessionStart with source "compact" (its
      // context comes after the summary, as hooks that re-inject rules after a compaction expect).
      api.on("compaction.after", async ({ trigger, summary }, { signal }) => {
        await run("PostCompact", { trigger, compact_summary: summary }, signal);
        const out = await run("SessionStart", { source: "compact", model: api.session.model }, signal);
        return out?.additionalContext.length ? { context: out.additionalContext } : undefined;
      });

      // A sub-agent ending is not the session ending (Claude Code fires no SessionEnd for it), and
      // the hook runner, with its background hooks, is its parent's.
      api.on("session.end", async ({ reason }) => {
        if (sub) return;
        await run("SessionEnd", { reason });
        await runner.close?.();
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
