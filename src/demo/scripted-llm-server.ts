/**
 * A loopback HTTP server that speaks OpenAI Chat Completions and Anthropic Messages (streaming
 * and not) and answers from a script: for tests, and as the demo model (`npm start -- --demo`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicErrorBody, anthropicEvents, anthropicMessage } from "./anthropic-wire";
import { openAiChunks, openAiCompletion, openAiErrorBody } from "./openai-wire";
import type { RecordedRequest, ScriptedServer, ScriptedServerOptions, ScriptedTurn, WireContext } from "./types";

export type { RecordedRequest, ScriptedServer, ScriptedServerOptions, ScriptedTurn } from "./types";

export const NO_MORE_TURNS = "scripted server: no more turns";
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "api-key"]);

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function recordHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    out[k] = SECRET_HEADERS.has(k) ? "***" : Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

function presentedKey(req: IncomingMessage): string | undefined {
  const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, "");
  return bearer || (req.headers["x-api-key"] as string | undefined);
}

/** Rough token counts (4 characters a token) when the turn gives none. */
function wireContext(n: number, rec: RecordedRequest, turn: ScriptedTurn): WireContext {
  const reply = (turn.text ?? "") + (turn.reasoning ?? "") + JSON.stringify(turn.toolCalls ?? []);
  const u = turn.usage;
  return {
    n,
    model: typeof rec.body.model === "string" ? rec.body.model : "scripted-model",
    usage: {
      input: u?.input ?? Math.ceil(JSON.stringify(rec.body).length / 4),
      output: u?.output ?? Math.max(1, Math.ceil(reply.length / 4)),
      cacheRead: u?.cacheRead ?? 0,
      cacheWrite: u?.cacheWrite ?? 0,
    },
  };
}

/** Writes SSE frames with the turn's pacing; with `hang`, stops after the first and waits for the client to leave. */
async function streamFrames(res: ServerResponse, frames: string[], turn: ScriptedTurn, errorFrame?: string): Promise<void> {
  const half = Math.max(1, Math.floor(frames.length / 2));
  if (errorFrame) frames = [...frames.slice(0, half), errorFrame];
  else if (turn.cutOff) frames = frames.slice(0, half);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  for (const [i, frame] of frames.entries()) {
    if (res.destroyed) return;
    res.write(frame);
    if (turn.hang && i === 0) {
      await new Promise<void>((resolve) => res.once("close", () => resolve()));
      return;
    }
    if (turn.chunkDelayMs) await sleep(turn.chunkDelayMs);
  }
  res.end();
}

export async function startScriptedLlmServer(opts: ScriptedServerOptions): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const queue = Array.isArray(opts.script) ? [...opts.script] : undefined;
  let served = 0;
  let modelLists = 0;

  const nextTurn = async (rec: RecordedRequest): Promise<ScriptedTurn> => {
    if (queue) return queue.shift() ?? { text: NO_MORE_TURNS };
    return (opts.script as (r: RecordedRequest) => ScriptedTurn | Promise<ScriptedTurn>)(rec);
  };

  const answer = async (format: RecordedRequest["format"], req: IncomingMessage, res: ServerResponse, path: string) => {
    const errorBody = format === "openai" ? openAiErrorBody : anthropicErrorBody;
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await readBody(req));
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
      body = parsed as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, errorBody(400, "scripted server: the request body is not a JSON object"));
    }
    const rec: RecordedRequest = { format, method: req.method ?? "POST", path, headers: recordHeaders(req), body, stream: body.stream === true };
    requests.push(rec);
    if (opts.apiKey !== undefined && presentedKey(req) !== opts.apiKey) {
      return sendJson(res, 401, errorBody(401, "scripted server: invalid API key"));
    }
    const turn = await nextTurn(rec);
    if (turn.delayMs) await sleep(turn.delayMs);
    if (res.destroyed) return;
    if (turn.error) {
      const e = turn.error;
      return sendJson(res, e.status, e.body ?? errorBody(e.status, `scripted server: error ${e.status}`), e.headers);
    }
    const ctx = wireContext(++served, rec, turn);
    if (format === "openai") {
      if (!rec.stream) {
        const json = openAiCompletion(turn, ctx) as { usage?: unknown };
        if (turn.noUsage) delete json.usage;
        return sendJson(res, 200, json);
      }
      const includeUsage = !turn.noUsage && (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
      const frames = openAiChunks(turn, ctx, includeUsage).map((c) => `data: ${JSON.stringify(c)}\n\n`);
      const errorFrame = turn.midStreamError && `data: ${JSON.stringify({ error: { ...turn.midStreamError, code: null, param: null } })}\n\n`;
      return streamFrames(res, [...frames, "data: [DONE]\n\n"], turn, errorFrame);
    }
    if (!rec.stream) return sendJson(res, 200, anthropicMessage(turn, ctx));
    const frames = anthropicEvents(turn, ctx).map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    const errorFrame = turn.midStreamError && `event: error\ndata: ${JSON.stringify({ type: "error", error: turn.midStreamError })}\n\n`;
    return streamFrames(res, frames, turn, errorFrame);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const route = `${req.method} ${path}`;
    const done = (p: Promise<void> | void) =>
      Promise.resolve(p).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 500, anthropicErrorBody(500, `scripted server: ${String(err)}`));
        else res.destroy();
      });
    if (route === "POST /v1/chat/completions") return done(answer("openai", req, res, path));
    if (route === "POST /v1/messages") return done(answer("anthropic", req, res, path));
    if (route === "GET /v1/models") {
      modelLists++;
      // One list both wire formats read: OpenAI's {object, data} and Anthropic's {data, has_more, first_id, last_id}.
      const ids = opts.models ?? ["scripted-model"];
      return sendJson(res, 200, {
        object: "list",
        data: ids.map((id) => ({ id, object: "model", type: "model", display_name: id, created: 1_700_000_000, created_at: "2023-11-14T22:13:20Z", owned_by: "yoke" })),
        has_more: false,
        first_id: ids[0] ?? null,
        last_id: ids.at(-1) ?? null,
      });
    }
    req.resume();
    sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `scripted server: no route for ${route}` } });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    port,
    requests,
    modelLists: () => modelLists,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
