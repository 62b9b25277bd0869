/**
 * `yoke acp` driven by the ACP SDK's own client (ClientApp over the child's stdio) with the
 * scripted model over real HTTP: a full session with tool calls (kinds, locations, a diff, a
 * plan), permission questions answered allow and deny (the file written / not written), modes,
 * cancel mid-command (the command killed), load of an earlier session (history replayed, same
 * store as `yoke run`), and the editor's file system used when it offers one.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type * as acp from "@agentclientprotocol/sdk";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { parseLog } from "../../src/core/session/session-log";
import { ensureBuilt, runCli } from "../support/cli";
import { testTerminalHost } from "../support/acp-terminal";
import { chunkText, startAcpClient, updatesOf, type AcpClientHandlers, type AcpTestClient } from "../support/acp-client";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const clients: AcpTestClient[] = [];
const temps: string[] = [];

function workspace(): { ws: string; sessions: string } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-acp-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), "# Widget\n\nWidgets are counted by count.ts.\n");
  writeFileSync(join(ws, "count.ts"), "export function count(xs: number[]): number {\n  return xs.length;\n}\n");
  return { ws, sessions: join(dir, "sessions") };
}

async function start(script: ScriptedTurn[], ws: string, sessions: string, handlers: AcpClientHandlers = {}, extra: string[] = [], caps: acp.ClientCapabilities = {}) {
  server ??= await startScriptedLlmServer({ script });
  const c = startAcpClient(["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "local-model", "--session-dir", sessions, ...extra], handlers, { cwd: ws });
  clients.push(c);
  const init = await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: caps });
  return { c, init };
}

function logEvents(sessions: string, id: string) {
  return parseLog(
    readFileSync(join(sessions, `${id}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean),
  ).events;
}

beforeAll(() => ensureBuilt(), 180_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("yoke acp", () => {
  it("initializes with its capabilities and runs a full session: kinds, locations, a diff, a plan, thoughts, attachments", async () => {
    const { ws, sessions } = workspace();
    const { c, init } = await start(
      [
        { reasoning: "Let me look at count.ts first.", toolCalls: [{ name: "read_file", input: { path: "count.ts" } }] },
        { toolCalls: [{ name: "edit_file", input: { path: "count.ts", edits: [{ old_string: "return xs.length;", new_string: "return xs.filter((x) => x > 0).length;" }] } }] },
        {
          toolCalls: [
            {
              name: "todo_write",
              input: {
                todos: [
                  { content: "Count positives", status: "completed" },
                  { content: "Add a test", status: "pending" },
                ],
              },
            },
          ],
        },
        { text: "count() now counts positive numbers only." },
      ],
      ws,
      sessions,
      {},
      ["--permission-mode", "acceptEdits"],
    );
    expect(init).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: false, audio: false, embeddedContext: true }, sessionCapabilities: { list: {} } },
      agentInfo: { name: "yoke" },
      authMethods: [],
    });
    const created = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect(created.modes?.currentModeId).toBe("acceptEdits");
    expect(created.modes?.availableModes.map((m) => m.id)).toEqual(["default", "acceptEdits", "plan", "bypassPermissions"]);
    const res = await c.agent.request("session/prompt", {
      sessionId: created.sessionId,
      prompt: [
        { type: "text", text: "Make count() count positive numbers only." },
        { type: "resource_link", name: "README.md", uri: pathToFileURL(join(ws, "README.md")).href },
        { type: "resource", resource: { uri: pathToFileURL(join(ws, "notes.txt")).href, mimeType: "text/plain", text: "Negative numbers are errors." } },
      ],
    });
    expect(res.stopReason).toBe("end_turn");
    // The file changed on disk.
    expect(readFileSync(join(ws, "count.ts"), "utf8")).toContain("return xs.filter((x) => x > 0).length;");
    const u = c.updates.filter((n) => n.sessionId === created.sessionId);
    expect(chunkText(u, "agent_thought_chunk")).toBe("Let me look at count.ts first.");
    expect(chunkText(u, "agent_message_chunk")).toBe("count() now counts positive numbers only.");
    const calls = updatesOf(u, "tool_call");
    expect(calls.map((t) => [t.kind, t.status])).toEqual([
      ["read", "pending"],
      ["edit", "pending"],
      ["think", "pending"],
    ]);
    expect(calls[0]!.locations).toEqual([{ path: join(ws, "count.ts") }]);
    expect(calls[1]!.title).toBe("edit_file count.ts");
    const results = updatesOf(u, "tool_call_update").filter((t) => t.status === "completed");
    expect(results.map((t) => t.toolCallId)).toEqual(calls.map((t) => t.toolCallId));
    // Each call went pending → in_progress → completed.
    expect(updatesOf(u, "tool_call_update").filter((t) => t.status === "in_progress")).toHaveLength(3);
    const diff = results[1]!.content!.find((x) => x.type === "diff");
    expect(diff).toEqual({
      type: "diff",
      path: join(ws, "count.ts"),
      oldText: "export function count(xs: number[]): number {\n  return xs.length;\n}\n",
      newText: "export function count(xs: number[]): number {\n  return xs.filter((x) => x > 0).length;\n}\n",
    });
    expect(updatesOf(u, "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Count positives", status: "completed", priority: "medium" },
          { content: "Add a test", status: "pending", priority: "medium" },
        ],
      },
    ]);
    // The model got the prompt with its attachments: the link as a path, the embedded text whole.
    const first = JSON.stringify(server!.requests.find((r) => r.path.endsWith("/chat/completions"))!.body);
    expect(first).toContain("Make count() count positive numbers only.");
    expect(first).toContain(`[The user attached README.md: ${join(ws, "README.md")}]`);
    expect(first).toContain(`<attached-file path=\\"${join(ws, "notes.txt")}\\">\\nNegative numbers are errors.\\n</attached-file>`);
    // The session is in the one store `yoke sessions` lists.
    const listed = await runCli(["sessions", "--session-dir", sessions, "--json"]);
    expect(JSON.parse(listed.stdout).sessions.map((s: { id: string }) => s.id)).toEqual([created.sessionId]);
    expect(c.stderr()).not.toMatch(/Error|failed/);
  });

  it("asks through session/request_permission: edits as the editor's diff review, commands as questions; denied is not done, allowed is; modes", async () => {
    const { ws, sessions } = workspace();
    const answers: acp.PermissionOptionKind[] = ["reject_once", "allow_once", "reject_once", "allow_once", "allow_always"];
    const { c } = await start(
      [
        { toolCalls: [{ name: "write_file", input: { path: "denied.txt", content: "no\n" } }] },
        { text: "The user said no." },
        { toolCalls: [{ name: "write_file", input: { path: "allowed.txt", content: "yes\n" } }] },
        { text: "Written." },
        { toolCalls: [{ name: "run_command", input: { command: "touch ran-denied.txt" } }] },
        { text: "Not run." },
        { toolCalls: [{ name: "run_command", input: { command: "touch ran-allowed.txt" } }] },
        { text: "Ran." },
        { toolCalls: [{ name: "write_file", input: { path: "always.txt", content: "always\n" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "unasked.txt", content: "auto\n" } }] },
        { text: "Both written." },
        { toolCalls: [{ name: "write_file", input: { path: "planned.txt", content: "plan\n" } }] },
        { text: "Plan mode: nothing written." },
      ],
      ws,
      sessions,
      {
        permission: (q) => {
          const kind = answers.shift();
          return { outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === kind)!.optionId } };
        },
      },
    );
    const { sessionId, modes } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect(modes?.currentModeId).toBe("default");
    const prompt = async (text: string) => (await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })).stopReason;

    // An edit: the question is the editor's review of the diff. Rejected: not written, and the model is told.
    expect(await prompt("write denied.txt")).toBe("end_turn");
    expect(existsSync(join(ws, "denied.txt"))).toBe(false);
    expect(c.permissions).toHaveLength(1);
    const q = c.permissions[0]!;
    expect(q.sessionId).toBe(sessionId);
    expect(q.toolCall).toMatchObject({ title: "write_file denied.txt", kind: "edit", status: "pending", locations: [{ path: join(ws, "denied.txt") }] });
    expect(q.toolCall.content).toEqual([{ type: "diff", path: join(ws, "denied.txt"), oldText: null, newText: "no\n" }]);
    expect(q.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(JSON.stringify(server!.requests[1]!.body)).toContain("The user rejected this change in the editor.");
    expect(updatesOf(c.updates, "tool_call_update").find((t) => t.toolCallId === q.toolCall.toolCallId && t.status === "failed")).toBeDefined();

    expect(await prompt("write allowed.txt")).toBe("end_turn");
    expect(readFileSync(join(ws, "allowed.txt"), "utf8")).toBe("yes\n");
    expect(c.permissions).toHaveLength(2);

    // A command: Yoke's permission question, then (allowed) its sandboxed run.
    expect(await prompt("touch ran-denied.txt")).toBe("end_turn");
    expect(existsSync(join(ws, "ran-denied.txt"))).toBe(false);
    const cq = c.permissions[2]!;
    expect(cq.toolCall).toMatchObject({ title: "run_command touch ran-denied.txt", kind: "execute", rawInput: { command: "touch ran-denied.txt" } });
    expect(cq.options.map((o) => o.kind)).toEqual(expect.arrayContaining(["allow_once", "reject_once"]));
    expect(JSON.stringify(server!.requests[5]!.body)).toContain("The user denied this in the editor.");
    expect(await prompt("touch ran-allowed.txt")).toBe("end_turn");
    expect(existsSync(join(ws, "ran-allowed.txt"))).toBe(true);

    // "Accept all edits": written, and the session is in Accept edits from now on (the next edit is not asked).
    expect(await prompt("write two files")).toBe("end_turn");
    expect(readFileSync(join(ws, "always.txt"), "utf8")).toBe("always\n");
    expect(readFileSync(join(ws, "unasked.txt"), "utf8")).toBe("auto\n");
    expect(c.permissions).toHaveLength(5);
    expect(updatesOf(c.updates, "current_mode_update").at(-1)).toMatchObject({ currentModeId: "acceptEdits" });

    // Plan mode: the write is refused without a question, nothing is written.
    await c.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    expect(updatesOf(c.updates, "current_mode_update").at(-1)).toMatchObject({ currentModeId: "plan" });
    await prompt("write planned.txt");
    expect(existsSync(join(ws, "planned.txt"))).toBe(false);
    expect(c.permissions).toHaveLength(5);
    await expect(c.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(/unknown mode/);
    const events = logEvents(sessions, sessionId);
    expect(events.flatMap((e) => (e.type === "review_decision" ? [[e.path, e.status]] : []))).toEqual([
      ["denied.txt", "rejected"],
      ["allowed.txt", "accepted"],
      ["always.txt", "accepted"],
      ["unasked.txt", "accepted"],
    ]);
    expect(events.flatMap((e) => (e.type === "permission_decision" && e.by === "user" ? [e.decision] : []))).toEqual(["deny", "allow"]);
    expect(events.findLast((e) => e.type === "permission_decision")).toMatchObject({ decision: "deny", by: "mode" });
  });

  it('"Always allow" saves the rule Yoke proposes, as the panel does: the next such command is not asked', async () => {
    const { ws, sessions } = workspace();
    const { c } = await start(
      [{ toolCalls: [{ name: "run_command", input: { command: "touch one.txt" } }] }, { toolCalls: [{ name: "run_command", input: { command: "touch two.txt" } }] }, { text: "Both touched." }],
      ws,
      sessions,
      { permission: (q) => ({ outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === "allow_always")!.optionId } }) },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "touch both" }] })).stopReason).toBe("end_turn");
    expect(c.permissions.map((q) => q.options.find((o) => o.kind === "allow_always")?.name)).toEqual(["Always allow Bash(touch:*)"]);
    expect(existsSync(join(ws, "one.txt")) && existsSync(join(ws, "two.txt"))).toBe(true);
    expect(JSON.parse(readFileSync(join(ws, ".yoke/settings.local.json"), "utf8")).permissions.allow).toContain("Bash(touch:*)");
  });

  it("an edit written after the review keeps the file's byte order mark", async () => {
    const { ws, sessions } = workspace();
    writeFileSync(join(ws, "bom.txt"), "\ufeffalpha\nbeta\n");
    const { c } = await start([{ toolCalls: [{ name: "edit_file", input: { path: "bom.txt", edits: [{ old_string: "beta", new_string: "gamma" }] } }] }, { text: "done" }], ws, sessions, {
      permission: (q) => ({ outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === "allow_once")!.optionId } }),
    });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "beta → gamma" }] });
    expect(c.permissions[0]!.toolCall.content).toEqual([{ type: "diff", path: join(ws, "bom.txt"), oldText: "alpha\nbeta\n", newText: "alpha\ngamma\n" }]);
    expect([...readFileSync(join(ws, "bom.txt"))]).toEqual([...Buffer.from("\ufeffalpha\ngamma\n", "utf8")]);
  });

  it("session/cancel stops a running command: the process is killed and the prompt ends cancelled", async () => {
    const { ws, sessions } = workspace();
    let sessionId = "";
    let cancelled = false;
    const c0: { c?: AcpTestClient } = {};
    const { c } = await start(
      [{ toolCalls: [{ name: "run_command", input: { command: "sleep 7.31 && touch finished.txt", timeout_s: 60 } }] }, { text: "not reached" }],
      ws,
      sessions,
      {
        onUpdate: (n) => {
          if (!cancelled && n.update.sessionUpdate === "tool_call_update" && n.update.status === "in_progress") {
            cancelled = true;
            // Give the command a moment to start, then cancel as an editor's stop button does.
            setTimeout(() => void c0.c!.agent.notify("session/cancel", { sessionId }), 700);
          }
        },
      },
      ["--permission-mode", "bypassPermissions"],
    );
    c0.c = c;
    ({ sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] }));
    const started = Date.now();
    const res = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run the long thing" }] });
    expect(res.stopReason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(7000);
    expect(cancelled).toBe(true);
    // The command's process is gone, and it never finished.
    const running = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
    expect(running).not.toContain("sleep 7.31");
    await new Promise((r) => setTimeout(r, 7500));
    expect(existsSync(join(ws, "finished.txt"))).toBe(false);
    expect(logEvents(sessions, sessionId).findLast((e) => e.type === "status")).toMatchObject({ state: "cancelled" });
  }, 30_000);

  it("session/cancel while the editor's question is open: the question is withdrawn, nothing is written, the prompt ends cancelled", async () => {
    const { ws, sessions } = workspace();
    let withdrawn = false;
    const holder: { c?: AcpTestClient; sessionId?: string } = {};
    const { c } = await start([{ toolCalls: [{ name: "write_file", input: { path: "pending.txt", content: "x\n" } }] }, { text: "not reached" }], ws, sessions, {
      // The user never answers; the editor's stop button is pressed while the question is shown.
      permission: (_q, signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            withdrawn = true;
            resolve({ outcome: { outcome: "cancelled" } });
          });
          setTimeout(() => void holder.c!.agent.notify("session/cancel", { sessionId: holder.sessionId! }), 300);
        }),
    });
    holder.c = c;
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    holder.sessionId = sessionId;
    const res = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write pending.txt" }] });
    expect(res.stopReason).toBe("cancelled");
    expect(c.permissions).toHaveLength(1);
    expect(withdrawn).toBe(true);
    expect(existsSync(join(ws, "pending.txt"))).toBe(false);
    // The log records the turn as cancelled.
    expect(logEvents(sessions, sessionId).findLast((e) => e.type === "status")).toMatchObject({ state: "cancelled" });
  });

  it("lists and loads an earlier session: the history is replayed, then the conversation continues", async () => {
    const { ws, sessions } = workspace();
    const first = await start([{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { text: "Widgets are counted by count.ts." }, { text: "Still count.ts." }], ws, sessions);
    const { sessionId } = await first.c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    await first.c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "What counts widgets?" }] });
    expect((await first.c.close()).code).toBe(0);
    clients.splice(clients.indexOf(first.c), 1);

    const { c } = await start([], ws, sessions);
    const list = await c.agent.request("session/list", { cwd: ws });
    expect(list.sessions).toEqual([expect.objectContaining({ sessionId, cwd: ws, title: expect.stringContaining("What counts widgets?") })]);
    await c.agent.request("session/load", { sessionId, cwd: ws, mcpServers: [] });
    const replayed = c.updates.filter((n) => n.sessionId === sessionId);
    expect(chunkText(replayed, "user_message_chunk")).toBe("What counts widgets?");
    expect(chunkText(replayed, "agent_message_chunk")).toBe("Widgets are counted by count.ts.");
    expect(updatesOf(replayed, "tool_call")).toEqual([expect.objectContaining({ kind: "read", title: "read_file README.md", locations: [{ path: join(ws, "README.md") }] })]);
    expect(updatesOf(replayed, "tool_call_update").at(-1)).toMatchObject({ status: "completed" });
    const before = c.updates.length;
    const res = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "And now?" }] });
    expect(res.stopReason).toBe("end_turn");
    expect(chunkText(c.updates.slice(before), "agent_message_chunk")).toBe("Still count.ts.");
    // The model saw the earlier conversation.
    expect(JSON.stringify(server!.requests.at(-1)!.body)).toContain("What counts widgets?");
    expect(readdirSync(sessions).filter((f) => f.endsWith(".jsonl"))).toEqual([`${sessionId}.jsonl`]);
  });

  it("reads and writes through the editor when it offers fs/read_text_file and fs/write_text_file", async () => {
    const { ws, sessions } = workspace();
    const reads: string[] = [];
    const writes: Array<{ path: string; content: string }> = [];
    const { c } = await start(
      [{ toolCalls: [{ name: "read_file", input: { path: "README.md" } }] }, { toolCalls: [{ name: "write_file", input: { path: "docs/new.md", content: "# New\n" } }] }, { text: "done" }],
      ws,
      sessions,
      {
        // The editor's buffer differs from the disk (unsaved changes): the model must see the buffer.
        readTextFile: (req) => {
          reads.push(req.path);
          return { content: "# Widget\n\nUNSAVED EDITOR BUFFER\n" };
        },
        writeTextFile: (req) => {
          writes.push({ path: req.path, content: req.content });
          mkdirSync(join(ws, "docs"), { recursive: true });
          writeFileSync(req.path, req.content);
        },
      },
      ["--permission-mode", "acceptEdits"],
      { fs: { readTextFile: true, writeTextFile: true } },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
    expect(reads).toContain(join(ws, "README.md"));
    expect(JSON.stringify(server!.requests[1]!.body)).toContain("UNSAVED EDITOR BUFFER");
    expect(writes).toEqual([{ path: join(ws, "docs/new.md"), content: "# New\n" }]);
    expect(readFileSync(join(ws, "docs/new.md"), "utf8")).toBe("# New\n");
  });

  it("runs commands in the editor's terminal when it offers one: shown live in the tool call, still sandboxed, the editor's environment kept out", async () => {
    const { ws, sessions } = workspace();
    mkdirSync(join(ws, ".vscode"));
    writeFileSync(join(ws, ".vscode/settings.json"), "{}\n");
    // The write to a protected path hides in a script the gate does not read: only the sandbox stops it.
    writeFileSync(join(ws, "x.sh"), "echo planted > .vscode/settings.json\n");
    const host = testTerminalHost({ ...process.env, EDITOR_SECRET: "sk-editor-7731" });
    const { c } = await start(
      [{ toolCalls: [{ name: "run_command", input: { command: 'echo hello-from-terminal; echo "secret=[$EDITOR_SECRET]"; echo made > out.txt; sh x.sh; echo exit-was-$?' } }] }, { text: "done" }],
      ws,
      sessions,
      { terminal: host },
      ["--permission-mode", "bypassPermissions"],
      { terminal: true },
    );
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] })).stopReason).toBe("end_turn");
    // The editor started the runner's own command line: the exact environment, then the sandbox.
    expect(host.created).toHaveLength(1);
    const made = host.created[0]!;
    expect(made.command).toBe("/usr/bin/env");
    expect(made.args?.[0]).toBe("-i");
    expect(made.args?.join(" ")).toMatch(/bwrap|firejail/);
    expect(made.cwd).toBe(ws);
    // Shown in the command's tool call while it ran, and after.
    const call = updatesOf(c.updates, "tool_call").find((u) => u.kind === "execute")!;
    const terminalUpdates = updatesOf(c.updates, "tool_call_update").filter((u) => u.toolCallId === call.toolCallId && u.content?.some((x) => x.type === "terminal"));
    expect(terminalUpdates.length).toBeGreaterThanOrEqual(2);
    expect(terminalUpdates.at(-1)!.status).toBe("completed");
    // What the model saw came from the editor's terminal; the editor's secret never reached the command.
    const told = JSON.stringify(server!.requests[1]!.body);
    expect(told).toContain("hello-from-terminal");
    expect(told).toContain("secret=[]");
    expect(told).not.toContain("sk-editor-7731");
    expect(told).toMatch(/exit-was-[1-9]/);
    expect(readFileSync(join(ws, "out.txt"), "utf8")).toBe("made\n");
    expect(readFileSync(join(ws, ".vscode/settings.json"), "utf8"), "the sandbox holds in the editor's terminal").toBe("{}\n");
    expect(host.open(), "every terminal released").toBe(0);
    expect(host.calls).toContain("output");
  });

  it("session/cancel stops a command running in the editor's terminal: no process left", async () => {
    const { ws, sessions } = workspace();
    const host = testTerminalHost({ ...process.env });
    let sessionId = "";
    let cancelled = false;
    const c0: { c?: AcpTestClient } = {};
    const { c } = await start(
      [{ toolCalls: [{ name: "run_command", input: { command: "sleep 7.47 && touch finished.txt", timeout_s: 60 } }] }, { text: "not reached" }],
      ws,
      sessions,
      {
        terminal: host,
        onUpdate: (n) => {
          if (!cancelled && n.update.sessionUpdate === "tool_call_update" && n.update.content?.some((x) => x.type === "terminal")) {
            cancelled = true;
            setTimeout(() => void c0.c!.agent.notify("session/cancel", { sessionId }), 700);
          }
        },
      },
      ["--permission-mode", "bypassPermissions"],
      { terminal: true },
    );
    c0.c = c;
    ({ sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] }));
    const res = await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run the long thing" }] });
    expect(res.stopReason).toBe("cancelled");
    expect(cancelled).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain("sleep 7.47");
    await new Promise((r) => setTimeout(r, 7500));
    expect(existsSync(join(ws, "finished.txt"))).toBe(false);
  }, 30_000);

  it("starts the MCP servers the editor gives session/new through Yoke's MCP mechanism, and stops them with the session", async () => {
    const { ws, sessions } = workspace();
    const probe = join(__dirname, "../support/mcp-probe-server.cjs");
    const tag = `acp-probe-${process.pid}-${Date.now()}`;
    const { c } = await start([{ toolCalls: [{ name: "mcp__probe__lines", input: { n: 2 } }] }, { text: "two lines" }], ws, sessions, {}, ["--permission-mode", "bypassPermissions"]);
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [{ name: "probe", command: process.execPath, args: [probe, tag], env: [] }] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two lines please" }] })).stopReason).toBe("end_turn");
    const tools = (server!.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools.map((t) => t.function.name);
    expect(tools).toContain("mcp__probe__lines");
    expect(JSON.stringify(server!.requests[1]!.body)).toContain("line 2 of 2");
    expect(updatesOf(c.updates, "tool_call_update").find((t) => t.status === "completed")).toBeDefined();
    // The server's tool is known by its own description (it reaches the network): kind "fetch".
    expect(updatesOf(c.updates, "tool_call").map((t) => [t.title.split(" ")[0], t.kind])).toEqual([["mcp__probe__lines", "fetch"]]);
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).toContain(tag);
    expect((await c.close()).code).toBe(0);
    clients.splice(clients.indexOf(c), 1);
    // The server ended with the session; nothing is left running.
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(tag);
  });
});
