/** The scripted LLM server's script and what it records. */

/** One scripted model response. Everything is optional: an empty turn answers with no text. */
export interface ScriptedTurn {
  text?: string;
  reasoning?: string;
  /** OpenAI wire only: the delta field reasoning is sent in (default "reasoning_content"). */
  reasoningField?: "reasoning_content" | "reasoning";
  /**
   * `custom`: OpenAI wire only, a custom (freeform) tool call, `input` being its text (streamed as
   * `{type: "custom", custom: {name, input}}` fragments, as OpenAI sends them for GPT-5's custom tools).
   */
  toolCalls?: Array<{ name: string; input: unknown; custom?: boolean }>;
  /** Token counts reported; estimated from the request and reply sizes when absent. */
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
  /** Pause between streamed chunks. */
  chunkDelayMs?: number;
  /** Answer with this HTTP error instead (the body defaults to the wire format's error shape). */
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  /** Send headers and the first chunk, then stall until the client disconnects. */
  hang?: boolean;
  /** Wait this long before answering at all (no headers yet), e.g. to test timeouts. */
  delayMs?: number;
  /** Streamed only: after about half of the chunks, send this error in-stream and end (Anthropic `event: error`, OpenAI `data: {"error": ...}`). */
  midStreamError?: { type: string; message: string };
  /** Streamed only: close the connection after about half of the chunks, without an error or an end. */
  cutOff?: boolean;
  /** OpenAI wire only: send each tool call whole in one chunk without `index` (as some local servers do). */
  wholeToolCalls?: boolean;
  /** OpenAI wire only: never report usage, like servers that ignore stream_options. */
  noUsage?: boolean;
}

/** A request as the server received it. */
export interface RecordedRequest {
  format: "openai" | "anthropic";
  method: string;
  path: string;
  /** Lower-case names; authorization / x-api-key / api-key values replaced by "***". */
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  stream: boolean;
}

export type Script = ScriptedTurn[] | ((req: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn>);

export interface ScriptedServerOptions {
  /** 0 or absent: any free port. */
  port?: number;
  host?: "127.0.0.1";
  script: Script;
  /** When set, requests must carry this key (Bearer or x-api-key), else 401. */
  apiKey?: string;
  /** The models GET /v1/models lists (default: ["scripted-model"]). */
  models?: string[];
}

export interface ScriptedServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + "/v1", for OpenAI clients. */
  openaiBaseUrl: string;
  /** url, for Anthropic clients (they add /v1 themselves). */
  anthropicBaseUrl: string;
  port: number;
  requests: RecordedRequest[];
  /** How many times GET /v1/models was asked (not in `requests`: it is no model request). */
  modelLists(): number;
  close(): Promise<void>;
}

/** Per-response values the wire encoders need. */
export interface WireContext {
  /** 1-based number of this response, for deterministic ids. */
  n: number;
  model: string;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
}
