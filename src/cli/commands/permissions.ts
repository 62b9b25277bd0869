/**
 * `yoke permissions check --tool NAME --input JSON [--cwd DIR] [--mode MODE] [--settings FILE]... [--json]`
 * Prints the decision; exit 0 whenever the check ran (also for deny), 2 for bad usage.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { createPermissionGate, type YokePermissionGate } from "../../core/permissions/gate";
import { PERMISSION_MODES } from "../../core/permissions/merge-settings";
import type { PermissionDecision, PermissionMode } from "../../core/loop/types";
import { loadSettingsSources, nodeRealPath } from "../../node/settings/files";
import { loadShellWasm } from "../../node/tree-sitter-wasm";
import { probeCaseInsensitive } from "../../node/fs-probes";
import { nodeListDir } from "../../node/settings/files";
import { YOKE_TOOL_NAMES } from "../../core/permissions/rule-syntax";
import { parse, UsageError } from "../args";

const READ_ONLY_PERMISSIONS = new Set(["Read", "Glob", "Grep", "TodoWrite", "Task", "Skill"]);

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

/** The permission gate of a folder as the CLI reads its settings (`permissions check`, `sandbox exec`). */
export function cliGate(opts: Pick<CheckOptions, "cwd" | "home" | "settings" | "trusted" | "managedDir">): YokePermissionGate {
  const cwd = resolve(opts.cwd);
  const home = opts.home ? resolve(opts.home) : homedir();
  return createPermissionGate({
    cwd,
    home,
    realPath: nodeRealPath,
    loadSources: async () => loadSettingsSources({ cwd, home, extraFiles: opts.settings, managedDir: opts.managedDir }),
    shellWasm: () => loadShellWasm(),
    trusted: opts.trusted,
    listDir: nodeListDir,
    caseInsensitive: async () => probeCaseInsensitive(cwd),
  });
}

/** The check behind the CLI (also used by the corpus test). */
export async function checkPermission(opts: CheckOptions): Promise<CheckResult> {
  const gate = cliGate(opts);
  // Yoke's tool names are accepted in place of permission names (the table the rule syntax uses).
  const permission = Object.hasOwn(YOKE_TOOL_NAMES, opts.tool) ? YOKE_TOOL_NAMES[opts.tool]! : opts.tool;
  const mode = opts.mode ?? (await gate.defaultMode());
  const decision = await gate.check({ tool: opts.tool, permission, input: opts.input, mutates: !READ_ONLY_PERMISSIONS.has(permission) }, mode);
  return { decision, mode, problems: (await gate.problems()).map((p) => p.message) };
}

type Out = { out: (s: string) => void; err: (s: string) => void };
const stdio: Out = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

export async function permissionsCommand(argv: string[], io: Out = stdio): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "check") throw new UsageError(`expected "check" (yoke permissions check --tool NAME --input JSON [--cwd DIR] [--mode MODE] [--settings FILE]...)`);
  const { values, positionals } = parse(
    rest,
    {
      tool: { type: "string" },
      input: { type: "string" },
      cwd: { type: "string" },
      mode: { type: "string" },
      settings: { type: "string", multiple: true },
      home: { type: "string" },
      "managed-dir": { type: "string" },
      untrusted: { type: "boolean" },
      json: { type: "boolean" },
    },
    true,
  );
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (!values.tool) throw new UsageError("--tool is required (a permission name such as Bash, Read, Edit)");
  if (values.input === undefined) throw new UsageError(`--input is required (the tool input as JSON, e.g. '{"command":"ls"}')`);
  let input: unknown;
  try {
    input = JSON.parse(values.input);
  } catch (err) {
    throw new UsageError(`--input is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new UsageError("--input must be a JSON object");
  if (values.mode !== undefined && !PERMISSION_MODES.includes(values.mode as PermissionMode)) throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(", ")} (got "${values.mode}")`);
  const cwd = resolve(values.cwd ?? ".");
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw new UsageError(`--cwd ${values.cwd}: no such folder`);
  for (const f of values.settings ?? []) if (!existsSync(resolve(f))) throw new UsageError(`--settings ${f}: no such file`);

  const result = await checkPermission({
    tool: values.tool,
    input: input as Record<string, unknown>,
    cwd,
    home: values.home,
    mode: values.mode as PermissionMode | undefined,
    settings: values.settings?.map((f) => resolve(f)),
    trusted: !values.untrusted,
    managedDir: values["managed-dir"] === undefined ? undefined : values["managed-dir"] === "" ? null : resolve(values["managed-dir"]),
  });
  for (const p of result.problems) io.err(`warning: ${p}\n`);
  const { decision } = result;
  if (values.json)
    io.out(
      JSON.stringify(
        { decision: decision.decision, rule: decision.rule ?? null, reason: decision.reason, by: decision.by, mode: result.mode, ...(decision.confine ? { confine: decision.confine } : {}) },
        null,
        2,
      ) + "\n",
    );
  else io.out(`${decision.decision}${decision.rule ? ` (rule ${decision.rule})` : ""}: ${decision.reason}\n`);
  return 0;
}
