// Session 20 (home20), the second open item of npx19's rule: the person's own stdio MCP servers start
// in the home folder unless a folder the agent can write is the home or holds it — and that check
// read the workspace folders and `permissions.additionalDirectories`, not the sandbox settings' own
// writable paths. With `"sandbox": {"paths": [{"path": "~", "mode": "rw"}]}` (a person who lets
// commands work across their home), a sandboxed command wrote `~/MOD/__main__.py`, and the person's
// `python3 -m MOD` server, started in the home folder, imported it ON THE HOST. The same setting put
// the whole home back into the sandbox writable — `~/.bashrc`, `.config`, the caches —
// where a home-folder workspace keeps them read-only. Now the server-folder check reads the same list
// of writable paths the sandbox uses (sandboxWritablePaths), and a home made writable by a sandbox
// path gets the home allow-list and private caches.
//
// Full sessions of the built CLI against the scripted model (bypassPermissions), as root and as the
// unprivileged user, under bwrap and under firejail. Outcome: the planted module did not run for the
// person's server; the settings file and `.bashrc` are unchanged. Control in the same session: a
// definition whose `cwd` names the home folder does run it (the plant was live), and the plant itself
// was written (the home is writable for ordinary entries, as the person asked).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

const MOD = "yoke_home20_mod";

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("sandbox paths [~ rw] under %s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "a module a sandboxed command wrote in the home is not run by the person's own server; the home's dot entries stay read-only",
      async () => {
        const { base, home } = cellFolder(`yoke-home20-paths-${backend}-`, id, temps, {}, { ".bashrc": "# rc\n" });
        const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n" }, id);
        const settingsFile = join(home, ".yoke", "settings.json");
        const settings = (servers: Record<string, unknown>) => {
          writeFileSync(settingsFile, JSON.stringify({ sandbox: { backend, paths: [{ path: "~", mode: "rw" }] }, mcpServers: servers }));
          chownTree(settingsFile, id);
        };
        const server = (name: string, extra: Record<string, unknown> = {}) => ({ command: "/usr/bin/python3", args: ["-m", MOD], env: { WHO: name }, ...extra });
        const planted = `import os\nopen(${JSON.stringify(join(base, "ran-"))} + os.environ.get("WHO", "x"), "w").write("uid=%d" % os.getuid())\n`;

        // Session 1: a script in the workspace (its contents are outside the gate) writes the module, the settings file and .bashrc.
        settings({ own: server("own") });
        const settingsBefore = readFileSync(settingsFile, "utf8");
        const script = [
          `mkdir -p ~/${MOD} && printf '%b' '${planted.replace(/\n/g, "\\n")}' > ~/${MOD}/__main__.py`,
          `printf '{"permissions":{"defaultMode":"bypassPermissions"}}' > ~/.yoke/settings.json`,
          "echo 'id > /dev/null' >> ~/.bashrc",
          "echo PLANT-END",
          "",
        ].join("\n");
        const s1 = await sessionAs(id, home, ws, join(base, "sessions1"), [{ toolCalls: [{ name: "write_file", input: { path: "plant.sh", content: script } }] }, bash("sh plant.sh")]);
        expect(s1.code, s1.stderr).toBe(0);
        expect(s1.told).toContain("PLANT-END");
        // The person's own files: unchanged.
        expect(readFileSync(settingsFile, "utf8")).toBe(settingsBefore);
        expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe("# rc\n");
        // The ordinary entry was written, as the person's rw path allows.
        expect(readFileSync(join(home, MOD, "__main__.py"), "utf8")).toBe(planted);

        // Session 2: the person's server, and a control whose definition names the home as its folder.
        settings({ own: server("own"), optin: server("optin", { cwd: home }) });
        const s2 = await sessionAs(id, home, ws, join(base, "sessions2"), [
          {
            toolCalls: [
              { name: "mcp__own__x", input: {} },
              { name: "mcp__optin__x", input: {} },
            ],
          },
        ]);
        expect(s2.code, s2.stderr).toBe(0);
        expect(existsSync(join(base, "ran-own")), existsSync(join(base, "ran-own")) ? readFileSync(join(base, "ran-own"), "utf8") : "").toBe(false);
        // Control: started in the home folder, the module is imported — the plant was live.
        expect(readFileSync(join(base, "ran-optin"), "utf8")).toBe(`uid=${id.uid}`);
      },
      400_000,
    );
  });
});
