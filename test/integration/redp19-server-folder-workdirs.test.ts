// Red team P (session 19) on npx19's server-folder rule: the person's own stdio MCP servers start in
// the home folder unless a workspace folder is the home or holds it. The rule looked at the
// workspace folders (VS Code's, --add-dir) only — not at `permissions.additionalDirectories`, the
// other folders the gate treats like the workspace. With `"additionalDirectories": ["~"]` (a person
// who lets the agent work across their home) and acceptEdits, the model's command writing
// `~/yoke_redp_mod/__main__.py` is allowed without a question, and the next session's
// `python3 -m yoke_redp_mod` server — defined by the person, started in the home folder — imported
// it from there and ran it ON THE HOST (python -m puts its folder first on sys.path; a deno.json the
// same). Now the home inside any such folder gives the file system's root as the server folder.
//
// Where it holds without this fix: the file tools write only inside the workspace folders, and a
// sandboxed command's write to the home lands in the sandbox's hidden home (bwrap and firejail:
// tried, nothing on the host). So the class needs a person who runs commands unsandboxed
// (`"sandbox": {"backend": "none"}`): then acceptEdits lets `mkdir -p ~/m && printf … > ~/m/__main__.py`
// run on the host without a question (the path is inside an additional directory).
//
// Full sessions of the built CLI against the scripted model, as root and as the unprivileged user. Outcome: the planted module did not run. Control in the same session: a definition whose
// `cwd` names the home folder (the person says so) does run it — the plant was live.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, type Identity } from "../support/identities";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, temps } = securityMatrix();

const MOD = "yoke_redp_mod";

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe("no sandbox (backend none)", () => {
    it("a file the agent may write in an additional directory holding the home is not run by the person's own server", async () => {
      const { base, home } = cellFolder("yoke-redp19-", id, temps, {});
      const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n" }, id);
      const settingsFile = join(home, ".yoke", "settings.json");
      const settings = (servers: Record<string, unknown>) => {
        writeFileSync(settingsFile, JSON.stringify({ sandbox: { backend: "none" }, permissions: { additionalDirectories: ["~"] }, mcpServers: servers }));
        chownTree(settingsFile, id);
      };
      const server = (name: string, extra: Record<string, unknown> = {}) => ({ command: "/usr/bin/python3", args: ["-m", MOD], env: { WHO: name }, ...extra });
      const planted = `import os\nopen(${JSON.stringify(join(base, "ran-"))} + os.environ.get("WHO", "x"), "w").write("uid=%d" % os.getuid())\n`;

      // Session 1 (acceptEdits): the model writes the module into the home folder — allowed, no question.
      settings({ own: server("own") });
      const s1 = await sessionAs(id, home, ws, join(home, "sessions1"), [bash(`mkdir -p ${home}/${MOD} && printf '%b' '${planted.replace(/\n/g, "\\n")}' > ${home}/${MOD}/__main__.py`)], {
        mode: "acceptEdits",
      });
      expect(s1.code, s1.stderr).toBe(0);
      expect(existsSync(join(home, MOD, "__main__.py")) ? readFileSync(join(home, MOD, "__main__.py"), "utf8") : s1.told).toBe(planted);

      // Session 2: the person's server, and a control whose definition names the home as its folder.
      settings({ own: server("own"), optin: server("optin", { cwd: home }) });
      const s2 = await sessionAs(
        id,
        home,
        ws,
        join(home, "sessions2"),
        [
          {
            toolCalls: [
              { name: "mcp__own__x", input: {} },
              { name: "mcp__optin__x", input: {} },
            ],
          },
        ],
        { mode: "acceptEdits" },
      );
      expect(s2.code, s2.stderr).toBe(0);
      expect(existsSync(join(base, "ran-own")), existsSync(join(base, "ran-own")) ? readFileSync(join(base, "ran-own"), "utf8") : "").toBe(false);
      // Control: the person's server started in the home folder imports the module — the plant was live.
      expect(readFileSync(join(base, "ran-optin"), "utf8")).toBe(`uid=${id.uid}`);
    }, 400_000);
  });
});
