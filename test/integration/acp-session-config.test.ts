/**
 * `yoke acp`: the session settings and notices of the ACP v1 schema beyond acp.test.ts —
 * `configOptions` (permission mode and model) with `session/set_config_option` beside
 * `session/set_mode`, `session_info_update` (the title Yoke gives a session), `usage_update`
 * (tokens, context window and cost from Yoke's cost accounting), `reject_always` (a deny rule for
 * the rest of the session), and `session/delete` (from the one session store, refused while the
 * session runs or another process holds it). Driven by the SDK's own client app over the built
 * CLI's stdio, with the scripted model over real HTTP; asserts what the client received, what
 * reached the model and what is on disk.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { costOf } from "../../src/core/providers/pricing";
import { contextWindowOf } from "../../src/core/providers/context-windows";
import { ensureBuilt } from "../support/cli";
import { startAcpClient, updatesOf, type AcpClientHandlers, type AcpTestClient } from "../support/acp-client";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];

function workspace(): { ws: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-acp-config-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), "# Widget\n");
  return { ws, sessions: join(dir, "sessions") };
}

async function start(script: ScriptedTurn[], ws: string, sessions: string, handlers: AcpClientHandlers = {}, extra: string[] = [], caps: acp.ClientCapabilities = {}, models?: string[]) {
  server ??= await startScriptedLlmServer({ script, ...(models ? { models } : {}) });
  const c = startAcpClient(["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--session-dir", sessions, ...extra], handlers, {
    cwd: ws,
    env: { HOME: join(ws, "..") },
  });
  clients.push(c);
  const init = await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: caps });
  return { c, init };
}

const rpcError = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code: number; message: string },
  );

async function until<T>(what: () => T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const modelOf = (i: number) => (server!.requests[i]!.body as { model?: string }).model;

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("yoke acp: config options, session info, usage, reject_always, session/delete", () => {
  it("configOptions (mode, model) in new and load; set_config_option switches the model the next request goes to and the mode (as set_mode still does); bad values are refused", async () => {
    const { ws, sessions } = workspace();
    const { c, init } = await start([{ text: "first" }, { text: "second" }, { text: "third" }], ws, sessions, {}, ["--model", "local-model", "--fallback-model", "local-small"]);
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ delete: {} });
    const created = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    const { sessionId } = created;
    const byId = (opts: acp.SessionConfigOption[] | null | undefined, id: string) => opts?.find((o) => o.id === id) as (acp.SessionConfigOption & { type: "select" }) | undefined;
    expect(byId(created.configOptions, "mode")).toMatchObject({ category: "mode", type: "select", currentValue: "default" });
    expect(byId(created.configOptions, "mode")!.options).toEqual(expect.arrayContaining([expect.objectContaining({ value: "acceptEdits" }), expect.objectContaining({ value: "plan" })]));
    expect(byId(created.configOptions, "model")).toMatchObject({ category: "model", type: "select", currentValue: "local-model" });
    // The session's model first, then its fallback; the provider's list (here: the scripted server's one model) follows in an update.
    expect((byId(created.configOptions, "model")!.options as acp.SessionConfigSelectOption[]).map((o) => o.value)).toEqual(["local-model", "local-small"]);
    await until(() => (updatesOf(c.updates, "config_option_update").some((u) => byId(u.configOptions, "model")?.options.length === 3) ? true : undefined));

    const prompt = async (text: string) => (await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })).stopReason;
    expect(await prompt("one")).toBe("end_turn");
    expect(modelOf(0)).toBe("local-model");

    // The model: the answer carries every option with the new value; the next request goes to it.
    const switched = await c.agent.request("session/set_config_option", { sessionId, configId: "model", value: "local-small" });
    expect(byId(switched.configOptions, "model")!.currentValue).toBe("local-small");
    expect(await prompt("two")).toBe("end_turn");
    expect(modelOf(1)).toBe("local-small");

    // The mode through the config option: the session's mode changes (and the client is told both ways).
    const moded = await c.agent.request("session/set_config_option", { sessionId, configId: "mode", value: "plan" });
    expect(byId(moded.configOptions, "mode")!.currentValue).toBe("plan");
    await until(() => (updatesOf(c.updates, "current_mode_update").at(-1)?.currentModeId === "plan" ? true : undefined));
    await until(() => {
      const last = updatesOf(c.updates, "config_option_update").at(-1);
      return last && byId(last.configOptions, "mode")?.currentValue === "plan" ? true : undefined;
    });
    // set_mode still works, and the config options follow it.
    await c.agent.request("session/set_mode", { sessionId, modeId: "acceptEdits" });
    await until(() => {
      const last = updatesOf(c.updates, "config_option_update").at(-1);
      return last && byId(last.configOptions, "mode")?.currentValue === "acceptEdits" ? true : undefined;
    });

    // Refused, with nothing changed: an unknown option, an unknown value, a boolean for a select.
    expect(await rpcError(c.agent.request("session/set_config_option", { sessionId, configId: "temperature", value: "hot" }))).toMatchObject({ code: -32602 });
    expect(await rpcError(c.agent.request("session/set_config_option", { sessionId, configId: "model", value: "gpt-99" }))).toMatchObject({ code: -32602 });
    expect(await rpcError(c.agent.request("session/set_config_option", { sessionId, configId: "mode", type: "boolean", value: true }))).toMatchObject({ code: -32602 });
    expect(await rpcError(c.agent.request("session/set_config_option", { sessionId, configId: "mode", value: "yolo" }))).toMatchObject({ code: -32602 });
    expect(await prompt("three")).toBe("end_turn");
    expect(modelOf(2)).toBe("local-small");

    // Loaded in another process: the options again, in step with its modes; the session goes on in its mode and on its model (the log's).
    await c.close();
    clients.splice(clients.indexOf(c), 1);
    const second = await start([], ws, sessions, {}, ["--model", "local-model"]);
    const loaded = await second.c.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    expect(byId(loaded.configOptions, "mode")!.currentValue).toBe(loaded.modes!.currentModeId);
    expect(loaded.modes!.currentModeId).toBe("acceptEdits");
    expect(byId(loaded.configOptions, "model")!.currentValue).toBe("local-small");
  }, 180_000);

  it("the model chosen (one the provider lists, too) and the mode are written to the log; session/load in a new process goes on with both, whatever --permission-mode says; the provider's list is asked once per process", async () => {
    const { ws, sessions } = workspace();
    const script: ScriptedTurn[] = [
      { text: "first" },
      // After the load: a file edit, which acceptEdits writes without asking.
      { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "kept\n" } }] },
      { text: "written" },
    ];
    const listed = ["local-model", "big-model", "tiny-model"];
    const { c } = await start(script, ws, sessions, {}, ["--model", "local-model", "--permission-mode", "default"], {}, listed);
    const byId = (opts: acp.SessionConfigOption[] | null | undefined, id: string) => opts?.find((o) => o.id === id) as (acp.SessionConfigOption & { type: "select" }) | undefined;
    const values = (o: acp.SessionConfigOption | undefined) => ((o as { options?: acp.SessionConfigSelectOption[] } | undefined)?.options ?? []).map((x) => x.value);
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    // A model only the provider lists: chosen before its list came in, it is waited for (not refused).
    const chosen = await c.agent.request("session/set_config_option", { sessionId, configId: "model", value: "big-model" });
    expect(byId(chosen.configOptions, "model")!.currentValue).toBe("big-model");
    // The one in use first, then the session's own, then the rest of the provider's list, each once.
    expect(values(byId(chosen.configOptions, "model"))).toEqual(["big-model", "local-model", "tiny-model"]);
    await c.agent.request("session/set_config_option", { sessionId, configId: "mode", value: "acceptEdits" });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] })).stopReason).toBe("end_turn");
    expect(modelOf(0)).toBe("big-model");
    // A second session of the same process: the list is not asked again.
    const other = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await until(() => (updatesOf(c.updates, "config_option_update").some((u) => values(byId(u.configOptions, "model")).includes("tiny-model")) ? true : undefined));
    expect(other.sessionId).not.toBe(sessionId);
    expect(server!.modelLists()).toBe(1);

    // The log has both choices.
    const log = readFileSync(join(sessions, `${sessionId}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; model?: string; mode?: string; from?: string; provider?: string });
    expect(log.filter((e) => e.type === "model_change")).toEqual([expect.objectContaining({ provider: "openai-compatible", model: "big-model", from: "local-model", by: "user" })]);
    expect(log.filter((e) => e.type === "mode_change").at(-1)).toMatchObject({ mode: "acceptEdits", from: "default" });
    await c.close();
    clients.splice(clients.indexOf(c), 1);

    // A new process, told to start new sessions in "default": the loaded one is in acceptEdits, on big-model.
    let asked = 0;
    const second = await start([], ws, sessions, { permission: () => (asked++, { outcome: { outcome: "selected", optionId: "reject_once" } }) }, [
      "--model",
      "local-model",
      "--permission-mode",
      "default",
    ]);
    const loaded = await second.c.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    expect(loaded.modes!.currentModeId).toBe("acceptEdits");
    expect(byId(loaded.configOptions, "mode")!.currentValue).toBe("acceptEdits");
    expect(byId(loaded.configOptions, "model")!.currentValue).toBe("big-model");
    expect(values(byId(loaded.configOptions, "model"))[0]).toBe("big-model");
    expect((await second.c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write notes" }] })).stopReason).toBe("end_turn");
    // The requests went to the chosen model, and the edit was written without a question (acceptEdits).
    expect(modelOf(1)).toBe("big-model");
    expect(modelOf(2)).toBe("big-model");
    expect(asked).toBe(0);
    expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("kept\n");
    // A new session of that process starts as its flags say.
    const fresh = await second.c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect(fresh.modes!.currentModeId).toBe("default");
    expect(byId(fresh.configOptions, "model")!.currentValue).toBe("local-model");
  }, 180_000);

  it("a loaded session whose mode the permission settings now turn off goes on in the settings' default mode, and says so on stderr", async () => {
    const { ws, sessions } = workspace();
    const { c } = await start([{ text: "first" }], ws, sessions, {}, ["--model", "local-model"]);
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/set_mode", { sessionId, modeId: "bypassPermissions" });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] })).stopReason).toBe("end_turn");
    await c.close();
    clients.splice(clients.indexOf(c), 1);
    // Since then the user turned bypassPermissions off.
    const off = join(ws, "..", "no-bypass.json");
    writeFileSync(off, JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }));
    const second = await start([], ws, sessions, {}, ["--model", "local-model", "--settings", off]);
    const loaded = await second.c.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    expect(loaded.modes!.currentModeId).toBe("default");
    expect(loaded.modes!.availableModes.map((m) => m.id)).not.toContain("bypassPermissions");
    expect(second.c.stderr()).toContain("the session was in the mode bypassPermissions, which the permission settings now turn off");
  }, 180_000);

  it("session_info_update names the session from the user's first message; usage_update carries the request's tokens, the model's window and the session's cost", async () => {
    const { ws, sessions } = workspace();
    const usage = { input: 12_000, output: 800, cacheRead: 3_000, cacheWrite: 0 };
    const { c } = await start(
      [
        { text: "It is a widget.", usage },
        { text: "Still a widget.", usage },
      ],
      ws,
      sessions,
      {},
      ["--model", "gpt-4o"],
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "What is   this project\nabout?" }] });
    const infos = updatesOf(c.updates, "session_info_update");
    expect(infos[0]).toMatchObject({ title: "What is this project about?", updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    // The same title session/list gives.
    const listed = await c.agent.request("session/list", { cwd: ws });
    expect(listed.sessions.find((s) => s.sessionId === sessionId)?.title).toBe("What is this project about?");

    const one = costOf("gpt-4o", { inputTokens: 12_000, outputTokens: 800, cacheReadTokens: 3_000, cacheWriteTokens: 0 })!;
    expect(one).toBeGreaterThan(0);
    const first = updatesOf(c.updates, "usage_update");
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ used: 15_800, size: contextWindowOf("gpt-4o").tokens });
    expect(first[0]!.cost!.currency).toBe("USD");
    expect(first[0]!.cost!.amount).toBeCloseTo(one, 10);

    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "And now?" }] });
    const second = updatesOf(c.updates, "usage_update");
    expect(second).toHaveLength(2);
    // The cost is the session's so far.
    expect(second[1]!.cost!.amount).toBeCloseTo(2 * one, 10);
    // The title stays the first message's; the time moves on.
    const last = updatesOf(c.updates, "session_info_update").at(-1)!;
    expect(last.title ?? "What is this project about?").toBe("What is this project about?");
    expect(Date.parse(last.updatedAt!)).toBeGreaterThanOrEqual(Date.parse(infos[0]!.updatedAt!));
  }, 120_000);

  it("reject_always: the command is not run, and the same pattern is denied without asking for the rest of the session (not saved); another session is asked again", async () => {
    const { ws, sessions } = workspace();
    const { c } = await start(
      [
        { toolCalls: [{ name: "run_command", input: { command: "touch first.txt" } }] },
        { text: "Denied." },
        { toolCalls: [{ name: "run_command", input: { command: "touch second.txt" } }] },
        { text: "Denied again." },
        { toolCalls: [{ name: "run_command", input: { command: "touch third.txt" } }] },
        { text: "Allowed in a new session." },
      ],
      ws,
      sessions,
      {
        permission: (q) => {
          const kind = c.permissions.length === 1 ? "reject_always" : "allow_once";
          return { outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === kind)!.optionId } };
        },
      },
      ["--model", "local-model"],
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "touch first.txt" }] });
    const q = c.permissions[0]!;
    const always = q.options.find((o) => o.kind === "reject_always");
    expect(always?.name).toMatch(/^Always deny Bash\(touch.*\) \(this session\)$/);
    expect(existsSync(join(ws, "first.txt"))).toBe(false);
    expect(JSON.stringify(server!.requests[1]!.body)).toContain("denied Bash(touch");

    // The same pattern again: denied by the session's rule, no question.
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "touch second.txt" }] });
    expect(c.permissions).toHaveLength(1);
    expect(existsSync(join(ws, "second.txt"))).toBe(false);
    expect(JSON.stringify(server!.requests[3]!.body)).toContain("denied for this session");
    // Nothing saved to the settings files.
    expect(existsSync(join(ws, ".yoke", "settings.local.json"))).toBe(false);

    // A new session is asked again (and allowed here).
    const other = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId: other.sessionId, prompt: [{ type: "text", text: "touch third.txt" }] });
    expect(c.permissions).toHaveLength(2);
    expect(existsSync(join(ws, "third.txt"))).toBe(true);
  }, 120_000);

  it("session/delete removes the session from the store (log, spilled results; gone from session/list); refused while it runs or while another process holds it; an unknown one is not an error", async () => {
    const { ws, sessions } = workspace();
    const { c } = await start([{ text: "kept" }, { text: "to delete" }, { toolCalls: [{ name: "run_command", input: { command: "sleep 60" } }] }, { text: "stopped" }], ws, sessions, {}, [
      "--model",
      "local-model",
      "--permission-mode",
      "bypassPermissions",
    ]);
    const keep = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId: keep.sessionId, prompt: [{ type: "text", text: "keep me" }] });
    const gone = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId: gone.sessionId, prompt: [{ type: "text", text: "delete me" }] });
    mkdirSync(join(sessions, `${gone.sessionId}.blobs`), { recursive: true });
    writeFileSync(join(sessions, `${gone.sessionId}.blobs`, "r1.txt"), "spilled");
    expect(existsSync(join(sessions, `${gone.sessionId}.jsonl`))).toBe(true);

    expect(await c.agent.request("session/delete", { sessionId: gone.sessionId })).toEqual({});
    expect(readdirSync(sessions).filter((n) => n.startsWith(gone.sessionId))).toEqual([]);
    const ids = (await c.agent.request("session/list", { cwd: ws })).sessions.map((s) => s.sessionId);
    expect(ids).toContain(keep.sessionId);
    expect(ids).not.toContain(gone.sessionId);
    // A prompt to it: not found. Deleting it again (or any unknown id): the SDK's client takes not-found as done.
    expect(await rpcError(c.agent.request("session/prompt", { sessionId: gone.sessionId, prompt: [{ type: "text", text: "hello?" }] }))).toMatchObject({ code: -32002 });
    expect(await c.agent.request("session/delete", { sessionId: gone.sessionId })).toEqual({});

    // Running: refused, the log kept.
    const turn = c.agent.request("session/prompt", { sessionId: keep.sessionId, prompt: [{ type: "text", text: "wait" }] });
    await until(() => (updatesOf(c.updates, "tool_call_update").some((u) => u.status === "in_progress") ? true : undefined));
    const refused = await rpcError(c.agent.request("session/delete", { sessionId: keep.sessionId }));
    expect(refused).toMatchObject({ code: -32600, message: expect.any(String) });
    expect(refused!.message).toContain("working on a prompt");
    await c.agent.notify("session/cancel", { sessionId: keep.sessionId });
    expect((await turn).stopReason).toBe("cancelled");
    expect(existsSync(join(sessions, `${keep.sessionId}.jsonl`))).toBe(true);

    // Held by another process (this one has it open): the second refuses, naming the holder; the log stays.
    const second = await start([], ws, sessions, {}, ["--model", "local-model"]);
    await second.c.agent.request("session/list", { cwd: ws });
    const held = await rpcError(second.c.agent.request("session/delete", { sessionId: keep.sessionId }));
    expect(held?.code).toBe(-32600);
    expect(held!.message).toContain("yoke acp");
    expect(existsSync(join(sessions, `${keep.sessionId}.jsonl`))).toBe(true);
    // Once the first process closed it, the second deletes it.
    await c.agent.request("session/close", { sessionId: keep.sessionId });
    expect(await second.c.agent.request("session/delete", { sessionId: keep.sessionId })).toEqual({});
    expect(existsSync(join(sessions, `${keep.sessionId}.jsonl`))).toBe(false);
  }, 180_000);

  it("read_file through the editor asks fs/read_text_file for just the range (line, limit) and shows the editor's lines with their numbers; an editor that answers the whole file anyway is understood", async () => {
    const { ws, sessions } = workspace();
    const disk = Array.from({ length: 10 }, (_, i) => `disk line ${i + 1}`);
    writeFileSync(join(ws, "big.txt"), disk.join("\n") + "\n");
    // The editor's buffer: unsaved changes, two lines longer than the file on disk.
    const buffer = Array.from({ length: 12 }, (_, i) => `buffer line ${i + 1}`);
    const asked: Array<{ line?: number | null; limit?: number | null }> = [];
    let honour = true;
    const { c } = await start(
      [
        { toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: 3, limit: 2 } }] },
        { toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: 11, limit: 5 } }] },
        { text: "read" },
        { toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: 5, limit: 2 } }] },
        { text: "read again" },
      ],
      ws,
      sessions,
      {
        readTextFile: (req) => {
          asked.push({ line: req.line, limit: req.limit });
          if (!honour || req.line == null) return { content: buffer.join("\n") + "\n" };
          const from = req.line - 1;
          return { content: buffer.slice(from, req.limit == null ? undefined : from + req.limit).join("\n") + "\n" };
        },
      },
      ["--model", "local-model"],
      { fs: { readTextFile: true } },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read it" }] });
    expect(asked).toEqual([
      { line: 3, limit: 2 },
      { line: 11, limit: 5 },
    ]);
    const results = updatesOf(c.updates, "tool_call_update")
      .filter((u) => u.status === "completed")
      .map((u) => (u.rawOutput as { output: string }).output);
    expect(results[0]).toContain("File: big.txt (lines 3-4 of 10)");
    expect(results[0]).toMatch(/^3#[A-Z]{2}\|buffer line 3$/m);
    expect(results[0]).toMatch(/^4#[A-Z]{2}\|buffer line 4$/m);
    expect(results[0]).not.toContain("line 5");
    expect(results[0]).not.toContain("disk line");
    // Past the end of the file on disk, inside the editor's buffer.
    expect(results[1]).toContain("File: big.txt (lines 11-12 of 12)");
    expect(results[1]).toMatch(/^12#[A-Z]{2}\|buffer line 12$/m);
    // What the model was sent is what the client was shown.
    expect(JSON.stringify(server!.requests[1]!.body)).toContain("buffer line 3");

    // An editor that ignores line/limit and answers the whole buffer: the lines are still the right ones.
    honour = false;
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read more" }] });
    expect(asked.at(-1)).toEqual({ line: 5, limit: 2 });
    const last = (
      updatesOf(c.updates, "tool_call_update")
        .filter((u) => u.status === "completed")
        .at(-1)!.rawOutput as { output: string }
    ).output;
    expect(last).toContain("File: big.txt (lines 5-6 of 12)");
    expect(last).toMatch(/^5#[A-Z]{2}\|buffer line 5$/m);
    expect(last).toMatch(/^6#[A-Z]{2}\|buffer line 6$/m);
    expect(last).not.toMatch(/^\d+#[A-Z]{2}\|buffer line 1$/m);
  }, 120_000);
});
