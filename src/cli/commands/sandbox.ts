/**
 * `yoke sandbox exec [--backend B] [--cwd DIR] [--network off|on] [--timeout S] [--json] [--allow-env NAME]...
 *                   [--hide PATH]... [--read-only PATH]... [--read-only-workspace] [--writable PATH]... [--writes PATH]... -- COMMAND [ARGS...]`
 * Runs one command in the sandbox the agent uses — the user's `sandbox` settings (limits,
 * environment, paths), the protected workspace paths, and what the permission rules of --cwd hide
 * and keep read-only when a protection source is given — streams its output and exits with its status:
 * the command's exit code; 128+N when a signal N ended it; 124 on timeout (as coreutils
 * `timeout`); 1 when the sandbox is unavailable or the command could not start; 2 on bad usage.
 * One COMMAND argument is a shell command line; several are quoted and run as an argument vector.
 */
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { constants } from "node:os";
import { formatBoundedOutput } from "../../core/commands/output";
import { commandLineFromArgv } from "../../core/commands/shell-quote";
import { gitLinkedCommand } from "../../core/protected-paths";
import type { CommandResult, NetworkMode } from "../../core/commands/types";
import { readUserSandboxSettings } from "../../node/agent-services";
import { createNodeCommandRunner } from "../../node/commands/runner";
import { SANDBOX_CHOICES, type SandboxChoice } from "../../node/commands/sandbox/create";
import { SandboxUnavailableError, type SandboxBackend, type SandboxProtection } from "../../node/commands/sandbox/types";
import { runnerOptionsFromSettings, sandboxFromSettings, type SandboxSettings } from "../../node/commands/session-runner";
import { parse, printJson, UsageError } from "../args";
import { warn } from "../printable";

/** Exit status for a timeout, as coreutils `timeout` uses. */
export const TIMEOUT_STATUS = 124;

export function exitStatusOf(r: CommandResult): number {
  if (r.timedOut) return TIMEOUT_STATUS;
  if (r.error) return 1;
  if (r.signal) return 128 + ((constants.signals as Record<string, number>)[r.signal] ?? 0);
  return r.exitCode ?? 1;
}

/** The real path when it exists (the sandbox mounts real paths), else the path as given. */
function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

export interface SandboxExecDeps {
  /** What the permission rules of `cwd` hide and keep read-only (the same view sessions get). */
  protection?: (cwd: string) => Promise<(() => SandboxProtection) | undefined>;
  /** The user's `sandbox` settings (default: ~/.yoke/settings.json). */
  settings?: () => SandboxSettings;
}

export async function sandboxCommand(argv: string[], deps: SandboxExecDeps = {}): Promise<number> {
  const { values, positionals } = parse(argv, {
    backend: { type: "string" },
    cwd: { type: "string" },
    network: { type: "string" },
    timeout: { type: "string" },
    json: { type: "boolean" },
    "allow-env": { type: "string", multiple: true },
    hide: { type: "string", multiple: true },
    "read-only": { type: "string", multiple: true },
    "read-only-workspace": { type: "boolean" },
    writable: { type: "string", multiple: true },
    writes: { type: "string", multiple: true },
  });
  const [sub, ...command] = positionals;
  if (sub !== "exec") throw new UsageError(`expected "exec", got ${sub ? `"${sub}"` : "nothing"} (yoke sandbox exec [options] -- COMMAND [ARGS...])`);
  if (command.length === 0) throw new UsageError("missing the command to run after -- (yoke sandbox exec [options] -- COMMAND [ARGS...])");
  const backend = values.backend as SandboxChoice | undefined;
  if (backend !== undefined && !SANDBOX_CHOICES.includes(backend)) throw new UsageError(`--backend must be one of ${SANDBOX_CHOICES.join(", ")}; got "${backend}"`);
  const network = (values.network ?? "off") as NetworkMode;
  if (network !== "off" && network !== "on") throw new UsageError(`--network must be "off" or "on"; got "${values.network}"`);
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const s = Number(values.timeout);
    if (!Number.isFinite(s) || s <= 0) throw new UsageError(`--timeout must be a positive number of seconds; got "${values.timeout}"`);
    timeoutMs = Math.round(s * 1000);
  }
  const cwd = resolve(values.cwd ?? process.cwd());
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    warn(`yoke sandbox: --cwd ${cwd} is not a folder\n`);
    return 1;
  }

  let sandbox: SandboxBackend;
  let settings: SandboxSettings;
  let runnerOpts: ReturnType<typeof runnerOptionsFromSettings>;
  try {
    // The user's own settings, as sessions read them; the command line overrides.
    settings = deps.settings ? deps.settings() : readUserSandboxSettings(homedir());
    runnerOpts = runnerOptionsFromSettings(settings);
    const fromRules = await (deps.protection ?? rulesOf)(cwd);
    // --hide / --read-only add to what the permission rules of --cwd require.
    const extraHide = (values.hide ?? []).map((p) => realOrResolved(resolve(cwd, p)));
    const extraRo = (values["read-only"] ?? []).map((p) => realOrResolved(resolve(cwd, p)));
    const protection =
      fromRules || extraHide.length || extraRo.length
        ? () => {
            const base = fromRules?.() ?? { hide: [], readOnly: [] };
            return { ...base, hide: [...base.hide, ...extraHide], readOnly: [...base.readOnly, ...extraRo] };
          }
        : undefined;
    sandbox = sandboxFromSettings(cwd, settings, protection, backend);
  } catch (err) {
    if (!(err instanceof SandboxUnavailableError)) throw err;
    if (values.json) printJson({ ok: false, error: err.message, backend: backend ?? "auto" });
    warn(`yoke sandbox: ${err.message}\n`);
    return 1;
  }
  if (sandbox.warning) warn(`yoke sandbox: warning: ${sandbox.warning}\n`);

  const logDir = mkdtempSync(join(tmpdir(), "yoke-sandbox-"));
  const runner = createNodeCommandRunner({
    workspace: cwd,
    logDir,
    sandbox,
    ...runnerOpts,
    pty: !values.json && process.stdout.isTTY === true,
    allowEnv: [...(settings.allowEnv ?? []), ...(values["allow-env"] ?? [])],
    maxTimeoutMs: Number.MAX_SAFE_INTEGER,
    ...(process.stdout.columns ? { cols: process.stdout.columns, rows: process.stdout.rows } : {}),
  });
  const writable = (values.writable ?? []).map((p) => realOrResolved(resolve(cwd, p)));
  // --writes: the decision's confine.writes (a command allowed for the writes the gate listed).
  const writes = values.writes?.map((p) => resolve(cwd, p));
  const line = commandLineFromArgv(command);
  // git submodule add/update…: the same door a session's gate opens (core/protected-paths.ts).
  const linked = values["read-only-workspace"] ? undefined : gitLinkedCommand(line);
  const submodule = linked !== undefined;
  const confine =
    values["read-only-workspace"] || writable.length || writes || submodule
      ? {
          ...(values["read-only-workspace"] ? { readOnly: true } : {}),
          ...(writable.length ? { writable } : {}),
          ...(writes ? { writes } : {}),
          ...(submodule ? { gitLinked: true } : {}),
          ...(linked === "submodule" ? { gitSubmodule: true } : {}),
        }
      : undefined;
  const cmd = runner.start({
    command: line,
    cwd,
    background: false,
    network,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(confine ? { confine } : {}),
  });
  if (!values.json) cmd.onData((chunk) => process.stdout.write(chunk));
  let interrupts = 0;
  const onSigint = () => (interrupts++ === 0 ? cmd.interrupt() : void cmd.kill());
  const onSigterm = () => void cmd.kill();
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  try {
    const result = await cmd.wait();
    const status = exitStatusOf(result);
    for (const q of result.quarantined ?? []) {
      warn(
        q.error
          ? `yoke sandbox: the command created ${q.path}, a protected path (${q.why}); it could NOT be moved and is still there: ${q.error}\n`
          : q.movedTo
            ? `yoke sandbox: the command created ${q.path}, a protected path (${q.why}); it was moved to ${q.movedTo}\n`
            : `yoke sandbox: the command changed ${q.path}, a protected path (${q.why}); it was put back\n`,
      );
    }
    if (result.limitExceeded) {
      warn(`yoke sandbox: stopped: the command reached ${result.limitExceeded.max} processes (sandbox.limits.processes)\n`);
    }
    if (values.json) {
      printJson({
        ok: !result.error,
        backend: sandbox.name,
        degraded: runner.degraded,
        network: cmd.network,
        cwd,
        command: cmd.command,
        mode: cmd.mode,
        exitStatus: status,
        ...result,
        totalLines: cmd.bounded().totalLines,
        output: formatBoundedOutput(cmd.bounded(), cmd.id),
        logPath: cmd.logPath,
      });
    } else if (result.error) {
      warn(`yoke sandbox: the command could not be started: ${result.error}\n`);
    } else if (result.timedOut) {
      warn(`yoke sandbox: killed after ${Math.round(timeoutMs! / 1000)} s (timeout)\n`);
    }
    return status;
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigterm);
    await runner.dispose();
    // With --json the full log stays for the caller (its path is in the document); quarantined files always stay.
    const quarantine = existsSync(runner.quarantineDir) && readdirSync(runner.quarantineDir).length > 0;
    if (!values.json && !quarantine) rmSync(logDir, { recursive: true, force: true });
  }
}

/** What the permission rules of `cwd` hide and keep read-only: the view sessions get. */
async function rulesOf(cwd: string): Promise<() => SandboxProtection> {
  const { folderGate } = await import("../../node/permission-check");
  const view = await folderGate({ cwd }).sandboxProtection();
  return () => view;
}
