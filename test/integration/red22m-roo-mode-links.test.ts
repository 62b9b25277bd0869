/**
 * Red team 22-merged: a Roo mode's rules file was read following links.
 *
 * `.roomodes` modes became custom agents this session, their system prompt the mode's
 * `roleDefinition`, `customInstructions` and rules: `.roo/rules-{slug}/*` or `.roorules-{slug}`.
 * Those were read with WorkspaceFs.readFile — by name, following any link, with no secret or
 * Read-deny check (the guidance loader's checked read was not used). A repository with
 * `.roorules-rev -> /proc/self/environ` put the CLI's environment (the provider key among it) into
 * the request as soon as the model started the `rev` agent, and `.roorules-env -> .env` the
 * Read-denied `.env` (root and user, before the fix).
 *
 * Fixed: a mode's files are read as guidance is (src/core/guidance/loader.ts, readWorkspaceText):
 * resolved in full and kept inside the workspace, never a secret or a Read-denied file, and read
 * by descriptor without following a link; what is not read is a problem naming why. A link inside
 * the workspace (a monorepo's shared rules) still works (control).
 *
 * Also: a `.roomodes` alias bomb (20 lines expanding into 10^20 nodes) made the yaml library throw,
 * and the throw took every agent with it — `task` was not offered at all, the user's own agents
 * gone, nothing said. Now it is a problem of that file and the other agents run.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { chownTree, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, temps } = securityMatrix();
const tag = Math.random().toString(36).slice(2, 8);
const PROVIDER_KEY = `sk-red22m-provider-${tag}`;
const DOTENV = `sk-red22m-dotenv-${tag}`;

const ROOMODES = [
  "customModes:",
  ...["rev", "env", "shared"].flatMap((slug) => [`  - slug: ${slug}`, `    name: ${slug}`, `    roleDefinition: You review code (${slug}-role).`, "    groups:", "      - read"]),
  "",
].join("\n");

const agent = (type: string): ScriptedTurn => ({ toolCalls: [{ name: "task", input: { description: `run ${type}`, prompt: "review src", subagent_type: type } }] });

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("a mode's rules linked to /proc/self/environ or the Read-denied .env reach no request; a link to a rules file inside the workspace still reaches the agent", async () => {
    const { base, home } = cellFolder("yoke-red22m-roo-", id, temps, { permissions: { deny: ["Read(**/.env)"] } });
    const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n", ".roomodes": ROOMODES, "docs/shared-rules.md": `Shared rule: shared-rule-${tag}.\n` }, id);
    writeFileSync(join(ws, ".env"), `API_TOKEN=${DOTENV}\n`);
    symlinkSync("/proc/self/environ", join(ws, ".roorules-rev"));
    symlinkSync(".env", join(ws, ".roorules-env"));
    mkdirSync(join(ws, ".roo"), { recursive: true });
    symlinkSync("../docs", join(ws, ".roo", "rules-shared"));
    chownTree(base, id);
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [agent("rev"), { text: "rev done" }, agent("env"), { text: "env done" }, agent("shared"), { text: "shared done" }], {
      mode: "default",
      env: { OPENAI_API_KEY: PROVIDER_KEY },
    });
    expect(r.code, r.stderr).toBe(0);
    // Each agent ran (its role reached its request).
    for (const slug of ["rev", "env", "shared"]) expect(r.all).toContain(`${slug}-role`);
    expect(r.all.includes(PROVIDER_KEY), "the CLI's environment reached a request").toBe(false);
    expect(r.all.includes(DOTENV), "the Read-denied .env reached a request").toBe(false);
    // Control: a rules folder linked inside the workspace is read.
    expect(r.all).toContain(`shared-rule-${tag}`);
    // The user is told why those two were not read.
    expect(r.stderr).toMatch(/mode "rev": \.roorules-rev: not read: it resolves to \/proc\/\d+\/environ, outside the workspace/);
    expect(r.stderr).toContain('mode "env": .roorules-env: not read: reading it is denied by Read(**/.env)');
  });

  it("a .roomodes alias bomb is a problem of that file: the user's own agent still runs, and the user is told", async () => {
    const { base, home } = cellFolder("yoke-red22m-roo-bomb-", id, temps, {});
    const lines = ["a0: &a0 [x,x,x,x,x,x,x,x,x,x]"];
    for (let i = 1; i < 20; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(",")}]`,
      );
    lines.push("customModes:", "  - slug: bomb", "    roleDefinition: *a19");
    const ws = committedWorkspace(join(base, "ws"), { ".roomodes": lines.join("\n"), ".claude/agents/ok.md": `---\nname: okagent\ndescription: ok\n---\nok-agent-body-${tag}\n` }, id);
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [agent("okagent"), { text: "ok done" }], { mode: "default" });
    expect(r.code, r.stderr).toBe(0);
    expect(r.all).toContain(`ok-agent-body-${tag}`);
    expect(r.stderr).toMatch(/\.roomodes:1: not read as modes: .*alias/i);
  });
});
