// Session 20, red team V: the same plant as redt-home-path-plant, with the person's PATH naming the
// install as `~/miniconda3/bin` — a literal tilde, as `export PATH="~/miniconda3/bin:$PATH"` (quoted)
// leaves it. bash expands a leading `~` of a PATH element when it looks a program up, so the person's
// shell runs `~/miniconda3/bin/python3`; pathInstalls only compared absolute entries with the home and
// skipped this one, so the install stayed writable in the sandbox and for write_file. Outcome asserted
// as there: site-packages unchanged, no `etc/`, the write_file refused, and the person's next `python3`
// run by bash (which expands the tilde) prints its own line with no marker.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("a home-folder workspace under %s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "a PATH entry spelled ~/miniconda3/bin protects the install as the absolute one does",
      async () => {
        const { base, home } = cellFolder(`yoke-redv-tilde-path-${backend}-`, id, temps, { sandbox: { backend } });
        const prefix = join(home, "miniconda3");
        // The system's python (the venv's link must be readable by the unprivileged user too).
        execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", prefix], { stdio: "pipe" });
        const site = readdirSync(join(prefix, "lib")).map((v) => join(prefix, "lib", v, "site-packages"))[0]!;
        const before = readdirSync(site);
        mkdirSync(join(home, "proj"));
        chownTree(base, id);
        const marker = join(base, "HOST-RAN");
        const PATH = "~/miniconda3/bin:/usr/local/bin:/usr/bin:/bin";
        const r = await sessionAs(
          id,
          home,
          home,
          join(base, "sessions"),
          [
            {
              toolCalls: [
                {
                  name: "write_file",
                  input: {
                    path: "proj/plant.sh",
                    content: [
                      `for d in ~/miniconda3/lib/python3*/site-packages; do echo 'import os; open("${marker}", "w").write("ran")' > "$d/zz-plant.pth"; done`,
                      "mkdir -p ~/miniconda3/etc/profile.d && echo 'echo planted' > ~/miniconda3/etc/profile.d/conda.sh",
                      "echo made > ~/proj/made.txt",
                      "echo PLANT-END",
                      "",
                    ].join("\n"),
                  },
                },
              ],
            },
            bash("sh proj/plant.sh"),
            // The file tool's way to the same place: protected for the gate too (asks in every mode; headless: refused).
            { toolCalls: [{ name: "write_file", input: { path: `${site.slice(home.length + 1)}/zz-tool.pth`, content: `import os; open(${JSON.stringify(marker)}, "w").write("ran")\n` } }] },
          ],
          { env: { PATH } },
        );
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("PLANT-END");
        // The write_file was refused by the gate, with the reason.
        expect(r.told).toContain("a program on the person's PATH is installed there");
        // Control: the home's project folder is the person's workspace, written.
        expect(readFileSync(join(home, "proj", "made.txt"), "utf8")).toBe("made\n");
        expect.soft(readdirSync(site)).toEqual(before);
        expect.soft(existsSync(join(prefix, "etc"))).toBe(false);
        // The person's next python3 on the host.
        const next = spawnSync("bash", ["-c", "type -p python3 && python3 -c \"print('py-own')\""], { cwd: home, encoding: "utf8", timeout: 60_000, ...spawnAs(id, { HOME: home, PATH }) });
        expect(next.stdout, next.stderr).toContain(join(prefix, "bin", "python3"));
        expect(next.stdout, next.stderr).toContain("py-own");
        expect.soft(existsSync(marker), "the planted code ran on the host").toBe(false);
      },
      300_000,
    );
  });
});
