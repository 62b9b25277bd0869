// Guidance in a real session (scripted provider, real files, the built-in tools): what the model
// receives, when, and that it is appended — every request starts with the previous one's bytes.
import { afterEach, describe, expect, it } from "vitest";
import { guidanceExtension } from "../../../src/core/guidance";
import type { SessionEvent } from "../../../src/core/events";
import { AgentSession, type AgentSessionOptions } from "../../../src/core/loop/agent-session";
import { silentLogger } from "../../../src/core/ports";
import type { ModelMessage } from "../../../src/core/providers/types";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { createNodeGuidanceFiles } from "../../../src/node/guidance-files";
import { commandModels } from "../../../src/node/custom-commands";
import { createFakeProvider, textTurn, toolTurn, type FakeTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let ws: TempWorkspace | undefined;
let home: string | undefined;
afterEach(() => {
  ws?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
  ws = undefined;
  home = undefined;
});

const FILES = {
  "AGENTS.md": "ROOT-MEMORY: run tests with npm test.\n",
  "src/pkg/AGENTS.md": "NESTED-MEMORY: this package is pure Python 3.12.\n",
  "src/pkg/app.py": "print('hi')\n",
  "logs/err.log": 'Traceback (most recent call last):\n  File "app.py", line 1\nKeyError: x\n',
  ".yoke/lessons/kw.md": "---\nmatch:\n  keywords: ['flak*']\n---\n# Flaky\nKW-LESSON: rerun with a fixed seed.\n",
  ".yoke/lessons/pat.md": "---\nmatch:\n  patterns: ['Traceback \\(most recent call last\\)']\n---\n# Traceback\nPAT-LESSON: read it bottom-up.\n",
  ".yoke/lessons/tool.md": "---\nmatch:\n  tools: [Grep]\n---\n# Grep\nTOOL-LESSON: narrow grep with a glob.\n",
  ".yoke/lessons/glob.md": "---\nmatch:\n  globs: ['**/*.py']\n---\n# Python files\nGLOB-LESSON: keep type hints.\n",
  ".cursor/rules/py.mdc": "---\ndescription: Python style\nglobs: src/**/*.py\nalwaysApply: false\n---\nMDC-RULE: four spaces.\n",
  ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the app to staging\n---\nSKILL-BODY: run scripts/run.sh then check health.\n",
  ".claude/skills/deploy/scripts/run.sh": "echo deploy\n",
};

function setup(turns: FakeTurn[], extra: Partial<AgentSessionOptions> = {}, prefs?: { pinned: string[]; muted: string[] }) {
  ws = createTempWorkspace(FILES);
  home = mkdtempSync(join(tmpdir(), "yoke-home-"));
  const provider = createFakeProvider(turns);
  const store = createMemoryStore();
  const opts: AgentSessionOptions = {
    store,
    provider,
    tools: createBuiltinTools(),
    services: { fs: ws.fs, search: ws.search, log: silentLogger },
    approver: { ask: async () => ({ decision: "allow" }) },
    retry: { maxRetries: 0 },
    permissionMode: "bypassPermissions",
    extensions: [guidanceExtension({ files: createNodeGuidanceFiles({ home, builtinDir: null }), ...(prefs ? { prefs: () => prefs } : {}) })],
    ...extra,
  };
  return { provider, opts, store };
}

const userTexts = (messages: readonly ModelMessage[]) => messages.filter((m) => m.role === "user").map((m) => (m as { text: string }).text);
/** Guidance text that request i added compared with request i-1. */
const added = (reqs: ReturnType<typeof createFakeProvider>["requests"], i: number) => userTexts(reqs[i]!.messages.slice(i === 0 ? 0 : reqs[i - 1]!.messages.length)).join("\n");
const guidance = (s: AgentSession) => s.events().filter((e): e is Extract<SessionEvent, { type: "guidance" }> => e.type === "guidance");

describe("guidance in a session", () => {
  it("injects memory, rules, lessons and skills once each, as appended messages, when they apply", async () => {
    const { provider, opts } = setup([
      toolTurn({ id: "c1", name: "read_file", input: { path: "logs/err.log" } }),
      toolTurn({ id: "c2", name: "read_file", input: { path: "src/pkg/app.py" } }),
      toolTurn({ id: "c3", name: "grep", input: { pattern: "hi", path: "src" } }),
      toolTurn({ id: "c4", name: "load_skill", input: { name: "deploy" } }),
      toolTurn({ id: "c5", name: "read_file", input: { path: "src/pkg/app.py" } }),
      textTurn("done"),
    ]);
    const s = await AgentSession.create(opts);
    await s.send("the flaky test fails again");
    const reqs = provider.requests;
    expect(reqs).toHaveLength(6);

    // Request 1: the root memory, the skill list, and the lesson the message's keyword matched — after the user's message.
    expect(reqs[0]!.system).not.toContain("ROOT-MEMORY");
    const first = userTexts(reqs[0]!.messages);
    expect(first[0]).toBe("the flaky test fails again");
    expect(first[1]).toContain("ROOT-MEMORY");
    expect(first[1]).toContain("- deploy: Deploy the app to staging");
    expect(first[1]).toContain("load_skill");
    expect(first[1]).not.toContain("SKILL-BODY");
    expect(first[2]).toContain("KW-LESSON");
    expect(first[2]).toContain('keyword "flak*"');
    // Request 2: the traceback printed by read_file matched the pattern lesson.
    expect(added(reqs, 1)).toContain("PAT-LESSON");
    expect(added(reqs, 1)).toContain("in tool output");
    // Request 3: the first file read in src/pkg: its AGENTS.md, the .mdc rule and the glob lesson.
    const third = added(reqs, 2);
    expect(third).toContain("NESTED-MEMORY");
    expect(third).toContain("file src/pkg/app.py in its folder");
    expect(third).toContain("MDC-RULE");
    expect(third).toContain("glob src/**/*.py (src/pkg/app.py)");
    expect(third).toContain("GLOB-LESSON");
    // Request 4: grep was used (a lesson that names its permission name, Grep).
    expect(added(reqs, 3)).toContain("TOOL-LESSON");
    // Request 5: load_skill said it loaded; the full text and the skill's files follow.
    const loadResult = reqs[4]!.messages.find((m) => m.role === "tool" && m.callId === "c4") as { content: string; isError?: boolean };
    expect(loadResult.isError).toBeFalsy();
    expect(loadResult.content).toContain('Loaded the skill "deploy"');
    expect(added(reqs, 4)).toContain("SKILL-BODY");
    expect(added(reqs, 4)).toContain("- scripts/run.sh");
    // Request 6: reading app.py again adds nothing.
    expect(added(reqs, 5)).toBe("");

    // Each kind once in the whole conversation.
    const all = userTexts(reqs[5]!.messages).join("\n");
    for (const marker of ["ROOT-MEMORY", "NESTED-MEMORY", "MDC-RULE", "KW-LESSON", "PAT-LESSON", "GLOB-LESSON", "TOOL-LESSON", "SKILL-BODY"]) {
      expect(all.split(marker).length - 1, marker).toBe(1);
    }
    // Appended, never inserted: each request begins with the previous request's messages, byte for byte.
    for (let i = 1; i < reqs.length; i++) {
      expect(reqs[i]!.system).toBe(reqs[0]!.system);
      expect(JSON.stringify(reqs[i]!.messages.slice(0, reqs[i - 1]!.messages.length))).toBe(JSON.stringify(reqs[i - 1]!.messages));
    }
    // Rules, memory and skills persist through compaction; lessons do not.
    const contexts = s.events().filter((e): e is Extract<SessionEvent, { type: "context" }> => e.type === "context");
    expect(contexts.find((c) => c.text.includes("ROOT-MEMORY"))!.persist).toBe(true);
    expect(contexts.find((c) => c.text.includes("SKILL-BODY"))!.persist).toBe(true);
    expect(contexts.find((c) => c.text.includes("KW-LESSON"))!.persist).toBeUndefined();
    // The log says what was injected and why (the panel's list).
    const injected = guidance(s).flatMap((g) => g.injected);
    expect(injected.find((i) => i.name === "kw")).toMatchObject({ kind: "lesson", source: ".yoke/lessons/kw.md", reasons: ['keyword "flak*"'] });
    expect(injected.find((i) => i.name === "py")).toMatchObject({ kind: "rule", reasons: ["glob src/**/*.py (src/pkg/app.py)"] });
    expect(injected.find((i) => i.name === "deploy" && i.listed)).toMatchObject({ kind: "skill", reasons: ["listed"] });
    expect(injected.find((i) => i.name === "deploy" && !i.listed)).toMatchObject({ kind: "skill", reasons: ["loaded with load_skill"] });
  });

  it("after a resume, nothing already injected is injected again", async () => {
    const { provider, opts, store } = setup([textTurn("one"), textTurn("two")]);
    const s = await AgentSession.create(opts);
    await s.send("the flaky test");
    await s.end();
    const again = await AgentSession.resume(s.id, { ...opts, store, extensions: [guidanceExtension({ files: createNodeGuidanceFiles({ home: home!, builtinDir: null }) })] });
    await again.send("still flaky");
    expect(added(provider.requests, 1)).toBe("still flaky");
    expect(provider.requests[1]!.system).toBe(provider.requests[0]!.system);
  });

  it("load_skill needs no approval in the default mode; an unknown name is a clear error naming the skills there are", async () => {
    const asked: string[] = [];
    const { provider, opts } = setup([toolTurn({ id: "c1", name: "load_skill", input: { name: "nope" } }, { id: "c2", name: "load_skill", input: { name: "Deploy" } }), textTurn("ok")], {
      permissionMode: "default",
      approver: { ask: async (q) => (asked.push(q.tool), { decision: "deny" }) },
    });
    const s = await AgentSession.create(opts);
    await s.send("hello");
    expect(asked).toEqual([]);
    const results = provider.requests[1]!.messages.filter((m) => m.role === "tool") as Array<{ content: string; isError: boolean }>;
    expect(results[0]!.isError).toBe(true);
    expect(results[0]!.content).toContain('No skill named "nope". Available: deploy.');
    expect(results[1]!.isError).toBe(false);
    expect(added(provider.requests, 1)).toContain("SKILL-BODY");
  });

  it("honours the user's pins and mutes", async () => {
    const { provider, opts } = setup([textTurn("ok")], {}, { pinned: ["lesson:.yoke/lessons/glob.md"], muted: ["lesson:.yoke/lessons/kw.md", "memory:AGENTS.md"] });
    const s = await AgentSession.create(opts);
    await s.send("the flaky test");
    const text = added(provider.requests, 0);
    expect(text).toContain("GLOB-LESSON");
    expect(text).toContain("pinned");
    expect(text).not.toContain("KW-LESSON");
    expect(text).not.toContain("ROOT-MEMORY");
  });
});

describe("listed rules across a resume", () => {
  it("a rule only listed before the resume is still loadable after it: load_skill sends its body, once", async () => {
    ws = createTempWorkspace({ ".cursor/rules/req.mdc": "---\ndescription: Release steps\n---\nREQ-BODY: tag then push.\n" });
    home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    const files = createNodeGuidanceFiles({ home, builtinDir: null });
    const provider = createFakeProvider([
      textTurn("one"),
      toolTurn({ id: "c1", name: "load_skill", input: { name: "req" } }),
      toolTurn({ id: "c2", name: "load_skill", input: { name: "req" } }),
      textTurn("two"),
    ]);
    const store = createMemoryStore();
    const opts: AgentSessionOptions = {
      store,
      provider,
      tools: createBuiltinTools(),
      services: { fs: ws.fs, search: ws.search, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      retry: { maxRetries: 0 },
      permissionMode: "bypassPermissions",
      extensions: [guidanceExtension({ files })],
    };
    const s = await AgentSession.create(opts);
    await s.send("hello");
    expect(added(provider.requests, 0)).toContain("- req: Release steps");
    expect(guidance(s).flatMap((g) => g.injected)).toEqual([expect.objectContaining({ kind: "rule", name: "req", listed: true })]);
    await s.end();
    const again = await AgentSession.resume(s.id, { ...opts, store, extensions: [guidanceExtension({ files })] });
    await again.send("release it");
    const reqs = provider.requests;
    const results = reqs[3]!.messages.filter((m) => m.role === "tool") as Array<{ callId: string; content: string }>;
    expect(results.find((r) => r.callId === "c1")!.content).toContain('Loaded the rule "req"');
    expect(results.find((r) => r.callId === "c2")!.content).toContain('The rule "req" is already loaded');
    expect(added(reqs, 2)).toContain("REQ-BODY");
    expect(userTexts(reqs[3]!.messages).join("\n").split("REQ-BODY").length - 1).toBe(1);
    // The list is not sent again after the resume.
    expect(userTexts(reqs[3]!.messages).join("\n").split("- req: Release steps").length - 1).toBe(1);
  });
});

describe("the budget and what the user names", () => {
  it("a rule named with @name is sent even when the budget leaves out the other always-on rules, which are named to the model", async () => {
    ws = createTempWorkspace({
      ".cursor/rules/huge-a.mdc": `---\nalwaysApply: true\n---\nHUGE-A ${"a ".repeat(2000)}\n`,
      ".cursor/rules/huge-b.mdc": `---\nalwaysApply: true\n---\nHUGE-B ${"b ".repeat(2000)}\n`,
    });
    home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    const provider = createFakeProvider([textTurn("ok")]);
    const s = await AgentSession.create({
      store: createMemoryStore(),
      provider,
      tools: createBuiltinTools(),
      services: { fs: ws.fs, search: ws.search, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      retry: { maxRetries: 0 },
      permissionMode: "bypassPermissions",
      extensions: [guidanceExtension({ files: createNodeGuidanceFiles({ home, builtinDir: null }), budget: { firstTokens: 500, totalTokens: 800 } })],
    });
    await s.send("use @huge-b please");
    const text = added(provider.requests, 0);
    expect(text).toContain("HUGE-B");
    expect(text).toContain("named @huge-b in the message");
    expect(text).not.toContain("HUGE-A");
    expect(text).toContain("Guidance left out to stay within the guidance budget (500 tokens in the first request, 800 in the session): 1 file(s)");
    expect(text).toMatch(/- huge-a \(rule, \.cursor\/rules\/huge-a\.mdc, ~\d+ tokens; always\)/);
  });
});

describe("a skill invoked again in a later turn of the same session", () => {
  it("load_skill again: its text is not sent again, its effort and model (the commands' model switch) hold for that turn only", async () => {
    ws = createTempWorkspace({ ".claude/skills/review/SKILL.md": "---\nname: review\ndescription: Review the change\neffort: high\nmodel: m-review\n---\nREVIEW-BODY\n" });
    home = mkdtempSync(join(tmpdir(), "yoke-home-"));
    const load = (id: string) => toolTurn({ id, name: "load_skill", input: { name: "review" } });
    const primary = createFakeProvider([load("c1"), load("c2"), textTurn("plain")], "m");
    const review = createFakeProvider([textTurn("one"), textTurn("two")], "m-review");
    const models = commandModels(primary, async (_p, model) => (model === "m-review" ? review : Promise.reject(new Error(`no ${model}`))));
    const s = await AgentSession.create({
      store: createMemoryStore(),
      provider: models.provider,
      tools: createBuiltinTools(),
      services: { fs: ws.fs, search: ws.search, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      retry: { maxRetries: 0 },
      permissionMode: "bypassPermissions",
      extensions: [guidanceExtension({ files: createNodeGuidanceFiles({ home, builtinDir: null }), useModel: models.useModel })],
    });
    await s.send("review it");
    await s.send("review it again");
    await s.send("a plain question");
    expect(primary.requests.map((r) => r.effort)).toEqual([undefined, undefined, undefined]);
    expect(review.requests.map((r) => r.effort)).toEqual(["high", "high"]);
    const second = review.requests[1]!;
    const results = second.messages.filter((m) => m.role === "tool") as Array<{ callId: string; content: string }>;
    expect(results.find((r) => r.callId === "c2")!.content).toBe(
      'The skill "review" is already loaded: its instructions are in the conversation above, and they are in force now (effort high, model m-review until this turn ends).',
    );
    expect(userTexts(primary.requests[2]!.messages).join("\n").split("REVIEW-BODY").length - 1).toBe(1);
    await s.end();
  });
});
