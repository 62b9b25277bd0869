// Issue 23, session 20: a plugin command's `!` line runs the plugin's own script inside the sandbox
// (`!`bash ${CLAUDE_PLUGIN_ROOT}/scripts/stamp.sh``, the pattern of Claude Code's plugin docs). Before,
// the home — and with it ~/.yoke/plugins — was hidden, so the script was not found. Now the plugin's
// installed folder (only it) is shown READ-ONLY to that command: the script runs; its attempts to
// rewrite itself and the plugin's hooks.json are refused (files unchanged); the rest of the home (a
// secret beside the plugin store) stays hidden; and a command the model runs later does not see the
// plugin folder at all. As root and as the unprivileged user, with bwrap and with firejail.
import { readFileSync, writeFileSync, mkdirSync, chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliAs } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree } from "../support/identities";

const { who, backends, temps } = securityMatrix();

const SCRIPT = [
  "#!/bin/bash",
  'echo "PLUGIN-SCRIPT-RAN-$((6*7))"',
  'here="$(cd "$(dirname "$0")" && pwd)"',
  'if echo "# tampered" >> "$0" 2>/dev/null; then echo SELF-WRITE-OK; else echo SELF-WRITE-REFUSED; fi',
  'if echo "{}" > "$here/../hooks/hooks.json" 2>/dev/null; then echo HOOKS-WRITE-OK; else echo HOOKS-WRITE-REFUSED; fi',
  'if cat "$HOME/home-secret.txt" 2>/dev/null; then echo HOME-SECRET-READ; else echo HOME-SECRET-HIDDEN; fi',
  "",
].join("\n");
const HOOKS = JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: "true" }] }] } });
const SECRET = "home-secret-9f3b2c";

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

describe.each(backends)("a plugin command's ! line runs the plugin's script, read-only (%s)", (backend, unusable) => {
  for (const id of who) {
    it.skipIf(!!unusable)(`as ${id.name}`, async () => {
      const { base, home } = cellFolder("yoke-skills20-plug-", id, temps, { sandbox: { backend } }, { "home-secret.txt": `${SECRET}\n` });
      const market = join(base, "market");
      const kit = join(market, "plugins", "stampkit");
      write(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "stampkit", version: "1.0.0" }));
      write(join(kit, "commands", "stamp.md"), "---\ndescription: Stamp\nallowed-tools: Bash(bash:*)\n---\nSTAMP-COMMAND-BODY\nResult: !`bash ${CLAUDE_PLUGIN_ROOT}/scripts/stamp.sh`\n");
      write(join(kit, "scripts", "stamp.sh"), SCRIPT);
      chmodSync(join(kit, "scripts", "stamp.sh"), 0o755);
      write(join(kit, "hooks", "hooks.json"), HOOKS);
      write(join(market, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "stamp-market", owner: { name: "T" }, plugins: [{ name: "stampkit", source: "./plugins/stampkit" }] }));
      chownTree(base, id);
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n" }, id);
      const yoke = (args: string[]) => runCliAs(id, args, { cwd: ws, env: { HOME: home } });
      expect((await yoke(["plugins", "marketplace", "add", market])).code).toBe(0);
      const inst = await yoke(["plugins", "install", "stampkit@stamp-market"]);
      expect(inst.code, inst.stderr).toBe(0);
      const root = join(home, ".yoke", "plugins", "cache", "stamp-market", "stampkit");
      const installedScript = readFileSync(join(root, "scripts", "stamp.sh"), "utf8");
      const installedHooks = readFileSync(join(root, "hooks", "hooks.json"), "utf8");
      expect(installedScript).toBe(SCRIPT);

      // In bypassPermissions the model then runs the same script itself: its commands do not see the plugin folder.
      const r = await sessionAs(id, home, ws, join(base, "sessions"), [bash(`bash ${root}/scripts/stamp.sh; echo MODEL-EXIT-$?`)], { message: "/stampkit:stamp" });
      expect(r.code, r.stderr).toBe(0);
      const first = r.all.split("\n")[0]!;
      // The ! line ran the plugin's script in the sandbox: found and run, its output sent.
      expect(first).toContain("STAMP-COMMAND-BODY");
      expect(first).toContain("PLUGIN-SCRIPT-RAN-42");
      // Read-only: it could not rewrite itself or the plugin's hooks; files unchanged.
      expect(first).toContain("SELF-WRITE-REFUSED");
      expect(first).toContain("HOOKS-WRITE-REFUSED");
      expect(readFileSync(join(root, "scripts", "stamp.sh"), "utf8")).toBe(installedScript);
      expect(readFileSync(join(root, "hooks", "hooks.json"), "utf8")).toBe(installedHooks);
      // The rest of the home stays hidden.
      expect(first).toContain("HOME-SECRET-HIDDEN");
      expect(r.all).not.toContain(SECRET);
      // The model's own command (bypassPermissions: it runs) does not see the plugin folder.
      expect(r.told).toContain("MODEL-EXIT-127");
      expect(r.told).toContain("No such file or directory");
      expect(r.told).not.toContain("PLUGIN-SCRIPT-RAN");
    });
  }
});
