/**
 * `yoke run PROMPT` and `yoke resume SESSION [PROMPT]`: the agent loop, headless. The answer and
 * tool activity stream to stdout; permission questions go to the terminal when there is one.
 */
import { resolve } from "node:path";
import { AgentSession, type AgentSessionOptions } from "../../core/loop/agent-session";
import type { Extension } from "../../core/extensions/types";
import type { PermissionMode } from "../../core/loop/types";
import { sessionCost } from "../../core/cost";
import { describeEvent } from "../../core/describe-event";
import { summarizeSession } from "../../core/session/projection";
import { parse, printJson, UsageError } from "../args";
import type { FileSessionStore } from "../../node/session-store";
import { buildCliSession, type CliSessionFlags } from "../session-setup";
import { createConsoleRenderer } from "../render";
import { warn } from "../printable";
import { takeHandBacks } from "../../node/background/hand-back";
import { plural } from "../../core/tools/output";

const MODES: readonly PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

const options = {
  cwd: { type: "string" },
  provider: { type: "string" },
  "base-url": { type: "string" },
  model: { type: "string" },
  "api-key-env": { type: "string" },
  "permission-mode": { type: "string" },
  "session-dir": { type: "string" },
  "max-turns": { type: "string" },
  "fallback-model": { type: "string", multiple: true },
  "max-cost": { type: "string" },
  "max-time": { type: "string" },
  "no-stream": { type: "boolean" },
  settings: { type: "string", multiple: true },
  "add-dir": { type: "string", multiple: true },
  trust: { type: "boolean" },
  json: { type: "boolean" },
  "output-style": { type: "string" },
  tools: { type: "string", multiple: true },
  // Background agents (src/cli/commands/agents.ts): in a git worktree of its own, in the foreground or detached.
  worktree: { type: "boolean" },
  background: { type: "boolean" },
  carry: { type: "string" },
} as const;

/** What a caller learns of the run as it goes (the background agents' worker records its session). */
export interface RunHooks {
  onSession?(id: string): void;
  /** The session's composer (a background agent's: the notes `yoke agents note` leaves while it runs). */
  composer?: () => Extension;
  /** After the task: the next message to send in the same session (a note that found no next step), or undefined. */
  followUp?: () => string | undefined;
}

function flagsFrom(values: Record<string, string | boolean | string[] | undefined>): CliSessionFlags {
  const mode = values["permission-mode"] as string | undefined;
  if (mode !== undefined && !MODES.includes(mode as PermissionMode)) {
    throw new UsageError(`--permission-mode must be one of ${MODES.join(", ")} (got "${mode}")`);
  }
  const maxTurnsText = values["max-turns"] as string | undefined;
  const maxTurns = maxTurnsText === undefined ? undefined : Number(maxTurnsText);
  if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1)) throw new UsageError(`--max-turns must be a positive integer (got "${maxTurnsText}")`);
  const positive = (flag: string): number | undefined => {
    const text = values[flag] as string | undefined;
    if (text === undefined) return undefined;
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number (got "${text}")`);
    return n;
  };
  return {
    fallbackModels: values["fallback-model"] as string[] | undefined,
    maxCostUsd: positive("max-cost"),
    maxTimeS: positive("max-time"),
    cwd: resolve((values.cwd as string | undefined) ?? "."),
    provider: values.provider as string | undefined,
    baseUrl: values["base-url"] as string | undefined,
    model: values.model as string | undefined,
    apiKeyEnv: values["api-key-env"] as string | undefined,
    permissionMode: mode as PermissionMode | undefined,
    sessionDir: values["session-dir"] as string | undefined,
    maxTurns,
    stream: values["no-stream"] ? false : undefined,
    settings: values.settings as string[] | undefined,
    addDirs: ((values["add-dir"] as string[] | undefined) ?? []).map((d) => resolve(d)),
    trust: Boolean(values.trust),
    ...(values["output-style"] ? { outputStyle: values["output-style"] as string } : {}),
    ...(values.tools ? { tools: toolNames(values.tools as string[]) } : {}),
    json: Boolean(values.json),
  };
}

/** `--tools a,b --tools c`: the names, each once, in the order given. */
function toolNames(values: readonly string[]): string[] {
  const names = [...new Set(values.flatMap((v) => v.split(",")).map((n) => n.trim()))].filter((n) => n !== "");
  if (!names.length) throw new UsageError("--tools needs at least one tool name, e.g. --tools run_command");
  return names;
}

/**
 * SIGINT (Ctrl+C) and SIGTERM while a run lasts. Once the session exists, the first signal stops it
 * gracefully — the turn is cancelled, the log gets its end, MCP servers and commands are stopped —
 * and the run exits 130 (SIGINT) or 143 (SIGTERM); a second signal quits at once (the exit hooks
 * still SIGKILL the servers' process groups). Before the session exists (settings, servers
 * starting), a signal quits at once the same way: there is no log to end yet.
 */
function trapSignals() {
  let graceful: (() => void) | undefined;
  const state = { signal: undefined as NodeJS.Signals | undefined, graceful: (stop: () => void) => void (graceful = stop), dispose };
  const code = (sig: NodeJS.Signals) => (sig === "SIGINT" ? 130 : 143);
  const on = (sig: NodeJS.Signals) => () => {
    if (state.signal || !graceful) process.exit(code(state.signal ?? sig));
    state.signal = sig;
    warn(`\nstopping… (${sig === "SIGINT" ? "Ctrl+C" : "the signal"} again to quit at once)\n`);
    graceful();
  };
  const onInt = on("SIGINT");
  const onTerm = on("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  function dispose() {
    process.off("SIGINT", onInt);
    process.off("SIGTERM", onTerm);
  }
  return Object.assign(state, { exitCode: () => (state.signal ? code(state.signal) : undefined) });
}
type Signals = ReturnType<typeof trapSignals>;

export async function runCommand(argv: string[], hooks: RunHooks = {}): Promise<number> {
  const { values, positionals } = parse(argv, options);
  const prompt = positionals.join(" ").trim();
  if (!prompt) throw new UsageError('a prompt is required: yoke run "what does this project do?"');
  if (values.worktree || values.background) return (await import("./agents")).startAgent(argv, values, prompt);
  if (values.carry !== undefined) throw new UsageError("--carry goes with --worktree or --background");
  const flags = flagsFrom(values);
  const signals = trapSignals();
  try {
    const setup = await buildCliSession(flags, undefined, hooks.composer ? { composer: hooks.composer } : {});
    const since = new Date().toISOString();
    const session = await AgentSession.create(setup.options);
    hooks.onSession?.(session.id);
    return await drive(
      session,
      setup,
      flags,
      withFollowUps((s) => s.send(prompt), hooks, signals),
      signals,
      since,
    );
  } finally {
    signals.dispose();
  }
}

export async function resumeCommand(argv: string[], hooks: RunHooks = {}): Promise<number> {
  const { values, positionals } = parse(argv, options);
  if (values.worktree || values.background || values.carry !== undefined)
    throw new UsageError("--worktree, --background and --carry start a new agent (yoke run); an agent continues with yoke agents note|resume");
  const [id, ...rest] = positionals;
  if (!id) throw new UsageError("a session id is required: yoke resume SESSION (see `yoke sessions`)");
  const flags = flagsFrom(values);
  const signals = trapSignals();
  try {
    // The session goes on in the mode and on the model it had chosen (its log), unless a flag names another for this run.
    const setup = await buildCliSession({ ...flags, restoreChoices: "unflagged" }, id, hooks.composer ? { composer: hooks.composer } : {});
    const since = new Date().toISOString();
    const session = await AgentSession.resume(id, setup.options);
    const prompt = rest.join(" ").trim();
    return await drive(
      session,
      setup,
      flags,
      withFollowUps(
        async (s) => {
          // Results its background agents handed back after it ended (kept for it; the panel delivers them the same way):
          // given to the model with the prompt, or as a turn of their own.
          const kept = takeHandBacks(setup.sessionDir, s);
          if (kept) warn(`yoke: ${plural(kept, "result")} of background agents kept for this session, given to the model now\n`);
          await (prompt ? s.send(prompt) : s.continue());
        },
        hooks,
        signals,
      ),
      signals,
      since,
    );
  } finally {
    signals.dispose();
  }
}

/** The task, then each follow-up message (until none is left, or a signal stops the run). */
function withFollowUps(act: (s: AgentSession) => Promise<void>, hooks: RunHooks, signals: Signals): (s: AgentSession) => Promise<void> {
  if (!hooks.followUp) return act;
  return async (s) => {
    await act(s);
    for (let next = signals.signal ? undefined : hooks.followUp!(); next; next = signals.signal ? undefined : hooks.followUp!()) await s.send(next);
  };
}

async function drive(
  session: AgentSession,
  setup: { options: AgentSessionOptions; sessionDir: string; store: FileSessionStore; dispose(): Promise<void> },
  flags: CliSessionFlags,
  act: (s: AgentSession) => Promise<void>,
  signals: Signals,
  since: string,
): Promise<number> {
  const { options: opts, sessionDir } = setup;
  const renderer = flags.json ? undefined : createConsoleRenderer(process.stdout, process.stderr);
  renderer?.header(session.id, opts.provider, opts.providerLabel);
  // The problems this run recorded while the session was being made, before anything listened: an
  // MCP server that failed to start (its tools are missing; the model would only be told "Unknown
  // tool"), a server left unstarted. The panel shows them from the log; here they were lost.
  if (renderer)
    for (const e of session.events()) {
      const level = e.ts >= since ? describeEvent(e)?.level : undefined;
      if (level === "warning" || level === "error") renderer.event(e);
    }
  const subscriptions = renderer ? [session.onEvent((e) => renderer.event(e)), session.onDelta((d) => renderer.delta(d))] : [];
  signals.graceful(() => session.cancel());
  try {
    if (!signals.signal) await act(session);
  } finally {
    for (const s of subscriptions) s.dispose();
    await session.end(signals.signal === "SIGINT" ? "prompt_input_exit" : signals.signal === "SIGTERM" ? "sigterm" : "other");
    await setup.dispose();
    // The log is complete: another process may continue it now.
    setup.store.dispose();
  }
  const events = session.events();
  const summary = summarizeSession(events, session.id);
  const lastAnswer = [...events].reverse().find((e) => e.type === "assistant_message");
  const lastError = [...events].reverse().find((e) => e.type === "error");
  // The evidence of this run's answer: the checks since the user's last message.
  const lastPrompt = events.findLastIndex((e) => e.type === "user_message" && (e.from ?? "user") === "user");
  const checks = events.slice(lastPrompt + 1).flatMap((e) => (e.type === "verification" ? [e] : []));
  if (flags.json) {
    printJson({
      sessionId: session.id,
      status: summary.status,
      text: lastAnswer?.type === "assistant_message" ? lastAnswer.text : "",
      usage: summary.usage,
      costUsd: summary.costUsd ?? null,
      // Per turn: tokens in/out, cache reads and writes, hit share, price, tools, sub-agents, cache breaks.
      cost: sessionCost(events),
      error: summary.status === "error" && lastError?.type === "error" ? lastError.message : null,
      verification: checks,
      sessionDir,
    });
  } else {
    renderer?.footer(summary, sessionCost(events));
  }
  // A run that ended with verification.command still failing is not a success.
  const lastCheck = [...checks].reverse().find((c) => c.kind === "check");
  const interrupted = signals.exitCode();
  if (interrupted !== undefined) return interrupted;
  return summary.status === "done" && lastCheck?.status !== "failed" ? 0 : 1;
}
