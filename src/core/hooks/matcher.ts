/**
 * Which hook groups apply to an event, as Claude Code decides it: `"*"`, `""` or no matcher match
 * every occurrence; a matcher of only letters, digits, `_`, `-`, spaces, commas and `|` is an
 * exact name or a list of exact names (`Edit|Write`, `Edit, Write`); anything else is an
 * unanchored JavaScript regular expression (`mcp__serena__.*`, `Edit.*`, `^Bash$`). The value it
 * is tested against depends on the event (EVENT_TRAITS.matcherField); events without a matcher
 * ignore it. Also: the per-handler `if` condition (permission-rule syntax).
 */
import { EVENT_TRAITS, type HookEventName } from "./events";
import type { HookEventFields } from "./types";

const EXACT = /^[A-Za-z0-9_\-\s,|]+$/;

export interface CompiledMatcher {
  test(target: string): boolean;
  /** The matcher is neither an exact list nor a valid regular expression: it matches nothing. */
  invalid?: boolean;
}

const cache = new Map<string, CompiledMatcher>();
const ALL: CompiledMatcher = { test: () => true };

export function compileMatcher(matcher: string | undefined | null): CompiledMatcher {
  const m = (matcher ?? "").trim();
  if (m === "" || m === "*") return ALL;
  let c = cache.get(m);
  if (c) return c;
  if (EXACT.test(m)) {
    const names = new Set(
      m
        .split(/[|,]/)
        .map((s) => s.trim())
        .filter(Boolean),
    );
    c = names.size ? { test: (t) => names.has(t) } : ALL;
  } else {
    try {
      const re = new RegExp(m);
      c = { test: (t) => re.test(t) };
    } catch {
      c = { test: () => false, invalid: true };
    }
  }
  if (cache.size > 500) cache.clear();
  cache.set(m, c);
  return c;
}

/** The value an event's matcher is tested against, or undefined when the event has no matcher. */
export function matcherTarget(event: HookEventName, fields: HookEventFields): string | undefined {
  const field = EVENT_TRAITS[event]?.matcherField;
  if (!field) return undefined;
  const v = fields[field];
  return typeof v === "string" ? v : "";
}

/** Does a group's matcher accept this occurrence? Always true for events without matchers. */
export function matcherMatches(matcher: string | undefined, target: string | undefined): boolean {
  if (target === undefined) return true;
  return compileMatcher(matcher).test(target);
}

/**
 * Decides a hook's `if` condition: a permission rule (`Bash(git *)`, `Edit(*.ts)`) against the
 * tool call. Provided by the permission gate when it can; `defaultIfMatcher` otherwise.
 */
export type HookIfMatcher = (rule: string, toolName: string, toolInput: Record<string, unknown>) => boolean | Promise<boolean>;

/**
 * A small matcher for `if` conditions, erring on the side of running the hook (a guard that does
 * not run fails open): `Tool` and `Tool(*)` match every call of that tool; for Bash the
 * specifier (`git *`, `git:*`, `npm run test`, `* --force *`) is tried against every simple
 * command of the line, and a command it cannot split confidently (substitutions, `eval`,
 * `sh -c`, a command name only known at run time) matches; for file tools the specifier is a
 * glob over the path (`*.ts` at any depth, `src/**`, `/abs/**`); other tools: any string field.
 */
export function defaultIfMatcher(rule: string, toolName: string, toolInput: Record<string, unknown>): boolean {
  const m = /^([^()\s]+)\s*(?:\((.*)\))?\s*$/s.exec(rule.trim());
  if (!m) return true; // not a rule we can read: run the hook
  const tool = m[1]!;
  const spec = m[2]?.trim();
  if (!toolMatches(tool, toolName)) return false;
  if (spec === undefined || spec === "" || spec === "*") return true;
  const command = toolInput.command;
  if (typeof command === "string") return bashMatches(spec, command);
  const path = [toolInput.file_path, toolInput.notebook_path, toolInput.path].find((v): v is string => typeof v === "string");
  if (path !== undefined) return pathMatches(spec, path);
  return Object.values(toolInput).some((v) => typeof v === "string" && wildcard(spec).test(v));
}

function toolMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName || ruleTool === "*") return true;
  // mcp__server matches every tool of that server; mcp__server__* too.
  if (ruleTool.startsWith("mcp__")) {
    const base = ruleTool.replace(/__\*$/, "");
    return toolName.startsWith(`${base}__`);
  }
  return false;
}

/** `*` matches anything (also across spaces and slashes). */
function wildcard(spec: string): RegExp {
  const body = spec
    .split("*")
    .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

function bashMatches(spec: string, command: string): boolean {
  // Substitutions, eval and nested shells hide what runs: run the hook.
  if (/`|\$\(|<\(|>\(|\beval\b|\b(?:ba|z|da)?sh\s+-c\b|\bxargs\b/.test(command)) return true;
  let prefix: string | undefined;
  if (spec.endsWith(":*")) prefix = spec.slice(0, -2).trim();
  else if (/ \*$/.test(spec) && !spec.slice(0, -2).includes("*")) prefix = spec.slice(0, -2).trim();
  const re = prefix === undefined && spec.includes("*") ? wildcard(spec.replace(/\s+/g, " ")) : undefined;
  for (const raw of command.split(/&&|\|\||[;|&\n]/)) {
    let words = raw
      .trim()
      .replace(/^[({!\s]+/, "")
      .replace(/[)}\s]+$/, "")
      .split(/\s+/)
      .filter(Boolean);
    while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) words = words.slice(1);
    while (words.length && ["sudo", "command", "exec", "time", "nice", "nohup", "env"].includes(words[0]!)) words = words.slice(1);
    if (words.length === 0) continue;
    if (words[0]!.startsWith("$")) return true;
    const text = words.map((w) => w.replace(/^['"]|['"]$/g, "")).join(" ");
    if (prefix !== undefined) {
      if (text === prefix || text.startsWith(`${prefix} `) || (spec.endsWith(":*") && text.startsWith(prefix))) return true;
    } else if (re) {
      if (re.test(text)) return true;
    } else if (text === spec.replace(/\s+/g, " ")) return true;
  }
  return false;
}

/** Gitignore-like: no slash in the pattern matches the name at any depth; `**` crosses folders. */
function pathMatches(spec: string, path: string): boolean {
  const p = path.replace(/\\/g, "/");
  let pattern = spec.replace(/\\/g, "/");
  if (pattern.startsWith("./")) pattern = pattern.slice(2);
  if (pattern.startsWith("//")) pattern = pattern.slice(1);
  const re = new RegExp(
    `^${pattern
      .split(/(\*\*\/?|\*|\?)/)
      .map((part) => (part === "**/" ? "(?:.*/)?" : part === "**" ? ".*" : part === "*" ? "[^/]*" : part === "?" ? "[^/]" : part.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
      .join("")}$`,
  );
  const unanchored = !pattern.includes("/");
  const candidates = unanchored ? [p.split("/").pop() ?? p] : [p];
  if (pattern.startsWith("/")) return re.test(p) || candidates.some((c) => re.test(c));
  // Relative patterns are relative to the workspace; the hook input holds absolute paths, so try every suffix.
  const segs = p.split("/");
  for (let i = 0; i < segs.length; i++) candidates.push(segs.slice(i).join("/"));
  return candidates.some((c) => re.test(c));
}
