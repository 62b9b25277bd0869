// The web-platform globals the harness-neutral layers (src/core, src/protocol) may use: the ones
// Node, browsers (the webview) and VS Code's extension host all provide, as the WinterCG
// "minimum common web platform API" lists them. tsconfig.core.json type-checks those layers with
// `lib: ["ES2023"]`, `types: []` and this file instead of the DOM or Node typings, so a core file
// that reaches for `process`, `Buffer`, `require`, `document` or `window` fails the check.
// Add a global here only if every host has it; anything else goes through a port (src/core/ports.ts).
// Fetch and streams are not here: network access belongs to the provider SDKs and the hosts.

/** A timer's handle: a number in browsers, an object in Node. Treat it as opaque. */
interface WebTimerHandle {
  readonly __webTimerHandle: never;
}
declare function setTimeout<A extends unknown[]>(handler: (...args: A) => void, timeout?: number, ...args: A): WebTimerHandle;
declare function clearTimeout(handle: WebTimerHandle | undefined): void;
declare function setInterval<A extends unknown[]>(handler: (...args: A) => void, timeout?: number, ...args: A): WebTimerHandle;
declare function clearInterval(handle: WebTimerHandle | undefined): void;
declare function queueMicrotask(callback: () => void): void;
declare function structuredClone<T>(value: T, options?: { transfer?: unknown[] }): T;
declare function atob(data: string): string;
declare function btoa(data: string): string;

interface Event {
  readonly type: string;
  readonly target: EventTarget | null;
  readonly currentTarget: EventTarget | null;
  readonly defaultPrevented: boolean;
  readonly timeStamp: number;
  preventDefault(): void;
  stopPropagation(): void;
  stopImmediatePropagation(): void;
}
declare var Event: {
  prototype: Event;
  new (type: string, init?: { bubbles?: boolean; cancelable?: boolean; composed?: boolean }): Event;
};

interface AddEventListenerOptions {
  once?: boolean;
  passive?: boolean;
  capture?: boolean;
  signal?: AbortSignal;
}
type EventListenerOrEventListenerObject = ((event: Event) => void) | { handleEvent(event: Event): void };
interface EventTarget {
  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: AddEventListenerOptions | boolean): void;
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: { capture?: boolean } | boolean): void;
  dispatchEvent(event: Event): boolean;
}
declare var EventTarget: { prototype: EventTarget; new (): EventTarget };

interface AbortSignal extends EventTarget {
  readonly aborted: boolean;
  readonly reason: unknown;
  onabort: ((this: AbortSignal, event: Event) => unknown) | null;
  throwIfAborted(): void;
}
declare var AbortSignal: {
  prototype: AbortSignal;
  abort(reason?: unknown): AbortSignal;
  timeout(milliseconds: number): AbortSignal;
  any(signals: AbortSignal[]): AbortSignal;
};
interface AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}
declare var AbortController: { prototype: AbortController; new (): AbortController };

interface DOMException extends Error {
  readonly name: string;
  readonly message: string;
  readonly code: number;
}
declare var DOMException: { prototype: DOMException; new (message?: string, name?: string): DOMException };

interface TextEncoder {
  readonly encoding: string;
  encode(input?: string): Uint8Array;
  encodeInto(source: string, destination: Uint8Array): { read: number; written: number };
}
declare var TextEncoder: { prototype: TextEncoder; new (): TextEncoder };
interface TextDecoder {
  readonly encoding: string;
  readonly fatal: boolean;
  readonly ignoreBOM: boolean;
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
declare var TextDecoder: {
  prototype: TextDecoder;
  new (label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean }): TextDecoder;
};

interface URLSearchParams {
  readonly size: number;
  append(name: string, value: string): void;
  delete(name: string, value?: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string, value?: string): boolean;
  set(name: string, value: string): void;
  sort(): void;
  toString(): string;
  forEach(callback: (value: string, key: string, parent: URLSearchParams) => void): void;
  entries(): IterableIterator<[string, string]>;
  keys(): IterableIterator<string>;
  values(): IterableIterator<string>;
  [Symbol.iterator](): IterableIterator<[string, string]>;
}
declare var URLSearchParams: {
  prototype: URLSearchParams;
  new (init?: string[][] | Record<string, string> | string | URLSearchParams): URLSearchParams;
};
interface URL {
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  readonly searchParams: URLSearchParams;
  username: string;
  toString(): string;
  toJSON(): string;
}
declare var URL: {
  prototype: URL;
  new (url: string | URL, base?: string | URL): URL;
  canParse(url: string | URL, base?: string | URL): boolean;
};

interface Crypto {
  getRandomValues<T extends ArrayBufferView | null>(array: T): T;
  randomUUID(): `${string}-${string}-${string}-${string}-${string}`;
  readonly subtle: { digest(algorithm: "SHA-256" | "SHA-384" | "SHA-512", data: ArrayBufferView | ArrayBuffer): Promise<ArrayBuffer> };
}
declare var crypto: Crypto;

interface Performance {
  now(): number;
  readonly timeOrigin: number;
}
declare var performance: Performance;
