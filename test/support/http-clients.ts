/** The two HTTP clients the provider SDKs may be given: the provider tests run under each. */
import type { ProviderFetch } from "../../src/core/providers/types";
import { createNodeFetch } from "../../src/node/http-client/node-fetch";

export const HTTP_CLIENTS: Array<{ name: string; fetch: ProviderFetch | undefined }> = [
  { name: "Node's fetch", fetch: undefined },
  { name: "Yoke's HTTP client", fetch: createNodeFetch() },
];
