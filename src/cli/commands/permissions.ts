/**
 * `yoke permissions check --tool NAME --input JSON [--cwd DIR] [--mode MODE] [--settings FILE]... [--json]`
 * Prints the decision; exit 0 whenever the check ran (also for deny), 2 for bad usage.
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { PERMISSION_MODES } from "../../core/permissions/merge-settings";
import type { PermissionMode } from "../../core/loop/types";
import { checkPermission, decisionJson } from "../../node/permission-check";
import { parse, UsageError } from "../args";
import { warn } from "../printable";
import { printable, printableJson } from "../../core/printable";

type Out = { out: (s: string) => void; err: (s: string) => void };
const stdio: Out = { out: (s) => process.stdout.write(s), err: (s) => warn(s) };

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
  // Problems and the decision quote the repository's settings and the command: every control character shown.
  for (const p of result.problems) io.err(printable(`warning: ${p}\n`));
  const { decision } = result;
  if (values.json) io.out(printableJson(decisionJson(result), 2) + "\n");
  else io.out(printable(`${decision.decision}${decision.rule ? ` (rule ${decision.rule})` : ""}: ${decision.reason}\n`));
  return 0;
}
