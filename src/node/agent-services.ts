/**
 * The services a session gets on a Node host (the CLI and the extension host alike): the
 * permission gate over the settings files, Claude Code-compatible hooks, and the sandboxed
 * command runner. The session recipe (session-recipe.ts) builds them from the session's settings
 * and adds every other mechanism; the host adds only what it has (the VS Code change review, UI approvals).
 */
import { nodeGitObjectPaths } from "./git-object-paths";
import { nodeGitCheckoutTarget } from "./git-checkout-target";
import { nodeGitRunsFrom } from "./git-runs-from";
import { packageManagerFolders } from "./commands/new-repositories";
import { nodeNpmConfig } from "./npm-config";
import type { ProcessLauncher } from "./commands/launcher";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { AgentSessionOptions } from "../core/loop/agent-session";
import type { FileAccessPolicy, Logger, SessionServices } from "../core/ports";
import type { LoadedSource } from "../core/permissions/types";
import { createPermissionGate, type YokePermissionGate } from "../core/permissions/gate";
import { probeCaseInsensitive } from "./fs-probes";
import { createHookRunner } from "../core/hooks/run-hooks";
import type { HookBus } from "../core/hooks/bus";
import type { ClaudeToolShape } from "../core/hooks/transcript";
import { absolutePaths } from "../core/hooks/claude-shapes";
import { createBuiltinTools } from "../core/tools/builtin";
import type { ToolDefinition } from "../core/tools/types";
import { createNodeHookRunner } from "./hook-exec";
import { createHookSandbox } from "./hook-sandbox";
import { createClaudeTranscriptWriter } from "./hook-transcript";
import { createSettingsWriter, loadFolderSettingsSources, loadSettingsSources, nodeListDir, nodeReadLink, nodeIsExecutable, nodeReadText, nodeRealPath } from "./settings/files";
import { loadShellWasm, nodeGrammarWasm } from "./tree-sitter-wasm";
import { createSyntaxChecker, type SyntaxChecker } from "../core/edit/syntax-check";
import { sessionLogPath } from "./session-location";
import { commandLogDir, createSessionCommandRunner, protectionView, SandboxSettingsError, type SandboxSettings } from "./commands/session-runner";
import { SandboxUnavailableError } from "./commands/sandbox/types";
import { readUserSettings } from "./settings/reader";
import { pluginHookSources } from "./plugins";
import { registerAgentWritable } from "./host-programs";

export interface NodeServicesOptions {
  cwd: string;
  /** The other folders of a multi-root workspace: inside the workspace for the rules, writable for commands. */
  folders?: string[];
  sessionDir: string;
  trusted: boolean;
  /** How the user trusts the folder, told in Restricted Mode (the CLI: `yoke trust DIR` or --trust). */
  restrictedHint?: string;
  home?: string;
  /** VS Code user settings yoke.permissions / yoke.hooks (extension only). */
  vscodePermissions?: unknown;
  vscodeHooks?: unknown;
  /** The same settings from the workspace (shared with the repository: they may only restrict). */
  vscodeWorkspacePermissions?: unknown;
  vscodeWorkspaceHooks?: unknown;
  /** VS Code settings yoke.sandbox (extension only); overrides ~/.yoke/settings.json "sandbox". */
  vscodeSandbox?: SandboxSettings;
  /** Extra settings files (`--settings`). */
  extraSettings?: string[];
  /** Another checkout whose local settings files apply here too (an isolated agent's worktree: the workspace's). */
  localSettingsFrom?: string;
  /** Folders where the bundled tree-sitter wasm files may be (the extension's dist/). */
  wasmDirs?: string[];
  bus?: HookBus;
  /** The session's tools, for the Claude names and inputs in the hook transcript (default: the built-in tools). */
  tools?: ToolDefinition[];
  log?: Logger;
  /** The environment commands start from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Who starts a session's commands (`yoke acp`: the editor's terminal); default: the runner spawns them. */
  launcher?: (session: { id: string }) => ProcessLauncher | undefined;
}

export interface NodeServices {
  gate: YokePermissionGate;
  /** Session options to spread into AgentSessionOptions: the permission engine and the hooks (the core installs both first). */
  sessionOptions: Pick<AgentSessionOptions, "gate" | "hooks">;
  /** Deny rules for content tools (grep, glob, list_files). */
  access: FileAccessPolicy;
  /** The command runner of one session (absent in Restricted Mode, where nothing runs). */
  commands(session: { id: string }): Pick<SessionServices, "commands" | "commandsUnavailable">;
  sandboxSettings: SandboxSettings;
  /** The parse check of tolerant edits (tree-sitter grammars, each loaded on first use). */
  syntax: SyntaxChecker;
}

/**
 * Sandbox settings come from the user's own settings only (~/.yoke/settings.json, VS Code user
 * settings), read by the one settings reader: a repository's .yoke/settings.json cannot turn the
 * sandbox off or the network on.
 */
export function readUserSandboxSettings(home: string): SandboxSettings {
  const r = readUserSettings(home);
  const broken = r.problems.find((p) => p.fileLevel);
  // Not guessed: the user may have meant a stricter sandbox than the defaults.
  if (broken) throw new SandboxSettingsError(`${broken.message.replace(/; none of its settings are used.*$/, "")}, so the sandbox settings are unknown; fix it`);
  if (r.invalid.has("sandbox")) throw new SandboxSettingsError(`${join(home, ".yoke", "settings.json")}: "sandbox" must be an object`);
  return (r.sandbox?.value ?? {}) as SandboxSettings;
}

export function createNodeServices(opts: NodeServicesOptions): NodeServices {
  const cwd = resolve(opts.cwd);
  const home = opts.home ?? homedir();
  // Yoke's own host programs are never taken from the workspace folders (host-programs.ts), from
  // the start — settings are read with git before any sandbox exists.
  for (const f of [cwd, ...(opts.folders ?? [])]) registerAgentWritable(f);
  const gate = createPermissionGate({
    cwd,
    home,
    // The session folder: protected where it lies in a workspace folder (its logs are what `yoke resume` trusts).
    hostFolders: [opts.sessionDir],
    realPath: nodeRealPath,
    readLink: nodeReadLink,
    // The command path commands get: a home's installs on it are protected as the sandbox keeps them.
    searchPath: process.env.PATH ?? "",
    isExecutable: nodeIsExecutable,
    loadSources: async () => [
      // Lowest priority first: the approved plugins' hooks (src/node/plugins; they may block, never allow), the other workspace folders (as additional directories, and their own
      // settings files), then the settings files of the first folder and the user's.
      ...pluginHookSources({ home, cwd, trusted: opts.trusted }),
      ...workspaceFolderSources(cwd, opts.folders ?? []),
      ...(await Promise.all((opts.folders ?? []).map((f) => loadFolderSettingsSources(f, { home })))).flat(),
      ...(await loadSettingsSources({
        cwd,
        home,
        vscodePermissions: opts.vscodePermissions,
        vscodeHooks: opts.vscodeHooks,
        vscodeWorkspacePermissions: opts.vscodeWorkspacePermissions,
        vscodeWorkspaceHooks: opts.vscodeWorkspaceHooks,
        extraFiles: opts.extraSettings,
        // In an agent's worktree, the person's local settings files of its workspace (untracked: not in the worktree) apply too:
        // the ones named here, else those loadSettingsSources finds from the agent's record.
        ...(opts.localSettingsFrom !== undefined ? { localFrom: opts.localSettingsFrom } : {}),
      })),
    ],
    listDir: nodeListDir,
    readText: nodeReadText,
    shellWasm: () => loadShellWasm(opts.wasmDirs),
    writer: createSettingsWriter(cwd),
    trusted: opts.trusted,
    ...(opts.restrictedHint ? { restrictedHint: opts.restrictedHint } : {}),
    log: opts.log,
    caseInsensitive: async () => probeCaseInsensitive(cwd),
    gitObjectPaths: nodeGitObjectPaths,
    gitCheckoutTarget: nodeGitCheckoutTarget,
    gitRunsFrom: nodeGitRunsFrom,
    nestedConfigs: async (root) => packageManagerFolders(root),
    npmConfig: nodeNpmConfig(),
  });
  let sandboxProblem: string | undefined;
  let fromFile: SandboxSettings = {};
  try {
    fromFile = readUserSandboxSettings(home);
  } catch (err) {
    if (!(err instanceof SandboxUnavailableError)) throw err;
    sandboxProblem = err.message;
    opts.log?.warn(err.message);
  }
  const userSandbox: SandboxSettings = { ...fromFile, ...opts.vscodeSandbox };
  // The other workspace folders are as writable for commands as the first.
  const sandboxSettings: SandboxSettings = opts.folders?.length
    ? { ...userSandbox, paths: [...(userSandbox.paths ?? []), ...opts.folders.map((path) => ({ path: resolve(path), mode: "rw" as const }))] }
    : userSandbox;
  // Hooks are code the user (or a trusted workspace) chose, but what they process was written by
  // the agent (a formatter loads the prettier.config.cjs the model wrote): they run confined, in the
  // sandbox of the session's commands, unless the user's own settings opt one out (hook-sandbox.ts;
  // mergeSettings drops workspace hooks in an untrusted workspace).
  const hookExecFor = (session: { id: string }, transcriptPath: string) =>
    createNodeHookRunner({
      sandbox: createHookSandbox({
        workspace: cwd,
        settings: sandboxSettings,
        quarantineDir: join(commandLogDir(opts.sessionDir, session.id), "quarantine"),
        protection: () => gate.sandboxProtection(),
        readable: () => [transcriptPath],
        home,
        ...(sandboxProblem ? { problem: `the sandbox settings cannot be used: ${sandboxProblem}` } : {}),
      }),
    });
  const toolShape = claudeToolShape(opts.tools ?? createBuiltinTools(), cwd);
  return {
    gate,
    sandboxSettings,
    syntax: createSyntaxChecker(nodeGrammarWasm(opts.wasmDirs)),
    access: { deniedBy: (permission, abs) => gate.deniedBy(permission, abs) },
    sessionOptions: {
      gate,
      hooks: (session) => {
        const transcript = createClaudeTranscriptWriter({
          logPath: sessionLogPath(opts.sessionDir, session.id),
          path: join(opts.sessionDir, "transcripts", `${session.id}.jsonl`),
          toolShape,
        });
        return createHookRunner({
          // The settings' hooks, and a custom agent's own in its session (session.extraHooks).
          hooks: async () => [...(await gate.settings()).hooks, ...(session.extraHooks ?? [])],
          runner: hookExecFor(session, transcript.path),
          sandbox: sandboxSettings.hooks ?? "on",
          bus: opts.bus,
          cwd,
          sessionId: session.id,
          transcriptPath: transcript.path,
          transcript,
          // What a hook is handed of a file (Cursor's beforeReadFile content, an edit's old text):
          // never a file the gate keeps from the model (a Read deny rule, another agent's ignore
          // file), since a hook's answer reaches the model.
          readText: async (path) => ((await gate.deniedBy("Read", path)) === null ? readFile(path, "utf8").catch(() => undefined) : undefined),
          log: opts.log,
        });
      },
    },
    commands(session) {
      // In Restricted Mode nothing runs, so no runner (and no sandbox check) is made.
      if (!opts.trusted) return {};
      if (sandboxProblem) return { commandsUnavailable: `Commands cannot run: ${sandboxProblem}` };
      try {
        return {
          commands: createSessionCommandRunner({
            workspace: cwd,
            sessionDir: opts.sessionDir,
            sessionId: session.id,
            settings: sandboxSettings,
            env: opts.env,
            protectionView: protectionView(() => gate.sandboxProtection(), opts.log),
            launcher: opts.launcher?.(session),
          }),
        };
      } catch (err) {
        // The chosen sandbox is missing: say so and what to install; never fall back to no sandbox.
        if (!(err instanceof SandboxUnavailableError)) throw err;
        opts.log?.warn(err.message);
        return { commandsUnavailable: `Commands cannot run: ${err.message}` };
      }
    },
  };
}

/**
 * The other folders of a multi-root workspace, as the workspace itself for the permission rules:
 * the user opened them, so they count like permissions.additionalDirectories from the user.
 */
function workspaceFolderSources(cwd: string, folders: string[]): LoadedSource[] {
  if (folders.length === 0) return [];
  return [{ info: { kind: "vscode", label: "VS Code workspace folders", baseDir: cwd }, value: { permissions: { additionalDirectories: folders.map((f) => resolve(f)) } } }];
}

/** A tool call as Claude Code logs it: the permission name (Bash, Edit…) and the hook input. */
function claudeToolShape(tools: ToolDefinition[], cwd: string): ClaudeToolShape {
  const byName = new Map(tools.map((t) => [t.name, t]));
  return (name, input) => {
    const def = byName.get(name);
    if (!def) return { name, input };
    const parsed = def.schema.safeParse(input);
    return { name: def.hookName ?? def.permission, input: parsed.success ? absolutePaths(def.hookInput(parsed.data as never), cwd) : input };
  };
}
