/**
 * Injected into the provider SDK bundles (esbuild.mjs: dist/anthropic-sdk.js, dist/openai-sdk.js):
 * the SDKs' free references to `Headers` and `FormData` resolve here instead of to Node's globals,
 * which would load all of undici before the first request (headers.ts). Nothing else changes: the
 * SDK code is the SDK's, and the bundles still work over Node's `fetch` (VS Code's, or with a
 * proxy), which takes these headers as the sequence of pairs they iterate as.
 */
export { FetchHeaders as Headers } from "./headers";

/**
 * The SDKs ask `body instanceof FormData` of every request body; answering needs no undici.
 * Making one (a file upload, which Yoke does not do) makes Node's own.
 */
export class FormData {
  static [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === "[object FormData]";
  }
  constructor(...args: unknown[]) {
    const Native = globalThis.FormData as unknown as new (...a: unknown[]) => object;
    return new Native(...args);
  }
}

/**
 * The SDKs ask `globalThis.ReadableStream && body instanceof globalThis.ReadableStream` of every
 * request body (esbuild.mjs points `globalThis.ReadableStream` here). Node makes that class, with
 * its web streams and message ports, on the first read of the global: 3 ms of CPU before a
 * session's first request, for a body that is a JSON object. The answer is the same without it: a
 * real stream carries the class's tag, and only then is the class asked. Making one makes Node's
 * own (the responses' bodies are Node's streams: src/node/http-client/node-fetch.ts).
 */
class ReadableStreamGlobal {
  static [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === "[object ReadableStream]" && value instanceof nativeReadableStream();
  }
  constructor(...args: unknown[]) {
    const Native = nativeReadableStream() as unknown as new (...a: unknown[]) => object;
    return new Native(...args);
  }
}
// Read by name: `globalThis.ReadableStream` written out here would be this class (the define).
const nativeReadableStream = (): typeof globalThis.ReadableStream => Reflect.get(globalThis, "ReadableStream") as typeof globalThis.ReadableStream;
export { ReadableStreamGlobal as __yokeReadableStream };
