// Red team M (session 19): Claude Code's multi-line `!` form — a fenced block opened with ```! — in
// a slash command, through full `yoke run` sessions as root and as an unprivileged user, with bwrap
// and firejail. Before: the block reached the model as text (its commands never run, the model
// told to read them). Now: its script runs through the permission gate like a `` !`cmd` `` line,
// its output in its place; a script that would write is asked for (headless: refused, never run),
// whatever line of the block the write is on, and a repository's command grants nothing.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { cliPath } from "../support/cli";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionFolder } from "../support/sandbox-matrix";
import { scriptedRunArgs } from "../support/scripted-run";

const { who, backends, temps } = securityMatrix();

type Body = { messages: Array<{ role: string; content: unknown }> };
const text = (c: unknown): string => (typeof c === "string" ? c : Array.isArray(c) ? c.map((p: { text?: string }) => p.text ?? "").join("") : "");

/** `yoke run` (default permission mode) as `id` with `message`; the first user message the model got. */
async function slash(id: Identity, home: string, ws: string, sessions: string, message: string): Promise<{ code: number | null; stderr: string; sent: string }> {
  sessionFolder(sessions, id);
  const server = await startScriptedLlmServer({ script: [{ text: "done" }] });
  try {
    const child = spawn(process.execPath, [cliPath, ...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), message], { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home }) });
    let stderr = "";
    child.stdout!.on("data", () => undefined);
    child.stderr!.on("data", (d) => (stderr += d));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 200_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearTimeout(timer);
    const first = server.requests[0]?.body as Body | undefined;
    return { code, stderr, sent: text(first?.messages.find((m) => m.role === "user")?.content) };
  } finally {
    await server.close();
  }
}

describe.each(who.map((id) => [id.name, id] as const))("as %s", (_n, id) => {
  describe.each(backends)("with %s", (backend, why) => {
    it.skipIf(why !== undefined)("a ```! block runs through the gate: its output replaces it; a write in it is refused and never happens", async () => {
      const { base, home } = cellFolder("yoke-redm-blocks-", id, temps, { sandbox: { backend } });
      const ws = join(base, "ws");
      // A repository's command: every block is the repository's; a user's command with allowed-tools for echo.
      committedWorkspace(
        ws,
        {
          ".claude/commands/report.md":
            "---\ndescription: env report\n---\nReport:\n```!\necho BLOCK-ONE\necho BLOCK-TWO\n```\nWrite:\n```!\necho harmless\ntouch PWNED-PROJECT\n```\nInline: !`echo INLINE-OUT`\n",
          "README.md": "x\n",
        },
        id,
      );
      mkdirSync(join(home, ".claude", "commands"), { recursive: true });
      writeFileSync(
        join(home, ".claude", "commands", "ublock.md"),
        "---\ndescription: mine\nallowed-tools: Bash(echo:*)\n---\n```!\necho USER-BLOCK\n```\n```!\necho ok; touch PWNED-USER\n```\n```!\necho ok # \\\ntouch PWNED-CONTINUED\n```\n",
      );
      chownTree(home, id);

      const a = await slash(id, home, ws, join(base, "s1"), "/report");
      expect(a.code, a.stderr).toBe(0);
      expect(a.sent).toContain("BLOCK-ONE\nBLOCK-TWO");
      expect(a.sent).toContain("INLINE-OUT");
      expect(a.sent).not.toContain("```!");
      expect(a.sent).toMatch(/The command `echo harmless\ntouch PWNED-PROJECT` was not run/);
      expect(existsSync(join(ws, "PWNED-PROJECT"))).toBe(false);

      const b = await slash(id, home, ws, join(base, "s2"), "/ublock");
      expect(b.code, b.stderr).toBe(0);
      expect(b.sent).toContain("USER-BLOCK");
      expect(b.sent).toMatch(/`echo ok; touch PWNED-USER` was not run/);
      expect(b.sent).toMatch(/touch PWNED-CONTINUED` was not run/);
      expect(existsSync(join(ws, "PWNED-USER"))).toBe(false);
      expect(existsSync(join(ws, "PWNED-CONTINUED"))).toBe(false);
    });
  });
});
