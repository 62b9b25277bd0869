// OpenTelemetry traces of the panel's sessions (src/core/telemetry): the yoke.telemetry setting
// (machine scope: a workspace cannot set it), `{"otlpEndpoint": "http://127.0.0.1:4318"}`. Off
// when absent; the SDK (dist/otel.js) is loaded only then.
import * as vscode from "vscode";
import type { Extension } from "../core/extensions/types";
import { parseTelemetrySettings } from "../core/telemetry/settings";
import { nodeTelemetry } from "../node/telemetry";
import { yokeConfiguration } from "./settings";

export async function hostTelemetry(log: vscode.LogOutputChannel): Promise<Extension[]> {
  try {
    const settings = parseTelemetrySettings(yokeConfiguration().user.telemetry, "yoke.telemetry");
    if (!settings) return [];
    return [(await nodeTelemetry(settings)).extension];
  } catch (err) {
    // Tracing never stops a session: say why it is off.
    log.warn(`telemetry off: ${err instanceof Error ? err.message : String(err)}`);
    return [];
  }
}
