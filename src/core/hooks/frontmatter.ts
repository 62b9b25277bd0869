/**
 * Claude Code's `hooks` in a command's, skill's or agent's front matter (the settings shape), read by
 * the hook engine's own reader. Who wrote the file decides what its hooks may do: a repository's
 * (`project`) count as checked in — they may block, never allow, and run only in a trusted
 * workspace, as the repository's other hooks; the user's as the user's. A plugin's do not run: a
 * plugin's programs run only from its hooks.json, once the user approved it.
 */
import type { HookGroupConfig, SettingsProblem } from "../permissions/types";
import { readHooks } from "./config";

export type FrontmatterHooksOwner = "project" | "user" | "plugin";

/** The hook groups of a file's `hooks` value, or undefined (with a note through `at`) when there are none to run. */
export function frontmatterHooks(raw: unknown, owner: FrontmatterHooksOwner, what: string, display: string, at: (message: string) => void): HookGroupConfig[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (owner === "plugin") {
    at(`not applied: "hooks" of a plugin's ${what} do not run (a plugin's hooks run from its hooks/hooks.json, once you approve the plugin)`);
    return undefined;
  }
  if (typeof raw !== "object" || Array.isArray(raw)) {
    at(`"hooks" must be a mapping of hook events to lists of {matcher, hooks} (as in settings.json); the ${what} runs without them`);
    return undefined;
  }
  const project = owner === "project";
  const problems: SettingsProblem[] = [];
  const label = `${display} (${what} hooks)`;
  const groups = readHooks(
    raw as Record<string, unknown>,
    { kind: project ? "claude" : "claude-user", label, baseDir: "", ...(project ? { checkedIn: true, checkedInWhy: `it is a ${what} file of the repository` } : {}) },
    problems,
  );
  const prefix = `${display} (${what} hooks): `;
  for (const p of problems) at(p.message.startsWith(prefix) ? p.message.slice(prefix.length) : p.message.replace(/^.*? \((?:command|skill) hooks\): /, ""));
  return groups.length ? groups : undefined;
}

/**
 * What a command's or skill's hook groups would run, as one string (their events, matchers, commands
 * and options; not their source: where they come from is decided again on resume, with the trust of then).
 */
export function hooksText(groups: readonly HookGroupConfig[]): string {
  return JSON.stringify(groups.map((g) => ({ event: g.event, matcher: g.matcher, hooks: g.hooks, ...(g.unsupported ? { unsupported: g.unsupported } : {}) })));
}

/**
 * The SHA-256 of hooksText, in hex: recorded in the session's log when the hooks are registered (the
 * `extension` event's `hooks`), so that a resumed session registers a file's hooks again only when
 * they are still the ones that ran (never a rewritten file's new ones). A digest, not the text: the
 * log does not get a copy of the hook commands.
 */
export async function hooksFingerprint(groups: readonly HookGroupConfig[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(hooksText(groups)));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A hook set registered for the rest of a session, as its log recorded it: the last record of each
 * key (a key is registered once per process and recorded only then, so the last record is the set
 * that held when the session stopped).
 */
export interface RecordedHooks {
  fingerprint: string;
  /** The extension that registered it. */
  by: string;
}

/** The hook sets a session's log says were registered, by key (see hooksFingerprint). */
export function recordedHooks(events: ReadonlyArray<{ type: string; name?: string; hooks?: { key: string; fingerprint: string } }>): Map<string, RecordedHooks> {
  const out = new Map<string, RecordedHooks>();
  for (const e of events) if (e.type === "extension" && e.hooks) out.set(e.hooks.key, { fingerprint: e.hooks.fingerprint, by: e.name ?? "" });
  return out;
}
