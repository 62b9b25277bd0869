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
