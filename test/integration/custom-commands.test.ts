// Custom slash commands and output styles (issue 23) through full sessions of the built CLI with the
// scripted model over HTTP: command files written from each tool's public documentation, and
// assertions on what reached the model (and on what really ran: files a `!` line writes).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/events";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

function workspace(files: Record<string, string>, homeFiles: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-cmds-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }
  for (const [rel, text] of Object.entries(homeFiles)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
  return { ws, home, sessions: join(dir, "sessions") };
}

type Body = { model: string; messages: Array<{ role: string; content: unknown }> };
const body = (i: number) => server!.requests[i]!.body as Body;
const text = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? "").join("") : "");
const systemOf = (i: number) => text(body(i).messages.find((m) => m.role === "system")?.content);
/** The last message of request i the user sent (not context an extension added after it, such as guidance). */
const lastUser = (i: number) => text([...body(i).messages].reverse().find((m) => m.role === "user" && !text(m.content).startsWith("<context"))?.content);

function run(w: { ws: string; home: string; sessions: string }, prompt: string, extra: string[] = []) {
  return runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", server!.openaiBaseUrl, "--model", "scripted", "--cwd", w.ws, "--session-dir", w.sessions, ...extra, prompt], {
    env: { HOME: w.home },
  });
}

function events(dir: string): SessionEvent[] {
  const f = readdirSync(dir).find((n) => n.endsWith(".jsonl"))!;
  return parseLog(readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean)).events;
}

describe("Claude Code commands", () => {
  it("expands $ARGUMENTS and $0…$N (0-based, as Claude Code does today), attaches @file, runs an allowed !`…` line before sending; the log keeps what the user typed", async () => {
    const w = workspace({
      ".claude/commands/fix-issue.md": [
        "---",
        "description: Fix a GitHub issue",
        'argument-hint: "[issue-number] [priority]"',
        "allowed-tools: Bash(git status:*)",
        "---",
        "Fix issue #$0 with priority $1 (all: $ARGUMENTS).",
        "",
        "Current status: !`git status --short`",
        "",
        "Follow the conventions in @docs/conventions.md",
      ].join("\n"),
      "docs/conventions.md": "Use tabs, never spaces. CONVENTION-MARKER-7\n",
      "a.txt": "x\n",
    });
    // A real repository, so `git status` prints what it sees.
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["init", "-q"], { cwd: w.ws });
    server = await startScriptedLlmServer({ script: [{ text: "On it." }] });
    const r = await run(w, '/fix-issue 123 "very high"');
    expect(r.code, r.stderr).toBe(0);
    const sent = lastUser(0);
    expect(sent).toContain('Fix issue #123 with priority very high (all: 123 "very high").');
    // git status ran in the sandbox and its output took the line's place.
    expect(sent).toMatch(/Current status: [\s\S]*\?\? a\.txt/);
    expect(sent).not.toContain("!`git status");
    expect(sent).toContain('<file path="docs/conventions.md">\nUse tabs, never spaces. CONVENTION-MARKER-7');
    const log = events(w.sessions);
    const um = log.find((e) => e.type === "user_message") as Extract<SessionEvent, { type: "user_message" }>;
    expect(um.typed).toBe('/fix-issue 123 "very high"');
    expect(um.text).toBe(sent.split("\n\n<context")[0]);
  });

  it("a !`…` line a deny rule forbids does not run, and the model is told so; an asked line with nobody to answer does not run either", async () => {
    const w = workspace({
      ".claude/commands/cleanup.md": "Clean up.\n\nFirst: !`touch denied-ran.txt`\n\nThen: !`touch asked-ran.txt`\n",
      ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(touch denied-ran.txt)"] } }),
    });
    server = await startScriptedLlmServer({ script: [{ text: "ok" }] });
    const r = await run(w, "/cleanup");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(w.ws, "denied-ran.txt"))).toBe(false);
    expect(existsSync(join(w.ws, "asked-ran.txt"))).toBe(false);
    const sent = lastUser(0);
    expect(sent).toMatch(/First: \[The command `touch denied-ran\.txt` was not run: the permission rules deny it/);
    expect(sent).toMatch(/Then: \[The command `touch asked-ran\.txt` was not run: the user refused it/);
  });

  it("a repository's command cannot grant tools: its allowed-tools are not applied, the rules decide, and the log says so", async () => {
    const w = workspace({ ".claude/commands/stamp.md": "---\nallowed-tools: Bash(touch:*)\n---\nCreate the stamp files.\n" });
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "touch stamp1.txt" } }] }, { text: "done" }] });
    const r = await run(w, "/stamp");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(w.ws, "stamp1.txt"))).toBe(false);
    const log = events(w.sessions);
    expect(log.filter((e) => e.type === "permission_decision").map((e) => (e as { decision: string }).decision)).toEqual(["deny"]);
    expect(JSON.stringify(log)).toContain("allowed-tools (Bash(touch:*)) not granted by the file: a repository's command may not grant tools; you are asked once for this run");
    // Headless, the one question for the run is refused (no one to ask): the rules decide.
    expect(JSON.stringify(log)).toContain("/stamp (project): Bash(touch:*) not allowed for this run (no one to ask (not a terminal)");
  });

  it("allowed-tools of the user's own command grant a tool for the command's turn only, never past a deny rule", async () => {
    const w = workspace(
      { ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Bash(touch forbidden.txt)"] } }) },
      { ".claude/commands/stamp.md": "---\nallowed-tools: Bash(touch:*)\n---\nCreate the stamp files.\n" },
    );
    const script = [
      // The command's turn: the grant lets `touch stamp1.txt` run without a question; the deny rule still wins.
      { toolCalls: [{ name: "run_command", input: { command: "touch stamp1.txt" } }] },
      { toolCalls: [{ name: "run_command", input: { command: "touch forbidden.txt" } }] },
      { text: "Stamped." },
    ];
    server = await startScriptedLlmServer({ script });
    const r = await run(w, "/stamp");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(w.ws, "stamp1.txt"))).toBe(true);
    expect(existsSync(join(w.ws, "forbidden.txt"))).toBe(false);
    const log = events(w.sessions);
    expect(log.filter((e) => e.type === "permission_decision").map((e) => (e as { decision: string }).decision)).toEqual(["allow", "deny"]);
    // The next message (a resume with a plain prompt) runs without the grant: the same call asks, and with no terminal it is refused.
    await server.close();
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "touch stamp2.txt" } }] }, { text: "done" }] });
    const id = readdirSync(w.sessions)
      .find((n) => n.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const r2 = await runCli(
      ["resume", id, "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "scripted", "--cwd", w.ws, "--session-dir", w.sessions, "touch another"],
      {
        env: { HOME: w.home },
      },
    );
    expect(r2.code, r2.stderr).toBe(0);
    expect(existsSync(join(w.ws, "stamp2.txt"))).toBe(false);
  });

  it("namespaces: a sub-folder's command runs by its name and as folder:name; a project command overrides the user's of the same name", async () => {
    const w = workspace(
      { ".claude/commands/frontend/component.md": "Make a component named $ARGUMENTS.", ".claude/commands/review.md": "Project review." },
      { ".claude/commands/review.md": "User review.", ".claude/commands/mine.md": "User only command." },
    );
    server = await startScriptedLlmServer({ script: [{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }] });
    for (const p of ["/component Button", "/frontend:component Card", "/review", "/mine extra words"]) expect((await run(w, p)).code).toBe(0);
    expect(lastUser(0)).toMatch(/^Make a component named Button\./);
    expect(lastUser(1)).toMatch(/^Make a component named Card\./);
    expect(lastUser(2)).toMatch(/^Project review\./);
    // No placeholder: the arguments follow, as Claude Code adds them.
    expect(lastUser(3)).toMatch(/^User only command\.\n\nARGUMENTS: extra words/);
  });

  it("model: the command's turn uses its model, the next message the session's", async () => {
    const w = workspace({ ".claude/commands/quick.md": "---\nmodel: small-model\n---\nAnswer quickly: $ARGUMENTS" });
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "list_files", input: {} }] }, { text: "fast" }] });
    const r = await run(w, "/quick what is here");
    expect(r.code, r.stderr).toBe(0);
    expect(body(0).model).toBe("small-model");
    expect(body(1).model).toBe("small-model");
    // A plain message afterwards: the session's own model.
    await server.close();
    server = await startScriptedLlmServer({ script: [{ text: "slow" }] });
    const id = readdirSync(w.sessions)
      .find((n) => n.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const r2 = await runCli(
      ["resume", id, "--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "scripted", "--cwd", w.ws, "--session-dir", w.sessions, "and now?"],
      {
        env: { HOME: w.home },
      },
    );
    expect(r2.code, r2.stderr).toBe(0);
    expect(body(0).model).toBe("scripted");
  });
});

describe("a command's model the provider does not know", () => {
  it("the session's model answers the turn, and the log says why", async () => {
    const w = workspace({ ".github/prompts/ask.prompt.md": "---\nmodel: GPT-4.1 (copilot)\n---\nAnswer: ${input:q}" });
    server = await startScriptedLlmServer({
      script: (req) => ((req.body as { model?: string }).model === "scripted" ? { text: "answered by the session's model" } : { error: { status: 404 } }),
    });
    const r = await run(w, "/ask: q=why");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("answered by the session's model");
    expect(server.requests.map((q) => (q.body as { model: string }).model)).toEqual(["GPT-4.1 (copilot)", "scripted"]);
    const fb = events(w.sessions).find((e) => e.type === "fallback") as Extract<SessionEvent, { type: "fallback" }>;
    expect(fb).toMatchObject({ from: "openai-compatible:GPT-4.1 (copilot)", to: "openai-compatible:scripted" });
    expect(fb.reason).toMatch(/^the command's model GPT-4\.1 \(copilot\) failed/);
  });
});

describe("other tools' command formats", () => {
  it("Copilot prompt files: name from frontmatter, ${input:…} from name=value, #file: and Markdown links attach files", async () => {
    const w = workspace({
      ".github/prompts/react-form.prompt.md": [
        "---",
        "name: create-form",
        "description: Create a React form",
        "mode: agent",
        "tools: ['codebase']",
        "---",
        "Create a form named ${input:formName:MyForm} with fields ${input:fields}.",
        "Follow [the guide](../../docs/forms.md) and #file:src/base.tsx",
      ].join("\n"),
      "docs/forms.md": "FORMS-GUIDE-TEXT\n",
      "src/base.tsx": "export const BASE = 1;\n",
    });
    server = await startScriptedLlmServer({ script: [{ text: "ok" }] });
    const r = await run(w, '/create-form: formName=Signup "fields=name, email"');
    expect(r.code, r.stderr).toBe(0);
    const sent = lastUser(0);
    expect(sent).toContain("Create a form named Signup with fields name, email.");
    expect(sent).toContain('<file path="src/base.tsx">\nexport const BASE = 1;');
    expect(sent).toContain('<file path="docs/forms.md">\nFORMS-GUIDE-TEXT');
  });

  it("Cline workflows run as /name.md (and /name), Roo commands as /name; the rest of the message follows", async () => {
    const w = workspace({
      ".clinerules/workflows/release.md": "# Release\n1. Bump the version.\n2. Tag it.",
      ".roo/commands/test-all.md": "---\ndescription: Run all tests\nargument-hint: <suite>\n---\nRun every test suite.",
    });
    server = await startScriptedLlmServer({ script: [{ text: "1" }, { text: "2" }, { text: "3" }] });
    for (const p of ["/release.md now please", "/release", "/test-all unit"]) expect((await run(w, p)).code).toBe(0);
    expect(lastUser(0)).toMatch(/^# Release\n1\. Bump the version\.\n2\. Tag it\.\n\nnow please/);
    expect(lastUser(1)).toMatch(/^# Release/);
    expect(lastUser(2)).toMatch(/^Run every test suite\.\n\nunit/);
  });

  it("a name two formats claim is reported (the first keeps it); an unknown /word is sent as typed", async () => {
    const w = workspace({ ".claude/commands/deploy.md": "Claude deploy.", ".roo/commands/deploy.md": "Roo deploy." });
    server = await startScriptedLlmServer({ script: [{ text: "1" }, { text: "2" }] });
    const r = await run(w, "/deploy");
    expect(r.code, r.stderr).toBe(0);
    expect(lastUser(0)).toMatch(/^Claude deploy\./);
    expect(r.stderr).toMatch(/commands: .*\.roo\/commands\/deploy\.md: \/deploy is also defined by .*\.claude\/commands\/deploy\.md/);
    expect((await run(w, "/usr/bin is where it lives")).code).toBe(0);
    expect(lastUser(1)).toMatch(/^\/usr\/bin is where it lives/);
  });
});

describe("output styles", () => {
  const style = ["---", "name: Teacher", "description: Explains as it goes", "---", "Explain every step as to a student. STYLE-MARKER-42"].join("\n");

  it("the setting chooses the style: its text ends the system prompt and replaces the coding instructions; --output-style overrides it", async () => {
    const w = workspace({ ".claude/output-styles/teacher.md": style, ".claude/output-styles/terse.md": "---\nkeep-coding-instructions: true\n---\nAnswer in one line. TERSE-MARKER" }, {});
    writeFileSync(join(w.ws, ".claude/settings.json"), JSON.stringify({ outputStyle: "Teacher" }));
    server = await startScriptedLlmServer({ script: [{ text: "1" }, { text: "2" }, { text: "3" }] });
    expect((await run(w, "hi")).code).toBe(0);
    expect(systemOf(0)).toMatch(/Output style "Teacher"[^\n]*\nExplain every step as to a student\. STYLE-MARKER-42$/);
    expect(systemOf(0)).not.toContain("How to work:");
    const r = await run(w, "hi", ["--output-style", "terse"]);
    expect(r.code, r.stderr).toBe(0);
    expect(systemOf(1)).toContain("TERSE-MARKER");
    expect(systemOf(1)).toContain("How to work:");
    expect(systemOf(1)).not.toContain("STYLE-MARKER-42");
    const bad = await run(w, "hi", ["--output-style", "nope"]);
    expect(bad.stderr).toContain('output style "nope" not found');
    expect(systemOf(2)).toContain("How to work:");
  });

  it("/output-style NAME mid-session: no model call; the change is appended before the next request, the system prompt and earlier messages unchanged", async () => {
    const w = workspace({}, { ".claude/output-styles/teacher.md": style });
    server = await startScriptedLlmServer({ script: [{ text: "first" }, { text: "second" }] });
    expect((await run(w, "hello")).code).toBe(0);
    const id = readdirSync(w.sessions)
      .find((n) => n.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const resume = (p: string) =>
      runCli(["resume", id, "--trust", "--provider", "openai-compatible", "--base-url", server!.openaiBaseUrl, "--model", "scripted", "--cwd", w.ws, "--session-dir", w.sessions, p], {
        env: { HOME: w.home },
      });
    const system0 = systemOf(0);
    const switched = await resume("/output-style teacher");
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.stdout + switched.stderr).toContain("Output style: Teacher (from your next message on).");
    // Handled without a model call.
    expect(server.requests).toHaveLength(1);
    const next = await resume("explain the loop");
    expect(next.code, next.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    // Same system prompt (the cached prefix), the earlier messages unchanged, the switch appended before the new message.
    expect(systemOf(1)).toBe(system0);
    const msgs = body(1)
      .messages.filter((m) => m.role !== "system")
      .map((m) => text(m.content));
    expect(msgs.slice(0, 2)).toEqual(
      body(0)
        .messages.filter((m) => m.role !== "system")
        .map((m) => text(m.content))
        .concat(["first"]),
    );
    expect(msgs[2]).toContain('The user switched the output style to "Teacher"');
    expect(msgs[2]).toContain("STYLE-MARKER-42");
    expect(msgs[3]).toMatch(/^explain the loop/);
  });
});
