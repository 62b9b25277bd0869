/**
 * Verification (issue 12), one Extension on the loop's points:
 * - tool.before of a tool that writes named files: the files' problems now (the baseline);
 * - tool.after of a writing tool that succeeded: its files changed (for a change under review,
 *   only the files whose review was accepted);
 * - request.prepare: the new problems of the changed files (the host's language servers, settled,
 *   or verification.lintCommand) are appended for the model;
 * - turn.after with `final`: after edits, verification.command runs in the sandbox; a failure goes
 *   back to the model at most verification.maxReflections times, then the loop stops and the user
 *   decides. Every run is a `verification` event: the evidence the final answer carries.
 */
import type { SessionEvent } from "../events";
import type { Extension } from "../extensions/types";
import { MAX_CONTINUATIONS } from "../loop/turn-loop";
import type { WorkspaceFs } from "../ports";
import { resolveTouches } from "../tools/touches";
import type { ToolDefinition } from "../tools/types";
import type { PermissionMode } from "../loop/types";
import type { CommandConfinement } from "../commands/types";
import { checkEvent, exhaustedText, failureNudge, runCheck } from "./check";
import { displayPath, newProblems, newProblemsText } from "./diagnostics";
import { createLintCommandDiagnostics, LINT_SOURCE } from "./lint-command";
import type { VerificationSettings } from "./settings";
import type { Diagnostic, DiagnosticsService } from "./types";

export const VERIFICATION_EXTENSION = "verification";

export interface VerificationExtensionOptions {
  /** Read again before each check, so a fix of the settings applies at once. */
  settings(): Promise<{ settings: VerificationSettings; problems: string[] }> | { settings: VerificationSettings; problems: string[] };
  /**
   * The permission gate's answer for a command the repository configured, as a run_command call in
   * the session's mode. Without it such a command never runs (it would be the repository's code).
   */
  authorize?(command: string, mode: PermissionMode): Promise<{ decision: "allow" | "ask" | "deny"; reason: string; confine?: CommandConfinement }>;
}

/**
 * Why a command the repository configured does not run ("" when it may run), and the confinement
 * the gate gave it when it may: a project's command runs exactly as the same run_command would
 * (read-only, or only the writes the gate analysed), never with more.
 */
async function projectCommandRefusal(
  opts: VerificationExtensionOptions,
  s: VerificationSettings,
  key: "command" | "lintCommand",
  mode: PermissionMode,
): Promise<{ refusal: string; confine?: CommandConfinement }> {
  const command = s[key];
  if (!command || !s.fromProject?.[key]) return { refusal: "" };
  const where = s.from[key] ?? "the project's settings";
  const fix = `allow it with a rule such as Bash(${command}) in your own settings, or set verification.${key} in ~/.yoke/settings.json or an untracked .yoke/settings.local.json`;
  if (!opts.authorize)
    return { refusal: `verification.${key} ${JSON.stringify(command)} comes from ${where}, which the repository wrote, so it runs only as a command the permission rules allow; ${fix}` };
  const d = await opts.authorize(command, mode).catch((err: unknown) => ({ decision: "ask" as const, reason: err instanceof Error ? err.message : String(err), confine: undefined }));
  if (d.decision === "allow") return { refusal: "", ...(d.confine ? { confine: d.confine } : {}) };
  return {
    refusal: `verification.${key} ${JSON.stringify(command)} comes from ${where}, which the repository wrote, so it runs only as a command the permission rules allow, and they ${d.decision === "deny" ? "deny" : "do not allow"} it (${d.reason}); ${fix}`,
  };
}

/** Absolute paths a call names in the tool's path arguments (already resolved by the loop). */
function namedPaths(tool: ToolDefinition, args: unknown): string[] {
  if (!tool.pathArgs?.length || !args || typeof args !== "object") return [];
  const out: string[] = [];
  for (const name of tool.pathArgs) {
    const v = (args as Record<string, unknown>)[name];
    for (const p of Array.isArray(v) ? v : [v]) if (typeof p === "string" && p) out.push(p);
  }
  return out;
}

/** The files a call names (namedPaths) and the files it touches besides (a patch's files, resolved), that exist. */
async function filesOf(tool: ToolDefinition, args: unknown, fs: WorkspaceFs): Promise<string[]> {
  const touched = (await resolveTouches(tool, args, fs)).flatMap((t) => ("abs" in t ? [t.abs] : []));
  const existing = await Promise.all(touched.map(async (p) => ((await fs.stat(p).catch(() => undefined))?.type === "file" ? p : undefined)));
  return [...new Set([...namedPaths(tool, args), ...existing.filter((p): p is string => p !== undefined)])];
}

/** The files a successful call changed: its accepted reviews, or (no review) the files it names. */
async function changedBy(events: readonly SessionEvent[], callId: string, tool: ToolDefinition, args: unknown, fs: WorkspaceFs): Promise<string[]> {
  const proposed = new Map<string, string>();
  for (const e of events) if (e.type === "review_proposed" && e.callId === callId) proposed.set(e.editId, e.path);
  if (proposed.size === 0) return filesOf(tool, args, fs);
  const accepted: string[] = [];
  for (const e of events) {
    if (e.type === "review_decision" && proposed.has(e.editId) && (e.status === "accepted" || e.status === "partial")) accepted.push(proposed.get(e.editId)!);
  }
  return accepted;
}

export function verificationExtension(opts: VerificationExtensionOptions): Extension {
  return {
    name: VERIFICATION_EXTENSION,
    async setup(api) {
      const services = api.session.services;
      const root = services.fs.root;
      const first = await opts.settings();
      for (const p of first.problems) api.record({ type: "error", message: `Verification settings: ${p}`, code: "settings" });
      let cached: VerificationSettings = first.settings;
      const settings = async () => {
        try {
          cached = (await opts.settings()).settings;
        } catch (err) {
          services.log.warn(`verification settings could not be read again, the last ones are used: ${err instanceof Error ? err.message : String(err)}`);
        }
        return cached;
      };
      let lint: { command: string; port: DiagnosticsService } | undefined;
      const refusedLint = new Set<string>();
      const portFor = async (s: VerificationSettings): Promise<DiagnosticsService | undefined> => {
        if (services.diagnostics) return services.diagnostics;
        if (!s.lintCommand || !services.commands) return undefined;
        const { refusal } = await projectCommandRefusal(opts, s, "lintCommand", api.session.mode);
        if (refusal) {
          if (!refusedLint.has(refusal)) api.record({ type: "error", message: `Verification settings: ${refusal}`, code: "settings" });
          refusedLint.add(refusal);
          return undefined;
        }
        if (lint?.command !== s.lintCommand) {
          lint = {
            command: s.lintCommand,
            port: createLintCommandDiagnostics({ command: s.lintCommand, runner: services.commands, root, ...(s.timeoutS ? { timeoutMs: s.timeoutS * 1000 } : {}) }),
          };
        }
        return lint.port;
      };
      /** Problems of each file before the first edit since they were last reported; null: unknown. */
      const baseline = new Map<string, Diagnostic[] | null>();
      const changed = new Set<string>();
      let editedSinceCheck = false;
      let failures = 0;

      api.on("prompt.submit", () => {
        failures = 0;
      });

      api.on(
        "tool.before",
        async ({ tool, args }, ctx) => {
          if (!tool.capabilities.writes) return;
          const paths = (await filesOf(tool, args, services.fs)).filter((p) => !baseline.has(p));
          if (paths.length === 0) return;
          const port = await portFor(await settings());
          if (!port) return;
          try {
            const now = await port.current(paths, ctx.signal);
            for (const p of paths)
              baseline.set(
                p,
                now.filter((d) => d.path === p),
              );
          } catch (err) {
            if (ctx.signal.aborted) throw err;
            for (const p of paths) baseline.set(p, null);
            services.log.warn(`verification: the problems of ${paths.join(", ")} before the edit are unknown: ${err instanceof Error ? err.message : String(err)}`);
          }
        },
        { priority: -100 },
      );

      api.on(
        "tool.after",
        async ({ call, tool, args, output }) => {
          if (!tool.capabilities.writes || output.isError) return;
          editedSinceCheck = true;
          for (const p of await changedBy(api.session.events(), call.id, tool, args, services.fs)) changed.add(p);
        },
        { priority: -100 },
      );

      api.on("request.prepare", async (_input, ctx) => {
        if (changed.size === 0) return;
        const paths = [...changed];
        changed.clear();
        const before = new Map(paths.map((p) => [p, baseline.get(p)]));
        for (const p of paths) baseline.delete(p);
        const port = await portFor(await settings());
        if (!port) return;
        const files = paths.map((p) => displayPath(root, p));
        const started = Date.now();
        let after: Diagnostic[];
        try {
          after = await port.collect(paths, ctx.signal);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          const message = err instanceof Error ? err.message : String(err);
          api.record({
            type: "verification",
            kind: "diagnostics",
            status: "error",
            source: port.source,
            durationMs: Date.now() - started,
            files,
            message: `The problems of the changed files are unknown: ${message}`,
          });
          return;
        }
        const found: Diagnostic[] = [];
        for (const p of paths) {
          const was = before.get(p);
          if (was === null) continue;
          found.push(
            ...newProblems(
              was ?? [],
              after.filter((d) => d.path === p),
            ),
          );
        }
        const durationMs = Date.now() - started;
        const command = port.source === LINT_SOURCE ? lint?.command : undefined;
        api.record({
          type: "verification",
          kind: "diagnostics",
          status: found.length ? "failed" : "passed",
          source: port.source,
          ...(command ? { command } : {}),
          durationMs,
          files,
          problems: found.length,
        });
        if (found.length === 0) return;
        return { append: [{ source: VERIFICATION_EXTENSION, text: newProblemsText(root, port.source, found) }] };
      });

      api.on(
        "turn.after",
        async (input, ctx) => {
          if (!input.final) return;
          const s = await settings();
          if (!s.command || !editedSinceCheck) return;
          const { refusal, confine } = await projectCommandRefusal(opts, s, "command", api.session.mode);
          const run = refusal
            ? { command: s.command, status: "error" as const, output: "", snippet: "", durationMs: 0, error: `it was not run: ${refusal}` }
            : await runCheck(s.command, services.commands, root, {
                signal: ctx.signal,
                ...(confine ? { confine } : {}),
                ...(s.timeoutS ? { timeoutMs: s.timeoutS * 1000 } : {}),
                ...(services.commandsUnavailable ? { unavailable: services.commandsUnavailable } : {}),
              });
          if (run.status === "passed") {
            editedSinceCheck = false;
            failures = 0;
            api.record(checkEvent(run, { maxReflections: s.maxReflections }));
            return;
          }
          if (run.status === "error") {
            // Nothing the model can fix: the agent finishes, and the record says the check did not run.
            editedSinceCheck = false;
            api.record(checkEvent(run, { maxReflections: s.maxReflections, message: "The agent finished without it." }));
            return;
          }
          failures++;
          if (failures <= s.maxReflections && input.continued < MAX_CONTINUATIONS) {
            api.record(checkEvent(run, { attempt: failures, maxReflections: s.maxReflections, message: "Sent back to the model." }));
            return { nudge: failureNudge(run, failures, s.maxReflections) };
          }
          const stop = exhaustedText(run, failures - 1);
          api.record(checkEvent(run, { attempt: failures, maxReflections: s.maxReflections, message: "The user decides." }));
          return { stop };
        },
        { priority: -100 },
      );
    },
  };
}
