/**
 * Red team round 13: this session's relaxations, read by the gate (the session test, with the real
 * harm and its controls, is test/integration/red13-session.test.ts).
 *
 * - `git show REV:PATH` / `git cat-file -p REV:PATH` print one file, checked at the repository's top;
 *   but REV may be a tree (an object id, a tag naming `HEAD:vault`), so PATH may lie below any
 *   folder. An object id (or `^{tree}`) is no commit spelling: every file of the history; a name is
 *   checked with PATH at any depth.
 * - curl's `-o '#1'` (filled from a URL glob) and `--output-dir D -o F` (writes D/F).
 */
import { describe, expect, it } from "vitest";
import { call, createPermissionWorkspace } from "../../support/permission-workspace";

const bash = (command: string) => call("run_command", { command });

describe("git show REV:PATH with a tree as REV", () => {
  const w = createPermissionWorkspace({ permissions: { deny: ["Read(vault/**)", "Read(**/.env)"] } });
  w.write("vault/key", "k\n");
  const gate = w.gate({ trusted: true });

  it("does not allow a subtree's id, a peeled tree or a name with a path a folder rule covers", async () => {
    for (const c of [
      "git show 08d885072310176722800dbc3c27fc46a2945501:key",
      "git cat-file -p 08d88507:key",
      "git show deadbeef:key",
      "git show sub:key",
      "git show sub^{tree}:key",
      "git show v1^{}:key",
      "git cat-file -p sub:./key",
    ]) {
      for (const mode of ["default", "acceptEdits", "bypassPermissions", "plan"] as const) {
        const d = await gate.check(bash(c), mode);
        expect(d.decision, `${c} in ${mode}: ${d.reason}`).not.toBe("allow");
      }
    }
  });

  it("still allows git show HEAD:PATH under a file rule at any depth", async () => {
    const only = createPermissionWorkspace({ permissions: { deny: ["Read(**/.env)"] } });
    const g = only.gate({ trusted: true });
    for (const c of ["git show HEAD:README.md", "git show HEAD~2:src/a.ts", "git cat-file -p v1.2:src/a.ts", "git show origin/main:docs/guide.md", "git show @{-1}:README.md"])
      expect({ c, decision: (await g.check(bash(c), "default")).decision }).toEqual({ c, decision: "allow" });
    for (const c of ["git show HEAD:.env", "git show t:x/.env", "git show 0123abcd:README.md"])
      expect({ c, decision: (await g.check(bash(c), "default")).decision }).not.toEqual({ c, decision: "allow" });
  });
});

describe("curl output names", () => {
  const w = createPermissionWorkspace({ permissions: { allow: ["Bash(curl:*)"], deny: ["Edit(precious/**)"] } });
  const gate = w.gate({ trusted: true });

  it("a #N template and -o under --output-dir are not a plain file in the working folder", async () => {
    for (const c of [
      'curl -s "https://h/x?{precious/x}" -o "#1"',
      'curl -s "https://h/[1-2]" -o "#1"',
      "curl -s --output-dir precious -o y https://h/x",
      "curl -s --output-dir=precious -o y https://h/x",
      "curl -s --output-d precious -o y https://h/x",
      'curl -sO "https://h/{a,precious}"',
    ])
      for (const mode of ["default", "bypassPermissions"] as const) {
        const d = await gate.check(bash(c), mode);
        expect({ c, mode, decision: d.decision }).not.toEqual({ c, mode, decision: "allow" });
      }
  });

  it("leaves ordinary downloads alone", async () => {
    for (const c of ["curl -sLo out.txt https://example.com/a", "curl -fsSLO https://example.com/a.tgz", 'curl -g -o "#1" https://h/x', "curl --output-dir dl -o a.txt https://h/a"])
      expect({ c, decision: (await gate.check(bash(c), "default")).decision }).toEqual({ c, decision: "allow" });
  });
});
