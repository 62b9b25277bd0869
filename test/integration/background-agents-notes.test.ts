/**
 * A note to a RUNNING background agent (issue 24: "steer it"), through the built CLI with real
 * processes, real git and the scripted model over HTTP: `yoke agents note ID TEXT` while the agent
 * works leaves the note in its inbox, and the agent's next model request carries it as the user's
 * message (the composer's steering, as the panel steers a foreground session). A note that arrives
 * during the agent's last answer is sent once that answer is done, in the same session.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli, type CliResult } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const pids: number[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], { cwd, encoding: "utf8" });

interface Env {
  home: string;
  ws: string;
}

function setup(): Env {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-notes-")));
  temps.push(root);
  const home = join(root, "home");
  const ws = join(root, "repo");
  mkdirSync(home);
  mkdirSync(ws);
  git(ws, "init", "-q", "-b", "main");
  writeFileSync(join(ws, "guide.md"), "# Demo\n\nA demo project.\n");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "initial");
  return { home, ws };
}

type Message = { role: string; content?: unknown };
const messages = (req: RecordedRequest) => (req.body as { messages?: Message[] }).messages ?? [];
const toolResults = (req: RecordedRequest) => messages(req).filter((m) => m.role === "tool").length;
const userTexts = (req: RecordedRequest) => messages(req).flatMap((m) => (m.role === "user" ? [typeof m.content === "string" ? m.content : JSON.stringify(m.content)] : []));

const cli = (env: Env, args: string[]): Promise<CliResult> => runCli(args, { cwd: env.ws, env: { HOME: env.home, XDG_DATA_HOME: undefined } });

interface AgentView {
  id: string;
  state: string;
  sessionId: string | null;
  worktree: string;
  lastMessage: string | null;
  pid: number | null;
}

async function agentView(env: Env, id: string): Promise<AgentView> {
  const r = await cli(env, ["agents", "list", "--json", "--cwd", env.ws]);
  expect(r.code, r.stderr).toBe(0);
  const v = (JSON.parse(r.stdout) as { agents: AgentView[] }).agents.find((a) => a.id === id)!;
  if (v.pid) pids.push(v.pid);
  return v;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function start(env: Env, prompt: string): Promise<string> {
  const r = await cli(env, [
    "run",
    "--background",
    "--trust",
    "--provider",
    "openai-compatible",
    "--base-url",
    server!.openaiBaseUrl,
    "--model",
    "m",
    "--permission-mode",
    "bypassPermissions",
    "--cwd",
    env.ws,
    prompt,
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

function sessionEvents(env: Env, sessionId: string) {
  const root = join(env.home, ".yoke", "sessions");
  for (const dir of readdirSync(root)) {
    const f = join(root, dir, `${sessionId}.jsonl`);
    if (existsSync(f)) return parseLog(readFileSync(f, "utf8").split("\n").filter(Boolean)).events;
  }
  throw new Error(`no log of session ${sessionId}`);
}

describe("a note to a running background agent", () => {
  it("reaches the agent's next model request as the user's message, in the same session and worktree", async () => {
    const env = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server = await startScriptedLlmServer({
      script: async (req): Promise<ScriptedTurn> => {
        const step = toolResults(req);
        if (step === 0) {
          // The first request waits until the test has left its note: the agent is mid-task.
          await Promise.race([gate, new Promise((r) => setTimeout(r, 60_000))]);
          return { toolCalls: [{ name: "read_file", input: { path: "guide.md" } }] };
        }
        if (step === 1) {
          const steered = userTexts(req).some((t) => t.includes("LIVE-NOTE"));
          return steered ? { toolCalls: [{ name: "write_file", input: { path: "tides.md", content: "# Tides\n\nAs the note asked.\n" } }] } : { text: "No note seen." };
        }
        return { text: "Wrote tides.md, as your note asked." };
      },
    });
    const id = await start(env, "STEER-ME: look at the guide");
    await until("the agent's first request", () => (server!.requests.length > 0 ? true : undefined));
    const running = await agentView(env, id);
    expect(running.state).toBe("running");

    const note = await cli(env, ["agents", "note", id, "LIVE-NOTE: also write tides.md", "--json", "--cwd", env.ws]);
    expect(note.code, note.stderr).toBe(0);
    expect(JSON.parse(note.stdout)).toMatchObject({ agentId: id, delivered: "queued" });
    release();

    const done = await until("the agent to finish", async () => {
      const v = await agentView(env, id);
      return v.state === "finished" ? v : undefined;
    });
    expect(done.lastMessage).toBe("Wrote tides.md, as your note asked.");
    // The request right after the note carries it as the user's message, after the tool result.
    const second = server.requests[1]!;
    const roles = messages(second).map((m) => m.role);
    expect(userTexts(second).at(-1)).toContain("LIVE-NOTE: also write tides.md");
    expect(roles.lastIndexOf("user")).toBeGreaterThan(roles.lastIndexOf("tool"));
    // The first request did not have it (it was already on its way).
    expect(userTexts(server.requests[0]!).join("\n")).not.toContain("LIVE-NOTE");
    // The agent acted on it in its worktree; the user's tree is untouched.
    expect(readFileSync(join(done.worktree, "tides.md"), "utf8")).toBe("# Tides\n\nAs the note asked.\n");
    expect(existsSync(join(env.ws, "tides.md"))).toBe(false);
    // One session: the task and the note are its two user messages, the note recorded as steered.
    const events = sessionEvents(env, done.sessionId!);
    expect(events.filter((e) => e.type === "user_message").map((e) => (e as { text: string }).text)).toEqual(["STEER-ME: look at the guide", "LIVE-NOTE: also write tides.md"]);
    expect(events.some((e) => e.type === "queue" && (e as { action: string }).action === "steered")).toBe(true);
    // Nothing is left in its inbox, and attach shows the note in the transcript.
    const inboxes = readdirSync(join(env.home, ".yoke", "agents", readdirSync(join(env.home, ".yoke", "agents"))[0]!));
    const notesDir = inboxes.find((f) => f === `${id}.notes`);
    if (notesDir) expect(readdirSync(join(env.home, ".yoke", "agents", readdirSync(join(env.home, ".yoke", "agents"))[0]!, notesDir))).toEqual([]);
    const attach = await cli(env, ["agents", "attach", id, "--no-follow", "--cwd", env.ws]);
    expect(attach.stdout).toContain("> LIVE-NOTE: also write tides.md");
  }, 120_000);

  it("a note that is a slash command is refused, running or ended, saying why and what to do; other text starting with / is sent as it is", async () => {
    const env = setup();
    mkdirSync(join(env.ws, ".claude/commands"), { recursive: true });
    writeFileSync(join(env.ws, ".claude/commands/fix-issue.md"), "---\ndescription: Fix an issue\n---\nFix issue $ARGUMENTS. CMD-EXPANDED-MARKER\n");
    git(env.ws, "add", "-A");
    git(env.ws, "commit", "-qm", "a command");
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server = await startScriptedLlmServer({
      script: async (req): Promise<ScriptedTurn> => {
        if (toolResults(req) === 0) {
          await Promise.race([gate, new Promise((r) => setTimeout(r, 60_000))]);
          return { toolCalls: [{ name: "read_file", input: { path: "guide.md" } }] };
        }
        return { text: "Noted." };
      },
    });
    const id = await start(env, "SLASH-TASK: look at the guide");
    await until("the agent's first request", () => (server!.requests.length > 0 ? true : undefined));
    const refused = await cli(env, ["agents", "note", id, "/fix-issue 123", "--json", "--cwd", env.ws]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'note not sent: /fix-issue is a slash command, and a note reaches the agent as plain text (its model would read "/fix-issue 123", not the command). Write what you want in words, or run the command as an agent of its own: yoke run --background "/fix-issue 123"',
    );
    // Text that names no command is a note like any other.
    const plain = await cli(env, ["agents", "note", id, "/tmp is full: clean it first", "--json", "--cwd", env.ws]);
    expect(plain.code, plain.stderr).toBe(0);
    release();
    const done = await until("the agent to finish", async () => {
      const v = await agentView(env, id);
      return v.state === "finished" ? v : undefined;
    });
    const all = server.requests.flatMap(userTexts).join("\n");
    expect(all).toContain("/tmp is full: clean it first");
    expect(all).not.toContain("/fix-issue");
    expect(all).not.toContain("CMD-EXPANDED-MARKER");
    // Ended: refused too, and the agent is not continued.
    const before = server.requests.length;
    const ended = await cli(env, ["agents", "note", id, "/fix-issue 7", "--cwd", env.ws]);
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain("note not sent: /fix-issue is a slash command");
    expect((await agentView(env, id)).state).toBe("finished");
    expect(server.requests.length).toBe(before);
    expect(done.lastMessage).toBe("Noted.");
  }, 120_000);

  it("a note that arrives during the agent's last answer is sent after it, in the same session", async () => {
    const env = setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server = await startScriptedLlmServer({
      script: async (req): Promise<ScriptedTurn> => {
        const users = userTexts(req);
        if (users.some((t) => t.includes("LATE-NOTE"))) return { text: "Answered the late note." };
        // The only (and last) answer of the task waits for the note.
        await Promise.race([gate, new Promise((r) => setTimeout(r, 60_000))]);
        return { text: "Task done." };
      },
    });
    const id = await start(env, "ONE-ANSWER task");
    await until("the agent's request", () => (server!.requests.length > 0 ? true : undefined));
    const note = await cli(env, ["agents", "note", id, "LATE-NOTE: one more thing", "--json", "--cwd", env.ws]);
    expect(note.code, note.stderr).toBe(0);
    expect(JSON.parse(note.stdout)).toMatchObject({ delivered: "queued" });
    release();
    const done = await until("the note's answer", async () => {
      const v = await agentView(env, id);
      return v.state === "finished" && v.lastMessage === "Answered the late note." ? v : undefined;
    });
    expect(server.requests).toHaveLength(2);
    expect(userTexts(server.requests[1]!).at(-1)).toContain("LATE-NOTE: one more thing");
    const events = sessionEvents(env, done.sessionId!);
    expect(events.filter((e) => e.type === "user_message").map((e) => (e as { text: string }).text)).toEqual(["ONE-ANSWER task", "LATE-NOTE: one more thing"]);
    // One session start: it was not resumed by a process of its own.
    expect(events.filter((e) => e.type === "session_start")).toHaveLength(1);
  }, 120_000);
});
