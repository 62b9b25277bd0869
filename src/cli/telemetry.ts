/**
 * OpenTelemetry traces of CLI sessions (src/core/telemetry): the `telemetry` key of the user's own
 * ~/.yoke/settings.json (`{"otlpEndpoint": "http://127.0.0.1:4318"}`); a repository's settings
 * files cannot turn it on. Off when absent.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Extension } from "../core/extensions/types";
import { parseTelemetrySettings } from "../core/telemetry/settings";
import { nodeTelemetry } from "../node/telemetry";
import { UsageError } from "./args";
import { parseJsonc } from "../core/settings/jsonc";

export async function cliTelemetry(home = homedir()): Promise<{ extension: Extension; flush(): Promise<void> } | undefined> {
  const path = join(home, ".yoke", "settings.json");
  let value: unknown;
  try {
    const text = readFileSync(path, "utf8");
    const parsed = text.trim() ? parseJsonc(text) : undefined;
    if (parsed && !parsed.ok) return undefined;
    value = parsed ? (parsed.value as Record<string, unknown> | null)?.telemetry : undefined;
  } catch {
    return undefined; // missing, or unreadable (the permission settings report a broken file)
  }
  let settings;
  try {
    settings = parseTelemetrySettings(value, `${path}: telemetry`);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return settings ? nodeTelemetry(settings) : undefined;
}
