/**
 * `yoke resume SESSION` in the CLI (issue 24): the session goes on in the permission mode and on
 * the model it had chosen (its log's last `mode_change` / `model_change`, here made by an ACP
 * client — the SDK's own — through `session/set_config_option`), unless this run's
 * `--permission-mode` / `--model` name others; and the results its background agents handed back
 * after it ended (kept in `<session-dir>/<id>.handback/`, as the panel keeps them) are given to the
 * model, once. The built CLI as a child process, with the scripted model over real HTTP; asserts
 * what reached the model and what is on disk.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { handBackInbox } from "../../src/node/background/hand-back";
import { ensureBuilt, runCli } from "../support/cli";
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

type Json = Record<string, unknown>;
const messagesOf = (r: RecordedRequest) => (r.body.messages as Json[] | undefined) ?? [];
const said = (r: RecordedRequest) => JSON.stringify(messagesOf(r));
const modelOf = (r: RecordedRequest) => (r.body as { model?: string }).model;
const lastUser = (r: RecordedRequest) =>
  JSON.stringify(
    messagesOf(r)
      .filter((m) => m.role === "user")
      .at(-1) ?? {},
  );

const RESULT = "The background agent bg-writer (agent 0123abcd) finished: HANDBACK-7f3 wrote docs/guide.md in its worktree.";

function script(r: RecordedRequest): ScriptedTurn {
  const text = lastUser(r);
  const toolLast = messagesOf(r).at(-1)?.role === "tool";
  if (text.includes("write the notes")) return toolLast ? { text: "notes-written" } : { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "kept\n" } }] };
  if (text.includes("SECOND")) return toolLast ? { text: "second-done" } : { toolCalls: [{ name: "write_file", input: { path: "second.txt", content: "kept\n" } }] };
  return { text: "ok" };
}

describe("yoke resume: the session's own mode and model, and its background agents' kept results", () => {
  it("restores the mode and model chosen in the session, delivers the kept result once; flags for the run win", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-resume-choices-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "README.md"), "# Widget\n");
    const sessions = join(dir, "sessions");
    const env = { HOME: dir };
    server = await startScriptedLlmServer({ script, models: ["local-model", "big-model"] });
    const common = ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--session-dir", sessions];

    // The session, made in an editor over ACP: big-model and acceptEdits chosen there (recorded in its log).
    const c = startAcpClient([...common, "--model", "local-model", "--permission-mode", "default"], {}, { cwd: ws, env });
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/set_config_option", { sessionId, configId: "model", value: "big-model" });
    await c.agent.request("session/set_config_option", { sessionId, configId: "mode", value: "acceptEdits" });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] })).stopReason).toBe("end_turn");
    await c.close();
    clients.splice(0);
    expect(modelOf(server.requests[0]!)).toBe("big-model");

    // A background agent of that session finished after it ended: its result is kept for it (as the panel keeps it).
    handBackInbox(sessions, sessionId).post(RESULT);

    // yoke resume with no --permission-mode and no choice of model: in acceptEdits (the write needs no question, and
    // stdin is no terminal, so a question would be denied), on big-model, with the kept result before the prompt.
    const before = server.requests.length;
    const first = await runCli(["resume", sessionId, "--trust", "--session-dir", sessions, "--json", "write the notes"], { cwd: ws, env });
    expect(first.code, first.stderr).toBe(0);
    const run1 = server.requests.slice(before);
    expect(run1.length).toBe(2);
    expect(run1.map(modelOf)).toEqual(["big-model", "big-model"]);
    expect(said(run1[0]!)).toContain("HANDBACK-7f3");
    expect(said(run1[0]!)).toContain("write the notes");
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("kept\n");
    expect(first.stderr).toContain("1 result of background agents kept for this session, given to the model now");
    expect(JSON.parse(first.stdout)).toMatchObject({ sessionId, status: "done" });
    // Taken: nothing waits any more.
    expect(handBackInbox(sessions, sessionId).waiting()).toEqual([]);
    expect(existsSync(join(sessions, `${sessionId}.handback`)) ? readdirSync(join(sessions, `${sessionId}.handback`)) : []).toEqual([]);

    // Resumed again with flags for this run: they win (default mode: the write is asked, and with no terminal denied; local-model).
    const before2 = server.requests.length;
    const second = await runCli(["resume", sessionId, "--trust", "--session-dir", sessions, "--model", "local-model", "--permission-mode", "default", "--json", "SECOND write"], { cwd: ws, env });
    expect(second.code, second.stderr).toBe(0);
    const run2 = server.requests.slice(before2);
    expect(run2.map(modelOf)).toEqual(["local-model", "local-model"]);
    expect(existsSync(join(ws, "second.txt"))).toBe(false);
    // The kept result was delivered once: it is in the history, not given again as new.
    expect(second.stderr).not.toContain("kept for this session");
    expect(said(run2[0]!).split("HANDBACK-7f3").length - 1).toBe(1);
  }, 240_000);
});
