// The panel's transcript of a composer session, rebuilt from the log (a reloaded window shows the same).
import { describe, expect, it } from "vitest";
import { queueFromEvents } from "../../../src/core/composer";
import type { NewEvent, SessionEvent } from "../../../src/core/events";
import { SessionViewModel } from "../../../src/node/panel/view-model";
import { HostToWebview, WebviewToHost } from "../../../src/protocol/messages";

const stamp = (events: NewEvent[]) => events.map((e, seq) => ({ ...e, seq, ts: "2026-12-01T00:00:00Z" }) as SessionEvent);

describe("composer events in the panel", () => {
  it("shows the chips on the message they came with, and how a message typed while the agent worked arrived", () => {
    const events = stamp([
      {
        type: "mentions",
        items: [
          { kind: "file", label: "src/a.ts", chars: 120 },
          { kind: "file", label: "secret.txt", chars: 0, error: "not attached: the permission rule Read(secret.txt) denies reading secret.txt" },
        ],
      },
      { type: "user_message", text: "Check these" },
      { type: "queue", action: "added", id: "q1", mode: "steer", text: "also the moon" },
      { type: "queue", action: "added", id: "q2", mode: "queue", text: "then the changelog" },
      { type: "queue", action: "added", id: "q3", mode: "queue", text: "never" },
      { type: "queue", action: "edited", id: "q2", text: "then the CHANGELOG" },
      { type: "queue", action: "removed", id: "q3" },
      { type: "queue", action: "steered", id: "q1" },
      { type: "user_message", text: "also the moon" },
      { type: "user_message", text: "Keep going", from: "extension" },
      { type: "queue", action: "sent", id: "q2" },
      { type: "mentions", items: [{ kind: "git-diff", label: "git diff", chars: 10, truncated: true }] },
      { type: "user_message", text: "then the CHANGELOG" },
      // A blocked prompt's chips do not stick to the next message.
      { type: "mentions", items: [{ kind: "terminal", label: "terminal", chars: 5 }] },
      { type: "error", message: "Your message was not sent: no", code: "hook_blocked" },
      { type: "user_message", text: "plain" },
    ]);
    const vm = new SessionViewModel(events);
    const users = vm.items().items.filter((i) => i.kind === "user");
    expect(users).toEqual([
      {
        kind: "user",
        id: "u1",
        text: "Check these",
        chips: [
          { kind: "file", label: "src/a.ts" },
          { kind: "file", label: "secret.txt", error: "not attached: the permission rule Read(secret.txt) denies reading secret.txt" },
        ],
      },
      { kind: "user", id: "u8", text: "also the moon", delivery: "steered" },
      { kind: "user", id: "u9", text: "Keep going" },
      { kind: "user", id: "u12", text: "then the CHANGELOG", delivery: "queued", chips: [{ kind: "git-diff", label: "git diff", truncated: true }] },
      { kind: "user", id: "u15", text: "plain" },
    ]);
    // Every view the host sends passes the protocol.
    for (const view of vm.items().items) expect(HostToWebview.safeParse({ type: "event", view }).success).toBe(true);
    expect(queueFromEvents(events)).toEqual([]);
    expect(queueFromEvents(events.slice(0, 7))).toEqual([
      { id: "q1", text: "also the moon", items: [], mode: "steer" },
      { id: "q2", text: "then the CHANGELOG", items: [], mode: "queue" },
    ]);
  });

  it("the protocol refuses malformed composer messages", () => {
    expect(WebviewToHost.safeParse({ type: "composer.send", text: "hi", items: [{ kind: "file", path: "a.ts" }], mode: "steer" }).success).toBe(true);
    expect(WebviewToHost.safeParse({ type: "composer.send", text: "", items: [], mode: "send" }).success).toBe(false);
    expect(WebviewToHost.safeParse({ type: "composer.send", text: "hi", items: [], mode: "now" }).success).toBe(false);
    expect(WebviewToHost.safeParse({ type: "composer.send", text: "hi", items: Array.from({ length: 51 }, () => ({ kind: "terminal" })), mode: "send" }).success).toBe(false);
    expect(WebviewToHost.safeParse({ type: "composer.complete", requestId: -1, query: "a" }).success).toBe(false);
    expect(WebviewToHost.safeParse({ type: "composer.editQueued", id: "q1", text: "" }).success).toBe(false);
    expect(HostToWebview.safeParse({ type: "composer.addContext", item: { kind: "selection", path: "a.ts", startLine: 1, endLine: 3, text: "x" } }).success).toBe(true);
    expect(HostToWebview.safeParse({ type: "composer.addContext", item: { kind: "file" } }).success).toBe(false);
  });
});
