// Custom slash commands in an in-process session with a real permission engine, real sandboxed
// commands, real files and the scripted model over HTTP, and an approver that answers like a user:
// a `!` line the engine asks about runs only when the user allows it; `allowed-tools` lift the
// mode's questions for the command's turn and never a protected path's.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/events";
import { AgentSession, type AgentSessionOptions } from "../../src/core/loop/agent-session";
import type { PermissionQuestion } from "../../src/core/loop/types";
import { silentLogger } from "../../src/core/ports";
import { createProvider } from "../../src/core/providers/create";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { nodeCustomCommandsExtension } from "../../src/node/custom-commands";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { createWorkspaceWithHome } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const sessions: AgentSession[] = [];

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.end();
  server = await closeServerAndRemoveTemps(server, temps);
});

function workspace(files: Record<string, string>) {
  const { base, cwd, home } = createWorkspaceWithHome("yoke-cmds-session-", files, temps, { realpath: true });
  return { ws: cwd, home, sessionDir: join(base, "sessions") };
}

async function session(w: ReturnType<typeof workspace>, script: ScriptedTurn[], answer: (q: PermissionQuestion) => { decision: "allow" | "deny"; message?: string }) {
  server = await startScriptedLlmServer({ script });
  const node = createNodeServices({ cwd: w.ws, sessionDir: w.sessionDir, trusted: true, home: w.home });
  const questions: PermissionQuestion[] = [];
  const approver = {
    ask: async (q: PermissionQuestion) => {
      questions.push(q);
      return answer(q);
    },
  };
  const opts: AgentSessionOptions = {
    store: createFileSessionStore(w.sessionDir),
    provider: createProvider({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "scripted", apiKey: "k" }),
    tools: createBuiltinTools(),
    services: (s) => ({ fs: createNodeWorkspaceFs(w.ws), search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(s) }),
    approver,
    gate: node.gate,
    permissionMode: "default",
    retry: { maxRetries: 0 },
    compaction: false,
    extensions: [nodeCustomCommandsExtension({ cwd: w.ws, home: w.home }, { approver, check: (r, m) => node.gate.check(r, m), warn: () => undefined })],
  };
  const s = await AgentSession.create(opts);
  sessions.push(s);
  return { s, questions };
}

type Wire = { role: string; content?: unknown };
const userTexts = (i: number) =>
  ((server!.requests[i]!.body.messages as Wire[]) ?? []).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

describe("custom commands in a session with a user who answers", () => {
  it("a `!` line the engine asks about runs when the user allows it and not when the user refuses; the model sees both outcomes", async () => {
    const w = workspace({ ".claude/commands/prep.md": "Prepare.\n\nA: !`touch allowed-by-user.txt && echo made-A`\n\nB: !`touch refused-by-user.txt && echo made-B`\n" });
    const { s, questions } = await session(w, [{ text: "ok" }], (q) => (String(q.input.command).includes("allowed-by-user") ? { decision: "allow" } : { decision: "deny", message: "not now" }));
    await s.send("/prep");
    expect(questions.map((q) => q.summary)).toEqual(["/prep: touch allowed-by-user.txt && echo made-A", "/prep: touch refused-by-user.txt && echo made-B"]);
    expect(existsSync(join(w.ws, "allowed-by-user.txt"))).toBe(true);
    expect(existsSync(join(w.ws, "refused-by-user.txt"))).toBe(false);
    const sent = userTexts(0).find((t) => t.startsWith("Prepare."))!;
    expect(sent).toMatch(/A: [^\n]*made-A/);
    expect(sent).toContain('B: [The command `touch refused-by-user.txt && echo made-B` was not run: the user refused it ("not now").]');
    // The shell lines' outcomes, then the expansion itself (what was typed).
    const notes = s
      .events()
      .filter((e): e is Extract<SessionEvent, { type: "extension" }> => e.type === "extension" && e.name === "custom-commands")
      .map((e) => e.detail);
    expect(notes).toEqual(["/prep: !`touch allowed-by-user.txt && echo made-A` run (the user allowed it)", "/prep: !`touch refused-by-user.txt && echo made-B` refused by the user: not now", "/prep"]);
  });

  it("allowed-tools: Write (a user command) is granted for the command's turn (no question), a protected path still asks, and the next message asks again", async () => {
    const w = workspace({});
    // The user's own command (a repository's may not grant tools).
    mkdirSync(join(w.home, ".claude/commands"), { recursive: true });
    writeFileSync(join(w.home, ".claude/commands/notes.md"), "---\nallowed-tools: Write, Edit\n---\nWrite the notes.\n");
    const script: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "granted\n" } }] },
      { toolCalls: [{ name: "write_file", input: { path: ".gitattributes", content: "* filter=x\n" } }] },
      { text: "Done." },
      // A plain message afterwards: no grant.
      { toolCalls: [{ name: "write_file", input: { path: "later.md", content: "later\n" } }] },
      { text: "Done again." },
    ];
    const { s, questions } = await session(w, script, () => ({ decision: "deny", message: "no" }));
    await s.send("/notes");
    expect(readFileSync(join(w.ws, "notes.md"), "utf8")).toBe("granted\n");
    expect(existsSync(join(w.ws, ".gitattributes"))).toBe(false);
    expect(questions.map((q) => q.input.file_path ?? q.input.path)).toEqual([expect.stringMatching(/\.gitattributes$/)]);
    await s.send("write later.md");
    expect(existsSync(join(w.ws, "later.md"))).toBe(false);
    expect(questions).toHaveLength(2);
    const decisions = s.events().filter((e) => e.type === "permission_decision") as Array<Extract<SessionEvent, { type: "permission_decision" }>>;
    expect(decisions.map((d) => [d.decision, d.by])).toEqual([
      ["allow", "extension"],
      ["deny", "user"],
      ["deny", "user"],
    ]);
    expect(decisions[0]!.rule).toBe("Write");
  });

  it("a project command's allowed-tools grant nothing by themselves: the user is asked once per run (\"this command asks for: …\"); allowed, they hold for the run's calls and a `!` line; refused, each call is asked as usual", async () => {
    const cmd = "---\nallowed-tools: Write, Bash(echo:*)\n---\nWrite the notes. Stamp: !`echo stamped`\n";
    const script: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_file", input: { path: "a.md", content: "a\n" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "b.md", content: "b\n" } }] },
      { text: "Done." },
      // A plain message afterwards: no grant, asked again.
      { toolCalls: [{ name: "write_file", input: { path: "later.md", content: "later\n" } }] },
      { text: "Done again." },
    ];
    // The user allows the command's request, and refuses everything else.
    const w = workspace({ ".claude/commands/notes.md": cmd });
    const { s, questions } = await session(w, script, (q) => (q.summary.startsWith("this command asks for:") ? { decision: "allow" } : { decision: "deny", message: "no" }));
    await s.send("/notes");
    expect(questions.map((q) => q.summary)).toEqual(["this command asks for: Write, Bash(echo:*)"]);
    expect(questions[0]!.reason).toContain("/notes (project) asks for: Write, Bash(echo:*). A repository's command cannot grant tools itself, so you are asked once for this run");
    // A question for the whole run: hosts offer "Allow for this run" / "Ask each time", not "Allow once" (panel-dom, red15-printable).
    expect(questions[0]!.forRun).toEqual({ grants: ["Write", "Bash(echo:*)"] });
    // The `!` line ran (echo needs no question), and both writes landed after the one question.
    expect(userTexts(0).find((t) => t.startsWith("Write the notes."))).toMatch(/Stamp: [^\n]*stamped/);
    expect(readFileSync(join(w.ws, "a.md"), "utf8")).toBe("a\n");
    expect(readFileSync(join(w.ws, "b.md"), "utf8")).toBe("b\n");
    await s.send("write later.md");
    expect(existsSync(join(w.ws, "later.md"))).toBe(false);
    expect(questions.map((q) => q.summary)).toHaveLength(2);
    expect(questions[1]!.summary).not.toContain("this command asks for");
    expect(questions[1]!.forRun).toBeUndefined();

    // Refused: the rules decide, and each call is asked as usual (here refused too): nothing written, the line not run.
    const w2 = workspace({ ".claude/commands/notes.md": cmd });
    const r = await session(w2, script.slice(0, 3), () => ({ decision: "deny", message: "no" }));
    await r.s.send("/notes");
    expect(r.questions[0]!.summary).toBe("this command asks for: Write, Bash(echo:*)");
    expect(r.questions.filter((q) => q.summary.startsWith("this command asks for"))).toHaveLength(1);
    // Then each write asked on its own (the `echo` line is allowed by the rules anyway: no question for it).
    expect(r.questions.slice(1).map((q) => q.summary)).toEqual([expect.stringContaining("a.md"), expect.stringContaining("b.md")]);
    expect(existsSync(join(w2.ws, "a.md"))).toBe(false);
    expect(existsSync(join(w2.ws, "b.md"))).toBe(false);
    const notes = r.s
      .events()
      .filter((e): e is Extract<SessionEvent, { type: "extension" }> => e.type === "extension" && e.name === "custom-commands")
      .map((e) => e.detail);
    expect(notes).toContain("/notes (project): Write, Bash(echo:*) not allowed for this run (no); the permission rules decide each call");
  });
});
