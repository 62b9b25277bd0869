// The VS Code notification for a question about a whole run (a project command's allowed-tools,
// PermissionQuestion.forRun), shown when the panel is hidden: its buttons are exactly "Allow for
// this run", "Ask each time" and "Show" — no "Allow", no "Always Allow" — and each one does what it
// says in a real session (the scripted model over HTTP, the real permission engine and files): the
// run's writes land with one notification, or each write gets an ordinary notification of its own.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger } from "../../../src/core/ports";
import { createProvider } from "../../../src/core/providers/create";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../../src/node/agent-services";
import { nodeCustomCommandsExtension } from "../../../src/node/custom-commands";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { createRipgrepSearcher } from "../../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../../src/node/session-store";
import { FOR_RUN_CHOICES } from "../../../src/protocol/messages";
import { closeServerAndRemoveTemps } from "../../support/teardown";
import { createWorkspaceWithHome } from "../../support/workspace";
import type { FakeVscodeState } from "./fake-vscode";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());
const state = ((await import("vscode")) as unknown as { __state: FakeVscodeState }).__state;
const { PanelApprover } = await import("../../../src/host/panel-approver");

let server: ScriptedServer | undefined;
const temps: string[] = [];
const sessions: AgentSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.end();
  server = await closeServerAndRemoveTemps(server, temps);
  state.notifications.length = 0;
  state.warningPick = undefined;
});

const SCRIPT: ScriptedTurn[] = [
  { toolCalls: [{ name: "write_file", input: { path: "a.md", content: "a\n" } }] },
  { toolCalls: [{ name: "write_file", input: { path: "b.md", content: "b\n" } }] },
  { text: "Done." },
];

async function hiddenPanelSession() {
  const {
    base,
    cwd: ws,
    home,
  } = createWorkspaceWithHome("yoke-notify-for-run-", { ".claude/commands/notes.md": "---\nallowed-tools: Write\n---\nWrite a.md and b.md.\n" }, temps, {
    realpath: true,
  });
  const sessionDir = join(base, "sessions");
  server = await startScriptedLlmServer({ script: SCRIPT });
  const node = createNodeServices({ cwd: ws, sessionDir, trusted: true, home });
  // The panel is not visible: every question is a notification.
  const approver = new PanelApprover(() => false);
  approver.proposeRule = (req) => node.gate.proposeRule(req);
  approver.alwaysAllow = async () => undefined;
  const s = await AgentSession.create({
    store: createFileSessionStore(sessionDir),
    provider: createProvider({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "scripted", apiKey: "k" }),
    tools: createBuiltinTools(),
    services: (x) => ({ fs: createNodeWorkspaceFs(ws), search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(x) }),
    approver,
    gate: node.gate,
    permissionMode: "default",
    retry: { maxRetries: 0 },
    compaction: false,
    extensions: [nodeCustomCommandsExtension({ cwd: ws, home }, { approver, check: (r, m) => node.gate.check(r, m), warn: () => undefined })],
  });
  sessions.push(s);
  return { s, ws };
}

describe("the notification for a for-run question", () => {
  it('offers "Allow for this run", "Ask each time" and "Show" only; "Allow for this run" lets both writes of the run land after that one notification', async () => {
    const { s, ws } = await hiddenPanelSession();
    state.warningPick = (_m, buttons) => (buttons.includes(FOR_RUN_CHOICES.allow) ? FOR_RUN_CHOICES.allow : "Deny");
    await s.send("/notes");
    expect(state.notifications).toHaveLength(1);
    expect(state.notifications[0]!.message).toBe("Yoke: this command asks for: Write");
    expect(state.notifications[0]!.buttons).toEqual(["Allow for this run", "Ask each time", "Show"]);
    expect(readFileSync(join(ws, "a.md"), "utf8")).toBe("a\n");
    expect(readFileSync(join(ws, "b.md"), "utf8")).toBe("b\n");
  });

  it('"Ask each time" grants nothing: each write gets an ordinary notification (Allow / Always Allow … / Deny / Show); the allowed one lands, the denied one does not', async () => {
    const { s, ws } = await hiddenPanelSession();
    state.warningPick = (m, buttons) => (buttons.includes(FOR_RUN_CHOICES.ask) ? FOR_RUN_CHOICES.ask : m.includes("a.md") ? "Allow" : "Deny");
    await s.send("/notes");
    expect(state.notifications.map((n) => n.buttons[0])).toEqual(["Allow for this run", "Allow", "Allow"]);
    expect(state.notifications[1]!.buttons).toEqual(expect.arrayContaining(["Allow", "Deny", "Show"]));
    expect(state.notifications[1]!.buttons.some((b) => b.startsWith("Always Allow "))).toBe(true);
    expect(readFileSync(join(ws, "a.md"), "utf8")).toBe("a\n");
    expect(existsSync(join(ws, "b.md"))).toBe(false);
  });
});
