/**
 * The tracing port of the core: just enough of a tracer for spans with attributes, a parent, an
 * explicit start and end time and an error status. The node side implements it with the
 * OpenTelemetry SDK (src/node/telemetry), loaded only when tracing is configured.
 */
export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

export interface TraceSpan {
  setAttributes(attributes: Attributes): void;
  /** Renames the span (a request's model is known for sure only once it answered). */
  updateName(name: string): void;
  /** Marks the span failed: `error.type` and an error status with `message`. */
  setError(type: string, message?: string): void;
  /** Ends the span at `atMs` (epoch ms; default now). Later calls do nothing. */
  end(atMs?: number): void;
}

export interface SpanOptions {
  /** "client" for a request to a model server, "internal" for work in the process. */
  kind: "client" | "internal";
  attributes: Attributes;
  parent?: TraceSpan;
  /** Epoch ms; default now. */
  startMs?: number;
}

export interface SpanTracer {
  startSpan(name: string, opts: SpanOptions): TraceSpan;
}
