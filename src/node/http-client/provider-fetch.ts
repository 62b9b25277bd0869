/**
 * Which HTTP client the provider SDKs use in a `yoke` process: Yoke's own (node-fetch.ts, on
 * node:http) unless a proxy is configured or the environment asks for Node's `fetch`.
 *
 * - A proxy variable set (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`, either case):
 *   Node's `fetch`, exactly as before this client existed. Node 20/22 ignore these variables;
 *   Node 24 with `NODE_USE_ENV_PROXY=1` honours them in `fetch` — Yoke's client never would, so
 *   it stays out of the way whenever one is set.
 * - `YOKE_HTTP_CLIENT=fetch`: Node's `fetch` whatever else is set (a way back if this client ever
 *   misbehaves with a server); `YOKE_HTTP_CLIENT=node`: Yoke's client even with proxy variables
 *   (they are then not used). Any other value is refused with a message that names both.
 * - Inside VS Code the extension's sessions do not come here: VS Code routes `fetch` itself (its
 *   `http.proxy` setting, the system's proxy and certificates), so src/host leaves the SDKs'
 *   default `fetch` in place (docs/models.md, "HTTP client").
 *
 * Returns undefined for "the SDK's default" (the global `fetch`).
 */
import type { ProviderFetch } from "../../core/providers/types";
import { createNodeFetch } from "./node-fetch";

export const HTTP_CLIENT_ENV = "YOKE_HTTP_CLIENT";

const PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"];

/** The proxy variables set (non-empty) in `env`, as they are spelled there. */
export function proxyVariables(env: NodeJS.ProcessEnv): string[] {
  return PROXY_VARIABLES.flatMap((v) => [v, v.toLowerCase()]).filter((v) => (env[v] ?? "").trim() !== "");
}

export class HttpClientChoiceError extends Error {
  constructor(value: string) {
    super(`${HTTP_CLIENT_ENV}="${value}" is not a choice: use "node" (Yoke's own HTTP client) or "fetch" (Node's fetch), or leave it unset`);
    this.name = "HttpClientChoiceError";
  }
}

let shared: ProviderFetch | undefined;

/** The fetch the SDKs are given in this environment; undefined: their default (Node's `fetch`). Throws HttpClientChoiceError. */
export function providerFetch(env: NodeJS.ProcessEnv = process.env): ProviderFetch | undefined {
  const choice = (env[HTTP_CLIENT_ENV] ?? "").trim();
  if (choice !== "" && choice !== "node" && choice !== "fetch") throw new HttpClientChoiceError(choice);
  if (choice === "fetch" || (choice === "" && proxyVariables(env).length > 0)) return undefined;
  // One client (and its keep-alive connections) for every provider of the process.
  shared ??= createNodeFetch();
  return shared;
}
