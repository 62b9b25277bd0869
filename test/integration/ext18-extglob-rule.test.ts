/**
 * Issue 18: a repository's deny rule with an extglob made the permission check hang. `Read(**\/+(*a)X)`
 * or `Read(**\/+(a|a?)+(a|?a)X)` (at most 3 `*`, so session 16's wildcard walk did not take them) were
 * matched by picomatch's regular expression, which backtracks exponentially on a name of 40 `a`s:
 * `yoke permissions check` of that Read never answered (killed after 10 s on the old build, CPU
 * busy), and a model's `cat` of a 30-`a` name the same — the gate runs on the extension host's
 * thread, so the session stopped answering. Now every glob runs as a bounded automaton
 * (src/core/glob; the step bound is in test/unit/glob/bounded-glob.test.ts).
 *
 * FULL SESSIONS (the built CLI's `yoke run --trust`, scripted model over HTTP), root and user ×
 * bwrap and firejail, default mode, the rules in the repository's committed .claude/settings.json:
 * the session answers; the long-named files the rules do not match are read (by read_file and
 * `cat`), the one they match is denied both ways and its text never reaches a request. And in
 * bypassPermissions, a .env in a folder whose name holds a newline: picomatch's `**` is `.`
 * repeated, which does not take a newline, so `Read(**\/.env)` did not cover it and read_file put
 * the secret in the request on the old build (checked with `yoke permissions check`: allow).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const tag = Math.random().toString(36).slice(2, 8);
const SECRET = `sk-live-EXT18-${tag}`;
const A40 = "a".repeat(40);
const A30 = "a".repeat(30);
const RULES = ["Read(**/+(*a)X)", "Read(**/+(a|a?)+(a|?a)X)"];

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("the repository's extglob deny rules answer at once: unmatched long names are read, the matched one is denied and stays out of every request", async () => {
      const { base, home } = cellFolder(`yoke-ext18-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(
        join(base, "ws"),
        {
          "README.md": "# app\n",
          ".claude/settings.json": JSON.stringify({ permissions: { deny: RULES } }),
          [`src/${A40}`]: `plain forty ${tag}\n`,
          [`src/${A30}`]: `plain thirty ${tag}\n`,
          [`src/${A40}X`]: `API_KEY=${SECRET}\n`,
        },
        id,
      );
      chownTree(ws, id);
      const r = await sessionAs(
        id,
        home,
        ws,
        join(base, "sessions"),
        [
          { toolCalls: [{ name: "read_file", input: { path: `src/${A40}` } }] },
          bash(`cat src/${A30}`),
          { toolCalls: [{ name: "read_file", input: { path: `src/${A40}X` } }] },
          bash(`cat src/${A40}X`),
          bash("cat src/*"),
        ],
        { mode: "default" },
      );
      expect(r.code, `the session did not end (killed after 200 s): ${r.stderr.slice(-500)}`).toBe(0);
      // Names the rules do not match: read (these checks never answered before).
      expect(r.told).toContain(`plain forty ${tag}`);
      expect(r.told).toContain(`plain thirty ${tag}`);
      // The name they match: denied by read_file, by cat, and by a glob that expands to it.
      expect(r.told.match(/denied by the rule Read\(\*\*\/\+\(\*a\)X\)|Denied by the rule Read\(\*\*\/\+\(\*a\)X\)/gi)?.length ?? 0).toBeGreaterThanOrEqual(3);
      expect(r.all).not.toContain(SECRET);
    });

    it.skipIf(!!unusable)(
      "bypassPermissions under Read(**/.env): a .env in a folder with a newline in its name is denied (picomatch's globstar did not cross it) and stays out of every request",
      async () => {
        const { base, home } = cellFolder(`yoke-ext18-nl-${backend}-`, id, temps, { sandbox: { backend } });
        const ws = committedWorkspace(
          join(base, "ws"),
          { "README.md": "# app\n", ".claude/settings.json": JSON.stringify({ permissions: { deny: ["Read(**/.env)"] } }), "a\nb/.env": `API_KEY=${SECRET}\n`, "a\nb/notes.txt": `notes ${tag}\n` },
          id,
        );
        chownTree(ws, id);
        const r = await sessionAs(id, home, ws, join(base, "sessions"), [
          { toolCalls: [{ name: "read_file", input: { path: "a\nb/.env" } }] },
          { toolCalls: [{ name: "read_file", input: { path: "a\nb/notes.txt" } }] },
        ]);
        expect(r.code, r.stderr.slice(-500)).toBe(0);
        // Control: the file beside it is read.
        expect(r.told).toContain(`notes ${tag}`);
        expect(r.told).toMatch(/denied by the rule Read\(\*\*\/\.env\)/i);
        expect(r.all).not.toContain(SECRET);
      },
    );
  });
});
