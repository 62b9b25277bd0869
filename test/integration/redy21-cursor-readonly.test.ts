/**
 * Red team Y (session 21): a Cursor subagent with `readonly: true` (`.cursor/agents/*.md`, as Cursor
 * documents it: "restricted write permissions") must stay read-only whatever the session's mode.
 * Yoke ran it in plan mode, except under bypassPermissions, where Claude Code's rule for an agent's
 * `permissionMode` (the parent's bypass takes precedence) let it write files and run commands.
 * A full `yoke run --permission-mode bypassPermissions` with the scripted model, as root and as the
 * unprivileged user: the agent's write_file and its `touch` leave nothing in the workspace.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identities, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, sessionAs } from "../support/sandbox-matrix";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const VERIFIER = "---\nname: verifier\ndescription: Validates completed work independently\nmodel: inherit\nreadonly: true\n---\nYou are a skeptical validator. Check that the work really is done.\n";

describe("a readonly Cursor subagent", () => {
  it.each(identities().list.map((w) => [w.label, w] as const))(
    "(as %s) in a bypassPermissions session writes nothing: write_file and a command that writes are refused",
    async (_label, id: Identity) => {
      const { base, home } = cellFolder("yoke-redy21-cursor-", id, temps, {});
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n", ".cursor/agents/verifier.md": VERIFIER }, id);
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [
        { toolCalls: [{ name: "task", input: { description: "Verify", prompt: "Verify, then note it.", subagent_type: "verifier" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "verified.txt", content: "ok\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "touch touched.txt" } }] },
        { text: "checked" },
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(ws, "verified.txt")), "the readonly agent wrote a file").toBe(false);
      expect(existsSync(join(ws, "touched.txt")), "the readonly agent's command wrote a file").toBe(false);
      // The agent was told why (plan mode), in its own requests.
      expect(r.all).toMatch(/plan mode/i);
    },
    200_000,
  );
});
