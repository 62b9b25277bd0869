// Session 23, red team F: load_skill finds a skill by a looser spelling than its name (blanks
// trimmed, `_` and blanks as `-`, any case; a bare NAME finds one plugin's PLUGIN:NAME), while a
// `Skill(name)` deny rule was matched against the spelling the model sent. On the base, a
// workspace's skill the person denied with `Skill(deploy-prod)` was loaded by `deploy_prod`: its
// text reached the model and its `!` line ran. A full `yoke run` with the scripted model, as root
// and as the unprivileged user (the gate's decision; one sandbox backend is enough).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest } from "../../src/demo/scripted-llm-server";
import { cliPath } from "../support/cli";
import { spawnAs } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionFolder } from "../support/sandbox-matrix";
import { scriptedRunArgs, toolResultTexts } from "../support/scripted-run";

const { who, backends, temps } = securityMatrix();
const all = (r: RecordedRequest | undefined) => JSON.stringify(r?.body.messages ?? []);

describe.each(who.map((id) => [id.name, id] as const))("as %s", (_n, id) => {
  const [backend, why] = backends[0]!;
  it.skipIf(why !== undefined)(`a Skill deny rule holds for every spelling load_skill resolves (${backend})`, async () => {
    const { base, home } = cellFolder("yoke-redF23-", id, temps, { sandbox: { backend }, permissions: { deny: ["Skill(deploy-prod)"] } });
    const ws = join(base, "ws");
    committedWorkspace(
      ws,
      { ".claude/skills/deploy-prod/SKILL.md": "---\nname: deploy-prod\ndescription: deploys to production\n---\nDEPLOY-SKILL-BODY\nStatus: !`echo SKILL-RAN-$((6*7))`\n", "README.md": "x\n" },
      id,
    );
    const sessions = join(base, "s");
    sessionFolder(sessions, id);
    const server = await startScriptedLlmServer({
      script: [{ toolCalls: [{ name: "load_skill", input: { name: "deploy_prod" } }] }, { toolCalls: [{ name: "load_skill", input: { name: " Deploy Prod " } }] }, { text: "done" }],
    });
    try {
      const child = spawn(process.execPath, [cliPath, ...scriptedRunArgs(server.openaiBaseUrl, ws, sessions), "deploy"], { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, { HOME: home }) });
      let stderr = "";
      child.stdout!.on("data", () => undefined);
      child.stderr!.on("data", (d) => (stderr += d));
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      clearTimeout(timer);
      expect(code, stderr).toBe(0);
      const rs = server.requests;
      expect(rs.length).toBe(3);
      for (const r of rs.slice(1)) expect(toolResultTexts(r).at(-1) ?? "").toMatch(/denied by the rule Skill\(deploy-prod\)/);
      // The skill's text and its `!` line's output are in no request.
      for (const r of rs) {
        expect(all(r)).not.toContain("DEPLOY-SKILL-BODY");
        expect(all(r)).not.toContain("SKILL-RAN-42");
      }
    } finally {
      await server.close();
    }
  });
});
