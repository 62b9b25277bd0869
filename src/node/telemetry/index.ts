/**
 * Tracing on a Node host (the CLI, the extension host): the telemetry extension of the core over an
 * OTLP/HTTP exporter, when the user's settings name an endpoint. The OpenTelemetry SDK is loaded
 * on first use from its own bundle next to this one (dist/otel.js), never at startup.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Extension } from "../../core/extensions/types";
import { telemetryExtension } from "../../core/telemetry";
import type { TelemetrySettings } from "../../core/telemetry/settings";
import type { OtlpTracer } from "./otlp";

declare const YOKE_VERSION: string;
const version = typeof YOKE_VERSION === "string" ? YOKE_VERSION : "dev";

type OtlpModule = typeof import("./otlp");

async function loadOtlp(): Promise<OtlpModule> {
  const bundled = join(__dirname, "otel.js");
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (existsSync(bundled)) return require(bundled) as OtlpModule;
  // From sources (tests): a computed specifier, so a bundler does not inline the SDK here.
  const source = "./otlp";
  return (await import(source)) as OtlpModule;
}

/** One exporter per endpoint and process: sessions share it. */
const tracers = new Map<string, Promise<OtlpTracer>>();

export async function otlpTracer(settings: TelemetrySettings): Promise<OtlpTracer> {
  const key = JSON.stringify(settings);
  let t = tracers.get(key);
  if (!t) {
    t = loadOtlp().then((m) => m.createOtlpTracer(settings, { name: "yoke", version }));
    tracers.set(key, t);
  }
  return t;
}

/** The session extension that traces to `settings`' endpoint, and the flush to call before exit. */
export async function nodeTelemetry(settings: TelemetrySettings): Promise<{ extension: Extension; flush(): Promise<void> }> {
  const t = await otlpTracer(settings);
  return { extension: telemetryExtension(t.tracer), flush: () => t.flush() };
}
