// Red team E 23: Kiro's specs (`.kiro/specs/NAME/*.md`, named `@spec:NAME`, session 23 cust23) from a
// repository whose spec files are links to the person's secrets (~/.ssh/id_rsa, the workspace's .env)
// or whose spec folder is a link out of the workspace. Asserted: the secret is in no request.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-rede23-spec-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return root;
}

describe("a Kiro spec whose files are links to secrets", () => {
  it("@spec:NAME sends neither ~/.ssh/id_rsa nor .env nor a linked spec folder's files to the model", async () => {
    const home = tree({ ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nSSH-KEY-REDE23\n", "outside/spec/tasks.md": "OUTSIDE-SPEC-REDE23\n" });
    const ws = tree({ ".env": "API_TOKEN=DOTENV-REDE23\n", ".kiro/specs/keys/requirements.md": "# Requirements\nSPEC-OWN-TEXT-REDE23\n" });
    symlinkSync(join(home, ".ssh/id_rsa"), join(ws, ".kiro/specs/keys/tasks.md"));
    symlinkSync("../../../.env", join(ws, ".kiro/specs/keys/design.md"));
    symlinkSync(join(home, "outside/spec"), join(ws, ".kiro/specs/linked"));
    const server = await startScriptedLlmServer({ script: [{ text: "done" }] });
    let body: string;
    try {
      const r = await runCli([...scriptedRunArgs(server.openaiBaseUrl, ws, join(home, "sessions")), "--json", "follow @spec:keys and @spec:linked"], {
        env: { HOME: home, OPENAI_API_KEY: "test" },
        cwd: ws,
      });
      expect(r.code, r.stderr).toBe(0);
      body = JSON.stringify(server.requests.map((q) => q.body));
    } finally {
      await server.close();
    }
    expect(body).toContain("SPEC-OWN-TEXT-REDE23");
    for (const secret of ["SSH-KEY-REDE23", "DOTENV-REDE23", "OUTSIDE-SPEC-REDE23"]) expect(body, secret).not.toContain(secret);
  }, 60_000);
});
