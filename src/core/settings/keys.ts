/**
 * Every settings key Yoke reads, validated (zod) and merged from layers that each know their
 * origin (src/core/settings/origin.ts), with one rule per key for what a project origin may do.
 * Project origins can only tighten: a lower limit, fewer fallback models, a stricter strategy.
 * A value that would loosen is not used and is reported; so is an unknown key or an invalid value
 * (with the file and the key) — nothing is dropped silently. The table in docs/security.md
 * ("What a repository may set") is this file's RULES in words.
 *
 * Keys other mechanisms read with their own trust rules (`permissions`, `hooks`, `mcpServers`,
 * the MCP approvals, `verification`) are known here and passed through as layers.
 */
import * as z from "zod/mini";
import { en } from "zod/v4/locales";
import { parseArchitectSettings } from "../architect";
import { parseFallbackSpec } from "../fallback";
import { parseTelemetrySettings } from "../telemetry/settings";
import { mayLoosen, type SettingsOrigin } from "./origin";

/** One source of settings: a file, or the VS Code configuration of one scope. */
export interface SettingsLayer {
  /** Shown in problems and "from": "~/.yoke/settings.json", ".yoke/settings.json", "VS Code workspace settings". */
  label: string;
  /** The file's absolute path (problems name it), absent for VS Code scopes. */
  path?: string;
  origin: SettingsOrigin;
  /** What wrote it: a Yoke settings file, a Claude Code settings file, or the VS Code configuration (keys are `yoke.KEY`). */
  format: "yoke" | "claude" | "vscode";
  /** The source's kind (permissions/types.ts SettingsSourceInfo kind), for mechanisms that order layers their own way. */
  kind?: string;
  value: Record<string, unknown>;
}

export interface SettingsProblem {
  /** The file (path) or VS Code scope. */
  file: string;
  /** The key (`budgets.maxTurns`), absent for a problem of the whole file. */
  key?: string;
  message: string;
  /** The file could not be read or parsed (the permission engine reports these for its files too). */
  fileLevel?: boolean;
  /** The value is invalid (not merely one a project may not set). */
  invalid?: boolean;
}

/** A value and where it came from. */
export interface Valued<T> {
  value: T;
  origin: SettingsOrigin;
  /** The layer's label. */
  from: string;
}

/** How a project origin may set a field. */
type Tighten =
  /** Only the user's own origins (a project's value is ignored). */
  | "user-only"
  /** A project value counts only when it is lower than the value so far (a limit). */
  | "lower"
  /** A project value counts when it is earlier in `order` than the value so far (e.g. extractive before llm). */
  | { order: readonly string[] }
  /** A project may set it (changes nothing the user relies on: a UI preference). */
  | "any";

interface FieldRule {
  schema: z.ZodMiniType;
  tighten: Tighten;
  default?: unknown;
}

/** A key whose value is an object of independent fields, each merged with its own rule. */
interface ObjectKey {
  kind: "fields";
  fields: Record<string, FieldRule>;
  /** Shown when the value is not an object. */
  shape: string;
}
/** A key merged as one value. */
interface ValueKey {
  kind: "value";
  schema: z.ZodMiniType;
  tighten: Tighten | "subset";
  /** The value when no layer sets it (what a project's "lower" compares with). */
  default?: unknown;
}
/** A key another mechanism reads with its own trust rules (the permission gate, MCP, verification). */
interface EngineKey {
  kind: "engine";
  by: string;
}
type KeyRule = ObjectKey | ValueKey | EngineKey;

// zod/mini (the same checks and, with the English messages below, the same texts as zod) keeps
// the activation bundle small: the panel's settings are read when the extension activates.
z.config(en());
const positiveInt = z.int().check(z.positive());
const positive = z.number().check(z.positive());
const intBetween = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));
const modelSpec = z.string().check(
  z.trim(),
  z.minLength(1, "a model name is expected"),
  z.superRefine((s, ctx) => {
    try {
      parseFallbackSpec(s);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
    }
  }),
);
/** Wraps one of the mechanisms' own parsers (which throw with a clear message) as a schema. */
const checkedBy = (parse: (v: unknown, where: string) => unknown) =>
  z.unknown().check(
    z.superRefine((v, ctx) => {
      try {
        parse(v, "");
      } catch (err) {
        // The parser's message follows the key (`.editorModel must …`, ` must be an object …`).
        ctx.addIssue({ code: "custom", message: err instanceof Error ? err.message : String(err) });
      }
    }),
  );
const object = z.record(z.string(), z.unknown());

/** Every key Yoke reads from its own settings files and (as `yoke.KEY`) from VS Code. */
export const RULES: Record<string, KeyRule> = {
  permissions: { kind: "engine", by: "the permission engine" },
  hooks: { kind: "engine", by: "the hooks" },
  disableAllHooks: { kind: "engine", by: "the hooks" },
  allowManagedHooksOnly: { kind: "engine", by: "the hooks" },
  allowManagedPermissionRulesOnly: { kind: "engine", by: "the permission engine" },
  mcpServers: { kind: "engine", by: "MCP (a project's servers start only once approved)" },
  enableAllProjectMcpServers: { kind: "engine", by: "MCP approvals" },
  enabledMcpjsonServers: { kind: "engine", by: "MCP approvals" },
  disabledMcpjsonServers: { kind: "engine", by: "MCP approvals" },
  enabledPlugins: { kind: "engine", by: "plugins (yoke plugins; a workspace's count only in a trusted folder)" },
  extraKnownMarketplaces: { kind: "engine", by: "plugins (yoke plugins install NAME@MARKETPLACE adds the marketplace)" },
  outputStyle: { kind: "engine", by: "output styles (the style a session starts with)" },
  verification: { kind: "engine", by: "verification (a project's commands run only as the permission rules allow)" },
  $schema: { kind: "engine", by: "editors" },
  budgets: {
    kind: "fields",
    shape: '{"maxTurns": N, "maxCostUsd": USD, "maxTimeS": S}',
    fields: { maxTurns: { schema: positiveInt, tighten: "lower" }, maxCostUsd: { schema: positive, tighten: "lower" }, maxTimeS: { schema: positive, tighten: "lower" } },
  },
  compaction: {
    kind: "fields",
    shape: '{"threshold": 0.8, "strategy": "extractive"}',
    fields: {
      // 1..100 is read as a percentage, as the compaction settings always did.
      threshold: {
        schema: z.pipe(
          z.number().check(z.gt(0), z.lte(100)),
          z.transform((t: number) => (t > 1 ? t / 100 : t)),
        ),
        tighten: "lower",
        default: 0.8,
      },
      strategy: { schema: z.enum(["extractive", "llm"]), tighten: { order: ["extractive", "llm"] }, default: "extractive" },
      model: { schema: z.string().check(z.trim(), z.minLength(1)), tighten: "user-only" },
    },
  },
  subagents: {
    kind: "fields",
    shape: '{"maxDepth": 2, "maxConcurrent": 3}',
    fields: {
      maxDepth: { schema: intBetween(0, 5), tighten: "lower", default: 2 },
      maxConcurrent: { schema: intBetween(1, 16), tighten: "lower", default: 3 },
      maxTurns: { schema: intBetween(1, 500), tighten: "lower" },
    },
  },
  worktrees: {
    kind: "fields",
    shape: '{"copy": [".env"], "link": ["node_modules"], "setup": "npm ci"}',
    fields: {
      // Background agents' worktrees (src/node/background): ignored files a task needs, copied or
      // linked from the repository (paths inside it only), and a setup command, which runs only as
      // the permission gate allows a run_command and in the sandbox.
      copy: { schema: z.array(z.string()), tighten: "any" },
      link: { schema: z.array(z.string()), tighten: "any" },
      setup: { schema: z.string().check(z.trim(), z.minLength(1)), tighten: "any" },
    },
  },
  agents: {
    kind: "fields",
    shape: '{"maxConcurrent": 3}',
    fields: {
      // Background agents running at once per workspace; the others wait in a queue.
      maxConcurrent: { schema: intBetween(1, 16), tighten: "lower", default: 3 },
    },
  },
  edits: {
    kind: "fields",
    shape: '{"tool": "auto", "applyPatchFreeform": "auto"}',
    fields: {
      // Which edit tool the model is offered (docs/edits.md): a preference, not a permission.
      tool: { schema: z.enum(["auto", "edit_file", "apply_patch"]), tighten: "any", default: "auto" },
      // apply_patch as a freeform (custom, grammar-constrained) tool: auto (where the provider has them), on, off.
      applyPatchFreeform: { schema: z.enum(["auto", "on", "off"]), tighten: "any", default: "auto" },
    },
  },
  guidance: {
    kind: "fields",
    shape: '{"maxTokens": 40000, "firstRequestTokens": 16000}',
    fields: {
      // docs/guidance.md "The budget": what rules, memory, lists and lessons Yoke adds on its own may take.
      maxTokens: { schema: intBetween(0, 1_000_000), tighten: "lower", default: 40_000 },
      firstRequestTokens: { schema: intBetween(0, 1_000_000), tighten: "lower", default: 16_000 },
    },
  },
  fallbackModels: { kind: "value", schema: z.array(modelSpec), tighten: "subset" },
  architect: { kind: "value", schema: checkedBy(parseArchitectSettings), tighten: "user-only" },
  telemetry: { kind: "value", schema: checkedBy(parseTelemetrySettings), tighten: "user-only" },
  sandbox: { kind: "value", schema: object, tighten: "user-only" },
};

/** Keys only the VS Code configuration has (`yoke.KEY`). */
export const VSCODE_RULES: Record<string, KeyRule> = {
  provider: { kind: "value", schema: z.enum(["anthropic", "openai", "openai-compatible", "vscode-lm"]), tighten: "any" },
  model: { kind: "value", schema: z.string(), tighten: "any" },
  // A repository must not send the requests, and the API key with them, to a server of its choosing.
  baseUrl: { kind: "value", schema: z.string(), tighten: "user-only" },
  stream: { kind: "value", schema: z.boolean(), tighten: "any" },
  maxTurns: { kind: "value", schema: positiveInt, tighten: "lower", default: 50 },
  demoLabel: { kind: "value", schema: z.string(), tighten: "user-only" },
  sessionDir: { kind: "value", schema: z.string(), tighten: "user-only" },
  permissionMode: { kind: "engine", by: "the permission mode (a workspace may choose only a stricter one)" },
  review: { kind: "value", schema: object, tighten: "any" },
};

/** Yoke's keys, as they are read from a Claude Code settings file (only the permission, hook and MCP keys are). */
const CLAUDE_READ = new Set([
  "permissions",
  "hooks",
  "disableAllHooks",
  "allowManagedHooksOnly",
  "allowManagedPermissionRulesOnly",
  "enableAllProjectMcpServers",
  "enabledMcpjsonServers",
  "disabledMcpjsonServers",
  "$schema",
]);

export interface MergedSettings {
  /** Each object key's fields, each with its origin (fields absent when no layer set them). */
  budgets: { maxTurns?: Valued<number>; maxCostUsd?: Valued<number>; maxTimeS?: Valued<number> };
  compaction: { threshold?: Valued<number>; strategy?: Valued<"extractive" | "llm">; model?: Valued<string> };
  subagents: { maxDepth?: Valued<number>; maxConcurrent?: Valued<number>; maxTurns?: Valued<number> };
  edits: { tool?: Valued<"auto" | "edit_file" | "apply_patch">; applyPatchFreeform?: Valued<"auto" | "on" | "off"> };
  guidance: { maxTokens?: Valued<number>; firstRequestTokens?: Valued<number> };
  worktrees: { copy?: Valued<string[]>; link?: Valued<string[]>; setup?: Valued<string> };
  agents: { maxConcurrent?: Valued<number> };
  fallbackModels?: Valued<string[]>;
  architect?: Valued<unknown>;
  telemetry?: Valued<unknown>;
  sandbox?: Valued<Record<string, unknown>>;
  /** VS Code-only keys (`yoke.KEY`). */
  vscode: {
    provider?: Valued<string>;
    model?: Valued<string>;
    baseUrl?: Valued<string>;
    stream?: Valued<boolean>;
    maxTurns?: Valued<number>;
    demoLabel?: Valued<string>;
    sessionDir?: Valued<string>;
    review?: Valued<Record<string, unknown>>;
  };
  problems: SettingsProblem[];
  /** Keys whose value in some layer could not be used because it is invalid (the caller may refuse to start: a mistyped budget must not mean no budget). */
  invalid: Set<string>;
}

export interface MergeOptions {
  /** The folder is trusted: project-local files count as the user's only then. */
  trusted: boolean;
}

const keyName = (layer: SettingsLayer, key: string) => (layer.format === "vscode" ? `yoke.${key}` : key);

/** The values of the VS Code configuration whose keys contain dots (`budgets.maxCostUsd`) as nested objects. */
export function nestVscodeKeys(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flat)) {
    if (v === undefined) continue;
    const [head, ...rest] = k.split(".");
    if (!rest.length) {
      out[head!] = isObject(v) && isObject(out[head!]) ? { ...(out[head!] as object), ...v } : v;
      continue;
    }
    const inner = (isObject(out[head!]) ? out[head!] : (out[head!] = {})) as Record<string, unknown>;
    inner[rest.join(".")] = v;
  }
  return out;
}

/**
 * Merges the layers (lowest priority first). A later layer's field replaces an earlier one's, as
 * far as its origin may: a project origin (and a project-local one in a folder that is not
 * trusted) may only tighten, by the field's rule.
 */
export function mergeLayers(layers: readonly SettingsLayer[], opts: MergeOptions): MergedSettings {
  const out: MergedSettings = { budgets: {}, compaction: {}, subagents: {}, edits: {}, guidance: {}, worktrees: {}, agents: {}, vscode: {}, problems: [], invalid: new Set() };
  const values = new Map<string, Valued<unknown>>();
  const problem = (layer: SettingsLayer, key: string | undefined, message: string, invalid = false) =>
    out.problems.push({
      ...(invalid ? { invalid: true } : {}),
      file: layer.path ?? layer.label,
      ...(key ? { key: keyName(layer, key) } : {}),
      message: key ? `${keyName(layer, key)}${/^[. ]/.test(message) ? "" : ": "}${message}` : message,
    });

  for (const layer of layers) {
    const loosen = mayLoosen(layer.origin, opts.trusted);
    const why = projectWhy(layer, opts.trusted);
    for (const [key, raw] of Object.entries(layer.value)) {
      if (raw === undefined) continue;
      const rule = layer.format === "vscode" ? (VSCODE_RULES[key] ?? RULES[key]) : RULES[key];
      if (layer.format === "claude") {
        // Claude Code's own keys are Claude Code's business; Yoke's keys belong in Yoke's files.
        if (rule && rule.kind !== "engine" && !CLAUDE_READ.has(key) && key !== "sandbox") {
          problem(layer, key, `is a Yoke setting, and Yoke reads it only from its own settings files (~/.yoke/settings.json, .yoke/settings.json); it is ignored here`);
        }
        continue;
      }
      if (!rule) {
        const known = Object.keys(layer.format === "vscode" ? { ...RULES, ...VSCODE_RULES } : RULES).filter((k) => k !== "$schema");
        problem(layer, key, `is not a setting Yoke knows; it is ignored (known: ${known.join(", ")})`);
        continue;
      }
      if (rule.kind === "engine") continue;
      if (rule.kind === "value") {
        const parsed = rule.schema.safeParse(raw);
        if (!parsed.success) {
          out.invalid.add(key);
          problem(layer, key, `${issueText(parsed.error)}; it is ignored`, true);
          continue;
        }
        const id = layer.format === "vscode" && VSCODE_RULES[key] ? `vscode.${key}` : key;
        setValue(values, id, parsed.data, layer, loosen, rule.tighten, why, (m) => problem(layer, key, m), rule.default);
        continue;
      }
      if (!isObject(raw)) {
        out.invalid.add(key);
        problem(layer, key, `must be an object like ${rule.shape}; it is ignored`, true);
        continue;
      }
      for (const [field, v] of Object.entries(raw)) {
        const f = rule.fields[field];
        const name = `${key}.${field}`;
        if (!f) {
          problem(layer, name, `is not a setting Yoke knows; it is ignored (known: ${Object.keys(rule.fields).join(", ")})`);
          continue;
        }
        if (v === undefined || v === null) continue;
        const parsed = f.schema.safeParse(v);
        if (!parsed.success) {
          out.invalid.add(key);
          problem(layer, name, `${issueText(parsed.error)} (got ${JSON.stringify(v)}); ${f.default !== undefined ? `the default ${JSON.stringify(f.default)} applies` : "it is ignored"}`, true);
          continue;
        }
        setValue(values, name, parsed.data, layer, loosen, f.tighten, why, (m) => problem(layer, name, m), f.default);
      }
    }
  }
  const get = <T>(id: string) => values.get(id) as Valued<T> | undefined;
  for (const [key, rule] of Object.entries(RULES)) {
    if (rule.kind === "fields") {
      const target = out[key as "budgets" | "compaction" | "subagents" | "edits" | "guidance" | "worktrees" | "agents"] as Record<string, Valued<unknown>>;
      for (const field of Object.keys(rule.fields)) {
        const v = get(`${key}.${field}`);
        if (v) target[field] = v;
      }
    } else if (rule.kind === "value") {
      const v = get(key);
      if (v) (out as unknown as Record<string, unknown>)[key] = v;
    }
  }
  for (const key of Object.keys(VSCODE_RULES)) {
    const v = get(`vscode.${key}`);
    if (v) (out.vscode as Record<string, unknown>)[key] = v;
  }
  return out;
}

function setValue(
  values: Map<string, Valued<unknown>>,
  id: string,
  value: unknown,
  layer: SettingsLayer,
  loosen: boolean,
  tighten: Tighten | "subset",
  why: string,
  report: (message: string) => void,
  fallback?: unknown,
): void {
  const next: Valued<unknown> = { value, origin: layer.origin, from: layer.label };
  const prev = values.get(id);
  if (loosen || tighten === "any") {
    values.set(id, next);
    return;
  }
  const current = prev?.value ?? fallback;
  if (tighten === "user-only") {
    report(`is ignored because ${why}; a repository may not set it — put it in your own settings (~/.yoke/settings.json or VS Code user settings)`);
    return;
  }
  if (tighten === "lower") {
    if (current === undefined || (value as number) <= (current as number)) values.set(id, next);
    else report(`${JSON.stringify(value)} is ignored because ${why}, and a repository may only lower it (yours: ${JSON.stringify(current)})`);
    return;
  }
  if (tighten === "subset") {
    const mine = (prev?.value as string[] | undefined) ?? [];
    const list = value as string[];
    const kept = list.filter((m) => mine.includes(m));
    const dropped = list.filter((m) => !mine.includes(m));
    if (dropped.length)
      report(
        `${dropped.map((m) => JSON.stringify(m)).join(", ")} ${dropped.length === 1 ? "is" : "are"} ignored because ${why}, and a repository may only remove fallback models you configured, not add any`,
      );
    values.set(id, { ...next, value: kept });
    return;
  }
  const order = tighten.order;
  if (current === undefined || order.indexOf(value as string) <= order.indexOf(current as string)) values.set(id, next);
  else
    report(
      `${JSON.stringify(value)} is ignored because ${why}, and a repository may only choose a stricter value (${order
        .slice(0, order.indexOf(current as string) + 1)
        .map((o) => JSON.stringify(o))
        .join(" or ")})`,
    );
}

function projectWhy(layer: SettingsLayer, trusted: boolean): string {
  if (layer.origin === "project-local" && !trusted) return `${layer.label} is in a folder you have not trusted`;
  if (layer.format === "vscode") return `VS Code workspace settings come with the repository`;
  return `${layer.label} comes with the repository`;
}

function issueText(error: z.core.$ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid value";
  const at = first.path.length ? `[${first.path.join("][")}] ` : "";
  return `${at}${first.message}`.replace(/^Invalid input: /, "");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The plain values of an object key (`{maxTurns: 3}`) without their origins. */
export function plain<T extends Record<string, Valued<unknown> | undefined>>(fields: T): { [K in keyof T]?: NonNullable<T[K]>["value"] } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v) out[k] = v.value;
  return out as { [K in keyof T]?: NonNullable<T[K]>["value"] };
}
