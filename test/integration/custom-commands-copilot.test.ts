// Copilot prompt files' fields in full sessions with the scripted model over HTTP, asserting what
// the model receives: `${input:…}` asked of the user (the panel's input box; here the host's
// askInput) or given as name=value; the editor's `${selection}`, `${file}`, `${fileBasename}`,
// `${workspaceFolder}`; `mode: ask` / `tools` limiting the run (a write refused, the file never
// written; the next message free again); and the CLI: name=value from the message, a clear error
// headless (no request made).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/core/events";
import { AgentSession, type AgentSessionOptions } from "../../src/core/loop/agent-session";
import { silentLogger } from "../../src/core/ports";
import { createProvider } from "../../src/core/providers/create";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { nodeCustomCommandsExtension } from "../../src/node/custom-commands";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { ensureBuilt, runCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { createWorkspaceWithHome } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
const sessions: AgentSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.end();
  server = await closeServerAndRemoveTemps(server, temps);
});

const FORM = [
  "---",
  "name: create-form",
  "description: Create a form component",
  "mode: ask",
  "tools: ['search/codebase', 'editFiles']",
  "---",
  "Plan the form ${input:formName:the form's name} with the fields ${input:fields}.",
  "The user selected: ${selection}",
  "It is in ${fileBasename} (${file}), in the workspace ${workspaceFolderBasename}.",
  "",
].join("\n");

type Wire = { role: string; content?: unknown };
const userTexts = (i: number) =>
  ((server!.requests[i]!.body.messages as Wire[]) ?? []).filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
const toolTexts = (i: number) => ((server!.requests[i]!.body.messages as Wire[]) ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));

async function panelSession(files: Record<string, string>, script: ScriptedTurn[], answers: Record<string, string | undefined>) {
  const { base, cwd: ws, home } = createWorkspaceWithHome("yoke-copilot-", files, temps, { realpath: true });
  const sessionDir = join(base, "sessions");
  server = await startScriptedLlmServer({ script });
  const node = createNodeServices({ cwd: ws, sessionDir, trusted: true, home });
  const asked: Array<{ command: string; name: string; placeholder?: string }> = [];
  const approver = { ask: async () => ({ decision: "deny" as const, message: "no" }) };
  const opts: AgentSessionOptions = {
    store: createFileSessionStore(sessionDir),
    provider: createProvider({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "scripted", apiKey: "k" }),
    tools: createBuiltinTools(),
    services: (s) => ({ fs: createNodeWorkspaceFs(ws), search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(s) }),
    approver,
    gate: node.gate,
    // A mode where a write is not asked: only the prompt file's limit stops it.
    permissionMode: "acceptEdits",
    retry: { maxRetries: 0 },
    compaction: false,
    extensions: [
      nodeCustomCommandsExtension(
        { cwd: ws, home },
        {
          approver,
          check: (r, m) => node.gate.check(r, m),
          warn: () => undefined,
          // As the panel: the active editor, and an input box for each missing ${input:…}.
          editor: async () => ({ file: join(ws, "src/signup.tsx"), selection: "export function Signup() {}" }),
          askInput: async (q) => {
            asked.push(q);
            return answers[q.name];
          },
        },
      ),
    ],
  };
  const s = await AgentSession.create(opts);
  sessions.push(s);
  return { s, ws, asked };
}

describe("Copilot prompt files in a session (the panel's host)", () => {
  it("asks for the ${input:…} the message did not give, fills the editor's variables, and limits the run to mode: ask ∩ tools — a write is refused and never lands; the next message is free", async () => {
    const { s, ws, asked } = await panelSession(
      { ".github/prompts/create-form.prompt.md": FORM, "src/signup.tsx": "export function Signup() {}\n" },
      [
        { toolCalls: [{ name: "write_file", input: { path: "src/form.tsx", content: "written\n" } }] },
        { text: "Here is the plan." },
        { toolCalls: [{ name: "write_file", input: { path: "later.txt", content: "later\n" } }] },
        { text: "Wrote it." },
      ],
      { fields: "email, password" },
    );
    await s.send("/create-form formName=Signup");
    // Only the input the message lacked was asked, with its placeholder when it has one.
    expect(asked).toEqual([{ command: "create-form", name: "fields" }]);
    const sent = userTexts(0)[0]!;
    expect(sent).toContain("Plan the form Signup with the fields email, password.");
    expect(sent).toContain("The user selected: export function Signup() {}");
    expect(sent).toContain(`It is in signup.tsx (${join(ws, "src/signup.tsx")}), in the workspace ws.`);
    expect(sent).toContain(
      "[/create-form is a prompt file (mode: ask; tools: search/codebase, editFiles): for this request use only these tools: glob, grep, list_files, read_file. Calls to any other tool are refused until the user's next message.]",
    );
    // The tool list itself is unchanged (the cached prefix): write_file is still offered, but refused.
    const offered = (server!.requests[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).toContain("write_file");
    expect(toolTexts(1).join("\n")).toContain("/create-form (a prompt file) limits this request to glob, grep, list_files, read_file; write_file is not one of them");
    expect(existsSync(join(ws, "src/form.tsx"))).toBe(false);
    // The next plain message: the limit is gone (acceptEdits writes without a question).
    await s.send("now write later.txt");
    expect(readFileSync(join(ws, "later.txt"), "utf8")).toBe("later\n");
  });

  it("the user cancels the input box: nothing is sent, and the message says how to give the value", async () => {
    const { s } = await panelSession({ ".github/prompts/create-form.prompt.md": FORM }, [{ text: "never" }], {});
    await s.send("/create-form");
    expect(server!.requests).toHaveLength(0);
    const err = s.events().find((e): e is Extract<SessionEvent, { type: "error" }> => e.type === "error");
    expect(err?.message).toBe(
      `Your message was not sent: /create-form: no value for \${input:formName} (cancelled); type them after the command: /create-form formName="the form's name" fields=VALUE`,
    );
  });
});

describe("Copilot prompt files from the CLI", () => {
  function workspace(files: Record<string, string>) {
    const { base, cwd, home } = createWorkspaceWithHome("yoke-copilot-cli-", files, temps, { realpath: true });
    return { ws: cwd, home, sessions: join(base, "sessions") };
  }
  const run = (w: ReturnType<typeof workspace>, prompt: string) =>
    runCli(["run", "--trust", "--provider", "openai-compatible", "--base-url", server!.openaiBaseUrl, "--model", "scripted", "--cwd", w.ws, "--session-dir", w.sessions, prompt], {
      env: { HOME: w.home },
    });

  it("name=value from the message fills the inputs; without a terminal a missing one is a clear error and no request is made", async () => {
    ensureBuilt();
    server = await startScriptedLlmServer({ script: [{ text: "planned" }] });
    const w = workspace({ ".github/prompts/create-form.prompt.md": FORM });
    const missing = await run(w, "/create-form formName=Signup");
    expect(missing.code).not.toBe(0);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain(
      "Your message was not sent: /create-form needs ${input:fields}, and there is no one to ask here: type it after the command: /create-form fields=VALUE",
    );
    expect(server.requests).toHaveLength(0);

    const ok = await run(w, '/create-form formName=Signup "fields=email, password"');
    expect(ok.code, ok.stderr).toBe(0);
    const sent = ((server.requests[0]!.body.messages as Wire[]) ?? []).filter((m) => m.role === "user").map((m) => String(m.content))[0]!;
    expect(sent).toContain("Plan the form Signup with the fields email, password.");
    expect(sent).toContain("The user selected: [no editor selection: run from the command line]");
    expect(sent).toContain("It is in [no file is open in the editor] ([no file is open in the editor]), in the workspace ws.");
    const logs = readdirSync(w.sessions).filter((n) => n.endsWith(".jsonl"));
    expect(logs.length).toBeGreaterThan(0);
  });

  it("a prompt file whose agent names a custom agent (.github/agents/*.agent.md) runs under it: its instructions before the prompt, its tools only — a write it has no tool for is refused and never lands", async () => {
    ensureBuilt();
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "write_file", input: { path: "review.md", content: "findings\n" } }] }, { text: "Reviewed without writing." }],
    });
    const w = workspace({
      ".github/agents/reviewer.agent.md": [
        "---",
        "name: Code Reviewer",
        "description: Reviews changes for correctness and missing tests",
        "tools: ['read', 'search']",
        "---",
        "Review the change for bugs and missing tests. Report findings; never edit files. AGENT-REVIEWER-INSTRUCTIONS",
        "",
      ].join("\n"),
      ".github/prompts/review-pr.prompt.md": ["---", "description: Review the current change", "agent: reviewer", "---", "Review the change in src/. PROMPT-BODY-MARKER", ""].join("\n"),
      "src/a.ts": "export const a = 1;\n",
    });
    const r = await runCli(
      [
        "run",
        "--trust",
        "--provider",
        "openai-compatible",
        "--base-url",
        server.openaiBaseUrl,
        "--model",
        "scripted",
        "--cwd",
        w.ws,
        "--session-dir",
        w.sessions,
        "--permission-mode",
        "acceptEdits",
        "/review-pr",
      ],
      { env: { HOME: w.home } },
    );
    expect(r.code, r.stderr).toBe(0);
    const sent = userTexts(0).join("\n");
    expect(sent).toContain('[/review-pr is a prompt file that runs as the "reviewer" agent (.github/agents/reviewer.agent.md). Its instructions for this request:]');
    expect(sent.indexOf("AGENT-REVIEWER-INSTRUCTIONS")).toBeLessThan(sent.indexOf("PROMPT-BODY-MARKER"));
    expect(sent).toContain("[/review-pr is a prompt file (agent: reviewer): for this request use only these tools: glob, grep, list_files, read_file, recall.");
    // acceptEdits would write it: the agent's tool list alone refused it.
    expect(existsSync(join(w.ws, "review.md"))).toBe(false);
    expect(toolTexts(1).join("\n")).toContain("/review-pr (a prompt file) limits this request to glob, grep, list_files, read_file, recall; write_file is not one of them");
    expect(r.stdout).toContain("Reviewed without writing.");
  });
});
