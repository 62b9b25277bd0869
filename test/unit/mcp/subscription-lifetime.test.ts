// The MCP extension's side of resource subscriptions: a mentioned resource is subscribed once per
// session, unsubscribed when it leaves the context (a compaction replaced the messages that
// carried it) and when the session ends; a change reported after that is not told to the model.
// (The hub's side — counting, renewal after restarts, resources/unsubscribe on the wire — runs
// against server-everything in test/integration/mcp-client-features.test.ts.)
import { describe, expect, it } from "vitest";
import type { Extension, ExtensionApi } from "../../../src/core/extensions/types";
import { mcpExtension } from "../../../src/core/mcp/extension";
import type { McpHub, McpServerStatus } from "../../../src/core/mcp/types";

type Handler = (input: unknown) => unknown;

function harness() {
  const calls: string[] = [];
  let updated: ((server: string, uri: string) => void) | undefined;
  const status: McpServerStatus = {
    config: { name: "docs", transport: "stdio", command: "x", args: [], env: {}, source: "user-settings", sourcePath: "s.json", workspace: false, startAtSessionStart: false },
    state: "running",
    tools: [],
  };
  const hub: McpHub = {
    catalog: () => Promise.resolve([status]),
    call: () => Promise.reject(new Error("no calls here")),
    readResource: (_s, uri) => Promise.resolve([{ uri, text: "the text" }]),
    subscribeResource: (s, uri) => (calls.push(`subscribe ${s} ${uri}`), Promise.resolve(true)),
    unsubscribeResource: (s, uri) => (calls.push(`unsubscribe ${s} ${uri}`), Promise.resolve()),
    onResourceUpdated: (l) => ((updated = l), { dispose: () => (updated = undefined) }),
    status: () => [status],
    onChange: () => ({ dispose: () => undefined }),
    dispose: () => Promise.resolve(),
  };
  const handlers = new Map<string, Handler[]>();
  const api = {
    on: (point: string, h: Handler) => handlers.set(point, [...(handlers.get(point) ?? []), h]),
    record: () => undefined,
    addTools: () => undefined,
  } as unknown as ExtensionApi;
  const run = async (point: string, input: unknown) => {
    const out: unknown[] = [];
    for (const h of handlers.get(point) ?? []) out.push(await h(input));
    return out;
  };
  const ext: Extension = mcpExtension({ hub, ownsHub: false });
  return { calls, api, ext, run, update: (uri: string) => updated?.("docs", uri) };
}

const settle = () => new Promise((r) => setTimeout(r, 0));
const told = (out: unknown[]) => JSON.stringify(out).includes("changed since (the server said so)");

describe("a mentioned resource's subscription lifetime", () => {
  it("subscribed once, unsubscribed at compaction (a change after it is not told), again when mentioned again, and at the session's end", async () => {
    const h = harness();
    const handle = await h.ext.setup(h.api);
    await h.run("prompt.submit", { text: "look at @docs:demo://a and @docs:demo://a" });
    await h.run("prompt.submit", { text: "again @docs:demo://a" });
    await settle();
    expect(h.calls).toEqual(["subscribe docs demo://a"]);
    h.update("demo://a");
    expect(told(await h.run("request.prepare", { turn: 1, messages: [] }))).toBe(true);

    await h.run("compaction.after", { trigger: "auto", summary: "s" });
    expect(h.calls).toEqual(["subscribe docs demo://a", "unsubscribe docs demo://a"]);
    h.update("demo://a");
    expect(told(await h.run("request.prepare", { turn: 2, messages: [] }))).toBe(false);

    await h.run("prompt.submit", { text: "and now @docs:demo://a" });
    await settle();
    await h.run("session.end", { reason: "done" });
    expect(h.calls).toEqual(["subscribe docs demo://a", "unsubscribe docs demo://a", "subscribe docs demo://a", "unsubscribe docs demo://a"]);
    // Nothing more to end.
    await h.run("session.end", { reason: "again" });
    expect(h.calls).toHaveLength(4);
    (handle as { dispose?: () => void } | void)?.dispose?.();
  });
});
