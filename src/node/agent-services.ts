/**
 * The services a session gets on a Node host (the CLI and the extension host alike): the
 * permission gate over the settings files, Claude Code-compatible hooks, and the sandboxed
 * command runner. The host adds what only it has (the VS Code change review, UI approvals).
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import type { Logger } from "../core/ports";
import { createPermissionGate, type YokePermissionGate } from "../core/permissions/gate";
import { nodeListDir, probeCaseInsensitive } from "./fs-probes";
import { createHookRunner } from "../core/hooks/run-hooks";
import type { HookBus } from "../core/hooks/bus";
import { createNodeHookRunner } from "./hook-exec";
import { createSettingsWriter, loadSettingsSources, nodeRealPath } from "./settings-files";
import { loadShellWasm } from "./tree-sitter-wasm";
import { createSessionCommandRunner, type SandboxSettings } from "./commands/session-runner";
import { SandboxUnavailableError } from "./commands/sandbox/types";
import { createSandbox } from "./commands/sandbox/create";

export interface NodeServicesOptions {
  cwd: string;
  sessionDir: string;
  trusted: boolean;
  home?: string;
  /** VS Code settings yoke.permissions / yoke.hooks (extension only). */
  vscodePermissions?: unknown;
  vscodeHooks?: unknown;
  /** VS Code settings yoke.sandbox (extension only); overrides ~/.yoke/settings.json "sandbox". */
  vscodeSandbox?: SandboxSettings;
  /** Extra settings files (`--settings`). */
  extraSettings?: string[];
  /** Folders where the bundled tree-sitter wasm files may be (the extension's dist/). */
  wasmDirs?: string[];
  bus?: HookBus;
  log?: Logger;
  /** The environment commands start from (default process.env). */
  env?: Record<string, string | undefined>;
}

export interface NodeServices {
  gate: YokePermissionGate;
  /** Session options to spread into AgentSessionOptions. */
  sessionOptions: Pick<AgentSessionOptions, "gate" | "hooks" | "toolContext">;
  sandboxSettings: SandboxSettings;
}

/**
 * Sandbox settings come from the user's own settings only (~/.yoke/settings.json, VS Code user
 * settings): a repository's .yoke/settings.json cannot turn the sandbox off or the network on.
 */
export function readUserSandboxSettings(home: string): SandboxSettings {
  try {
    const value = JSON.parse(readFileSync(join(home, ".yoke", "settings.json"), "utf8")) as { sandbox?: SandboxSettings };
    return value.sandbox && typeof value.sandbox === "object" ? value.sandbox : {};
  } catch {
    return {};
  }
}

export function createNodeServices(opts: NodeServicesOptions): NodeServices {
  const cwd = resolve(opts.cwd);
  const home = opts.home ?? homedir();
  const gate = createPermissionGate({
    cwd,
    home,
    realPath: nodeRealPath,
    loadSources: async () => loadSettingsSources({ cwd, home, vscodePermissions: opts.vscodePermissions, vscodeHooks: opts.vscodeHooks, extraFiles: opts.extraSettings }),
    shellWasm: () => loadShellWasm(opts.wasmDirs),
    writer: createSettingsWriter(cwd),
    trusted: opts.trusted,
    log: opts.log,
    listDir: nodeListDir,
    caseInsensitive: async () => probeCaseInsensitive(cwd),
  });
  const sandboxSettings: SandboxSettings = { ...readUserSandboxSettings(home), ...opts.vscodeSandbox };
  const hookExec = createNodeHookRunner({ wrap: hookSandbox(cwd, sandboxSettings, opts.log) });
  return {
    gate,
    sandboxSettings,
    sessionOptions: {
      gate,
      hooks: (session) =>
        createHookRunner({
          hooks: async () => (await gate.settings()).hooks,
          runner: hookExec,
          bus: opts.bus,
          cwd,
          sessionId: session.id,
          transcriptPath: join(opts.sessionDir, `${session.id}.jsonl`),
          log: opts.log,
        }),
      // In Restricted Mode nothing runs, so no runner (and no sandbox check) is made.
      toolContext: opts.trusted
        ? (session) => {
            try {
              return { commands: createSessionCommandRunner({ workspace: cwd, sessionDir: opts.sessionDir, sessionId: session.id, settings: sandboxSettings, env: opts.env }) };
            } catch (err) {
              // The chosen sandbox is missing: say so and what to install; never fall back to no sandbox.
              if (!(err instanceof SandboxUnavailableError)) throw err;
              opts.log?.warn(err.message);
              return { commandsUnavailable: `Commands cannot run: ${err.message}` };
            }
          }
        : undefined,
    },
  };
}

/**
 * Hooks run in the same sandbox as commands (workspace writable, home hidden, network as the
 * sandbox settings say). Made on first use. When the sandbox is missing, hooks still run, without
 * it, and the log says so: a guard hook must not fail open because bwrap is not installed.
 */
function hookSandbox(cwd: string, s: SandboxSettings, log?: Logger) {
  let backend: ReturnType<typeof createSandbox> | null | undefined;
  let n = 0;
  return (argv: string[], hookCwd: string) => {
    if (backend === undefined) {
      try {
        backend = createSandbox(s.backend ?? "auto", { workspace: cwd, ...(s.paths ? { paths: s.paths } : {}), ...(s.exposeToolchains === undefined ? {} : { exposeToolchains: s.exposeToolchains }) });
      } catch (err) {
        if (!(err instanceof SandboxUnavailableError)) throw err;
        log?.warn(`hooks run without a sandbox: ${err.message}`);
        backend = null;
      }
    }
    if (!backend || backend.name === "docker") return { file: argv[0]!, args: argv.slice(1) };
    return backend.wrap({ argv, cwd: hookCwd, network: s.network ?? "off", id: `hook-${++n}` });
  };
}
