// A skill invoked again in a later turn, an inline skill's `model`, and the hooks a resumed session
// registers again. Claude Code's skills documentation: a skill's `effort` and `model` hold while it
// is active (the turn it is invoked in), its `hooks` from its invocation for the rest of the
// session. Full `yoke run` / `yoke resume` sessions with the scripted model over HTTP; outcomes:
// what reached the model (its model, reasoning effort, how often the skill's text), what a hook let
// happen on disk, what the log says.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer | undefined;
const temps: string[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-skill-again-")));
  temps.push(base);
  const ws = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { ws, home, sessions: join(base, "sessions"), log: join(ws, "hook.log") };
}
type Setup = ReturnType<typeof setup>;

type Wire = { role: string; content?: unknown };
const wire = (r: RecordedRequest) => JSON.stringify(r.body.messages);
const toolResults = (r: RecordedRequest) => ((r.body.messages as Wire[]) ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
const count = (text: string, what: string) => text.split(what).length - 1;
const cli = (s: Setup, url: string, args: string[]) =>
  runCli([...args, "--provider", "openai-compatible", "--base-url", url, "--model", "m", "--cwd", s.ws, "--session-dir", s.sessions, "--permission-mode", "acceptEdits", "--trust"], {
    env: { HOME: s.home, OPENAI_API_KEY: "k" },
  });
const sessionId = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .find((f) => f.endsWith(".jsonl"))!
    .replace(/^.*\//, "")
    .replace(/\.jsonl$/, "");
const sessionLog = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
/** A scripted model that answers from a queue, in order (one `yoke` process after another). */
function queue(turns: ScriptedTurn[]) {
  return async () => turns.shift() ?? { text: "(no more turns)" };
}

// A personal skill as Claude Code documents it: `effort` and `model` in its front matter.
const reviewSkill = ["---", "name: review", "description: Review the change thoroughly", "effort: low", "model: m-review", "---", "REVIEW-BODY: read every changed line.", ""].join("\n");

describe("a skill invoked again in a later turn", () => {
  it("load_skill again: 'already loaded', its text not sent again, its effort and model for that turn; the turn after runs on the session's own", async () => {
    const s = setup();
    write(join(s.home, ".claude/skills/review/SKILL.md"), reviewSkill);
    server = await startScriptedLlmServer({
      script: queue([
        { toolCalls: [{ name: "load_skill", input: { name: "review" } }] },
        { text: "Reviewed." },
        // The next message (a resumed session): the model loads it again.
        { toolCalls: [{ name: "load_skill", input: { name: "review" } }] },
        { text: "Reviewed again." },
        { text: "Plain answer." },
      ]),
    });
    const first = await cli(s, server.openaiBaseUrl, ["run", "review the change"]);
    expect(first.code, first.stderr).toBe(0);
    const id = sessionId(s.sessions);
    const second = await cli(s, server.openaiBaseUrl, ["resume", id, "review it once more"]);
    expect(second.code, second.stderr).toBe(0);
    const third = await cli(s, server.openaiBaseUrl, ["resume", id, "and now a plain question"]);
    expect(third.code, third.stderr).toBe(0);

    const r = server.requests;
    expect(r.length).toBe(5);
    // Effort and model: from the request after each load to the end of its turn, never before nor after.
    expect(r.map((q) => q.body.reasoning_effort)).toEqual([undefined, "low", undefined, "low", undefined]);
    expect(r.map((q) => q.body.model)).toEqual(["m", "m-review", "m", "m-review", "m"]);
    // The second load's answer says it is loaded and in force; the body went to the model once, whatever the turn.
    const again = toolResults(r[3]!).at(-1)!;
    expect(again).toContain('The skill "review" is already loaded: its instructions are in the conversation above, and they are in force now (effort low, model m-review until this turn ends).');
    expect(count(wire(r[1]!), "REVIEW-BODY")).toBe(1);
    expect(count(wire(r[4]!), "REVIEW-BODY")).toBe(1);
    // The cached prefix stays: each request starts with the previous one's messages.
    expect(wire(r[4]!).startsWith(wire(r[3]!).slice(0, -1))).toBe(true);
    expect(sessionLog(s.sessions)).toContain('the skill \\"review\\": model m-review until this turn ends');
  }, 120_000);

  it("@name again: a line saying it is loaded (no second copy), its effort and model for that turn; /name applies them too", async () => {
    const s = setup();
    write(join(s.home, ".claude/skills/review/SKILL.md"), reviewSkill);
    server = await startScriptedLlmServer({ script: queue([{ text: "One." }, { text: "Two." }, { text: "Three." }]) });
    const first = await cli(s, server.openaiBaseUrl, ["run", "@review the parser"]);
    expect(first.code, first.stderr).toBe(0);
    const id = sessionId(s.sessions);
    const second = await cli(s, server.openaiBaseUrl, ["resume", id, "@review the lexer too"]);
    expect(second.code, second.stderr).toBe(0);
    // Claude Code's /name: the skill as a command (its text with the arguments), at its effort and model.
    const third = await cli(s, server.openaiBaseUrl, ["resume", id, "/review the printer"]);
    expect(third.code, third.stderr).toBe(0);

    const r = server.requests;
    expect(r.map((q) => q.body.reasoning_effort)).toEqual(["low", "low", "low"]);
    expect(r.map((q) => q.body.model)).toEqual(["m-review", "m-review", "m-review"]);
    expect(count(wire(r[0]!), "REVIEW-BODY")).toBe(1);
    expect(count(wire(r[1]!), "REVIEW-BODY")).toBe(1);
    expect(wire(r[1]!)).toContain('[The skill \\"review\\" (~/.claude/skills/review/SKILL.md), named @review in the message, is already loaded');
    expect(wire(r[1]!)).toContain("they apply to this request (effort low, model m-review until this turn ends).]");
  }, 120_000);

  it("a model the session's provider does not offer: the session's model answers, and the log says why; a model it refuses falls back, saying it was the skill's", async () => {
    const s = setup();
    write(join(s.home, ".claude/skills/fast/SKILL.md"), "---\nname: fast\ndescription: Answer fast\nmodel: haiku\n---\nFAST-BODY\n");
    write(join(s.home, ".claude/skills/odd/SKILL.md"), "---\nname: odd\ndescription: Answer oddly\nmodel: no-such-model\n---\nODD-BODY\n");
    server = await startScriptedLlmServer({
      script: async (q: RecordedRequest) => (q.body.model === "no-such-model" ? { error: { status: 404 } } : { text: "Answered." }),
    });
    const r = await cli(s, server.openaiBaseUrl, ["run", "@fast @odd what is here?"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("Answered.");
    expect(server.requests.map((q) => q.body.model)).toEqual(["no-such-model", "m"]);
    const log = sessionLog(s.sessions);
    expect(log).toContain("the skill \\\"fast\\\": not applied: model haiku (the session's provider (openai-compatible) does not offer haiku); the session's model answers");
    expect(log).toContain('the skill \\"odd\\"\'s model no-such-model failed');
  }, 120_000);
});

// A repository command and a repository skill with a hook that logs each Write and blocks it (Claude
// Code's documented `hooks` shape); rewritten between the run and the resume, with a hook that
// would log NEW-HOOK.
const hooked = (head: string[], log: string, mark: string, body: string) =>
  [
    "---",
    ...head,
    "hooks:",
    "  PreToolUse:",
    "    - matcher: Write",
    "      hooks:",
    "        - type: command",
    `          command: "echo ${mark} >> '${log}'; echo '${mark}: no writes' >&2; exit 2"`,
    "---",
    body,
    "",
  ].join("\n");

describe("the hooks a resumed session registers again", () => {
  it("a command run as /name and a skill loaded, both rewritten with a new hook before the resume: the new hooks do not run, the old ones not either, and the log says why", async () => {
    const s = setup();
    const cmdPath = join(s.ws, ".claude/commands/guard.md");
    const skillPath = join(s.ws, ".claude/skills/careful/SKILL.md");
    write(cmdPath, hooked(["description: Guard the source"], s.log, "CMD-OLD", "Load the careful skill, then write src/stamp.ts."));
    write(skillPath, hooked(["name: careful", "description: Work carefully"], s.log, "SKILL-OLD", "CAREFUL-BODY"));
    server = await startScriptedLlmServer({
      script: queue([
        { toolCalls: [{ name: "load_skill", input: { name: "careful" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "src/stamp.ts", content: "export const stamp = 1;\n" } }] },
        { text: "Blocked." },
        { toolCalls: [{ name: "write_file", input: { path: "src/later.ts", content: "export const later = 1;\n" } }] },
        { text: "Written." },
        { toolCalls: [{ name: "write_file", input: { path: "src/again.ts", content: "export const again = 1;\n" } }] },
        { text: "Blocked by the new hook." },
      ]),
    });
    const first = await cli(s, server.openaiBaseUrl, ["run", "/guard"]);
    expect(first.code, first.stderr).toBe(0);
    // While they ran: the first registered hook blocked the write (both run on the same Write).
    expect(existsSync(join(s.ws, "src/stamp.ts"))).toBe(false);
    const before = readFileSync(s.log, "utf8");
    expect(before).toContain("CMD-OLD");
    // The log records a digest of what the hooks run, not a copy of their commands.
    expect(sessionLog(s.sessions)).toMatch(/"hooks":\{"key":"file:[^"]*\/\.claude\/commands\/guard\.md","fingerprint":"[0-9a-f]{64}"\}/);
    expect(sessionLog(s.sessions)).not.toContain("echo CMD-OLD");

    // The files are rewritten (a pull, or the agent itself): a different hook each.
    write(cmdPath, hooked(["description: Guard the source"], s.log, "CMD-NEW", "Load the careful skill, then write src/stamp.ts."));
    write(skillPath, hooked(["name: careful", "description: Work carefully"], s.log, "SKILL-NEW", "CAREFUL-BODY"));
    const second = await cli(s, server.openaiBaseUrl, ["resume", sessionId(s.sessions), "write src/later.ts"]);
    expect(second.code, second.stderr).toBe(0);
    // Neither the new hooks nor the old ones ran: the write happened, the hook log did not grow.
    expect(readFileSync(join(s.ws, "src/later.ts"), "utf8")).toContain("later");
    expect(readFileSync(s.log, "utf8")).toBe(before);
    const log = sessionLog(s.sessions);
    expect(log).toContain("/guard (project): not applied after the resume: its hooks changed since it ran in this session (.claude/commands/guard.md); none of them run until you run /guard again");
    expect(log).toContain('the skill \\"careful\\" (.claude/skills/careful/SKILL.md): not applied after the resume: its hooks (they changed since it was loaded in this session)');

    // Run again, the command registers its hooks of now, with a fresh run's checks: the new hook blocks.
    const third = await cli(s, server.openaiBaseUrl, ["resume", sessionId(s.sessions), "/guard"]);
    expect(third.code, third.stderr).toBe(0);
    expect(existsSync(join(s.ws, "src/again.ts"))).toBe(false);
    expect(readFileSync(s.log, "utf8")).toContain("CMD-NEW");
    expect(toolResults(server.requests.at(-1)!).join("\n")).toContain("CMD-NEW: no writes");
  }, 120_000);

  it("a session logged before the hooks were recorded: on resume the command's hooks do not run, and the log says how to get them", async () => {
    const s = setup();
    write(join(s.ws, ".claude/commands/guard.md"), hooked(["description: Guard the source"], s.log, "CMD-OLD", "Write src/stamp.ts."));
    server = await startScriptedLlmServer({
      script: queue([
        { toolCalls: [{ name: "write_file", input: { path: "src/stamp.ts", content: "export const stamp = 1;\n" } }] },
        { text: "Blocked." },
        { toolCalls: [{ name: "write_file", input: { path: "src/later.ts", content: "export const later = 1;\n" } }] },
        { text: "Written." },
      ]),
    });
    const first = await cli(s, server.openaiBaseUrl, ["run", "/guard"]);
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(join(s.ws, "src/stamp.ts"))).toBe(false);
    // The log as an older Yoke wrote it: the registration without its record.
    const file = readdirSync(s.sessions, { recursive: true })
      .map(String)
      .find((f) => f.endsWith(".jsonl"))!;
    const lines = readFileSync(join(s.sessions, file), "utf8").split("\n");
    const stripped = lines.map((l) => (l.includes('"hooks":{"key"') ? JSON.stringify({ ...(JSON.parse(l) as object), hooks: undefined }) : l));
    expect(stripped).not.toEqual(lines);
    writeFileSync(join(s.sessions, file), stripped.join("\n"));
    const before = readFileSync(s.log, "utf8");
    const second = await cli(s, server.openaiBaseUrl, ["resume", sessionId(s.sessions), "write src/later.ts"]);
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(join(s.ws, "src/later.ts"))).toBe(true);
    expect(readFileSync(s.log, "utf8")).toBe(before);
    expect(sessionLog(s.sessions)).toContain(
      "/guard (project): not applied after the resume: its hooks (they were not registered when it ran in this session, or the log does not say which they were); run /guard again to use them",
    );
  }, 120_000);
});
