/**
 * Red team 22-merged: a rule's glob hung the session.
 *
 * A rule that applies to some files (Windsurf's `trigger: glob`, new this session; Cursor's
 * `globs`, Copilot's `applyTo`, Claude's `paths`) is matched against every file the model touches,
 * with picomatch's regular expression — which backtracks: each `*` in one path part is a `[^/]*?`,
 * so `**\/*a*a*a*a*a*a*X` against a long file name of `a`s takes time to the power of the stars
 * (4 stars on a 200-character name: 28 s; 6: hours). A repository with that rule and a file with
 * such a name made the session stop answering as soon as the model read it — the event loop busy,
 * Stop not heard (root and user: killed by the test's 200 s limit, before the fix).
 *
 * Fixed first (session 16) by not using a glob with more than 3 single-`*` wildcards in one part;
 * since issue 18's bounded matcher (src/core/glob: picomatch's expression run as an automaton) such
 * globs — and extglobs like `+(*a)X`, which hung the same way with fewer stars — are used and
 * answer in time linear in the name: each rule attaches exactly where its glob matches.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, runCliAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, temps } = securityMatrix();
const tag = Math.random().toString(36).slice(2, 8);
const LONG = `src/${"a".repeat(200)}.ts`;

const LONG_X = `src/${"a".repeat(200)}X`;

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("rules whose globs backtracked exponentially are used and answer (the session reads the long-named files and ends); each attaches only where it matches", async () => {
    const { base, home } = cellFolder("yoke-red22m-glob-", id, temps, {});
    const ws = committedWorkspace(
      join(base, "ws"),
      {
        "README.md": "# app\n",
        [LONG]: "export const a = 1;\n",
        [LONG_X]: "x marks the spot\n",
        ".windsurf/rules/hang.md": `---\ntrigger: glob\nglobs: "**/*a*a*a*a*a*a*a*a*X"\n---\nMany-star rule ${tag}.\n`,
        ".windsurf/rules/ext.md": `---\ntrigger: glob\nglobs: "**/+(*a)X"\n---\nExtglob rule ${tag}.\n`,
        ".windsurf/rules/never.md": `---\ntrigger: glob\nglobs: "**/+(a|a?)+(a|?a)Q"\n---\nNever reached ${tag}.\n`,
        ".windsurf/rules/ts.md": `---\ntrigger: glob\nglobs: "**/*.ts"\n---\nTypeScript rule ${tag}.\n`,
      },
      id,
    );
    chownTree(base, id);
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [{ toolCalls: [{ name: "read_file", input: { path: LONG } }] }, { toolCalls: [{ name: "read_file", input: { path: LONG_X } }] }], {
      mode: "default",
    });
    expect(r.code, `the session did not end (killed after 200 s): ${r.stderr.slice(-500)}`).toBe(0);
    expect(r.told).toContain("export const a = 1;");
    expect(r.told).toContain("x marks the spot");
    // Each rule reached the model where its glob matches, and only there.
    expect(r.all).toContain(`TypeScript rule ${tag}`);
    expect(r.all).toContain(`Many-star rule ${tag}`);
    expect(r.all).toContain(`Extglob rule ${tag}`);
    expect(r.all).not.toContain(`Never reached ${tag}`);
    // No glob is reported as unused.
    const list = await runCliAs(id, ["lessons", "list", "--cwd", ws], { env: { HOME: home }, cwd: ws });
    expect(list.stdout + list.stderr).not.toMatch(/not used/);
    expect(list.stdout + list.stderr).toMatch(/ext\.md/);
  });
});
