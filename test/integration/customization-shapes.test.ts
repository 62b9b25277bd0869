// Issue 23, "every format read as its own tool reads it": a fixture set of 58 files written in the
// shapes real repositories use (test/fixtures/customization-shapes — Claude Code commands, skills,
// agents, rules and output styles; Copilot prompt files, instructions, custom agents and chat
// modes; Cursor .mdc rules; Cline rules, workflows and hooks; Roo rules per mode, commands and
// .roomodes custom modes (as agents, with their rules-{slug}); Windsurf .windsurfrules,
// .windsurf/rules with each trigger and global_rules.md; a Claude Code plugin marketplace with a `strict: false` entry, a plugin whose
// plugin.json names command and agent paths, hooks with ${CLAUDE_PLUGIN_ROOT} and a .mcp.json).
// Edge cases real files have: unquoted `argument-hint: [a] [b]`, agent descriptions with `: ` and
// <example> blocks, YAML lists and comma strings, CRLF and a BOM, no frontmatter, nested
// namespaces, 0-based `$0`/`$1`, named `arguments`, `!` lines, `disable-model-invocation`.
// Checked three ways: the listing (what each file is, and whether and when it comes into force),
// the commands' expansion, and full `yoke run` sessions with the scripted model (what reached it).
import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expandCommand, findCommand } from "../../src/core/custom-commands";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { listCustomizations, type CustomizationListing } from "../../src/node/customizations";
import { loadNodeCommands } from "../../src/node/custom-commands";
import { addMarketplace, installPlugin, pluginCommandSources } from "../../src/node/plugins";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs, subagentDepthOf, taskDescriptionOf, toldOf } from "../support/scripted-run";

const FIX = join(__dirname, "..", "fixtures", "customization-shapes");
const temps: string[] = [];
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** A copy of the fixtures, with the marketplace added and two of its plugins installed (enabled, not approved). */
function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-shapes-")));
  temps.push(dir);
  cpSync(FIX, dir, { recursive: true });
  const home = join(dir, "home");
  addMarketplace(home, { source: "directory", path: join(dir, "market") });
  installPlugin(home, "doc-kit@shapes-market");
  installPlugin(home, "lint-kit@shapes-market");
  return { dir, ws: join(dir, "ws"), home };
}

describe("the listing: each file is what its own tool makes of it", () => {
  let l: CustomizationListing;
  beforeAll(async () => {
    const s = setup();
    l = await listCustomizations({ cwd: s.ws, home: s.home, trusted: true, builtinDir: null });
  }, 60_000);
  const row = (kind: string, name: string) => {
    const found = l.items.filter((i) => i.kind === kind && i.name === name);
    expect(found, `${kind} ${name}`).toHaveLength(1);
    return `${found[0]!.origin} ${found[0]!.state}`;
  };

  it("rules: the activation each tool gives them", () => {
    const expected: Record<string, string> = {
      // Cursor: alwaysApply → always; globs (unquoted, comma string) → on matching files; a description only → requested; nothing → manual (CRLF file).
      always: "project always",
      react: "project glob",
      "db-requested": "project listed",
      manual: "project manual",
      // Copilot: applyTo '**' → always; a glob list → on matching files; a description only → requested; copilot-instructions.md → always.
      everything: "project always",
      typescript: "project glob",
      migrations: "project listed",
      "copilot-instructions": "project always",
      // Claude Code .claude/rules: no paths → always; paths → on matching files.
      style: "project always",
      api: "project glob",
      // Cline .clinerules files → always; Roo .roo/rules and the code mode's rules → always.
      "01-coding": "project always",
      "01-general": "project always",
      impl: "project always",
      // Windsurf: .windsurfrules → always; .windsurf/rules trigger always_on / glob / model_decision / manual → as Cursor's; global_rules.md → always.
      ".windsurfrules": "project always",
      general: "project always",
      "react-components": "project glob",
      "db-migrations": "project listed",
      "release-checklist": "project manual",
      global_rules: "user always",
    };
    for (const [name, want] of Object.entries(expected)) expect(row("rule", name), name).toBe(want);
    expect(
      l.items
        .filter((i) => i.kind === "rule")
        .map((i) => i.name)
        .sort(),
    ).toEqual(Object.keys(expected).sort());
    // Not rules: Cline's workflow and hook script, the architect mode's rules; .roomodes defines modes, not rules.
    expect(
      l.items
        .filter((i) => i.kind === "excluded")
        .map((i) => i.source)
        .sort(),
    ).toEqual([".clinerules/hooks/PreToolUse", ".clinerules/workflows/release.md", ".roo/rules-architect/plan.md", ".roo/rules-security-review/01-checklist.md"]);
    expect(l.items.some((i) => i.kind !== "agent" && i.source.includes(".roomodes"))).toBe(false);
    expect(row("memory", "CLAUDE.md")).toBe("project always");
    expect(row("memory", "AGENTS.md")).toBe("project always");
  });

  it("skills: listed by description, except one that disables model invocation; a strict:false marketplace entry gives only the skills it names", () => {
    expect(row("skill", "pdf-tools")).toBe("project listed");
    expect(row("skill", "deploy")).toBe("project manual");
    // A plugin's skill is PLUGIN:NAME, as Claude Code names it (session 20).
    expect(row("skill", "doc-kit:xlsx")).toBe("plugin listed");
    expect(l.items.some((i) => i.name === "pptx" || i.name === "doc-kit:pptx")).toBe(false);
    expect(l.plugins.find((p) => p.id === "doc-kit@shapes-market")!.components).toEqual({ commands: 0, agents: 0, skills: 1 });
  });

  it("commands: every format's, skills as /name (a plugin's too), namespaces, plugin paths — and the unquoted argument-hint and CRLF+BOM files read", () => {
    const commands = l.items.filter((i) => i.kind === "command");
    expect(commands.map((c) => `${c.name} ${c.origin}`).sort()).toEqual(
      [
        "/commit project",
        "/component project",
        "/create-react-form project",
        "/crlf-note project",
        "/deploy project",
        "/explain project",
        "/field project",
        "/fix plugin",
        "/fix-branch project",
        "/legacy-positional project",
        "/lint plugin",
        "/pdf-tools project",
        "/release.md project",
        "/review-pr project",
        "/ship project",
        "/standup user",
        "/test-all project",
        // The doc-kit plugin's one skill, as Claude Code runs a plugin's skill (/doc-kit:xlsx, /xlsx).
        "/xlsx plugin",
      ].sort(),
    );
    expect(commands.find((c) => c.name === "/review-pr")!.why).toContain("/review-pr [pr-number] [priority] [assignee]");
    expect(commands.find((c) => c.name === "/crlf-note")!.description).toBe("A command saved on Windows");
    expect(commands.find((c) => c.name === "/field")!.why).toContain("(project:frontend/forms)");
    // Copilot's `name: explain` clashes with the Claude command: reported, the first source keeps it.
    expect(l.problems.map((p) => p.message)).toContainEqual(
      expect.stringMatching(/^\/explain is also defined by .*\/\.claude\/commands\/explain\.md \(claude, project\), which is used; rename one of them$/),
    );
  });

  it("agents: Claude (comma string, YAML list, <example> description, inherit) and Copilot (.agent.md, .chatmode.md) ones; a plugin.json agents list offers only what it names", () => {
    const agents = l.items.filter((i) => i.kind === "agent");
    expect(agents.map((a) => `${a.name} ${a.origin} ${a.state}`).sort()).toEqual(
      [
        "Planner project listed",
        "architect project listed",
        "code-reviewer project listed",
        "debugger project listed",
        "docs-writer project listed",
        "lint-kit:linter plugin listed",
        "researcher user listed",
        "test-runner project listed",
        // Roo Code's .roomodes: each custom mode an agent by its slug.
        "security-review project listed",
        "test-writer project listed",
      ].sort(),
    );
    const roo = agents.find((a) => a.name === "security-review")!;
    expect(roo.description).toBe("Use this mode to review a change or a module for security problems before it is merged.");
    expect(roo.why).toContain("(tools: TodoWrite, Read, Grep, Glob, Edit, Write, Bash)");
    // No whenToUse: the first sentence of the role.
    expect(agents.find((a) => a.name === "test-writer")!.description).toBe("You write unit tests for existing code.");
    expect(agents.find((a) => a.name === "code-reviewer")!.why).toContain("(tools: Read, Grep, Glob)");
    expect(agents.find((a) => a.name === "debugger")!.why).toContain("(tools: Read, Edit, Bash)");
    expect(agents.find((a) => a.name === "test-runner")!.description).toContain('Examples: <example>Context: the user changed a parser. user: "run the tests"');
    const problems = l.problems.map((p) => `${p.at}: ${p.message}`);
    expect(problems).toContain('.claude/agents/no-name.md:1: a sub-agent needs a "name" in its frontmatter (Claude Code skips the file without one); skipped');
    expect(problems.filter((p) => p.includes("invalid YAML"))).toEqual([]);
    expect(problems).toContain('.roomodes:2: mode "security-review": not applied: the "browser" group (Yoke has no browser tool)');
    // Its fileRegex is enforced now (edit-paths.ts): nothing to report.
    expect(problems.filter((p) => p.includes("fileRegex"))).toEqual([]);
  });

  it("the plugin's hook and MCP server wait for approval, with ${CLAUDE_PLUGIN_ROOT} resolved; the output style is chosen by name", () => {
    const lint = l.plugins.find((p) => p.id === "lint-kit@shapes-market")!;
    expect(lint.approved).toBe(false);
    expect(lint.programs.map((p) => `${p.kind} ${p.name}: ${p.run.slice(lint.path.length)}`)).toEqual([
      "hook PostToolUse (Write|Edit): /scripts/check.sh",
      `mcp-server lint-server: /servers/lint-server --config ${lint.path}/config.json`,
    ]);
    expect(row("hook", "PostToolUse (Write|Edit)")).toBe("plugin not-approved");
    expect(row("mcp-server", "lint-server")).toBe("plugin not-approved");
    expect(row("output-style", "Teacher")).toBe("project manual");
  });
});

describe("commands expand as their own tools expand them", () => {
  it("Claude: 0-based $N, $ARGUMENTS[N], named arguments, ARGUMENTS: appended, ! lines, namespaced and plugin commands; skills as commands; Copilot inputs; Cline and Roo text", async () => {
    const s = setup();
    const { commands, problems } = await loadNodeCommands({ cwd: s.ws, home: s.home }, pluginCommandSources({ home: s.home, cwd: s.ws, trusted: true }));
    expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/^\/explain is also defined by /)]);
    const ran: string[] = [];
    const env = {
      workspaceRoot: s.ws,
      shell: async (c: string) => (ran.push(c), `<ran ${c}>`),
      file: async (p: string) => ({ path: p, text: `<${p}>` }),
    };
    const x = (name: string, args: string) => expandCommand(findCommand(commands, name)!, args, env);

    expect(await x("review-pr", '456 high "alice b"')).toBe(
      '## Context\n\n- Changed files: <ran git diff --name-only HEAD>\n\nReview PR #456 with priority high and assign it to alice b.\nEverything typed: 456 high "alice b"',
    );
    expect(ran).toEqual(["git diff --name-only HEAD"]);
    expect(await x("fix-branch", "42 hotfix-auth")).toBe("Fix issue 42 on branch hotfix-auth (first word: 42).");
    // Written for the old 1-based $1: Claude Code now gives $1 the second argument.
    expect(await x("legacy-positional", "a b c")).toBe("From b to c.");
    expect(await x("crlf-note", "caching")).toBe("Write a short note about caching.");
    expect(await x("component", "Button")).toBe("Create a React component named Button following our patterns.");
    expect(await x("frontend:forms:field", "email string")).toBe("Add a field called email of type string to the form.");
    expect(await x("explain", "parseArgs")).toBe("Explain the selected code simply.\n\nARGUMENTS: parseArgs");
    expect(await x("deploy", "prod")).toBe("Deploy with the release script. SKILL-DEPLOY-MANUAL\n\nARGUMENTS: prod");
    expect(findCommand(commands, "pdf-tools")!.description).toBe("Extract text and tables from PDF files, fill forms. Use when working with PDF files.");
    expect(await x("fix", "src/a.ts")).toBe("Fix every lint problem in src/a.ts.");
    expect(await x("lint-kit:lint", "src")).toBe("Lint src and report each problem.");
    expect(await x("create-react-form", "formName=Signup")).toBe(
      'Your goal is to generate a new React form component named Signup.\n\nAsk for the form name if not provided. Follow [our conventions](../../docs/conventions.md).\n\n<file path="../../docs/conventions.md">\n<../../docs/conventions.md>\n</file>',
    );
    expect(await x("release.md", "v2")).toBe("# Release\n\n1. Run the tests.\n2. Bump the version.\n\nv2");
    expect(await x("release", "")).toBe("# Release\n\n1. Run the tests.\n2. Bump the version.");
    expect(await x("test-all", "core")).toBe("Run all tests and summarize failures.\n\ncore");
    expect(findCommand(commands, "unlisted")).toBeUndefined();
    expect(await x("doc-kit:xlsx", "budget.xlsx")).toBe("Use openpyxl. SKILL-XLSX\n\nARGUMENTS: budget.xlsx");
    expect(findCommand(commands, "pptx")).toBeUndefined();
  });
});

describe("full sessions: what reaches the model", () => {
  beforeAll(() => ensureBuilt(), 180_000);

  type Body = { messages: Array<{ role: string; content: unknown }> };
  const text = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? "").join("") : "");
  const all = (r: RecordedRequest) => (r.body as Body).messages.map((m) => text(m.content)).join("\n\n");
  const lastUser = (r: RecordedRequest) => text([...(r.body as Body).messages].reverse().find((m) => m.role === "user" && !text(m.content).startsWith("<context"))?.content);

  async function run(s: { ws: string; home: string; dir: string }, script: ScriptedTurn[], message: string) {
    server = await startScriptedLlmServer({ script });
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, s.ws, join(s.dir, "sessions-" + temps.length + Math.random().toString(36).slice(2))), message], { env: { HOME: s.home } });
    expect(r.code, r.stderr).toBe(0);
    return server.requests;
  }

  it("the first request has every always-on file once and nothing its tool would not put in force; the skill list and the task tool offer what their tools offer", async () => {
    const s = setup();
    const [first] = await run(s, [{ text: "ok" }], "hello");
    const sent = all(first!);
    for (const m of [
      "CLAUDE-MEMORY",
      "CURSOR-ALWAYS",
      "COPILOT-RULE-ALL",
      "COPILOT-INSTRUCTIONS",
      "CLAUDE-RULE-STYLE",
      "CLINE-RULE",
      "ROO-GENERAL",
      "ROO-CODE",
      "WINDSURF-LEGACY",
      "WINDSURF-ALWAYS",
      "WINDSURF-EVERYWHERE",
    ])
      expect(sent, m).toContain(m);
    // AGENTS.md imported by CLAUDE.md (@AGENTS.md) and found at the root too: sent once.
    expect(sent.split("AGENTS-MEMORY").length - 1).toBe(1);
    for (const m of [
      "CURSOR-GLOB",
      "COPILOT-RULE-TS",
      "CLAUDE-RULE-API",
      "CURSOR-REQUESTED",
      "CURSOR-MANUAL",
      "COPILOT-RULE-MIGRATIONS",
      "WINDSURF-GLOB",
      "WINDSURF-MODEL-DECISION",
      "WINDSURF-MANUAL",
      "ROO-ARCHITECT",
      "SKILL-DEPLOY-MANUAL",
      "SKILL-PDF",
      "SKILL-XLSX",
      "SKILL-PPTX",
      "Bump the version",
      "cancel",
      "STYLE-TEACHER",
    ])
      expect(sent, m).not.toContain(m);
    // Listed by description for load_skill: skills and agent-requested rules, never a disable-model-invocation skill or another plugin's skill.
    for (const n of ["- pdf-tools:", "- doc-kit:xlsx:", "- db-requested:", "- migrations:", "- db-migrations:"]) expect(sent, n).toContain(n);
    for (const n of ["- deploy:", "- pptx:", "- doc-kit:pptx:", "- manual:", "- release-checklist:"]) expect(sent, n).not.toContain(n);
    const task = taskDescriptionOf(first!);
    for (const a of ["code-reviewer", "debugger", "test-runner", "docs-writer", "researcher", "lint-kit:linter", "Planner", "architect", "security-review", "test-writer"])
      expect(task, a).toContain(a);
    expect(task).toContain("- security-review: Use this mode to review a change or a module for security problems before it is merged.");
    // A mode's own rules are its agent's, never the session's.
    for (const m of ["ROO-MODE-ROLE", "ROO-MODE-CUSTOM", "ROO-MODE-RULE"]) expect(sent, m).not.toContain(m);
    expect(task).not.toContain("unlisted");
    expect(task).not.toContain("no-name");
  }, 180_000);

  it("/deploy runs the user-only skill with its arguments; the model cannot load it itself; /fix-branch fills named arguments", async () => {
    const s = setup();
    const reqs = await run(s, [{ toolCalls: [{ name: "load_skill", input: { name: "deploy" } }] }, { text: "done" }], "/deploy prod");
    expect(lastUser(reqs[0]!)).toBe("Deploy with the release script. SKILL-DEPLOY-MANUAL\n\nARGUMENTS: prod");
    expect(toldOf(reqs)).toMatch(/No skill named "deploy"/);
    const again = await run(s, [{ text: "ok" }], "/fix-branch 42 hotfix-auth");
    expect(lastUser(again[0]!)).toBe("Fix issue 42 on branch hotfix-auth (first word: 42).");
  }, 180_000);

  it("a glob rule of each tool arrives when a matching file is read; @name sends a manual Cursor or Windsurf rule", async () => {
    const s = setup();
    const reqs = await run(
      s,
      [{ toolCalls: [{ name: "read_file", input: { path: "src/api/users.ts" } }] }, { toolCalls: [{ name: "read_file", input: { path: "src/components/Button.tsx" } }] }, { text: "ok" }],
      "look at the api, and follow @manual and @release-checklist",
    );
    expect(all(reqs[0]!)).toContain("CURSOR-MANUAL");
    expect(all(reqs[0]!)).toContain("WINDSURF-MANUAL");
    expect(all(reqs[0]!)).not.toContain("WINDSURF-GLOB");
    const second = all(reqs[1]!);
    expect(second).toContain("CLAUDE-RULE-API");
    expect(second).toContain("COPILOT-RULE-TS");
    expect(second).not.toContain("CURSOR-GLOB");
    expect(all(reqs[2]!)).toContain("CURSOR-GLOB");
    expect(all(reqs[2]!)).toContain("WINDSURF-GLOB");
  }, 180_000);

  it("a Roo custom mode runs as its agent: its role, custom instructions, its rules-{slug} folder and the fileRegex limit in its prompt; its groups' tools only; an edit outside its fileRegex is refused, one inside lands", async () => {
    const s = setup();
    server = await startScriptedLlmServer({
      script: async (r: RecordedRequest) =>
        subagentDepthOf(r) === 1
          ? toldOf([r])
            ? { text: "No findings." }
            : {
                // One write outside the mode's fileRegex (\.md$), one inside it.
                toolCalls: [
                  { name: "write_file", input: { path: "src/api/patched.ts", content: "export const fixed = true;\n" } },
                  { name: "write_file", input: { path: "docs/security-report.md", content: "# Findings\n" } },
                ],
              }
          : toldOf([r])
            ? { text: "Reviewed." }
            : { toolCalls: [{ name: "task", input: { description: "Security review", prompt: "Review src/api.", subagent_type: "security-review" } }] },
    });
    // acceptEdits: the mode's writes need no question, so what refuses one is its fileRegex alone.
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, s.ws, join(s.dir, "sessions-roo")), "--permission-mode", "acceptEdits", "review src/api for security problems"], {
      env: { HOME: s.home },
    });
    expect(r.code, r.stderr).toBe(0);
    const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
    expect(child.length).toBeGreaterThan(0);
    const system = text((child[0]!.body as Body).messages[0]!.content);
    for (const m of ["ROO-MODE-ROLE", "ROO-MODE-CUSTOM", "ROO-MODE-RULE", "Edit only files whose path matches /\\.md$/ (Markdown reports only); other edits are refused."])
      expect(system, m).toContain(m);
    // The outcome: the .ts file was never written, the report was; the model was told why.
    expect(existsSync(join(s.ws, "src/api/patched.ts"))).toBe(false);
    expect(readFileSync(join(s.ws, "docs/security-report.md"), "utf8")).toBe("# Findings\n");
    const told = toldOf([child.at(-1)!]);
    expect(told).toContain(
      'the "security-review" agent (.roomodes (mode security-review)) may edit only files whose path matches /\\.md$/ (Markdown reports only): src/api/patched.ts does not match /\\.md$/ (Markdown reports only). Edit a matching file, or say in your answer what should change there.',
    );
    const tools = ((child[0]!.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);
    for (const t of ["read_file", "grep", "glob", "edit_file", "write_file", "run_command"]) expect(tools, t).toContain(t);
    for (const t of ["task", "load_skill"]) expect(tools, t).not.toContain(t);
  }, 180_000);
});
