// Type-only names of the Fetch API that the provider SDKs' typings use (request options, raw
// responses, streams). Interfaces only, no values: code in src/core cannot call fetch() or build a
// Response; the SDKs do the networking. Without these names the SDKs' return types decay to `any`
// in the core check. Members follow the WHATWG Fetch, Streams and File API specifications.

interface Headers {
  append(name: string, value: string): void;
  delete(name: string): void;
  get(name: string): string | null;
  getSetCookie(): string[];
  has(name: string): boolean;
  set(name: string, value: string): void;
  forEach(callback: (value: string, key: string, parent: Headers) => void): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}

interface Blob {
  readonly size: number;
  readonly type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
  bytes(): Promise<Uint8Array>;
  slice(start?: number, end?: number, contentType?: string): Blob;
  stream(): ReadableStream<Uint8Array>;
  text(): Promise<string>;
}
interface File extends Blob {
  readonly name: string;
  readonly lastModified: number;
}
interface FormData {
  append(name: string, value: string | Blob, fileName?: string): void;
  delete(name: string): void;
  get(name: string): File | string | null;
  getAll(name: string): Array<File | string>;
  has(name: string): boolean;
  set(name: string, value: string | Blob, fileName?: string): void;
  entries(): IterableIterator<[string, File | string]>;
  [Symbol.iterator](): IterableIterator<[string, File | string]>;
}

interface ReadableStreamReadResult<T> {
  done: boolean;
  value?: T;
}
interface ReadableStreamDefaultReader<R = unknown> {
  readonly closed: Promise<void>;
  cancel(reason?: unknown): Promise<void>;
  read(): Promise<ReadableStreamReadResult<R>>;
  releaseLock(): void;
}
interface ReadableStream<R = unknown> {
  readonly locked: boolean;
  cancel(reason?: unknown): Promise<void>;
  getReader(): ReadableStreamDefaultReader<R>;
  tee(): [ReadableStream<R>, ReadableStream<R>];
  [Symbol.asyncIterator](): AsyncIterableIterator<R>;
}

type BodyInit = string | ArrayBuffer | ArrayBufferView | Blob | FormData | URLSearchParams | ReadableStream<Uint8Array>;
type HeadersInit = Headers | Record<string, string> | Array<[string, string]>;

interface Body {
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
  arrayBuffer(): Promise<ArrayBuffer>;
  blob(): Promise<Blob>;
  bytes(): Promise<Uint8Array>;
  formData(): Promise<FormData>;
  json(): Promise<unknown>;
  text(): Promise<string>;
}

interface RequestInit {
  body?: BodyInit | null;
  cache?: string;
  credentials?: string;
  headers?: HeadersInit;
  integrity?: string;
  keepalive?: boolean;
  method?: string;
  mode?: string;
  redirect?: string;
  referrer?: string;
  referrerPolicy?: string;
  signal?: AbortSignal | null;
  window?: null;
}
interface Request extends Body {
  readonly headers: Headers;
  readonly method: string;
  readonly signal: AbortSignal;
  readonly url: string;
  clone(): Request;
}
interface Response extends Body {
  readonly headers: Headers;
  readonly ok: boolean;
  readonly redirected: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly type: string;
  readonly url: string;
  clone(): Response;
}
