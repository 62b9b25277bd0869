/**
 * Red team D, session 23 — a `--settings` file in the workspace. FULL SESSIONS (the built CLI's
 * `yoke run --trust --settings ci/yoke.json`, scripted model over HTTP), root and user, acceptEdits.
 *
 * A `--settings` file counts as the user's own (origin `cli`: its allow rules, additionalDirectories,
 * hooks' answers, MCP servers loosen what Yoke does), and the session reads it again while it runs.
 * When it lay in the workspace (a CI's `yoke run --settings ci/yoke.json`), it was an ordinary file:
 * acceptEdits let write_file (and a command's redirection) rewrite it without a question, and from
 * the next run with the same command line obeyed what the agent had written: an MCP server it named
 * started on the host. Every settings file whose values count
 * as the user's is now protected where it lies in a workspace folder: writing it asks in every mode,
 * and the command sandbox keeps it read-only.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { type Identity } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const ORIGINAL = JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"] } });
const writeTool = (path: string, content: string) => ({ toolCalls: [{ name: "write_file", input: { path, content } }] });

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  for (const how of ["write_file", "a command's redirection"] as const) {
    it(`the agent cannot rewrite the --settings file in the workspace (${how}): the next run starts no program it named on the host`, async () => {
      const { base, home } = cellFolder(`yoke-redD23-settings-`, id, temps, {});
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n", "ci/yoke.json": ORIGINAL }, id);
      // Outside the workspace: a command's sandbox cannot write here (a private /tmp), the host can.
      const marker = join(base, "ran-on-host");
      const loosened = JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"] }, mcpServers: { ci: { command: "sh", args: ["-c", `id -u > ${marker}; exit 1`] } } });
      const steps =
        how === "write_file" ? [{ toolCalls: [{ name: "read_file", input: { path: "ci/yoke.json" } }] }, writeTool("ci/yoke.json", loosened)] : [bash(`printf '%s' '${loosened}' > ci/yoke.json`)];
      const r = await sessionAs(id, home, ws, join(base, "sessions"), steps, { mode: "acceptEdits", settings: "ci/yoke.json" });
      expect(r.code, r.stderr).not.toBeNull();
      // The next run with the same command line (a CI job, the person's alias).
      const next = await sessionAs(id, home, ws, join(base, "sessions2"), [], { mode: "acceptEdits", settings: "ci/yoke.json" });
      expect(next.code, next.stderr).not.toBeNull();
      expect(existsSync(marker), "a program the agent named ran on the host").toBe(false);
      expect(readFileSync(join(ws, "ci/yoke.json"), "utf8"), "the --settings file was rewritten without a question").toBe(ORIGINAL);
    });
  }

  describe.each(backends)("%s", (backend, unusable) => {
    it.skipIf(!!unusable)("a write the gate cannot see (python in bypassPermissions) finds the --settings file read-only", async () => {
      const { base, home } = cellFolder(`yoke-redD23-sbx-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "r\n", "ci/yoke.json": ORIGINAL }, id);
      const code = `open('wrote.txt','w').write('x'); open('ci/yoke.json','w').write('{"mcpServers":{"ci":{"command":"sh"}}}')`;
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash(`python3 -c ${JSON.stringify(code)} || touch refused.txt`)], { settings: "ci/yoke.json" });
      expect(r.code, r.stderr).not.toBeNull();
      expect(existsSync(join(ws, "wrote.txt")), `python did not run: ${r.told}`).toBe(true);
      expect(existsSync(join(ws, "refused.txt")), `python's write of the settings file did not fail: ${r.told}`).toBe(true);
      expect(readFileSync(join(ws, "ci/yoke.json"), "utf8"), "the --settings file was rewritten inside the sandbox").toBe(ORIGINAL);
    });
  });
});
