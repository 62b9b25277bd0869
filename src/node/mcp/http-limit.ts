/**
 * A bound on what a remote (Streamable HTTP or HTTP+SSE) MCP server can make Yoke hold, as
 * StdoutLines bounds a stdio server's line: the `fetch` both SDK transports take (their `fetch`
 * option; the SSE transport's event source uses it too) hands each response on with its body
 * counted. A JSON body counts whole (the SDK reads it with `response.json()`); an event stream counts
 * from the last event's end (a blank line), since the SDK's parser holds one event until it ends and
 * a stream may rightly last the whole session. Past the bound the body fails, and `onOverflow` is
 * told why (the hub stops the server, and says so to the person and the model).
 */
import { MAX_MESSAGE_BYTES } from "./stdio-transport";

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** What the person and the model are told (the same shape as a stdio server's line over the bound). */
export function httpOverflowReason(max = MAX_MESSAGE_BYTES): string {
  return `the server sent a message over ${Math.round(max / 1024 / 1024)} MiB (Yoke reads one HTTP response, or one event of a stream, up to that size)`;
}

/**
 * The bytes of a body since its last event boundary (an event stream) or since its start (any
 * other body). Event boundaries are blank lines: two line ends in a row, CRLF counting as one
 * (`\n\n`, `\r\r`, `\n\r`: `\r\n\r\n` holds the last one).
 */
export class BodyCounter {
  private held = 0;
  private lastByte = -1;

  constructor(
    private readonly max: number,
    private readonly events: boolean,
  ) {}

  /** Counts a chunk; false once what is held is over the bound. */
  push(chunk: Uint8Array): boolean {
    if (this.events) {
      const boundary = this.lastBoundary(chunk);
      if (boundary !== -1) this.held = chunk.length - boundary;
      else this.held += chunk.length;
      if (chunk.length) this.lastByte = chunk[chunk.length - 1]!;
    } else this.held += chunk.length;
    return this.held <= this.max;
  }

  /** The offset just after the last blank line that ends in this chunk, or -1. */
  private lastBoundary(chunk: Uint8Array): number {
    let end = -1;
    const first = chunk[0];
    // A boundary split across chunks: the previous chunk's last line end and this one's first.
    if ((this.lastByte === 10 && (first === 10 || first === 13)) || (this.lastByte === 13 && first === 13)) end = 1;
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (const pair of ["\n\n", "\r\r", "\n\r"]) {
      const at = buf.lastIndexOf(pair);
      if (at !== -1) end = Math.max(end, at + 2);
    }
    return end;
  }
}

/**
 * `base` (default: the global fetch) with every response body bounded to `max` bytes as BodyCounter
 * counts them. The response keeps its status, headers, URL, `redirected` and `type` (the SDK reads
 * them for redirects and OAuth).
 */
export function limitedFetch(onOverflow: (why: string) => void, max = MAX_MESSAGE_BYTES, base: Fetch = (url, init) => fetch(url, init)): Fetch {
  return async (url, init) => {
    const res = await base(url, init);
    if (!res.body) return res;
    // Counted event by event only where the SDK reads an event stream: a successful answer to a request
    // that accepts one, whose media type's essence is text/event-stream (as the SDK decides how to read
    // it). Anything else the SDK reads whole — a JSON body whose type merely mentions text/event-stream,
    // an error's text (response.text()), an OAuth answer (response.json(), whatever its type) — and so
    // it counts whole.
    const essence = (res.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
    const accepts = new Headers(init?.headers).get("accept") ?? "";
    const counter = new BodyCounter(max, res.ok && essence === "text/event-stream" && accepts.toLowerCase().includes("text/event-stream"));
    const why = httpOverflowReason(max);
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (counter.push(chunk)) return controller.enqueue(chunk);
          // The source is cancelled (the connection dropped) and the reader gets the reason.
          controller.error(new Error(why));
          onOverflow(why);
        },
      }),
    );
    const out = new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
    for (const key of ["url", "redirected", "type"] as const) Object.defineProperty(out, key, { value: res[key] });
    return out;
  };
}
