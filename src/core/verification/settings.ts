/**
 * The `verification` settings key (contract section 4: `verification {command, maxReflections}`,
 * extended by `lintCommand` and `timeoutS`). Parsed here, from the layers the host read (lowest
 * priority first): a later layer's key replaces an earlier one's.
 */
import { MAX_CONTINUATIONS } from "../loop/turn-loop";

export const DEFAULT_MAX_REFLECTIONS = 3;

export interface VerificationSettings {
  /** Run in the sandbox after the agent's edits, before it may finish; exit code 0 = passed. */
  command?: string;
  /** Failed checks sent back to the model before the user decides (default 3, at most MAX_CONTINUATIONS). */
  maxReflections: number;
  /**
   * Reports the problems of changed files where the host has no language servers (the CLI):
   * `{files}` is replaced by the files (shell-quoted, workspace-relative), else they are appended.
   */
  lintCommand?: string;
  /** Timeout of the check and of the lint command (default: the runner's default timeout). */
  timeoutS?: number;
  /** Where each value came from, for messages. */
  from: Partial<Record<"command" | "maxReflections" | "lintCommand" | "timeoutS", string>>;
  /**
   * The commands the repository wrote (a project origin: a committed or shared settings file, VS
   * Code workspace settings): they run only as a run_command the permission gate allows.
   */
  fromProject?: Partial<Record<"command" | "lintCommand", true>>;
}

export interface SettingsLayer {
  /** Shown in problems, e.g. ".yoke/settings.json". */
  label: string;
  /** The whole settings object of that source (its `verification` key is read). */
  value: unknown;
  /** The repository wrote it (its commands go through the permission gate). */
  project?: boolean;
}

export function parseVerificationSettings(layers: readonly SettingsLayer[]): { settings: VerificationSettings; problems: string[] } {
  const settings: VerificationSettings = { maxReflections: DEFAULT_MAX_REFLECTIONS, from: {} };
  const problems: string[] = [];
  for (const layer of layers) {
    const v = layer.value && typeof layer.value === "object" ? (layer.value as { verification?: unknown }).verification : undefined;
    if (v === undefined || v === null) continue;
    if (typeof v !== "object" || Array.isArray(v)) {
      problems.push(`${layer.label}: "verification" must be an object like {"command": "npm test", "maxReflections": 3}; it is ignored`);
      continue;
    }
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      if (!["command", "maxReflections", "lintCommand", "timeoutS"].includes(key))
        problems.push(`${layer.label}: "verification.${key}" is not a known setting (command, maxReflections, lintCommand, timeoutS); it is ignored`);
    }
    for (const key of ["command", "lintCommand"] as const) {
      if (!(key in o)) continue;
      const c = o[key];
      if (c === null || c === "") {
        // An explicit empty value turns off what a lower layer configured.
        delete settings[key];
        settings.from[key] = layer.label;
        if (settings.fromProject) delete settings.fromProject[key];
      } else if (typeof c === "string" && c.trim()) {
        settings[key] = c.trim();
        settings.from[key] = layer.label;
        if (layer.project) (settings.fromProject ??= {})[key] = true;
        else if (settings.fromProject) delete settings.fromProject[key];
      } else problems.push(`${layer.label}: "verification.${key}" must be a command line (a string); it is ignored`);
    }
    if ("maxReflections" in o) {
      const n = o.maxReflections;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
        problems.push(`${layer.label}: "verification.maxReflections" must be a whole number from 0 to ${MAX_CONTINUATIONS}; ${DEFAULT_MAX_REFLECTIONS} is used`);
      } else if (n > MAX_CONTINUATIONS) {
        problems.push(
          `${layer.label}: "verification.maxReflections" ${n} is above ${MAX_CONTINUATIONS}, the most times Yoke keeps the agent going after it wanted to finish; ${MAX_CONTINUATIONS} is used`,
        );
        settings.maxReflections = MAX_CONTINUATIONS;
        settings.from.maxReflections = layer.label;
      } else if (layer.project && n > settings.maxReflections) {
        // A repository may only tighten: more reflections are more requests the user pays for.
        problems.push(`${layer.label}: "verification.maxReflections" ${n} would raise ${settings.maxReflections}, and a project's settings may only lower it; ${settings.maxReflections} is used`);
      } else {
        settings.maxReflections = n;
        settings.from.maxReflections = layer.label;
      }
    }
    if ("timeoutS" in o) {
      const t = o.timeoutS;
      if (typeof t !== "number" || !(t > 0) || !Number.isFinite(t)) problems.push(`${layer.label}: "verification.timeoutS" must be a positive number of seconds; it is ignored`);
      else if (layer.project && settings.timeoutS !== undefined && t > settings.timeoutS)
        problems.push(`${layer.label}: "verification.timeoutS" ${t} would raise ${settings.timeoutS}, and a project's settings may only lower it; ${settings.timeoutS} is used`);
      else {
        // (Without a value of the user's, the command runner's own limit still caps it.)
        settings.timeoutS = t;
        settings.from.timeoutS = layer.label;
      }
    }
  }
  return { settings, problems };
}
