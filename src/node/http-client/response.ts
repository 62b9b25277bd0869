/**
 * `FetchResponse`: what Yoke's client (node-fetch.ts) answers with — the members of the WHATWG
 * `Response` the provider SDKs use (status, ok, headers, url, body as a `ReadableStream`, bodyUsed,
 * text/json/arrayBuffer/bytes/blob, clone), without undici's class: building an undici `Response`
 * loads all of undici (headers.ts says why that matters). `formData()` is the one member handed
 * to Node's own `Response` (then undici loads); the SDKs call it for no API Yoke uses.
 * test/unit/node/http-client.test.ts runs both SDKs over it.
 */
import { FetchHeaders } from "./headers";

export interface FetchResponseInit {
  status: number;
  statusText?: string;
  headers: FetchHeaders;
  url?: string;
  redirected?: boolean;
}

export class FetchResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: FetchHeaders;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = "basic" as const;
  readonly body: ReadableStream<Uint8Array> | null;
  #used = false;

  constructor(body: ReadableStream<Uint8Array> | null, init: FetchResponseInit) {
    this.body = body;
    this.status = init.status;
    this.statusText = init.statusText ?? "";
    this.headers = init.headers;
    this.url = init.url ?? "";
    this.redirected = init.redirected ?? false;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** Reads the whole body once (fetch's "consume body"): a second read, or one of a locked stream, is a TypeError. */
  async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#used || this.body?.locked) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    if (!this.body) return new Uint8Array(0);
    const reader = this.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  async text(): Promise<string> {
    // UTF-8 decode as fetch does: a leading BOM dropped, bad sequences replaced.
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get("content-type") ?? "" });
  }

  async formData(): Promise<FormData> {
    const bytes = await this.bytes();
    return new globalThis.Response(bytes, { status: this.status, headers: [...this.headers] }).formData();
  }

  /** A second response over the same body (the stream teed, as fetch's clone). */
  clone(): FetchResponse {
    if (this.#used || this.body?.locked) throw new TypeError("Response.clone: Body has already been consumed.");
    let body: ReadableStream<Uint8Array> | null = null;
    if (this.body) {
      const [a, b] = this.body.tee();
      (this as { body: ReadableStream<Uint8Array> | null }).body = a;
      body = b;
    }
    const init = { status: this.status, statusText: this.statusText, headers: new FetchHeaders(this.headers), url: this.url, redirected: this.redirected };
    return new FetchResponse(body, init);
  }

  get [Symbol.toStringTag](): string {
    return "Response";
  }
}
