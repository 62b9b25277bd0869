// Session 21 (protect21, issue 18): files that the person's tools later run on the host without being
// asked, which stayed writable while what pointed at them was protected:
// - what a protected configuration sources or runs: `.envrc`'s `source_env`/`dotenv_if_exists`,
//   mise.toml's `_.source`, a `.tool-versions` `path:` version (its folder's programs run for the
//   person's `node`), and the configurations the editor loads as code (eslint.config.js; a new
//   .prettierrc.cjs);
// - in a home-folder workspace, what `.bashrc` sources outside the dot entries (`. ~/dotfiles/aliases.sh`,
//   `\. "$NVM_DIR/nvm.sh"` with NVM_DIR in the home).
// Before (main at caed419, by hand): a sandboxed command appended to env/dev.sh and eslint.config.js.
//
// Full sessions of the built CLI against the scripted model (bypassPermissions), root and the
// unprivileged user × bwrap and firejail, one session per cell per workspace kind. The model writes a
// planting script and runs it; then a write_file to a sourced file (the gate's side: refused headless,
// with the reason). Outcomes: every planted file is unchanged or absent, and the person's next shell on
// the host (sourcing what direnv, mise and .bashrc source, running the path: node) prints no marker.
// Controls in the same sessions: src/ and a home project folder are written.
// Ordinary work after asking: an ACP client approves the write_file of eslint.config.js (root, no sandbox involved).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { startAcpClient, type AcpTestClient } from "../support/acp-client";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { closeServerAndRemoveTemps } from "../support/teardown";

const { who, backends, temps } = securityMatrix();

const write = (path: string, content: string) => ({ toolCalls: [{ name: "write_file", input: { path, content } }] });

/** The person's next shell on the host, as `id`: sources what the configurations name; prints what ran. */
function personsShell(id: Identity, home: string, cwd: string, script: string): string {
  const r = spawnSync("bash", ["-c", script], { cwd, encoding: "utf8", timeout: 60_000, ...spawnAs(id, { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin" }) });
  return `${r.stdout}${r.stderr}`;
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("under %s", (backend, unusable) => {
    it.skipIf(!!unusable)("a sandboxed command cannot change what .envrc, mise and .tool-versions run, nor the editor's ESLint/Prettier configuration", async () => {
      const { base, home } = cellFolder(`yoke-p21-ws-${backend}-`, id, temps, { sandbox: { backend } });
      const ws = join(base, "ws");
      const files: Record<string, string> = {
        ".envrc": "source_env env/dev.sh\ndotenv_if_exists .env.local\n",
        "env/dev.sh": "echo dev-own\n",
        "mise.toml": '[env]\n_.source = "./scripts/env.sh"\n',
        "scripts/env.sh": "echo mise-own\n",
        ".tool-versions": "nodejs path:./tools/node\n",
        "tools/node/bin/node": "#!/bin/sh\necho node-own\n",
        "eslint.config.js": "export default [];\n",
        "src/a.js": "export const a = 1;\n",
      };
      committedWorkspace(ws, files, id);
      spawnSync("chmod", ["+x", join(ws, "tools/node/bin/node")]);
      const plant = "echo PLANTED-RAN";
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [
        write(
          "src/plant.sh",
          [
            `for f in env/dev.sh scripts/env.sh tools/node/bin/node eslint.config.js; do echo '${plant}' >> "$f"; done`,
            `echo '${plant}' > .env.local`,
            `echo 'module.exports = {}; require("child_process").execSync("${plant}")' > .prettierrc.cjs`,
            "echo made > src/ok.txt",
            "echo PLANT-END",
            "",
          ].join("\n"),
        ),
        bash("sh src/plant.sh"),
        // The file tool's way: the gate protects the same files (asks in every mode; headless: refused).
        write("env/dev.sh", `${plant}\n`),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.told).toContain("PLANT-END");
      expect(r.told).toContain("a file the folder's .envrc sources or loads");
      // Control: ordinary work in src/ was written.
      expect(readFileSync(join(ws, "src", "ok.txt"), "utf8")).toBe("made\n");
      for (const f of ["env/dev.sh", "scripts/env.sh", "tools/node/bin/node", "eslint.config.js"]) expect.soft(readFileSync(join(ws, f), "utf8"), f).toBe(files[f]);
      expect.soft(existsSync(join(ws, ".env.local")), ".env.local (dotenv_if_exists)").toBe(false);
      expect.soft(existsSync(join(ws, ".prettierrc.cjs")), ".prettierrc.cjs (new, quarantined)").toBe(false);
      // The person's next prompt: direnv and mise source these; mise's path: node runs for `node`.
      const out = personsShell(id, home, ws, ". env/dev.sh; . scripts/env.sh; tools/node/bin/node");
      expect(out).toContain("dev-own");
      expect(out).toContain("node-own");
      expect(out).not.toContain("PLANTED-RAN");
    });

    it.skipIf(!!unusable)("in a home-folder workspace, a sandboxed command cannot change what .bashrc sources", async () => {
      const { base, home } = cellFolder(`yoke-p21-home-${backend}-`, id, temps, { sandbox: { backend } });
      const rc = ['export NVM_DIR="$HOME/tools/nvm"', '[ -s "$NVM_DIR/nvm.sh" ] && \\. "$NVM_DIR/nvm.sh"', "if [ -f ~/dotfiles/aliases.sh ]; then . ~/dotfiles/aliases.sh; fi", ""].join("\n");
      for (const d of ["dotfiles", "tools/nvm", "proj"]) mkdirSync(join(home, d), { recursive: true });
      writeFileSync(join(home, ".bashrc"), rc);
      writeFileSync(join(home, "dotfiles", "aliases.sh"), "echo aliases-own\n");
      writeFileSync(join(home, "tools", "nvm", "nvm.sh"), "echo nvm-own\n");
      chownTree(base, id);
      const plant = "echo PLANTED-RAN";
      const r = await sessionAs(id, home, home, join(base, "sessions"), [
        write("proj/plant.sh", [`echo '${plant}' >> ~/dotfiles/aliases.sh`, `echo '${plant}' >> ~/tools/nvm/nvm.sh`, "echo made > ~/proj/made.txt", "echo PLANT-END", ""].join("\n")),
        bash("sh proj/plant.sh"),
        write("dotfiles/aliases.sh", `${plant}\n`),
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.told).toContain("PLANT-END");
      expect(r.told).toContain("a file the person's shell startup files source");
      expect(readFileSync(join(home, "proj", "made.txt"), "utf8")).toBe("made\n");
      expect.soft(readFileSync(join(home, "dotfiles", "aliases.sh"), "utf8")).toBe("echo aliases-own\n");
      expect.soft(readFileSync(join(home, "tools", "nvm", "nvm.sh"), "utf8")).toBe("echo nvm-own\n");
      // The person's next shell.
      const out = personsShell(id, home, home, ". ~/.bashrc");
      expect(out).toContain("aliases-own");
      expect(out).toContain("nvm-own");
      expect(out).not.toContain("PLANTED-RAN");
    });
  });
});

describe("ordinary work", () => {
  let server: ScriptedServer | undefined;
  const clients: AcpTestClient[] = [];
  const own: string[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    server = await closeServerAndRemoveTemps(server, own);
  });

  it("eslint.config.js is written once the person approves (asked in acceptEdits, never denied); src/ is not asked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-p21-acp-"));
    own.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "eslint.config.js"), "export default [];\n");
    server = await startScriptedLlmServer({
      script: [
        write("src/b.js", "export const b = 2;\n"),
        { toolCalls: [{ name: "read_file", input: { path: "eslint.config.js" } }] },
        write("eslint.config.js", "export default [{ rules: { semi: 'error' } }];\n"),
        { text: "done" },
      ],
    });
    const c = startAcpClient(
      ["--trust", "--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--session-dir", join(dir, "sessions"), "--model", "local-model", "--permission-mode", "acceptEdits"],
      { permission: (q) => ({ outcome: { outcome: "selected", optionId: q.options.find((o) => o.kind === "allow_once")!.optionId } }) },
      { cwd: ws, env: { HOME: dir } },
    );
    clients.push(c);
    await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    expect((await c.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "add the semi rule" }] })).stopReason).toBe("end_turn");
    // One question: the configuration, not src/b.js.
    expect(c.permissions, JSON.stringify(server.requests.at(-1)?.body.messages).slice(-1500)).toHaveLength(1);
    expect(JSON.stringify(c.permissions[0])).toContain("eslint.config.js");
    expect(readFileSync(join(ws, "src", "b.js"), "utf8")).toBe("export const b = 2;\n");
    expect(readFileSync(join(ws, "eslint.config.js"), "utf8")).toContain("semi");
  }, 180_000);
});
