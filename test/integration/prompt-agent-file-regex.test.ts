// Red team B (session 17): a Copilot prompt file whose `agent:` names a Roo mode limited by its
// edit group's fileRegex. The prompt runs under the agent (b58612e) — does the agent's edit limit
// hold, as it does when the same mode runs through `task`? And an agent whose permissionMode is
// stricter than the session's (a read-only reviewer in plan)? On the session-17 build every case
// here wrote src/api/patched.ts in acceptEdits.
// (The host's check, no sandbox: run as root and as the unprivileged user.)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";
import { scriptedRunArgs, toldOf } from "../support/scripted-run";

const ROOMODES = [
  "customModes:",
  "  - slug: docs-writer",
  "    name: Docs",
  "    roleDefinition: You write Markdown docs only.",
  "    groups:",
  "      - read",
  "      - - edit",
  "        - fileRegex: \\.md$",
  "          description: Markdown only",
  "",
].join("\n");

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
beforeAll(() => ensureBuilt(), 300_000);

function setup(files: Record<string, string>) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-redb-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(home, { recursive: true });
  for (const [p, t] of Object.entries({ ".roomodes": ROOMODES, "src/api/x.ts": "export const x = 1;\n", ...files })) {
    mkdirSync(dirname(join(ws, p)), { recursive: true });
    writeFileSync(join(ws, p), t);
  }
  return { dir, ws, home };
}

const who = identities().list;
// The check is the host's (no sandbox): as root and as the unprivileged user alike.
const run = (as: Identity, s: { dir: string; ws: string; home: string }, message: string) => {
  chownTree(s.dir, as);
  return runCliAs(as, [...scriptedRunArgs(server!.openaiBaseUrl, s.ws, join(s.dir, "sessions")), "--permission-mode", "acceptEdits", message], { env: { HOME: s.home } });
};

describe.each(who.map((w) => [w.label, w] as const))("as %s: a prompt file running under an agent keeps its limits", (_label, as) => {
  for (const [label, front] of [
    ["agent: docs-writer (the agent's own tools)", "agent: docs-writer"],
    ["agent: docs-writer with the prompt's own tools", "agent: docs-writer\ntools: ['editFiles', 'search/codebase']"],
  ] as const) {
    it(
      label,
      async () => {
        const s = setup({ ".github/prompts/fix.prompt.md": `---\n${front}\n---\nFix the docs.\n` });
        server = await startScriptedLlmServer({
          script: [
            {
              toolCalls: [
                { name: "write_file", input: { path: "src/api/patched.ts", content: "export const owned = true;\n" } },
                { name: "write_file", input: { path: "docs/report.md", content: "# ok\n" } },
              ],
            },
            { text: "done" },
          ],
        });
        const r = await run(as, s, "/fix");
        expect(r.code, r.stderr).toBe(0);
        // The prompt did run as the agent (its role reached the model).
        expect(JSON.stringify(server.requests[0]!.body)).toContain("You write Markdown docs only.");
        expect(readFileSync(join(s.ws, "docs/report.md"), "utf8")).toBe("# ok\n");
        expect(statSync(join(s.ws, "docs/report.md")).uid).toBe(as.uid);
        expect(existsSync(join(s.ws, "src/api/patched.ts")), toldOf(server.requests)).toBe(false);
        expect(toldOf(server.requests)).toContain("may edit only files whose path matches /\\.md$/ (Markdown only): src/api/patched.ts does not match");
      },
      120_000,
    );
  }

  it("a prompt file under an agent whose permissionMode is plan changes nothing (as the agent through task)", async () => {
    const s = setup({ ".github/prompts/audit.prompt.md": "---\nagent: reviewer\n---\nAudit src/api.\n" });
    mkdirSync(join(s.home, ".claude", "agents"), { recursive: true });
    writeFileSync(
      join(s.home, ".claude", "agents", "reviewer.md"),
      "---\nname: reviewer\ndescription: Reviews code; never changes it.\npermissionMode: plan\n---\nYou review code and report findings. REVIEWER-ROLE\n",
    );
    server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "write_file", input: { path: "src/api/patched.ts", content: "export const owned = true;\n" } }] }, { text: "done" }],
    });
    const r = await run(as, s, "/audit");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(server.requests[0]!.body)).toContain("REVIEWER-ROLE");
    expect(existsSync(join(s.ws, "src/api/patched.ts")), toldOf(server.requests)).toBe(false);
    expect(toldOf(server.requests)).toContain('/audit runs as the "reviewer" agent, in its permission mode (plan): ');
  }, 120_000);
});
