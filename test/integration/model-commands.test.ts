// Session 23 (modelcmd23): the model runs a custom command itself (Claude Code's SlashCommand tool,
// now its Skill tool) through load_skill with arguments, in a full `yoke run` with the scripted
// model, as root and as an unprivileged user, with bwrap and firejail. The command is listed beside
// the skills; the next request carries its text expanded as `/name args` typed by the person would
// be; its `!` lines ran through the permission gate (a write asked, so refused headless: never run,
// nor a write smuggled in through the model's arguments); a disable-model-invocation command is not
// listed and load_skill refuses it; a `Skill(name)` deny rule stops a command from running at all.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest } from "../../src/demo/scripted-llm-server";
import { cliPath } from "../support/cli";
import { spawn } from "node:child_process";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionFolder } from "../support/sandbox-matrix";
import { scriptedRunArgs, toolResultTexts } from "../support/scripted-run";

const { who, backends, temps } = securityMatrix();

const all = (r: RecordedRequest | undefined) => JSON.stringify(r?.body.messages ?? []);

async function session(id: Identity, home: string, ws: string, sessions: string, script: Parameters<typeof startScriptedLlmServer>[0]["script"]) {
  sessionFolder(sessions, id);
  const server = await startScriptedLlmServer({ script });
  try {
    const child = spawn(process.execPath, [cliPath, ...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "greet Ada"], { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home }) });
    let stderr = "";
    child.stdout!.on("data", () => undefined);
    child.stderr!.on("data", (d) => (stderr += d));
    child.stdin!.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 200_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    clearTimeout(timer);
    return { code, stderr, requests: server.requests };
  } finally {
    await server.close();
  }
}

describe.each(who.map((id) => [id.name, id] as const))("as %s", (_n, id) => {
  describe.each(backends)("with %s", (backend, why) => {
    it.skipIf(why !== undefined)("load_skill runs a command with arguments, its `!` lines through the gate; a user-only command is neither listed nor run", async () => {
      const { base, home } = cellFolder("yoke-modelcmd-", id, temps, { sandbox: { backend }, permissions: { deny: ["SlashCommand:/wipe"] } });
      const ws = join(base, "ws");
      committedWorkspace(
        ws,
        {
          ".claude/commands/deploy.md": "---\ndescription: deploys to production\ndisable-model-invocation: true\n---\nDEPLOY-BODY !`touch PWNED-DEPLOY`\n",
          ".claude/commands/wipe.md": "---\ndescription: cleans the build folder\n---\nWIPE-BODY !`echo WIPE-RAN`\n",
          ".claude/commands/bare.md": "",
          "README.md": "x\n",
        },
        id,
      );
      mkdirSync(join(home, ".claude", "commands"), { recursive: true });
      writeFileSync(
        join(home, ".claude", "commands", "greet.md"),
        "---\ndescription: greets someone by name\nargument-hint: NAME\nallowed-tools: Bash(echo:*)\n---\nGREET-BODY: greet $0 warmly (asked: $ARGUMENTS).\nStatus: !`echo SHELL-$((6*7))`\nArgs: !`echo ARG $ARGUMENTS`\nWrite: !`echo ok; touch PWNED-MODEL`\n",
      );
      chownTree(home, id);

      const r = await session(id, home, ws, join(base, "s"), [
        { toolCalls: [{ name: "load_skill", input: { name: "greet", arguments: "Ada && touch PWNED-ARG" } }] },
        { toolCalls: [{ name: "load_skill", input: { name: "deploy" } }] },
        { toolCalls: [{ name: "load_skill", input: { name: "wipe" } }] },
        { text: "done" },
      ]);
      expect(r.code, r.stderr).toBe(0);
      // Listed beside the skills: greet (with its argument hint) and wipe; never deploy (disable-model-invocation) nor bare (no description).
      const first = all(r.requests[0]);
      expect(first).toMatch(/- greet: \(command, arguments: NAME\) greets someone by name/);
      expect(first).toContain("- wipe: (command) cleans the build folder");
      expect(first).not.toMatch(/- deploy\b/);
      expect(first).not.toMatch(/- bare\b/);
      // The next request carries the expanded text: arguments filled, the echo run, the writes refused and never made.
      const ran = toolResultTexts(r.requests[1]).join("\n");
      expect(ran).toContain("GREET-BODY: greet Ada warmly (asked: Ada && touch PWNED-ARG).");
      expect(ran).toContain("Status: SHELL-42");
      expect(ran).toMatch(/The command `echo ARG Ada && touch PWNED-ARG` was not run/);
      expect(ran).toMatch(/The command `echo ok; touch PWNED-MODEL` was not run/);
      expect(existsSync(join(ws, "PWNED-ARG"))).toBe(false);
      expect(existsSync(join(ws, "PWNED-MODEL"))).toBe(false);
      // The user-only command: refused, saying why; its `!` line never ran.
      const refused = toolResultTexts(r.requests[2]).at(-1) ?? "";
      expect(refused).toContain("disable-model-invocation: true");
      expect(refused).not.toContain("DEPLOY-BODY");
      expect(existsSync(join(ws, "PWNED-DEPLOY"))).toBe(false);
      // `SlashCommand:/wipe` denied (Claude Code's rule on its SlashCommand tool): load_skill denied, the command not expanded.
      const denied = toolResultTexts(r.requests[3]).at(-1) ?? "";
      expect(denied).toMatch(/Permission to use Skill is denied by the rule SlashCommand:\/wipe/);
      expect(all(r.requests[3])).not.toContain("WIPE-RAN");
    });
  });
});
