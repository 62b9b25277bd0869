/**
 * Yoke's HTTP client for the provider SDKs: a `fetch(input, init)` on node:http and node:https.
 *
 * Why: Node's built-in `fetch` (undici) costs a process ~190 ms of CPU for its first POST against
 * 60–70 ms with `http.request` (docs/benchmarks.md, "HTTP client"); a `yoke run` makes one model
 * request before anything else, so that difference is most of what separates it from the issue's
 * 150 ms. The SDKs take any fetch-compatible function (their `fetch` option); this one answers
 * with a `Response` of its own (response.ts, headers.ts: building undici's classes would load all
 * of undici again, measured) whose body is a `ReadableStream` fed chunk by chunk as the socket
 * delivers it — a server-sent event reaches the SDK when it arrives.
 *
 * What it does as `fetch` does (Node 20's undici), so the SDKs see no difference:
 * - failures before a response reject with `TypeError("fetch failed", { cause })` (the cause
 *   carries Node's `code`: ECONNREFUSED, ECONNRESET, a TLS code…); a body cut short errors its
 *   stream with `TypeError("terminated", { cause })`;
 * - an aborted signal rejects with the signal's reason (an `AbortError`), before or after the
 *   response, and errors a body being read with it; the socket is destroyed;
 * - redirects (301, 302, 303, 307, 308) are followed up to 20 times with fetch's method rules
 *   (303, and 301/302 after a POST, become a GET without a body); `redirect: "error"` refuses
 *   them, `"manual"` returns them. On a redirect to another origin the credentials are dropped:
 *   `authorization`, `proxy-authorization`, `cookie`, and the API key headers the SDKs send
 *   (`x-api-key`, `api-key`; Node 20's fetch does not send `x-api-key` on either: tested). A body
 *   that cannot be sent again (a stream) ends a 307/308 with an error, as in fetch;
 * - `gzip`/`x-gzip`, `deflate` and `br` bodies are decoded with node:zlib (flushed as they come, so
 *   a compressed event stream still streams); the `content-encoding` header stays. More than 5
 *   codings are refused as undici refuses them (a 93 KB body gzipped 3,000 times cost 84 s of CPU
 *   before: red team O, docs/security.md);
 * - timeouts: 10 s to connect (TCP and TLS), 300 s without a byte while waiting for the headers or
 *   between body chunks (undici's connect, headers and body timeouts; their messages say
 *   "Timeout", which the SDKs read as a timeout). The SDKs' own `timeout` option aborts the signal;
 * - connections are kept alive (an agent per protocol, idle sockets closed after 4 s or the
 *   server's `Keep-Alive: timeout` hint, and unref'd so they never hold the process). A request
 *   whose reused socket turns out closed by the server (ECONNRESET/EPIPE before any response) is
 *   sent once more on a new connection when its body can be sent again;
 * - certificates: Node's store plus `NODE_EXTRA_CA_CERTS`; a self-signed server is refused.
 * No proxy support: src/node/http-client/provider-fetch.ts keeps Node's fetch when one is configured.
 */
import * as http from "node:http";
import type * as Https from "node:https";
import { type Readable, Transform } from "node:stream";
import type * as Zlib from "node:zlib";
import { FetchHeaders } from "./headers";
import { FetchResponse } from "./response";

export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface NodeFetchOptions {
  /** Time to open the connection, TLS included (default 10 s, as undici). */
  connectTimeoutMs?: number;
  /** Time without a byte while waiting for the headers or between body chunks (default 300 s, as undici). */
  idleTimeoutMs?: number;
  /** Redirects followed before giving up (default 20, as fetch). */
  maxRedirects?: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 300_000;
const MAX_REDIRECTS = 20;
/** undici's keep-alive default; a server's shorter `Keep-Alive: timeout` hint wins (Node's agent reads it). */
const KEEP_ALIVE_MS = 4_000;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);
/** Dropped when a redirect leaves the origin: the spec's list, and the API key headers of the SDKs. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie", "host", "x-api-key", "api-key"];
/** undici's limit on a response's content codings (more: "fetch failed", each one is a zlib stream to run). */
const MAX_CONTENT_ENCODINGS = 5;
const CONTENT_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];

// node:https (with node:tls) and node:zlib are loaded when a request first needs them: an http:
// URL (a local model server) never loads TLS, a body sent without a content coding never loads
// zlib. Loaded up front they cost ~2.5 ms of CPU on every start (docs/benchmarks.md, "Session 20:
// start20").
let httpsModule: typeof Https | undefined;
let zlibModule: typeof Zlib | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const https = (): typeof Https => (httpsModule ??= require("node:https") as typeof Https);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zlib = (): typeof Zlib => (zlibModule ??= require("node:zlib") as typeof Zlib);

type Body = { bytes: Buffer } | { stream: AsyncIterable<Uint8Array> } | undefined;

interface Target {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: Body;
}

/** An error with a Node-style `code`, the way undici's causes carry one. */
function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause });

/** What an aborted signal rejects with: its reason, or an AbortError when it has none (as fetch). */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

const tagOf = (x: unknown) => Object.prototype.toString.call(x);

/** The request headers as one lower-case record (repeated names joined with ", ", as Headers does). */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  const pairs: Iterable<readonly [string, string]> =
    Array.isArray(init) || Symbol.iterator in (init as object)
      ? (init as Iterable<readonly [string, string]>)
      : Object.entries(init as Record<string, string | undefined>).filter((p): p is [string, string] => p[1] !== undefined);
  for (const [name, value] of pairs) {
    const key = String(name).toLowerCase();
    const v = String(value).trim();
    out[key] = key in out ? `${out[key]}, ${v}` : v;
  }
  return out;
}

/** The body as bytes (sendable again) or a stream, and the content type fetch gives it; "delegate" for FormData. */
async function prepareBody(body: BodyInit | null | undefined): Promise<{ body: Body; type?: string } | "delegate"> {
  if (body === null || body === undefined) return { body: undefined };
  if (typeof body === "string") return { body: { bytes: Buffer.from(body, "utf8") }, type: "text/plain;charset=UTF-8" };
  const tag = tagOf(body);
  if (tag === "[object URLSearchParams]") return { body: { bytes: Buffer.from(String(body), "utf8") }, type: "application/x-www-form-urlencoded;charset=UTF-8" };
  if (tag === "[object FormData]") return "delegate";
  if (body instanceof ArrayBuffer) return { body: { bytes: Buffer.from(body) } };
  if (ArrayBuffer.isView(body)) return { body: { bytes: Buffer.from(body.buffer, body.byteOffset, body.byteLength) } };
  if (tag === "[object Blob]" || tag === "[object File]") {
    const blob = body as Blob;
    return { body: { bytes: Buffer.from(await blob.arrayBuffer()) }, ...(blob.type ? { type: blob.type } : {}) };
  }
  if (typeof (body as ReadableStream<Uint8Array>).getReader === "function" || Symbol.asyncIterator in (body as object)) {
    return { body: { stream: body as unknown as AsyncIterable<Uint8Array> } };
  }
  return { body: { bytes: Buffer.from(String(body), "utf8") }, type: "text/plain;charset=UTF-8" };
}

/** The parts of a Request-like input that fetch takes when `init` does not give them. */
interface RequestLike {
  url: string;
  method?: string;
  headers?: HeadersInit;
  body?: ReadableStream<Uint8Array> | null;
  signal?: AbortSignal;
  redirect?: string;
}

/**
 * `deflate` as servers send it: zlib-wrapped as the specification says, or raw (as fetch accepts
 * too): the first byte tells (a zlib header's low nibble is 8, deflate's method).
 */
class AnyInflate extends Transform {
  #inner: Transform | undefined;
  constructor(private readonly options: Zlib.ZlibOptions) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (!this.#inner) {
      const inner = (chunk[0]! & 0x0f) === 0x08 ? zlib().createInflate(this.options) : zlib().createInflateRaw(this.options);
      inner.on("data", (d: Buffer) => this.push(d));
      inner.once("error", (err) => this.destroy(err));
      this.#inner = inner;
    }
    this.#inner.write(chunk, () => done());
  }
  override _flush(done: (err?: Error | null) => void): void {
    if (!this.#inner) return done();
    this.#inner.once("end", () => done());
    this.#inner.end();
  }
}

/** The decoders that undo a `content-encoding`, in the order the body goes through them. */
function decoders(encoding: string | undefined): Transform[] {
  if (!encoding) return [];
  const z = zlib();
  const flush = { flush: z.constants.Z_SYNC_FLUSH, finishFlush: z.constants.Z_SYNC_FLUSH };
  const out: Transform[] = [];
  // Codings are listed in the order they were applied: undo them from the last.
  for (const coding of encoding
    .toLowerCase()
    .split(",")
    .map((c) => c.trim())
    .reverse()) {
    if (coding === "gzip" || coding === "x-gzip") out.push(z.createGunzip(flush));
    else if (coding === "deflate") out.push(new AnyInflate(flush));
    else if (coding === "br") {
      out.push(z.createBrotliDecompress({ flush: z.constants.BROTLI_OPERATION_FLUSH, finishFlush: z.constants.BROTLI_OPERATION_FLUSH }));
    } else if (coding !== "identity" && coding !== "") return []; // unknown: the body as it came (as undici)
  }
  return out;
}

export function createNodeFetch(options: NodeFetchOptions = {}): FetchFunction {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const idleTimeoutMs = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const agentOptions = { keepAlive: true, timeout: KEEP_ALIVE_MS, scheduling: "lifo" as const };
  let httpAgent: http.Agent | undefined;
  let httpsAgent: Https.Agent | undefined;
  const agentFor = (protocol: string) => (protocol === "https:" ? (httpsAgent ??= new (https().Agent)(agentOptions)) : (httpAgent ??= new http.Agent(agentOptions)));

  return async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const like: Partial<RequestLike> = typeof input === "object" && input !== null && !(input instanceof URL) ? (input as unknown as RequestLike) : {};
    const href = typeof input === "string" ? input : input instanceof URL ? input.href : (like.url ?? String(input));
    let url: URL;
    try {
      url = new URL(href);
    } catch (err) {
      throw new TypeError(`Failed to parse URL from ${href}`, { cause: err });
    }
    if (url.username || url.password) throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${href}`);
    const method = (init.method ?? like.method ?? "GET").toUpperCase();
    const signal = init.signal ?? like.signal ?? undefined;
    const redirect = init.redirect ?? like.redirect ?? "follow";
    const prepared = await prepareBody(init.body !== undefined ? init.body : (like.body ?? undefined));
    if (prepared === "delegate") return globalThis.fetch(input, init);
    if (prepared.body && (method === "GET" || method === "HEAD")) throw new TypeError("Request with GET/HEAD method cannot have body.");
    const headers = headerRecord(init.headers ?? like.headers);
    if (prepared.type && !("content-type" in headers)) headers["content-type"] = prepared.type;
    headers["accept"] ??= "*/*";
    headers["accept-encoding"] ??= "gzip, deflate, br";
    if (signal?.aborted) throw abortReason(signal);

    let target: Target = { url, method, headers, body: prepared.body };
    for (let redirects = 0; ; redirects++) {
      if (target.url.protocol !== "http:" && target.url.protocol !== "https:") throw fetchFailed(new Error(`unsupported URL scheme "${target.url.protocol}"`));
      const sent = await send(target, signal);
      const { res } = sent;
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (!REDIRECTS.has(status) || redirect === "manual" || location === undefined) return respond(sent, target, signal, redirects > 0);
      res.resume();
      sent.finish();
      if (redirect === "error") throw fetchFailed(new Error(`unexpected redirect (HTTP ${status}) to ${location}`));
      if (redirects >= maxRedirects) throw fetchFailed(new Error("redirect count exceeded"));
      target = nextTarget(target, status, location);
    }
  };

  /** The request a redirect leads to, as fetch makes it. */
  function nextTarget(from: Target, status: number, location: string): Target {
    let url: URL;
    try {
      url = new URL(location, from.url);
    } catch (err) {
      throw fetchFailed(err);
    }
    if (url.username || url.password) throw fetchFailed(new Error("redirect to a URL with credentials"));
    const headers = { ...from.headers };
    let { method, body } = from;
    if ((status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      for (const h of CONTENT_HEADERS) delete headers[h];
    }
    if (body && "stream" in body) throw fetchFailed(new Error(`a redirect (HTTP ${status}) asks for the request body again, and a streamed body cannot be sent twice`));
    if (url.origin !== from.url.origin) for (const h of CREDENTIAL_HEADERS) delete headers[h];
    return { url, method, headers, body };
  }

  interface Sent {
    res: http.IncomingMessage;
    req: http.ClientRequest;
    /** Removes the abort listener and the timers (the body is done with). */
    finish(): void;
    /** Set by respond(): where an abort or a timeout after the headers goes. */
    onLateError?: (err: unknown) => void;
  }

  /** Sends one request and resolves on its response headers; retries once on a reused socket the server had closed. */
  function send(target: Target, signal: AbortSignal | undefined, retried = false): Promise<Sent> {
    return new Promise<Sent>((resolve, reject) => {
      // Aborted while a redirect or a retry was being prepared: its 'abort' event has passed.
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const { url, method, headers, body } = target;
      const mod = url.protocol === "https:" ? https() : http;
      let req: http.ClientRequest;
      let sent: Sent | undefined;
      let settled = false;
      let connectTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        signal?.removeEventListener("abort", onAbort);
        if (connectTimer) clearTimeout(connectTimer);
      };
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        finish();
        reject(err);
      };
      function onAbort() {
        const reason = abortReason(signal!);
        if (sent) sent.onLateError?.(reason);
        else fail(reason);
        req.destroy();
      }
      try {
        const length = body && "bytes" in body ? { "content-length": String(body.bytes.length) } : {};
        req = mod.request(url, { method, headers: { ...headers, ...length }, agent: agentFor(url.protocol) });
      } catch (err) {
        // An invalid header name or value (Node checks them as fetch does).
        fail(new TypeError(err instanceof Error ? err.message : String(err), { cause: err }));
        return;
      }
      signal?.addEventListener("abort", onAbort, { once: true });
      req.setTimeout(idleTimeoutMs, () => {
        const err = sent ? coded("Body Timeout Error", "UND_ERR_BODY_TIMEOUT") : coded("Headers Timeout Error", "UND_ERR_HEADERS_TIMEOUT");
        if (sent) sent.onLateError?.(new TypeError("terminated", { cause: err }));
        req.destroy(err);
      });
      req.once("socket", (socket) => {
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => req.destroy(coded("Connect Timeout Error", "UND_ERR_CONNECT_TIMEOUT")), connectTimeoutMs);
        socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(connectTimer));
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (sent || settled) return;
        const code = err.code;
        if (req.reusedSocket && !retried && (code === "ECONNRESET" || code === "EPIPE") && !(body && "stream" in body)) {
          settled = true;
          finish();
          send(target, signal, true).then(resolve, reject);
          return;
        }
        fail(fetchFailed(err));
      });
      req.once("response", (res) => {
        if (settled) {
          res.destroy();
          return;
        }
        settled = true;
        if (connectTimer) clearTimeout(connectTimer);
        sent = { res, req, finish };
        resolve(sent);
      });
      if (!body) req.end();
      else if ("bytes" in body) req.end(body.bytes);
      else void writeStream(req, body.stream);
    });
  }

  /** The fetch Response over `sent`'s body: decoded, streamed chunk by chunk, ended by an abort or a timeout. */
  function respond(sent: Sent, target: Target, signal: AbortSignal | undefined, redirected: boolean): Response {
    const { res } = sent;
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 599) {
      res.destroy();
      sent.finish();
      throw fetchFailed(new Error(`invalid HTTP status ${status}`));
    }
    const hasBody = target.method !== "HEAD" && !NULL_BODY.has(status);
    const codings = hasBody ? (res.headers["content-encoding"]?.split(",").length ?? 0) : 0;
    if (codings > MAX_CONTENT_ENCODINGS) {
      res.destroy();
      sent.finish();
      throw fetchFailed(new Error(`too many content-encodings in response: ${codings}, maximum allowed is ${MAX_CONTENT_ENCODINGS}`));
    }
    const headers = new FetchHeaders();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      try {
        headers.append(raw[i]!, raw[i + 1]!);
      } catch {
        // A value Headers refuses (fetch drops such responses' header too)
      }
    }
    let body: ReadableStream<Uint8Array> | null = null;
    if (!hasBody) {
      res.resume();
      res.once("end", sent.finish);
      res.once("close", sent.finish);
    } else body = bodyStream(sent, signal);
    // The SDKs type it as a Response; it has every member they read (response.ts).
    return new FetchResponse(body, { status, statusText: res.statusMessage ?? "", headers, url: target.url.href, redirected }) as unknown as Response;
  }

  function bodyStream(sent: Sent, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
    const { res, req } = sent;
    const chain = decoders(res.headers["content-encoding"]);
    let source: Readable = res;
    for (const d of chain) source = source.pipe(d);
    let done = false;
    let ctl!: ReadableStreamDefaultController<Uint8Array>;
    const end = (err?: unknown) => {
      if (done) return;
      done = true;
      sent.finish();
      if (err === undefined) ctl.close();
      else {
        ctl.error(err);
        res.destroy();
        for (const d of chain) d.destroy();
      }
    };
    sent.onLateError = (err) => end(err);
    return new ReadableStream<Uint8Array>({
      start(controller) {
        ctl = controller;
        source.on("data", (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 1) <= 0) source.pause();
        });
        source.once("end", () => end());
        // The socket closed under the body (reset, cut off), a decoder failed, or the server sent less than it announced.
        const broken = (err?: Error) => end(new TypeError("terminated", { cause: err ?? coded("other side closed", "UND_ERR_SOCKET") }));
        res.once("error", broken);
        res.once("aborted", () => broken(coded("aborted", "ECONNRESET")));
        res.once("close", () => {
          if (!res.complete) broken(coded("other side closed", "UND_ERR_SOCKET"));
        });
        for (const d of chain) d.once("error", broken);
        if (signal?.aborted) end(abortReason(signal));
      },
      pull() {
        source.resume();
      },
      cancel() {
        done = true;
        sent.finish();
        req.destroy();
        res.destroy();
      },
    });
  }
}

/** Writes a streamed body into the request (chunked), honouring backpressure. */
async function writeStream(req: http.ClientRequest, stream: AsyncIterable<Uint8Array>): Promise<void> {
  try {
    for await (const chunk of stream) {
      if (req.destroyed) return;
      if (!req.write(chunk)) await new Promise<void>((resolve) => req.once("drain", resolve).once("close", resolve));
    }
    req.end();
  } catch (err) {
    req.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}
