/**
 * The permission check of one tool call against a folder's settings files: what
 * `yoke permissions check` prints, the permission corpus (src/bench/permissions-corpus.ts) and its
 * tests run, and the gate `yoke lessons` and `yoke sandbox` read the folder's rules with.
 */
import { nodeGitObjectPaths } from "./git-object-paths";
import { nodeGitCheckoutTarget } from "./git-checkout-target";
import { nodeGitRunsFrom } from "./git-runs-from";
import { packageManagerFolders } from "./commands/new-repositories";
import { nodeNpmConfig } from "./npm-config";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { createPermissionGate, type YokePermissionGate } from "../core/permissions/gate";
import type { PermissionDecision, PermissionMode } from "../core/loop/types";
import { YOKE_TOOL_NAMES } from "../core/permissions/rule-syntax";
import { probeCaseInsensitive } from "./fs-probes";
import { loadSettingsSources, nodeListDir, nodeReadLink, nodeIsExecutable, nodeReadText, nodeRealPath } from "./settings/files";
import { loadShellWasm } from "./tree-sitter-wasm";

export interface CheckOptions {
  tool: string;
  input: Record<string, unknown>;
  cwd: string;
  home?: string;
  mode?: PermissionMode;
  settings?: string[];
  trusted?: boolean;
  /** Claude Code's managed settings folder (default the platform's; null: none). */
  managedDir?: string | null;
}

export interface CheckResult {
  decision: PermissionDecision;
  mode: PermissionMode;
  problems: string[];
}

const READ_ONLY_PERMISSIONS = new Set(["Read", "Glob", "Grep", "TodoWrite", "Task", "Skill"]);

/** The permission gate of a folder as its settings files set it (`permissions check`, `sandbox exec`, `lessons`). */
export function folderGate(opts: Pick<CheckOptions, "cwd" | "home" | "settings" | "trusted" | "managedDir">): YokePermissionGate {
  const cwd = resolve(opts.cwd);
  const home = opts.home ? resolve(opts.home) : homedir();
  return createPermissionGate({
    cwd,
    home,
    realPath: nodeRealPath,
    readLink: nodeReadLink,
    // The command path commands get: a home's installs on it are protected as the sandbox keeps them.
    searchPath: process.env.PATH ?? "",
    isExecutable: nodeIsExecutable,
    // In an agent's worktree, the person's local files of its workspace apply too (loadSettingsSources finds them), as in the agent's own sessions.
    loadSources: async () => loadSettingsSources({ cwd, home, extraFiles: opts.settings, managedDir: opts.managedDir }),
    shellWasm: () => loadShellWasm(),
    trusted: opts.trusted,
    listDir: nodeListDir,
    readText: nodeReadText,
    caseInsensitive: async () => probeCaseInsensitive(cwd),
    gitObjectPaths: nodeGitObjectPaths,
    gitCheckoutTarget: nodeGitCheckoutTarget,
    gitRunsFrom: nodeGitRunsFrom,
    nestedConfigs: async (root) => packageManagerFolders(root),
    npmConfig: nodeNpmConfig(),
  });
}

/** The check behind `yoke permissions check` (also the permission corpus). */
export async function checkPermission(opts: CheckOptions): Promise<CheckResult> {
  const gate = folderGate(opts);
  // Yoke's tool names are accepted in place of permission names (the table the rule syntax uses).
  const permission = Object.hasOwn(YOKE_TOOL_NAMES, opts.tool) ? YOKE_TOOL_NAMES[opts.tool]! : opts.tool;
  const mode = opts.mode ?? (await gate.defaultMode());
  const decision = await gate.check({ tool: opts.tool, permission, input: opts.input, mutates: !READ_ONLY_PERMISSIONS.has(permission) }, mode);
  return { decision, mode, problems: (await gate.problems()).map((p) => p.message) };
}

/** The decision as `yoke permissions check --json` prints it. */
export function decisionJson(result: CheckResult): { decision: string; rule: string | null; reason: string; by: string; mode: PermissionMode; confine?: PermissionDecision["confine"] } {
  const { decision } = result;
  return { decision: decision.decision, rule: decision.rule ?? null, reason: decision.reason, by: decision.by, mode: result.mode, ...(decision.confine ? { confine: decision.confine } : {}) };
}
