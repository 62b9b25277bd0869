/**
 * OpenTelemetry traces of CLI sessions (src/core/telemetry): the `telemetry` key of the user's own
 * ~/.yoke/settings.json (`{"otlpEndpoint": "http://127.0.0.1:4318"}`), read by the one settings
 * reader; a repository's settings files cannot turn it on (a workspace value is reported and
 * ignored). Off when absent.
 */
import { homedir } from "node:os";
import type { Extension } from "../core/extensions/types";
import { parseTelemetrySettings } from "../core/telemetry/settings";
import { nodeTelemetry } from "../node/telemetry";
import { invalidKey } from "../node/settings/key-options";
import { readUserSettings } from "../node/settings/reader";
import { UsageError } from "./args";

export async function cliTelemetry(home = homedir()): Promise<{ extension: Extension; flush(): Promise<void> } | undefined> {
  const r = readUserSettings(home);
  const bad = invalidKey(r, "telemetry");
  if (bad) throw new UsageError(bad);
  let settings;
  try {
    settings = parseTelemetrySettings(r.telemetry?.value, `${r.telemetry?.from ?? "~/.yoke/settings.json"}: telemetry`);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  return settings ? nodeTelemetry(settings) : undefined;
}
