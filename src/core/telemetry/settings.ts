/**
 * The `telemetry` setting: `{"otlpEndpoint": "http://127.0.0.1:4318", "headers": {"x-key": "…"}}`.
 * Absent or without an endpoint: no traces (the default). The endpoint is an OTLP/HTTP base URL
 * (like OTEL_EXPORTER_OTLP_ENDPOINT): traces go to <endpoint>/v1/traces unless the URL already
 * ends with /v1/traces. Read from the user's own settings only (a repository must not be able to
 * send a session's trace to a server of its choosing).
 */
export interface TelemetrySettings {
  /** The URL the traces are posted to (…/v1/traces). */
  tracesUrl: string;
  headers: Record<string, string>;
}

export function parseTelemetrySettings(value: unknown, where = "telemetry"): TelemetrySettings | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) throw new Error(`${where} must be an object: {"otlpEndpoint": "http://127.0.0.1:4318"}`);
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (k !== "otlpEndpoint" && k !== "headers") throw new Error(`${where}.${k} is not a telemetry setting (use "otlpEndpoint" and "headers")`);
  if (v.otlpEndpoint === undefined || v.otlpEndpoint === "") return undefined;
  if (typeof v.otlpEndpoint !== "string") throw new Error(`${where}.otlpEndpoint must be the URL of an OTLP/HTTP receiver, e.g. "http://127.0.0.1:4318"`);
  let url: URL;
  try {
    url = new URL(v.otlpEndpoint.trim());
  } catch {
    throw new Error(`${where}.otlpEndpoint "${v.otlpEndpoint}" is not a URL (e.g. "http://127.0.0.1:4318")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`${where}.otlpEndpoint must be an http:// or https:// URL (OTLP/HTTP), not ${url.protocol}`);
  const headers: Record<string, string> = {};
  if (v.headers !== undefined) {
    if (!v.headers || typeof v.headers !== "object" || Array.isArray(v.headers)) throw new Error(`${where}.headers must be an object of header names to string values`);
    for (const [name, val] of Object.entries(v.headers as Record<string, unknown>)) {
      if (typeof val !== "string") throw new Error(`${where}.headers.${name} must be a string`);
      headers[name] = val;
    }
  }
  const base = url.toString().replace(/\/+$/, "");
  return { tracesUrl: /\/v1\/traces$/.test(url.pathname) ? base : `${base}/v1/traces`, headers };
}
