/**
 * The core's SpanTracer on the OpenTelemetry SDK, exporting over OTLP/HTTP (JSON). Built as its
 * own bundle (dist/otel.js) and loaded only when the telemetry setting names an endpoint, so the
 * SDK is never on activation's path and the main bundles stay small.
 */
import { context, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { SpanTracer, TraceSpan } from "../../core/telemetry/types";
import type { TelemetrySettings } from "../../core/telemetry/settings";

export interface OtlpTracer {
  tracer: SpanTracer;
  /** Sends what is buffered. */
  flush(): Promise<void>;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

class OtelSpan implements TraceSpan {
  private ended = false;
  constructor(readonly span: Span) {}
  setAttributes(attributes: Record<string, string | number | boolean | string[]>): void {
    this.span.setAttributes(attributes);
  }
  updateName(name: string): void {
    this.span.updateName(name);
  }
  setError(type: string, message?: string): void {
    this.span.setAttribute("error.type", type);
    this.span.setStatus({ code: SpanStatusCode.ERROR, ...(message ? { message } : {}) });
  }
  end(atMs?: number): void {
    if (this.ended) return;
    this.ended = true;
    this.span.end(atMs);
  }
}

export function createOtlpTracer(settings: TelemetrySettings, service: { name: string; version: string }): OtlpTracer {
  const exporter = new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": service.name, "service.version": service.version }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  const tracer = provider.getTracer("yoke", service.version);
  return {
    tracer: {
      startSpan(name, opts) {
        const parent = opts.parent instanceof OtelSpan ? trace.setSpan(context.active(), opts.parent.span) : undefined;
        const span = tracer.startSpan(
          name,
          { kind: opts.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL, attributes: opts.attributes, ...(opts.startMs !== undefined ? { startTime: opts.startMs } : {}) },
          parent,
        );
        return new OtelSpan(span);
      },
    },
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
