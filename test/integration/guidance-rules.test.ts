// Rules as other tools write them, through full `yoke run` sessions (the built CLI, the scripted
// model over real HTTP): what reached the model (the request bodies) and when. Issue 23's "Wrong"
// list: listed rules reach the model, @name injects, Cline workflows/hooks are not rules, each file
// once per session, a total guidance budget, nested .cursor/rules, .claude/rules and Roo's rules.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest, ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-rules-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

/** One `yoke run` in `ws` against the scripted model; the requests it sent. */
async function session(ws: string, message: string, script: ScriptedTurn[], home = tree({})): Promise<{ requests: RecordedRequest[]; stdout: string }> {
  const server: ScriptedServer = await startScriptedLlmServer({ script });
  try {
    const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, join(home, "sessions")), "--permission-mode", "bypassPermissions", "--json", message], {
      env: { HOME: home, OPENAI_API_KEY: "test" },
      cwd: ws,
    });
    expect(r.code, r.stderr).toBe(0);
    return { requests: server.requests, stdout: r.stdout };
  } finally {
    await server.close();
  }
}

type Msg = { role: string; content?: unknown };
const messagesOf = (r: RecordedRequest) => r.body.messages as Msg[];
const textOf = (m: Msg) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));
/** All the text of a request's messages (system prompt left out). */
const convo = (r: RecordedRequest) =>
  messagesOf(r)
    .filter((m) => m.role !== "system")
    .map(textOf)
    .join("\n");
/** What request i added to request i-1. */
const added = (reqs: RecordedRequest[], i: number) =>
  messagesOf(reqs[i]!)
    .slice(i === 0 ? 0 : messagesOf(reqs[i - 1]!).length)
    .filter((m) => m.role !== "system")
    .map(textOf)
    .join("\n");
const count = (text: string, marker: string) => text.split(marker).length - 1;
/** Every request starts with the previous one's messages, byte for byte (the cached prefix holds). */
function expectAppendOnly(reqs: RecordedRequest[]): void {
  for (let i = 1; i < reqs.length; i++) expect(JSON.stringify(messagesOf(reqs[i]!).slice(0, messagesOf(reqs[i - 1]!).length))).toBe(JSON.stringify(messagesOf(reqs[i - 1]!)));
}
const toolResult = (r: RecordedRequest) =>
  messagesOf(r)
    .filter((m) => m.role === "tool")
    .map(textOf)
    .join("\n");

describe("agent-requested and manual rules reach the model", () => {
  const ws = () =>
    tree({
      ".cursor/rules/db-migrations.mdc": "---\ndescription: How to write database migrations\nalwaysApply: false\n---\nREQUESTED-MDC-BODY: one migration per change.\n",
      ".cursor/rules/release-checklist.mdc": "---\nalwaysApply: false\n---\nMANUAL-MDC-BODY: bump the version, tag, push.\n",
      ".github/instructions/api.instructions.md": "---\ndescription: REST API conventions\n---\nDESC-ONLY-INSTRUCTIONS-BODY: plural nouns in paths.\n",
      "AGENTS.md": "ROOT-AGENTS\n",
    });

  it("a listed (agent-requested) rule: load_skill returns 'Loaded', and its body follows in the next request — never 'already loaded'", async () => {
    const { requests } = await session(ws(), "add a users table", [
      { toolCalls: [{ name: "load_skill", input: { name: "db-migrations" } }] },
      { toolCalls: [{ name: "load_skill", input: { name: "api" } }] },
      { text: "done" },
    ]);
    expect(requests).toHaveLength(3);
    const first = convo(requests[0]!);
    expect(first).toContain("- db-migrations: How to write database migrations");
    expect(first).toContain("- api: REST API conventions");
    expect(first).not.toContain("REQUESTED-MDC-BODY");
    expect(first).not.toContain("DESC-ONLY-INSTRUCTIONS-BODY");
    // A manual rule is not offered to the model: only the user brings it in.
    expect(first).not.toContain("release-checklist");
    expect(first).not.toContain("MANUAL-MDC-BODY");
    expect(toolResult(requests[1]!)).toContain('Loaded the rule "db-migrations"');
    expect(toolResult(requests[1]!)).not.toContain("already loaded");
    expect(added(requests, 1)).toContain("REQUESTED-MDC-BODY");
    expect(added(requests, 2)).toContain("DESC-ONLY-INSTRUCTIONS-BODY");
    expect(count(convo(requests[2]!), "REQUESTED-MDC-BODY")).toBe(1);
    expectAppendOnly(requests);
  });

  it("@name in the user's message injects a manual rule (and a listed one) with the first request; loading it again says 'already loaded'", async () => {
    const { requests } = await session(ws(), "ship it, following @release-checklist and @db-migrations.", [
      { toolCalls: [{ name: "load_skill", input: { name: "release-checklist" } }] },
      { text: "done" },
    ]);
    const first = convo(requests[0]!);
    expect(first).toContain("MANUAL-MDC-BODY");
    expect(first).toContain("named @release-checklist in the message");
    expect(first).toContain("REQUESTED-MDC-BODY");
    expect(first).toContain("named @db-migrations in the message");
    // Sent in full, so not listed besides.
    expect(first).not.toContain("- db-migrations: How to write database migrations");
    expect(toolResult(requests[1]!)).toContain('The rule "release-checklist" is already loaded');
    expect(count(convo(requests[1]!), "MANUAL-MDC-BODY")).toBe(1);
  });
});

describe("Cline: workflows and hooks are not rules", () => {
  it("only .clinerules' rule files reach the model; a workflow, a hook and an executable script never do, and `yoke lessons list` says why", async () => {
    const bigWorkflow = `# Release workflow\nWORKFLOW-BODY\n${"step\n".repeat(4000)}`;
    const ws = tree({
      ".clinerules/01-style.md": "CLINE-STYLE-RULE: tabs.\n",
      ".clinerules/workflows/release.md": bigWorkflow,
      ".clinerules/hooks/PreToolUse": "#!/usr/bin/env bash\necho HOOK-SCRIPT-BODY\n",
      ".clinerules/hooks/notes.md": "HOOK-NOTES-BODY\n",
      ".clinerules/run-me": "#!/bin/sh\necho EXEC-RULE-BODY\n",
    });
    chmodSync(join(ws, ".clinerules/hooks/PreToolUse"), 0o755);
    chmodSync(join(ws, ".clinerules/run-me"), 0o755);
    const { requests } = await session(ws, "hello", [{ text: "hi" }]);
    const first = convo(requests[0]!);
    expect(first).toContain("CLINE-STYLE-RULE");
    for (const marker of ["WORKFLOW-BODY", "HOOK-SCRIPT-BODY", "HOOK-NOTES-BODY", "EXEC-RULE-BODY"]) expect(first, marker).not.toContain(marker);
    expect(JSON.stringify(requests[0]!.body).length).toBeLessThan(bigWorkflow.length);

    const list = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: tree({}) } });
    expect(list.code, list.stderr).toBe(0);
    const out = JSON.parse(list.stdout) as { entries: Array<{ source: string }>; excluded: Array<{ source: string; why: string }> };
    expect(out.entries.map((e) => e.source)).toContain(".clinerules/01-style.md");
    expect(out.entries.map((e) => e.source).filter((s) => s.startsWith(".clinerules/") && s !== ".clinerules/01-style.md")).toEqual([]);
    const why = (s: string) => out.excluded.find((x) => x.source === s)?.why;
    expect(why(".clinerules/workflows/release.md")).toMatch(/Cline workflow/);
    expect(why(".clinerules/hooks/PreToolUse")).toMatch(/Cline hook/);
    expect(why(".clinerules/run-me")).toMatch(/executable script/);
  });
});

describe("each guidance file once per session", () => {
  it("CLAUDE.md importing @AGENTS.md while AGENTS.md loads too: AGENTS.md's text is sent once, and a nested file reached again later is not resent", async () => {
    const ws = tree({
      "AGENTS.md": "SHARED-AGENTS-TEXT: run npm test.\n",
      "CLAUDE.md": "See @AGENTS.md for the rules.\nCLAUDE-OWN-TEXT\n",
      "pkg/AGENTS.md": "PKG-AGENTS-TEXT\n",
      "pkg/CLAUDE.md": "@AGENTS.md\nPKG-CLAUDE-TEXT\n",
      "pkg/a.ts": "export {};\n",
      "docs/CLAUDE.md": "@../AGENTS.md\nDOCS-CLAUDE-TEXT\n",
      "docs/x.md": "x\n",
    });
    const { requests } = await session(ws, "hello", [
      { toolCalls: [{ name: "read_file", input: { path: "pkg/a.ts" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "docs/x.md" } }] },
      { text: "done" },
    ]);
    const all = convo(requests[2]!);
    expect(count(all, "SHARED-AGENTS-TEXT")).toBe(1);
    expect(count(all, "PKG-AGENTS-TEXT")).toBe(1);
    expect(all).toContain("CLAUDE-OWN-TEXT");
    expect(all).toContain("PKG-CLAUDE-TEXT");
    expect(all).toContain("DOCS-CLAUDE-TEXT");
    expect(all).toMatch(/imported from AGENTS\.md \(@AGENTS\.md\): already given earlier in this conversation/);
    expectAppendOnly(requests);
  });
});

describe("AGENTS.md's own imports when CLAUDE.md imports it (red team M)", () => {
  it("CLAUDE.md → @AGENTS.md → @docs/conventions.md: AGENTS.md once, and the file AGENTS.md imports arrives too (as Claude Code follows it); a second level once", async () => {
    // Before: AGENTS.md was sent as itself (no imports: no tool but Claude Code reads them), and
    // CLAUDE.md's import block for it — which carried conventions.md inside — was named "already
    // given" as a whole, so conventions.md never reached the model.
    const ws = tree({
      "AGENTS.md": "# Agents\nAGENTS-OWN-TEXT\nConventions: @docs/conventions.md\n",
      "CLAUDE.md": "@AGENTS.md\nCLAUDE-OWN-TEXT\n",
      "docs/conventions.md": "CONVENTIONS-TEXT\nStyle: @style.md\n",
      "docs/style.md": "STYLE-TEXT\n",
    });
    const { requests } = await session(ws, "hello", [{ text: "done" }]);
    const all = convo(requests[0]!);
    expect(count(all, "AGENTS-OWN-TEXT")).toBe(1);
    expect(count(all, "CONVENTIONS-TEXT")).toBe(1);
    expect(count(all, "STYLE-TEXT")).toBe(1);
    expect(all).toMatch(/imported from AGENTS\.md \(@AGENTS\.md\): already given earlier in this conversation/);
    expect(all).toMatch(/imported from docs\/conventions\.md \(@docs\/conventions\.md\) ---\nCONVENTIONS-TEXT/);
    // AGENTS.md alone (no CLAUDE.md): no tool reading AGENTS.md follows @ imports, so neither does Yoke.
    const alone = tree({ "AGENTS.md": "AGENTS-ALONE\n@docs/conventions.md\n", "docs/conventions.md": "NOT-IMPORTED\n" });
    const second = await session(alone, "hello", [{ text: "done" }]);
    expect(convo(second.requests[0]!)).toContain("AGENTS-ALONE");
    expect(convo(second.requests[0]!)).not.toContain("NOT-IMPORTED");
  });
});

describe("the guidance budget", () => {
  const body = (tag: string, n: number) => `${tag}\n${`${tag.toLowerCase()} detail line that a large rule collection repeats. `.repeat(Math.ceil(n / 60))}\n`;
  const files: Record<string, string> = {
    "AGENTS.md": "ROOT-AGENTS-SMALL\n",
    ".github/copilot-instructions.md": "COPILOT-SMALL: prefer small diffs.\n",
    ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`.cursor/rules/big-${String(i).padStart(2, "0")}.mdc`, `---\nalwaysApply: true\n---\n${body(`BIGC-${i}-`, 4000)}`])),
    ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`.roo/rules/r-${String(i).padStart(2, "0")}.md`, body(`ROO-${i}-`, 4000)])),
    ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`pkg${i}/AGENTS.md`, body(`NESTED-${i}-`, 15000)])),
    ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`pkg${i}/a.ts`, "export {};\n"])),
  };
  const script: ScriptedTurn[] = [
    { toolCalls: Array.from({ length: 12 }, (_, i) => ({ name: "read_file", input: { path: `pkg${i}/a.ts` } })) },
    { toolCalls: [{ name: "load_skill", input: { name: "r-39" } }] },
    { text: "done" },
  ];
  const guidanceChars = (reqs: RecordedRequest[], i: number) =>
    messagesOf(reqs[i]!)
      .slice(i === 0 ? 0 : messagesOf(reqs[i - 1]!).length)
      .filter((m) => m.role === "user" && /## (Rule|Project memory)|Skills you can load|Guidance left out/.test(textOf(m)))
      .map(textOf)
      .join("").length;

  it("bounds the first request and what is added later; keeps memory and small rule files before large collections; says what was left out and load_skill brings it", async () => {
    const ws = tree(files);
    const empty = await session(tree({}), "hello", [{ text: "hi" }]);
    const bounded = await session(ws, "hello", script);
    const unboundedHome = tree({ ".yoke/settings.json": JSON.stringify({ guidance: { maxTokens: 1_000_000, firstRequestTokens: 1_000_000 } }) });
    const unbounded = await session(ws, "hello", script, unboundedHome);
    const bytes = (r: RecordedRequest) => JSON.stringify(r.body).length;
    const reqs = bounded.requests;
    const firstGuidance = guidanceChars(reqs, 0);
    const laterGuidance = guidanceChars(reqs, 1);
    console.log(
      `first request: ${bytes(unbounded.requests[0]!)} bytes without the budget, ${bytes(reqs[0]!)} with it (empty workspace: ${bytes(empty.requests[0]!)}); ` +
        `guidance added after reading 12 files: ${guidanceChars(unbounded.requests, 1)} chars without, ${laterGuidance} with`,
    );
    // The defaults: 16,000 tokens (~64 KB) in the first request, 40,000 (~160 KB) in the session.
    expect(firstGuidance).toBeLessThanOrEqual(16_000 * 4 + 4_000);
    expect(firstGuidance + laterGuidance).toBeLessThanOrEqual(40_000 * 4 + 8_000);
    expect(guidanceChars(unbounded.requests, 0)).toBeGreaterThan(300_000);
    const first = convo(reqs[0]!);
    // Ranked: memory and the lone copilot-instructions.md are kept; the large collections are cut.
    expect(first).toContain("ROOT-AGENTS-SMALL");
    expect(first).toContain("COPILOT-SMALL");
    expect(first).toMatch(/Guidance left out to stay within the guidance budget \(16000 tokens in the first request, 40000 in the session\): \d+ file\(s\)/);
    expect(first).toMatch(/- r-39 \(rule, \.roo\/rules\/r-39\.md, ~\d+ tokens; always\)/);
    expect(first).toContain("load_skill");
    // Later additions (nested AGENTS.md of 12 folders) are bounded too, and what did not fit is named.
    expect(added(reqs, 1)).toMatch(/Guidance left out .*40000 tokens in the session/);
    // Asked for by name, a left-out rule arrives.
    expect(toolResult(reqs[2]!)).toContain('Loaded the rule "r-39"');
    expect(added(reqs, 2)).toContain("ROO-39-");
    expectAppendOnly(reqs);
  });
});

describe("rules by folder: nested .cursor/rules, .claude/rules, Roo", () => {
  it("a sub-project's .cursor/rules apply to its files only, from the first file read there; globs are relative to it", async () => {
    const ws = tree({
      "AGENTS.md": "ROOT\n",
      "web/.cursor/rules/web-always.mdc": "---\nalwaysApply: true\n---\nNESTED-ALWAYS-BODY\n",
      "web/.cursor/rules/web-ts.mdc": "---\nglobs: src/**/*.ts\n---\nNESTED-GLOB-BODY\n",
      "web/.cursor/rules/web-req.mdc": "---\ndescription: Web deployment steps\n---\nNESTED-REQ-BODY\n",
      "web/src/a.ts": "export {};\n",
      "web/README.md": "web\n",
      "src/b.ts": "export {};\n",
    });
    const { requests } = await session(ws, "hello", [
      { toolCalls: [{ name: "read_file", input: { path: "src/b.ts" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "web/README.md" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "web/src/a.ts" } }] },
      { text: "done" },
    ]);
    expect(convo(requests[0]!)).not.toContain("NESTED-");
    expect(added(requests, 1)).not.toContain("NESTED-"); // src/b.ts is not under web/
    const second = added(requests, 2);
    expect(second).toContain("NESTED-ALWAYS-BODY");
    expect(second).toContain("- web-req: Web deployment steps");
    expect(second).not.toContain("NESTED-GLOB-BODY");
    expect(added(requests, 3)).toContain("NESTED-GLOB-BODY");
    expect(added(requests, 3)).toContain("glob src/**/*.ts (src/a.ts)");
    expectAppendOnly(requests);
  });

  it("a sub-folder's .windsurf/rules (Windsurf finds them below the root too) come with their trigger for its files, from the first file read there; no trigger = manual, as Windsurf", async () => {
    const ws = tree({
      "AGENTS.md": "ROOT\n",
      "api/.windsurf/rules/always.md": "---\ntrigger: always_on\n---\nWS-NESTED-ALWAYS\n",
      "api/.windsurf/rules/go.md": "---\ntrigger: glob\nglobs: handlers/*.go\n---\nWS-NESTED-GLOB\n",
      "api/.windsurf/rules/decide.md": "---\ntrigger: model_decision\ndescription: API versioning policy\n---\nWS-NESTED-REQ\n",
      "api/.windsurf/rules/plain.md": "WS-NESTED-NO-TRIGGER\n",
      "api/README.md": "api\n",
      "api/handlers/user.go": "package handlers\n",
      "src/b.ts": "export {};\n",
    });
    const { requests } = await session(ws, "hello", [
      { toolCalls: [{ name: "read_file", input: { path: "src/b.ts" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "api/README.md" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "api/handlers/user.go" } }] },
      { text: "done" },
    ]);
    expect(convo(requests[0]!)).not.toContain("WS-NESTED-");
    expect(added(requests, 1)).not.toContain("WS-NESTED-");
    const second = added(requests, 2);
    expect(second).toContain("WS-NESTED-ALWAYS");
    expect(second).toContain("- decide: API versioning policy");
    expect(second).not.toContain("WS-NESTED-GLOB");
    expect(added(requests, 3)).toContain("WS-NESTED-GLOB");
    // No trigger: Windsurf applies it only when named with @ — never on its own.
    for (const r of requests) expect(convo(r)).not.toContain("WS-NESTED-NO-TRIGGER");
    expectAppendOnly(requests);

    const list = await runCli(["lessons", "list", "--cwd", ws, "--json"]);
    const out = JSON.parse(list.stdout) as { entries: Array<{ source: string; state: string; why: string }> };
    expect(out.entries.find((e) => e.source === "api/.windsurf/rules/always.md")).toMatchObject({ why: expect.stringContaining("under api/") });
    expect(out.entries.find((e) => e.source === "api/.windsurf/rules/plain.md")).toMatchObject({ state: "manual" });
  });

  it("Windsurf's rules of the folders above the workspace, up to the git root (Windsurf's discovery): in force for the workspace with their trigger, globs relative to their folder; nothing past the git root, of a sibling folder, or through a link out", async () => {
    const outer = tree({
      ".windsurf/rules/outside.md": "---\ntrigger: always_on\n---\nWS-PAST-GIT-ROOT\n",
      "secret.txt": "WS-LINKED-OUT\n",
      "repo/.windsurf/rules/always.md": "---\ntrigger: always_on\n---\nWS-ABOVE-ALWAYS\n",
      "repo/.windsurf/rules/ts.md": "---\ntrigger: glob\nglobs: packages/web/src/**/*.ts\n---\nWS-ABOVE-GLOB\n",
      "repo/.windsurf/rules/decide.md": "---\ntrigger: model_decision\ndescription: Monorepo release policy\n---\nWS-ABOVE-REQ\n",
      "repo/.windsurf/rules/plain.md": "WS-ABOVE-NO-TRIGGER\n",
      "repo/.windsurf/rules/run.md": "#!/bin/sh\necho WS-ABOVE-SCRIPT\n",
      "repo/packages/.windsurf/rules/mid.md": "---\ntrigger: always_on\n---\nWS-MID-ALWAYS\n",
      "repo/other/.windsurf/rules/sibling.md": "---\ntrigger: always_on\n---\nWS-SIBLING\n",
      "repo/packages/web/AGENTS.md": "WEB\n",
      "repo/packages/web/src/a.ts": "export const a = 1;\n",
      "repo/packages/web/README.md": "web\n",
    });
    symlinkSync(join(outer, "secret.txt"), join(outer, "repo/.windsurf/rules/linked.md"));
    execFileSync("git", ["init", "-q", join(outer, "repo")]);
    const ws = join(outer, "repo/packages/web");
    const { requests } = await session(ws, "hello", [
      { toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] },
      { text: "done" },
    ]);
    const first = convo(requests[0]!);
    expect(first).toContain("WS-ABOVE-ALWAYS");
    expect(first).toContain("WS-MID-ALWAYS");
    expect(first).toContain("- decide: Monorepo release policy");
    expect(first).not.toContain("WS-ABOVE-GLOB");
    // The glob is relative to the folder of the rules (the repository's top): it fires on src/a.ts, not on README.md.
    expect(added(requests, 1)).not.toContain("WS-ABOVE-GLOB");
    expect(added(requests, 2)).toContain("WS-ABOVE-GLOB");
    const all = requests.map(convo).join("\n");
    for (const never of ["WS-PAST-GIT-ROOT", "WS-SIBLING", "WS-LINKED-OUT", "WS-ABOVE-NO-TRIGGER", "WS-ABOVE-SCRIPT"]) expect(all).not.toContain(never);
    expect(count(convo(requests.at(-1)!), "WS-ABOVE-ALWAYS")).toBe(1);
    expectAppendOnly(requests);

    const list = await runCli(["lessons", "list", "--cwd", ws, "--json"]);
    const out = JSON.parse(list.stdout) as { entries: Array<{ source: string; state: string; why: string }> };
    expect(out.entries.find((e) => e.source === "../../.windsurf/rules/always.md")).toMatchObject({ state: "always", why: expect.stringContaining("first request") });
    expect(out.entries.find((e) => e.source === "../../.windsurf/rules/plain.md")).toMatchObject({ state: "manual" });
    expect(out.entries.some((e) => e.source.includes("outside.md") || e.source.includes("sibling.md"))).toBe(false);

    // Not in a git repository: Windsurf searches no parent folder, nor does Yoke.
    rmSync(join(outer, "repo/.git"), { recursive: true });
    const plain = await session(ws, "hello", [{ text: "done" }]);
    expect(convo(plain.requests[0]!)).not.toContain("WS-ABOVE-ALWAYS");
  });

  it("a Windsurf glob rule above a workspace folder opened through a symbolic link fires on the linked paths (matched by their real paths, as the repository's top is found)", async () => {
    const outer = tree({
      "repo/.windsurf/rules/always.md": "---\ntrigger: always_on\n---\nLINK-ABOVE-ALWAYS\n",
      "repo/.windsurf/rules/ts.md": "---\ntrigger: glob\nglobs: packages/web/src/**/*.ts\n---\nLINK-ABOVE-GLOB\n",
      "repo/.windsurf/rules/md.md": '---\ntrigger: glob\nglobs: "**/docs/*.md"\n---\nLINK-ABOVE-DOCS\n',
      "repo/packages/web/src/a.ts": "export const a = 1;\n",
      "repo/packages/web/README.md": "web\n",
      "repo/packages/web/notes/x.md": "x\n",
    });
    execFileSync("git", ["init", "-q", join(outer, "repo")]);
    // The workspace is opened at a link to the package, outside the repository.
    const ws = join(outer, "web-link");
    symlinkSync(join(outer, "repo/packages/web"), ws);
    const { requests } = await session(ws, "hello", [
      { toolCalls: [{ name: "read_file", input: { path: "README.md" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "notes/x.md" } }] },
      { toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] },
      { text: "done" },
    ]);
    expect(convo(requests[0]!)).toContain("LINK-ABOVE-ALWAYS");
    expect(added(requests, 1)).not.toContain("LINK-ABOVE-GLOB");
    expect(added(requests, 2)).not.toContain("LINK-ABOVE-GLOB");
    expect(added(requests, 3)).toContain("LINK-ABOVE-GLOB");
    // A glob the package's files do not meet stays out (notes/x.md is not under a docs/ folder).
    expect(requests.map(convo).join("\n")).not.toContain("LINK-ABOVE-DOCS");
    expectAppendOnly(requests);
  });

  it("Windsurf's limits as Windsurf applies them: a rule file's first 6,000 characters; 12,000 for the always-on global and workspace rules together, global first; what was cut said in the listing; other tools' rules untouched", async () => {
    // `n` characters of filler (lines of plain words).
    const fill = (n: number) => "lorem ipsum dolor sit amet\n".repeat(Math.ceil(n / 27)).slice(0, n);
    const home = tree({ ".codeium/windsurf/memories/global_rules.md": `GLOBAL-START\n${fill(4_970)}\nGLOBAL-END\n` });
    const ws = tree({
      // 5,800 + 1,200: cut to its first 6,000 characters.
      ".windsurf/rules/big.md": `---\ntrigger: always_on\n---\nBIG-START\n${fill(5_780)}\nBIG-KEPT\n${fill(400)}\nBIG-CUT-TAIL\n${fill(800)}`,
      // A glob rule is cut to 6,000 (it is not in every request, so not counted in the 12,000).
      ".windsurf/rules/glob.md": `---\ntrigger: glob\nglobs: "**/*.ts"\n---\nGLOB-START\n${fill(6_100)}\nGLOB-CUT-TAIL\n${fill(600)}`,
      // What is left of 12,000 after the global rules (≈5,000) and big.md (6,000): ≈1,000 characters.
      ".windsurf/rules/zz-third.md": `---\ntrigger: always_on\n---\nTHIRD-START\n${fill(500)}\nTHIRD-KEPT\n${fill(1_000)}\nTHIRD-CUT\n`,
      // Nothing left for the legacy file: not sent, listed as excluded.
      ".windsurfrules": "LEGACY-NOTHING-LEFT\n",
      // Another tool's rule of 8,000 characters is Yoke's budget's, not Windsurf's limits'.
      ".cursor/rules/long.mdc": `---\nalwaysApply: true\n---\nCURSOR-START\n${fill(7_900)}\nCURSOR-TAIL\n`,
      "src/a.ts": "export const a = 1;\n",
    });
    const { requests } = await session(ws, "hello", [{ toolCalls: [{ name: "read_file", input: { path: "src/a.ts" } }] }, { text: "done" }], home);
    const first = convo(requests[0]!);
    for (const m of ["GLOBAL-START", "GLOBAL-END", "BIG-START", "BIG-KEPT", "THIRD-START", "THIRD-KEPT", "CURSOR-START", "CURSOR-TAIL"]) expect(first, m).toContain(m);
    for (const m of ["BIG-CUT-TAIL", "THIRD-CUT", "LEGACY-NOTHING-LEFT", "GLOB-START"]) expect(first, m).not.toContain(m);
    // The model is told where a rule was cut and why.
    expect(first).toContain("[… the rest of this Windsurf rule is not used: cut to its first 6,000 of 7,");
    expect(added(requests, 1)).toContain("GLOB-START");
    expect(requests.map(convo).join("\n")).not.toContain("GLOB-CUT-TAIL");

    const list = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: home } });
    const out = JSON.parse(list.stdout) as { entries: Array<{ source: string; why: string }>; excluded: Array<{ source: string; why: string }> };
    expect(out.entries.find((e) => e.source === ".windsurf/rules/big.md")?.why).toMatch(/Windsurf's limits: cut to its first 6,000 of 7,\d{3} characters/);
    expect(out.entries.find((e) => e.source === ".windsurf/rules/zz-third.md")?.why).toMatch(
      /cut to [\d,]+ characters: the rest is past the 12,000 characters Windsurf gives its global and workspace rules together/,
    );
    expect(out.entries.find((e) => e.source === ".windsurf/rules/glob.md")?.why).toContain("cut to its first 6,000 of 6,");
    expect(out.entries.find((e) => e.source === ".cursor/rules/long.mdc")?.why).not.toContain("Windsurf");
    expect(out.entries.find((e) => e.source === "~/.codeium/windsurf/memories/global_rules.md")?.why).not.toContain("Windsurf's limits");
    expect(out.excluded.find((x) => x.source === ".windsurfrules")?.why).toContain("a Windsurf rule with nothing left under Windsurf's limits: not sent: the 12,000 characters");
  });

  it(".claude/rules: no paths = always, paths = when a matching file is touched; ~/.claude/rules too; Roo's rules-code and .roorules fallback, other modes left out", async () => {
    const ws = tree({
      ".claude/rules/general.md": "CLAUDE-RULE-ALWAYS\n",
      ".claude/rules/frontend/react.md": '---\npaths:\n  - "src/**/*.tsx"\n---\nCLAUDE-RULE-TSX\n',
      ".roorules": "ROORULES-FALLBACK\n",
      ".roo/rules-code/style.md": "ROO-CODE-MODE\n",
      // Roo reads every file of the folder but cache files (its own modes keep .xml rules; session 24).
      ".roo/rules-code/2_workflow.xml": "<workflow>ROO-CODE-XML</workflow>\n",
      ".roo/rules-code/old.bak": "ROO-CODE-BAK\n",
      ".roo/rules-architect/plan.md": "ROO-ARCHITECT-MODE\n",
      ".roorules-ask": "ROO-ASK-MODE\n",
      "src/App.tsx": "export {};\n",
    });
    const home = tree({ ".claude/rules/mine.md": "USER-CLAUDE-RULE\n", ".claude/rules/py.md": "---\npaths: ['**/*.py']\n---\nUSER-PY-RULE\n" });
    const { requests } = await session(ws, "hello", [{ toolCalls: [{ name: "read_file", input: { path: "src/App.tsx" } }] }, { text: "done" }], home);
    const first = convo(requests[0]!);
    for (const m of ["CLAUDE-RULE-ALWAYS", "USER-CLAUDE-RULE", "ROORULES-FALLBACK", "ROO-CODE-MODE", "ROO-CODE-XML"]) expect(first, m).toContain(m);
    for (const m of ["CLAUDE-RULE-TSX", "USER-PY-RULE", "ROO-ARCHITECT-MODE", "ROO-ASK-MODE", "ROO-CODE-BAK"]) expect(first, m).not.toContain(m);
    expect(added(requests, 1)).toContain("CLAUDE-RULE-TSX");
    expect(convo(requests[1]!)).not.toContain("ROO-ARCHITECT-MODE");

    const list = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: home } });
    const out = JSON.parse(list.stdout) as { entries: Array<{ source: string; state: string; why: string }>; excluded: Array<{ source: string; why: string }> };
    expect(out.excluded.find((x) => x.source === ".roo/rules-architect/plan.md")?.why).toMatch(/Roo's "architect" mode/);
    expect(out.excluded.find((x) => x.source === ".roorules-ask")?.why).toMatch(/Roo's "ask" mode/);
    expect(out.entries.find((e) => e.source === ".claude/rules/frontend/react.md")).toMatchObject({ state: "glob", why: expect.stringContaining("src/**/*.tsx") });
    expect(out.entries.find((e) => e.source === "~/.claude/rules/mine.md")).toMatchObject({ state: "always" });
  });
  it("Roo's legacy names: .clinerules-code when no rules-code folder or .roorules-code; ~/.roo/rules shadows the project's .roorules; a mode's .clinerules-{slug} reaches its agent", async () => {
    // Only legacy files: .clinerules-code is the code mode's rules (Roo's last fallback); .clinerules is Cline's (always).
    const legacy = tree({
      ".clinerules": "CLINE-FILE\n",
      ".clinerules-code": "LEGACY-CODE-MODE\n",
      ".clinerules-architect": "LEGACY-ARCHITECT-MODE\n",
      ".roomodes": "customModes:\n  - slug: rev\n    name: Reviewer\n    roleDefinition: You review (REV-ROLE).\n    groups: [read]\n",
      ".clinerules-rev": "LEGACY-REV-MODE\n",
    });
    const sub = (r: RecordedRequest) => /You are a sub-agent/.test(JSON.stringify(messagesOf(r)[0]));
    const a = await session(legacy, "review", [{ toolCalls: [{ name: "task", input: { description: "Review", prompt: "Review.", subagent_type: "rev" } }] }, { text: "reviewed" }, { text: "done" }]);
    const top = a.requests.filter((r) => !sub(r));
    const child = a.requests.filter(sub);
    for (const m of ["CLINE-FILE", "LEGACY-CODE-MODE"]) expect(convo(top[0]!), m).toContain(m);
    for (const m of ["LEGACY-ARCHITECT-MODE", "LEGACY-REV-MODE"]) expect(JSON.stringify(top.map((r) => r.body.messages)), m).not.toContain(m);
    expect(child.length).toBeGreaterThan(0);
    expect(JSON.stringify(messagesOf(child[0]!)[0])).toContain("REV-ROLE");
    expect(JSON.stringify(messagesOf(child[0]!)[0])).toContain("LEGACY-REV-MODE");
    const l1 = JSON.parse((await runCli(["lessons", "list", "--cwd", legacy, "--json"], { env: { HOME: tree({}) } })).stdout) as { excluded: Array<{ source: string; why: string }> };
    expect(l1.excluded.find((x) => x.source === ".clinerules-architect")?.why).toMatch(/Roo's "architect" mode/);

    // The user's ~/.roo/rules has a file: Roo reads no .roorules of the project; .roorules-code comes before .clinerules-code.
    const ws = tree({ ".roorules": "ROORULES-SHADOWED\n", ".roorules-code": "ROORULES-CODE\n", ".clinerules-code": "CLINE-CODE-SHADOWED\n" });
    const home = tree({ ".roo/rules/mine.md": "USER-ROO-RULE\n" });
    const b = await session(ws, "hello", [{ text: "done" }], home);
    const first = convo(b.requests[0]!);
    for (const m of ["USER-ROO-RULE", "ROORULES-CODE"]) expect(first, m).toContain(m);
    for (const m of ["ROORULES-SHADOWED", "CLINE-CODE-SHADOWED"]) expect(first, m).not.toContain(m);
    const l2 = JSON.parse((await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: home } })).stdout) as { excluded: Array<{ source: string; why: string }> };
    expect(l2.excluded.find((x) => x.source === ".roorules")?.why).toContain("yours, ~/.roo/rules/, has files: not sent");
    expect(l2.excluded.find((x) => x.source === ".clinerules-code")?.why).toContain(".roorules-code comes first and is used: not sent");

    // Without the user's folder the project's .roorules is read (the control).
    const c = await session(ws, "hello", [{ text: "done" }]);
    expect(convo(c.requests[0]!)).toContain("ROORULES-SHADOWED");
  });
});
