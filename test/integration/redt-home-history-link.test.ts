// Session 20, red team T: a home-folder workspace keeps the home's histories writable (read as text,
// never run), and a command may replace one — by a link. `~/.bash_history -> .bashrc`, made by a
// command the model ran in the sandbox, stayed after it; the person's next interactive bash on the host
// appended the lines the person typed (and its `exit`) to `~/.bashrc`, which every later shell runs: a
// protected startup file written through a history, and a terminal that closes as it opens. Now a
// link (or FIFO, socket, device) the command left under a dot name of the home is taken away
// (quarantined) when the command ends, as a new entry outside the allow-list is: a FIFO named
// `.bash_history` made every new interactive bash of the person's wait forever.
//
// Full sessions of the built CLI against the scripted model (bypassPermissions), root and the
// unprivileged user × bwrap and firejail. Outcome: no link under the history's name, and the person's
// next `bash -i` on the host leaves `.bashrc` byte for byte as it was; control in the same session: the
// history itself is written (a plain file there stays).
import { spawnSync } from "node:child_process";
import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();
const RC = "echo bashrc-own\n";

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("a home-folder workspace under %s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "a history turned into a link to .bashrc does not outlive the command",
      async () => {
        const { base, home } = cellFolder(`yoke-redt-hist-${backend}-`, id, temps, { sandbox: { backend } });
        writeFileSync(join(home, ".bashrc"), RC);
        writeFileSync(join(home, ".bash_history"), "ls\n");
        writeFileSync(join(home, ".python_history"), "1+1\n");
        chownTree(base, id);
        const r = await sessionAs(id, home, home, join(base, "sessions"), [bash("rm -f ~/.bash_history && ln -s .bashrc ~/.bash_history && echo 'print(2)' >> ~/.python_history && echo LINKED")]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("LINKED");
        // Control: a history is still the command's to write.
        expect(readFileSync(join(home, ".python_history"), "utf8")).toBe("1+1\nprint(2)\n");
        let linked = false;
        try {
          linked = lstatSync(join(home, ".bash_history")).isSymbolicLink();
        } catch {
          /* gone: no link */
        }
        expect.soft(linked, "the link stayed in the home").toBe(false);
        // A FIFO under a history's name (an interactive program reading it waits forever): gone too.
        let fifo = false;
        try {
          fifo = lstatSync(join(home, ".psql_history")).isFIFO();
        } catch {
          /* gone */
        }
        expect.soft(fifo, "the FIFO stayed in the home").toBe(false);
        // The person's next interactive bash on the host, a line typed and exit.
        const next = spawnSync("bash", ["-i"], { cwd: home, input: "echo typed-by-person\nexit\n", encoding: "utf8", timeout: 60_000, ...spawnAs(id, { HOME: home }) });
        expect(next.stdout, next.stderr).toContain("typed-by-person");
        expect(readFileSync(join(home, ".bashrc"), "utf8")).toBe(RC);
      },
      300_000,
    );
  });
});
