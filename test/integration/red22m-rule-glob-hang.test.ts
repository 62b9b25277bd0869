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
 * Fixed: a glob with more than 3 single-`*` wildcards in one path part is not used — a problem of
 * the rule, naming the glob — so matching stays polynomial with a small power. Ordinary globs still
 * attach their rule (control).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, runCliAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, temps } = securityMatrix();
const tag = Math.random().toString(36).slice(2, 8);
const LONG = `src/${"a".repeat(200)}.ts`;

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("a Windsurf rule whose glob backtracks exponentially is not used (the session reads the long-named file and ends); an ordinary glob rule still attaches", async () => {
    const { base, home } = cellFolder("yoke-red22m-glob-", id, temps, {});
    const ws = committedWorkspace(
      join(base, "ws"),
      {
        "README.md": "# app\n",
        [LONG]: "export const a = 1;\n",
        ".windsurf/rules/hang.md": `---\ntrigger: glob\nglobs: "**/*a*a*a*a*a*a*a*a*X"\n---\nNever reached ${tag}.\n`,
        ".windsurf/rules/ts.md": `---\ntrigger: glob\nglobs: "**/*.ts"\n---\nTypeScript rule ${tag}.\n`,
      },
      id,
    );
    chownTree(base, id);
    const r = await sessionAs(id, home, ws, join(base, "sessions"), [{ toolCalls: [{ name: "read_file", input: { path: LONG } }] }], { mode: "default" });
    expect(r.code, `the session did not end (killed after 200 s): ${r.stderr.slice(-500)}`).toBe(0);
    expect(r.told).toContain("export const a = 1;");
    // Control: the ordinary glob rule reached the model with the file.
    expect(r.all).toContain(`TypeScript rule ${tag}`);
    expect(r.all).not.toContain(`Never reached ${tag}`);
    // The user is told why the other rule is not used.
    const list = await runCliAs(id, ["lessons", "list", "--cwd", ws], { env: { HOME: home }, cwd: ws });
    expect(list.stdout + list.stderr).toMatch(/hang\.md.*\*\*\/\*a\*a\*a\*a\*a\*a\*a\*a\*X.*not used/);
  });
});
