/**
 * listModels: the provider's own list through its SDK client, over real HTTP to the scripted
 * server — the OpenAI-compatible route and Anthropic's Models API, bounded, cached per server,
 * and a server that cannot list answers with a reason (not cached, never thrown).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../../src/demo/scripted-llm-server";
import { listModels } from "../../../src/core/providers/list-models";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("listModels", () => {
  it("lists an OpenAI-compatible server's models and an Anthropic gateway's, each asked once while cached; limit bounds the list", async () => {
    server = await startScriptedLlmServer({ script: [], models: ["m-1", "m-2", "m-3"] });
    const now = () => 1_000;
    expect(await listModels({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl }, { now })).toEqual({ ids: ["m-1", "m-2", "m-3"] });
    expect(await listModels({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl }, { now })).toEqual({ ids: ["m-1", "m-2", "m-3"] });
    expect(server.modelLists()).toBe(1);
    expect(await listModels({ provider: "anthropic", baseUrl: server.anthropicBaseUrl, apiKey: "k" }, { now })).toEqual({ ids: ["m-1", "m-2", "m-3"] });
    expect(server.modelLists()).toBe(2);
    expect((await listModels({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl }, { now, limit: 2 })).ids).toEqual(["m-1", "m-2"]);
    // Later than the cache keeps a list: asked again.
    await listModels({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl }, { now: () => 1_000 + 10 * 60_000 });
    expect(server.modelLists()).toBe(4);
  });

  it("a server without the route, or a provider that has no list, gives no names and the reason; a failure is asked again next time", async () => {
    let asked = 0;
    const bare = createServer((req, res) => {
      asked++;
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "no such route" } }));
    });
    await new Promise<void>((r) => bare.listen(0, "127.0.0.1", () => r()));
    try {
      const baseUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`;
      const first = await listModels({ provider: "openai-compatible", baseUrl });
      expect(first.ids).toEqual([]);
      expect(first.problem).toMatch(/could not be read/);
      await new Promise((r) => setTimeout(r, 0));
      await listModels({ provider: "openai-compatible", baseUrl });
      expect(asked).toBe(2);
    } finally {
      bare.closeAllConnections();
      await new Promise((r) => bare.close(() => r(undefined)));
    }
    expect(await listModels({ provider: "vscode-lm" })).toEqual({ ids: [], problem: "the provider vscode-lm offers no model list" });
  });
});
