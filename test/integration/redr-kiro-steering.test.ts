// Red team R (session 20): Kiro's steering files, as Kiro reads them (kiro.dev/docs/steering):
// `.kiro/steering/*.md` in the workspace and `~/.kiro/steering/*.md`; `inclusion: always` (or no
// frontmatter) → every request; `inclusion: fileMatch` + `fileMatchPattern` (a string or a list) →
// when a matching file is in play; `inclusion: manual` → only when named (`#name` in Kiro, `@name`
// here); `inclusion: auto` + `name` + `description` → the model decides. Real repositories' shapes
// (fileMatchPattern as a YAML list, a quoted brace glob), our own words. Before: none was read.
// Session 23 (cust23): Kiro's specs (`.kiro/specs/NAME/requirements.md`, `design.md`, `tasks.md`) are
// the agent's context only while the person works in the spec: here manual, all named as `@spec:NAME`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-redr-kiro-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

type Msg = { role: string; content?: unknown };
const messagesOf = (r: RecordedRequest) => r.body.messages as Msg[];
const textOf = (m: Msg) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));
const added = (reqs: RecordedRequest[], i: number) =>
  messagesOf(reqs[i]!)
    .slice(i === 0 ? 0 : messagesOf(reqs[i - 1]!).length)
    .filter((m) => m.role !== "system")
    .map(textOf)
    .join("\n");
const all = (reqs: RecordedRequest[]) => reqs.map((r) => messagesOf(r).map(textOf).join("\n")).join("\n");

describe("Kiro steering files", () => {
  it("always / fileMatch (string and list) / manual (@name) / auto, workspace and ~/.kiro/steering, through a full session and `yoke lessons list`", async () => {
    const ws = tree({
      ".kiro/steering/product.md": "# Product\nKIRO-DEFAULT-ALWAYS: the shop sells tea.\n",
      ".kiro/steering/tech.md": "---\ninclusion: always\n---\nKIRO-EXPLICIT-ALWAYS: Python 3.12 and React.\n",
      ".kiro/steering/testing.md": '---\ninclusion: fileMatch\nfileMatchPattern: ["tests/**/*.py"]\n---\nKIRO-FILEMATCH-LIST: stdlib unittest only.\n',
      ".kiro/steering/frontend.md": "---\ninclusion: fileMatch\nfileMatchPattern: 'web/**/*.{ts,tsx}'\n---\nKIRO-FILEMATCH-STRING: function components.\n",
      ".kiro/steering/release.md": "---\ninclusion: manual\n---\nKIRO-MANUAL-NAMED: tag then push.\n",
      ".kiro/steering/incident.md": "---\ninclusion: manual\n---\nKIRO-MANUAL-UNNAMED: page the on-call.\n",
      ".kiro/steering/api.md": "---\ninclusion: auto\nname: api-design\ndescription: Conventions for the public HTTP API\n---\nKIRO-AUTO-BODY: plural nouns.\n",
      // Kiro's specs (kiro.dev/docs/specs): given to the agent when the person works in one; here named as a whole with @spec:NAME.
      ".kiro/specs/user-auth/requirements.md": "# Requirements\nKIRO-SPEC-REQUIREMENTS: WHEN a user signs in THEN the system SHALL issue a session.\n",
      ".kiro/specs/user-auth/design.md": "# Design\nKIRO-SPEC-DESIGN: sessions live in Redis.\n",
      ".kiro/specs/user-auth/tasks.md": "# Tasks\n- [ ] 1. KIRO-SPEC-TASKS: add the session store\n",
      ".kiro/specs/billing/requirements.md": "# Requirements\nKIRO-SPEC-UNNAMED: invoices monthly.\n",
      "tests/test_cart.py": "import unittest\n",
      "web/app.tsx": "export {};\n",
    });
    const home = tree({ ".kiro/steering/personal.md": "---\ninclusion: always\n---\nKIRO-GLOBAL-ALWAYS: answer briefly.\n" });
    const server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "read_file", input: { path: "tests/test_cart.py" } }] }, { text: "done" }],
    });
    let requests: RecordedRequest[];
    try {
      const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, join(home, "sessions")), "--permission-mode", "bypassPermissions", "--json", "ship it per @release and @spec:user-auth"], {
        env: { HOME: home, OPENAI_API_KEY: "test" },
        cwd: ws,
      });
      expect(r.code, r.stderr).toBe(0);
      requests = server.requests;
    } finally {
      await server.close();
    }
    const first = added(requests, 0);
    for (const m of ["KIRO-DEFAULT-ALWAYS", "KIRO-EXPLICIT-ALWAYS", "KIRO-GLOBAL-ALWAYS", "KIRO-MANUAL-NAMED", "KIRO-SPEC-REQUIREMENTS", "KIRO-SPEC-DESIGN", "KIRO-SPEC-TASKS"])
      expect(first, m).toContain(m);
    expect(first).toContain("api-design: Conventions for the public HTTP API");
    expect(first).not.toContain("KIRO-FILEMATCH-LIST");
    expect(added(requests, 1)).toContain("KIRO-FILEMATCH-LIST");
    const everything = all(requests);
    for (const m of ["KIRO-FILEMATCH-STRING", "KIRO-MANUAL-UNNAMED", "KIRO-AUTO-BODY", "KIRO-SPEC-UNNAMED"]) expect(everything, m).not.toContain(m);
    // Each spec file once in the conversation.
    expect((added(requests, 0) + added(requests, 1)).split("KIRO-SPEC-DESIGN").length - 1).toBe(1);

    const list = await runCli(["lessons", "list", "--cwd", ws, "--json"], { env: { HOME: home } });
    expect(list.code, list.stderr).toBe(0);
    const out = JSON.parse(list.stdout) as { entries: Array<{ source: string; state: string }>; problems: unknown[] };
    const state = (source: string) => out.entries.find((e) => e.source === source)?.state;
    expect(state(".kiro/steering/product.md")).toBe("always");
    expect(state(".kiro/steering/testing.md")).toBe("glob");
    expect(state(".kiro/steering/release.md")).toBe("manual");
    expect(state(".kiro/specs/user-auth/tasks.md")).toBe("manual");
    expect(state(".kiro/specs/billing/requirements.md")).toBe("manual");
    expect(state(".kiro/steering/api.md")).toBe("listed");
    expect(state("~/.kiro/steering/personal.md")).toBe("always");
  }, 120_000);
});
