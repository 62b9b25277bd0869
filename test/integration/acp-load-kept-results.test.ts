/**
 * ACP `session/load` (and `session/resume`) deliver the results background agents handed back after
 * the session ended — kept in `<session-dir>/<id>.handback/`, as the panel keeps them and `yoke resume`
 * delivers them (cli-resume-choices.test.ts). Before, an editor that loaded the session never saw them
 * and the model never got them. Now they are streamed as session/update notifications after the
 * history replay, once: a second load shows them once (in the history), never as new again, and the
 * model has them once with the next prompt.
 *
 * The SDK's own client (test/support/acp-client.ts) over the stdio of the built `yoke acp`, the
 * scripted model over real HTTP; asserts on what the editor received, what reached the model and what
 * is left on disk.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { handBackInbox } from "../../src/node/background/hand-back";
import { ensureBuilt } from "../support/cli";
import { startAcpClient, type AcpTestClient } from "../support/acp-client";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

const RESULT = "The background agent bg-writer (agent 0123abcd) finished: KEPT-RESULT-5e1 wrote docs/guide.md in its worktree.";
const RESULT2 = "The background agent bg-checker (agent 4567cdef) finished: KEPT-RESULT-9a2 found no broken link.";

const said = (r: RecordedRequest) => JSON.stringify(r.body.messages ?? []);
const count = (text: string, needle: string) => text.split(needle).length - 1;
const textOf = (n: acp.SessionNotification) => ("content" in n.update && n.update.content && "text" in n.update.content ? n.update.content.text : "");

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("ACP: a session's kept background results reach the editor that loads it", () => {
  it("session/load streams them after the history replay, once; the model gets them once; a second load does not deliver them again; session/resume delivers new ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-acp-kept-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "README.md"), "# Widget\n");
    const sessions = join(dir, "sessions");
    const env = { HOME: dir };
    server = await startScriptedLlmServer({ script: (r) => ({ text: said(r).includes("second prompt") ? "second-answer" : said(r).includes("third prompt") ? "third-answer" : "first-answer" }) });
    const args = ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "local-model", "--session-dir", sessions];
    const open = async () => {
      const c = startAcpClient(args, {}, { cwd: ws, env });
      clients.push(c);
      await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      return c;
    };

    // The session, made in an editor; then it ends.
    const first = await open();
    const { sessionId } = await first.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] })).stopReason).toBe("end_turn");
    await first.close();
    clients.splice(0);

    // A background agent of that session finished after it ended: its result is kept for it (as the panel keeps it).
    handBackInbox(sessions, sessionId).post(RESULT);

    // Loaded in the editor: the history replayed (the user's "hello", the answer), then the kept result.
    const second = await open();
    const asked = server.requests.length;
    await second.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    await until("the kept result", () => second.updates.some((n) => textOf(n).includes("KEPT-RESULT-5e1")));
    const at = second.updates.findIndex((n) => textOf(n).includes("KEPT-RESULT-5e1"));
    const hello = second.updates.findIndex((n) => n.update.sessionUpdate === "user_message_chunk" && textOf(n) === "hello");
    const answer = second.updates.findIndex((n) => n.update.sessionUpdate === "agent_message_chunk" && textOf(n).includes("first-answer"));
    expect(hello).toBeGreaterThanOrEqual(0);
    expect(answer).toBeGreaterThan(hello);
    expect(at).toBeGreaterThan(answer);
    expect(second.updates[at]!.update.sessionUpdate).toBe("agent_message_chunk");
    expect(textOf(second.updates[at]!)).toContain(RESULT);
    expect(second.updates.filter((n) => textOf(n).includes("KEPT-RESULT-5e1"))).toHaveLength(1);
    // Taken: nothing waits any more, and nothing was asked of the model on load.
    expect(handBackInbox(sessions, sessionId).waiting()).toEqual([]);
    expect(existsSync(join(sessions, `${sessionId}.handback`)) ? readdirSync(join(sessions, `${sessionId}.handback`)) : []).toEqual([]);
    expect(server.requests.length).toBe(asked);
    // The model has it with the next prompt, once.
    expect((await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second prompt" }] })).stopReason).toBe("end_turn");
    const secondRequest = server.requests.at(-1)!;
    expect(count(said(secondRequest), "KEPT-RESULT-5e1")).toBe(1);
    expect(said(secondRequest)).toContain("second prompt");
    await second.close();
    clients.splice(0);

    // Loaded again: the result is in the history once, not delivered as new again; the model still has it once.
    const third = await open();
    await third.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    await until("the replay's last answer", () => third.updates.some((n) => textOf(n).includes("second-answer")));
    expect(third.updates.filter((n) => textOf(n).includes("KEPT-RESULT-5e1"))).toHaveLength(1);
    const replayedAt = third.updates.findIndex((n) => textOf(n).includes("KEPT-RESULT-5e1"));
    expect(replayedAt).toBeLessThan(third.updates.findIndex((n) => textOf(n).includes("second-answer")));

    // Another result kept while the session is closed; session/resume (no replay) delivers it, once.
    await third.close();
    clients.splice(0);
    handBackInbox(sessions, sessionId).post(RESULT2);
    const fourth = await open();
    await fourth.agent.request("session/resume", { sessionId, cwd: ws, mcpServers: [] });
    await until("the second kept result", () => fourth.updates.some((n) => textOf(n).includes("KEPT-RESULT-9a2")));
    expect(fourth.updates.filter((n) => textOf(n).includes("KEPT-RESULT-9a2"))).toHaveLength(1);
    expect(fourth.updates.some((n) => textOf(n).includes("KEPT-RESULT-5e1"))).toBe(false);
    expect((await fourth.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "third prompt" }] })).stopReason).toBe("end_turn");
    const last = said(server.requests.at(-1)!);
    expect(count(last, "KEPT-RESULT-5e1")).toBe(1);
    expect(count(last, "KEPT-RESULT-9a2")).toBe(1);
    expect(handBackInbox(sessions, sessionId).waiting()).toEqual([]);
  }, 240_000);
});
