// A custom agent with `background: true` in a host that hands control back (the panel, as Claude
// Code does: "Backgrounded agent", then "Agent … completed" and the main agent goes on with its
// report): the parent's turn ends while the agent works in its worktree; the agent is listed as
// running (the Agents view, `yoke agents`); when it finishes its result is delivered to the session
// as a turn of its own (SubagentOptions.deliver). A full session through THE session recipe, the
// scripted model over HTTP, real git worktrees.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionInfo } from "../../src/core/extensions/types";
import { AgentSession } from "../../src/core/loop/agent-session";
import { OpenAiProvider } from "../../src/core/providers/openai";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { AgentRegistry } from "../../src/node/background/registry";
import { handBackInbox } from "../../src/node/background/hand-back";
import { agentViewOf } from "../../src/node/background/view";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { sessionRecipe } from "../../src/node/session-recipe";
import { readSessionSettings } from "../../src/node/session-settings";
import { createFileSessionStore } from "../../src/node/session-store";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf, toolResultTexts } from "../support/scripted-run";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const ends: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const end of ends.splice(0)) await end().catch(() => undefined);
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!(await ok())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("background: true in a host that hands back", () => {
  it("the parent's turn ends while the agent runs (listed as running); its result comes later as a turn of its own; its change stays in its worktree", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bg-handback-")));
    temps.push(dir);
    const ws = join(dir, "repo");
    const home = join(dir, "home");
    mkdirSync(home);
    mkdirSync(ws);
    git(ws, "init", "-q", "-b", "main");
    write(join(ws, "app.txt"), "one\n");
    write(
      join(ws, ".claude", "agents", "bg-writer.md"),
      ["---", "name: bg-writer", "description: Writes the log in the background", "tools: Read, Write, Bash", "background: true", "---", "You write logs (BG-PROMPT).", ""].join("\n"),
    );
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "initial");

    // The agent's run waits for a file "go" in its worktree (and removes it) before its last steps, so the test decides when it finishes.
    const queues: Record<number, ScriptedTurn[]> = {
      0: [
        { toolCalls: [{ name: "task", input: { description: "Write the log", prompt: "Write log.txt.", subagent_type: "bg-writer" } }] },
        { text: "The writer is working in the background; I hand back to you." },
        { text: "The writer finished: log.txt waits for your review in its worktree." },
      ],
      1: [
        { toolCalls: [{ name: "run_command", input: { command: "while [ ! -e go ]; do sleep 0.2; done; rm go" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "log.txt", content: "written in the background\n" } }] },
        { text: "Wrote log.txt." },
      ],
    };
    server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" } });

    const sessionDir = join(home, ".yoke", "sessions");
    const settings = await readSessionSettings({ cwd: ws, home, sessionDir, trusted: true });
    const live: { session?: AgentSession } = {};
    const delivered: string[] = [];
    // As the panel's LiveLink.deliver: into the live session when no turn runs (a context event, then the loop continues).
    const deliver = async (info: SessionInfo, text: string): Promise<boolean> => {
      const session = live.session;
      if (!session || session.id !== info.id || session.state === "thinking" || session.state === "waiting_tool") return false;
      try {
        session.appendFromHost({ type: "context", source: "subagents", text });
      } catch {
        return false;
      }
      delivered.push(text);
      void session.continue();
      return true;
    };
    const provider = new OpenAiProvider({ provider: "openai-compatible", model: "m", baseUrl: server.openaiBaseUrl, apiKey: "k" });
    const recipe = await sessionRecipe(settings, {
      store: createFileSessionStore(sessionDir),
      fs: createNodeWorkspaceFs(ws),
      search: createRipgrepSearcher(),
      warn: () => undefined,
      models: { primary: provider, make: async () => provider },
      approver: { ask: async () => ({ decision: "allow" }) },
      permissionMode: "bypassPermissions",
      env: { ...process.env, HOME: home },
      deliver,
    });
    const s = await AgentSession.create(recipe.options);
    live.session = s;
    ends.push(async () => {
      await s.end();
      await recipe.dispose();
    });

    // The turn ends with the agent still running: control is back with the user.
    await s.send("Write the log in the background.");
    const parent = () => server!.requests.filter((q) => subagentDepthOf(q) === 0);
    expect(parent()).toHaveLength(2);
    expect(toolResultTexts(parent()[1])[0]).toContain("when you finish, the user gets control back while it runs (they see it in the Agents view)");
    expect(
      s
        .events()
        .filter((e) => e.type === "assistant_message")
        .at(-1),
    ).toMatchObject({ text: "The writer is working in the background; I hand back to you." });

    // Listed as running while it works (what the Agents view and `yoke agents list` read).
    const registry = new AgentRegistry(ws, home);
    await until("the agent's record", () => registry.list().length === 1 && registry.list()[0]!.sessionId !== undefined);
    const running = await agentViewOf(registry.list()[0]!);
    expect(running.state).toBe("running");
    expect(running.task).toBe("Write log.txt.");
    expect(delivered).toEqual([]);

    // It finishes: its result is delivered as a turn of the parent, which answers.
    writeFileSync(join(registry.list()[0]!.worktree, "go"), "");
    await until("the delivered turn", () => parent().length === 3 && s.state !== "thinking" && s.state !== "waiting_tool").catch((err: unknown) => {
      throw new Error(
        `${String(err)}; ${JSON.stringify({ delivered, depths: server!.requests.map(subagentDepthOf), last: toolResultTexts(server!.requests.at(-1)), state: s.state, tail: s.events().slice(-4) })}`,
      );
    });
    await s.idle();
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toContain('The background agent "bg-writer" (task call ');
    expect(delivered[0]).toContain("has finished.");
    expect(delivered[0]).toContain("Wrote log.txt.");
    expect(delivered[0]).toContain("Its change was NOT applied to the workspace");
    const third = JSON.stringify(parent()[2]!.body.messages);
    expect(third).toContain("Wrote log.txt.");
    const events = s.events();
    const ctx = events.findIndex((e) => e.type === "context" && e.source === "subagents");
    expect(ctx).toBeGreaterThan(0);
    expect(events.slice(ctx).find((e) => e.type === "assistant_message")).toMatchObject({ text: "The writer finished: log.txt waits for your review in its worktree." });

    // Its change: in its worktree, not the user's tree; the agent is finished, with log.txt changed.
    expect(existsSync(join(ws, "log.txt"))).toBe(false);
    const [r] = registry.list();
    const view = await agentViewOf(r!);
    expect(view.state).toBe("finished");
    expect(view.changedFiles.map((f) => f.path)).toEqual(["log.txt"]);
    expect(readFileSync(join(r!.worktree, "log.txt"), "utf8")).toBe("written in the background\n");
  }, 180_000);

  it("`yoke agents stop ID` stops an agent running inside the editor's session: that process cancels its run (its command too), the record ends stopped, the parent is told", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bg-stop-")));
    temps.push(dir);
    const ws = join(dir, "repo");
    const home = join(dir, "home");
    mkdirSync(home);
    mkdirSync(ws);
    git(ws, "init", "-q", "-b", "main");
    write(join(ws, "app.txt"), "one\n");
    write(
      join(ws, ".claude", "agents", "bg-writer.md"),
      ["---", "name: bg-writer", "description: Writes the log in the background", "tools: Read, Write, Bash", "background: true", "---", "You write logs.", ""].join("\n"),
    );
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "initial");
    // The agent writes a file, then waits in a command for a "go" that never comes: only a stop ends it.
    const queues: Record<number, ScriptedTurn[]> = {
      0: [
        { toolCalls: [{ name: "task", input: { description: "Write the log", prompt: "Write log.txt.", subagent_type: "bg-writer" } }] },
        { text: "The writer is working in the background." },
        { text: "The writer was stopped." },
      ],
      1: [
        { toolCalls: [{ name: "write_file", input: { path: "log.txt", content: "partial\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "while [ ! -e go ]; do sleep 0.2; done" } }] },
        { text: "NEVER-REACHED" },
      ],
    };
    server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" } });
    const sessionDir = join(home, ".yoke", "sessions");
    const settings = await readSessionSettings({ cwd: ws, home, sessionDir, trusted: true });
    const live: { session?: AgentSession } = {};
    const delivered: string[] = [];
    const deliver = async (info: SessionInfo, text: string): Promise<boolean> => {
      const session = live.session;
      if (!session || session.id !== info.id || session.state === "thinking" || session.state === "waiting_tool") return false;
      session.appendFromHost({ type: "context", source: "subagents", text });
      delivered.push(text);
      void session.continue();
      return true;
    };
    const provider = new OpenAiProvider({ provider: "openai-compatible", model: "m", baseUrl: server.openaiBaseUrl, apiKey: "k" });
    const recipe = await sessionRecipe(settings, {
      store: createFileSessionStore(sessionDir),
      fs: createNodeWorkspaceFs(ws),
      search: createRipgrepSearcher(),
      warn: () => undefined,
      models: { primary: provider, make: async () => provider },
      approver: { ask: async () => ({ decision: "allow" }) },
      permissionMode: "bypassPermissions",
      env: { ...process.env, HOME: home },
      deliver,
    });
    const s = await AgentSession.create(recipe.options);
    live.session = s;
    ends.push(async () => {
      await s.end();
      await recipe.dispose();
    });
    await s.send("Write the log in the background.");
    const registry = new AgentRegistry(ws, home);
    // Running, and inside its waiting command.
    await until("the agent's command", () => server!.requests.filter((q) => subagentDepthOf(q) === 1).length === 2);
    const [rec] = registry.list();
    expect(rec!.pid).toBeUndefined();
    expect(rec!.host).toBe(process.pid);
    expect((await agentViewOf(rec!)).state).toBe("running");

    ensureBuilt();
    const stop = await runCli(["agents", "stop", rec!.id, "--cwd", ws], { env: { HOME: home } });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain(`stopped agent ${rec!.id}; its worktree`);
    const after = registry.get(rec!.id);
    expect(after).toMatchObject({ phase: "ended", stopped: true });
    expect((await agentViewOf(after)).changedFiles.map((f) => f.path)).toEqual(["log.txt"]);
    // The run was cancelled, not finished: the agent's model never got its last turn.
    expect(JSON.stringify(server.requests)).not.toContain("NEVER-REACHED");
    await until("the parent told", () => delivered.length === 1 && s.state !== "thinking" && s.state !== "waiting_tool");
    await s.idle();
    expect(delivered[0]).toContain('The background agent "bg-writer" (task call ');
    expect(existsSync(join(ws, "log.txt"))).toBe(false);
  }, 180_000);

  it("a new session (the panel's New Session ends the old one) does not stop the agent: it goes on, finishes with its file on disk, and its result reaches the old session when it is opened again", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bg-outlive-")));
    temps.push(dir);
    const ws = join(dir, "repo");
    const home = join(dir, "home");
    mkdirSync(home);
    mkdirSync(ws);
    git(ws, "init", "-q", "-b", "main");
    write(join(ws, "app.txt"), "one\n");
    write(
      join(ws, ".claude", "agents", "bg-writer.md"),
      ["---", "name: bg-writer", "description: Writes the log in the background", "tools: Read, Write, Bash", "background: true", "---", "You write logs.", ""].join("\n"),
    );
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "initial");
    // The agent waits in a command for "go" (the test releases it once the new session has answered), then writes.
    const queues: Record<number, ScriptedTurn[]> = {
      0: [
        { toolCalls: [{ name: "task", input: { description: "Write the log", prompt: "Write log.txt.", subagent_type: "bg-writer" } }] },
        { text: "The writer is working in the background." },
        { text: "NEW-SESSION-ANSWER" },
        { text: "OLD-SESSION-GOT-THE-RESULT" },
      ],
      1: [
        { toolCalls: [{ name: "run_command", input: { command: "while [ ! -e go ]; do sleep 0.2; done; rm go" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "log.txt", content: "outlived its session\n" } }] },
        { text: "Wrote log.txt after the new session started." },
      ],
    };
    server = await startScriptedLlmServer({ script: async (r: RecordedRequest) => queues[subagentDepthOf(r)]?.shift() ?? { text: "(no more turns)" } });
    const sessionDir = join(home, ".yoke", "sessions");
    const store = createFileSessionStore(sessionDir);
    const live: { session?: AgentSession } = {};
    const delivered: Array<{ id: string; text: string }> = [];
    const kept: Array<{ id: string; text: string }> = [];
    // As the panel's: into the live session, when it is the one the result is for; for a session that
    // has ended, kept on disk beside its log (session/hand-back.ts) until it is opened again.
    const deliver = async (info: SessionInfo, text: string, when?: { ended: boolean }): Promise<boolean> => {
      if (when?.ended) {
        handBackInbox(sessionDir, info.id).post(text);
        kept.push({ id: info.id, text });
        return true;
      }
      const session = live.session;
      if (!session || session.id !== info.id || session.state === "thinking" || session.state === "waiting_tool") return false;
      session.appendFromHost({ type: "context", source: "subagents", text });
      delivered.push({ id: info.id, text });
      void session.continue();
      return true;
    };
    const provider = new OpenAiProvider({ provider: "openai-compatible", model: "m", baseUrl: server.openaiBaseUrl, apiKey: "k" });
    // Each panel session is built by the recipe afresh, as SessionOptionsBuilder.build() does.
    const build = async () =>
      sessionRecipe(await readSessionSettings({ cwd: ws, home, sessionDir, trusted: true }), {
        store,
        fs: createNodeWorkspaceFs(ws),
        search: createRipgrepSearcher(),
        warn: () => undefined,
        models: { primary: provider, make: async () => provider },
        approver: { ask: async () => ({ decision: "allow" }) },
        permissionMode: "bypassPermissions",
        env: { ...process.env, HOME: home },
        deliver,
      });
    const first = await build();
    const old = await AgentSession.create(first.options);
    live.session = old;
    await old.send("Write the log in the background.");
    const registry = new AgentRegistry(ws, home);
    await until("the agent inside its command", () => server!.requests.filter((q) => subagentDepthOf(q) === 1).length === 1 && registry.list().length === 1);
    const [rec] = registry.list();

    // New Session: the panel ends the live session (LiveLink.detach(true) → end("clear")) and starts another.
    await old.end("clear");
    live.session = undefined;
    const second = await build();
    const fresh = await AgentSession.create(second.options);
    live.session = fresh;
    ends.push(async () => {
      await live.session?.end();
      await first.dispose();
      await second.dispose();
    });
    await fresh.send("Something else meanwhile.");
    expect(
      fresh
        .events()
        .filter((e) => e.type === "assistant_message")
        .at(-1),
    ).toMatchObject({ text: "NEW-SESSION-ANSWER" });

    // The agent is still running: its record, its session (no end yet), and its waiting command.
    expect((await agentViewOf(registry.get(rec!.id))).state).toBe("running");
    expect(JSON.stringify(server.requests)).not.toContain("Wrote log.txt after the new session started.");
    writeFileSync(join(rec!.worktree, "go"), "");
    await until("the agent finished", async () => (await agentViewOf(registry.get(rec!.id))).state === "finished");
    expect(readFileSync(join(rec!.worktree, "log.txt"), "utf8")).toBe("outlived its session\n");
    expect(existsSync(join(ws, "log.txt"))).toBe(false);
    // Its model got its last turn (not cancelled), and the new session was never handed another session's result.
    expect(server.requests.filter((q) => subagentDepthOf(q) === 1)).toHaveLength(3);
    expect(delivered).toEqual([]);
    expect(fresh.events().some((e) => e.type === "context" && e.source === "subagents")).toBe(false);
    // Handed to the host once, for the old session, and kept on disk (not offered again and again in memory).
    await until("the result kept", () => kept.length === 1);
    expect(kept[0]!.id).toBe(old.id);
    expect(kept[0]!.text).toContain("Wrote log.txt after the new session started.");
    expect(handBackInbox(sessionDir, old.id).waiting()).toHaveLength(1);
    expect(handBackInbox(sessionDir, fresh.id).waiting()).toHaveLength(0);

    // The old session opened again (the history list): the result it was waiting for arrives as a turn of its
    // own, taken from the disk as the panel's HandBacks.deliverShown takes it — once.
    await fresh.end("clear");
    live.session = undefined;
    const third = await build();
    const reopened = await AgentSession.resume(old.id, third.options);
    live.session = reopened;
    ends.push(() => third.dispose());
    const texts = handBackInbox(sessionDir, old.id).take();
    expect(texts).toHaveLength(1);
    expect(handBackInbox(sessionDir, old.id).take()).toEqual([]);
    await deliver({ id: old.id } as SessionInfo, texts[0]!);
    await until("the result delivered to the reopened session", () => delivered.length === 1 && reopened.state !== "thinking" && reopened.state !== "waiting_tool");
    await reopened.idle();
    expect(kept).toHaveLength(1);
    expect(delivered[0]!.id).toBe(old.id);
    expect(delivered[0]!.text).toContain("Wrote log.txt after the new session started.");
    expect(
      reopened
        .events()
        .filter((e) => e.type === "assistant_message")
        .at(-1),
    ).toMatchObject({ text: "OLD-SESSION-GOT-THE-RESULT" });
  }, 180_000);
});
