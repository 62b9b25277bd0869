/**
 * Session 22, gate22 (issue 18): m4's input files and what they include (`include`, `sinclude`,
 * `undivert(FILE)`) are read through the gate, the Read rules applied, and what their `syscmd`/`esyscmd` run
 * meets every rule (before: every such m4 asked under a deny rule, and with no deny rule it ran unread).
 *
 * Full sessions of the built CLI (scripted model over HTTP), bypassPermissions under `Bash(rm:*)` and
 * `Read(**\/.env)`, as root and as an unprivileged user, with bwrap and firejail:
 * - `m4 defs.m4`, whose included file runs `esyscmd(rm -rf v1)`: v1 is still there;
 * - `m4 -I. x.m4`, x.m4 including `.env`: the secret is in no request;
 * - `m4 page.m4 > page.html` including a harmless header runs without asking (page.html holds it);
 * - the race: a process of the attacker exchanges the included file with a harmful one in a loop while the
 *   model runs `m4 swap.m4` again and again. Whichever file the gate read, nothing is deleted and the secret
 *   is in no request: the sandbox keeps rm from starting and hides .env (what the gate's answer relies on is
 *   enforced without it). How many runs read the harmful file after the gate read the harmless one is
 *   printed, not asserted (it depends on scheduling).
 * Control: the same lines in plain bash with the real m4 delete v1 and print the secret.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/types";
import { bash, cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";
import { chownTree, spawnAs, type Identity } from "../support/identities";

const haveM4 = spawnSync("m4", ["--version"]).status === 0;
const havePerl = spawnSync("perl", ["-e", "1"]).status === 0;
const { who, backends, temps } = securityMatrix();
const SECRET = "sk-gate22-secret-7f3a";

function files(): Record<string, string> {
  return {
    "README.md": "hi\n",
    ".env": `TOKEN=${SECRET}\n`,
    "v1/a.js": "keep v1\n",
    "v2/a.js": "keep v2\n",
    "defs.m4": "dnl the project's macros\ninclude(`inc.m4')\n",
    "inc.m4": "esyscmd(`rm -rf v1')\n",
    "x.m4": "include(`.env')\n",
    "page.m4": "include(`head.m4')body\n",
    "head.m4": "<h1>HEAD-INCLUDED</h1>\n",
    "swap.m4": "include(`part.m4')\n",
    "part.m4": "harmless part\n",
    "evil.m4": "EVIL-RAN syscmd(`rm -rf v2')include(`.env')\n",
    // Exchanges part.m4 and evil.m4 (x86-64 renameat2 = 316, RENAME_EXCHANGE = 2) until `stop` exists.
    "flip.pl": [
      'my ($p, $e) = ("part.m4", "evil.m4");',
      'my $ok = syscall(316, -100, $p, -100, $e, 2) == 0 ? "swap works" : "swap failed: $!";',
      'open(my $r, ">", "ready") or die; print $r $ok; close($r);',
      "my $end = time() + 150;",
      "while (time() < $end && !-e 'stop') { syscall(316, -100, $p, -100, $e, 2); select(undef, undef, undef, 0.0005); }",
      "",
    ].join("\n"),
  };
}

const ATTACKS = ["m4 defs.m4", "m4 -I. x.m4"];
const SWAPS = 6;

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("%s", (backend, unusable) => {
    let base: string;
    let home: string;
    beforeAll(() => {
      ({ base, home } = cellFolder(`yoke-gate22-${backend}-`, id, temps, { sandbox: { backend } }));
    });

    it.skipIf(!!unusable || !haveM4 || !havePerl)("m4 files and their includes: the included rm and .env are denied, a harmless include runs, a swapped include harms nothing", async () => {
      const ws = committedWorkspace(join(base, `ws-${Math.random().toString(36).slice(2, 8)}`), files(), id);
      const settings = join(base, `deny-${Math.random().toString(36).slice(2, 8)}.json`);
      writeFileSync(settings, JSON.stringify({ permissions: { deny: ["Bash(rm:*)", "Read(**/.env)"] } }));
      chownTree(settings, id);
      // The attacker's process, started before the session (as a background command of an earlier call would be).
      const flipper: ChildProcess = spawn("perl", ["flip.pl"], { cwd: ws, stdio: "ignore", ...spawnAs(id) });
      try {
        const deadline = Date.now() + 60_000;
        while (!existsSync(join(ws, "ready")) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(readFileSync(join(ws, "ready"), "utf8")).toBe("swap works");
        // The control first: the session may stop the model once the swapped runs repeat one error (stuck detection).
        const script: ScriptedTurn[] = ["echo ran > control.txt", ...ATTACKS, "m4 page.m4 > page.html", ...Array.from({ length: SWAPS }, (_, k) => `m4 swap.m4 # run ${k + 1}`)].map(bash);
        const r = await sessionAs(id, home, ws, join(base, `sessions-${Math.random().toString(36).slice(2, 8)}`), script, { settings, env: { OPENAI_API_KEY: "sk-gate22" } });
        expect(r.code, r.stderr).toBe(0);
        expect(existsSync(join(ws, "control.txt")), r.told.slice(-4000)).toBe(true);
        expect(readFileSync(join(ws, "control.txt"), "utf8")).toBe("ran\n");
        expect(readFileSync(join(ws, "v1", "a.js"), "utf8")).toBe("keep v1\n");
        expect(readFileSync(join(ws, "v2", "a.js"), "utf8")).toBe("keep v2\n");
        expect(r.all).not.toContain(SECRET);
        expect(r.told).toContain("Denied by the rule Bash(rm:*)");
        expect(r.told).toContain("Denied by the rule Read(**/.env)");
        expect(readFileSync(join(ws, "page.html"), "utf8")).toContain("<h1>HEAD-INCLUDED</h1>");
        // (Each run is spelled differently: the session stops a model repeating one call.)
        const ranSwapped = r.told.split("EVIL-RAN").length - 1;
        console.log(`gate22 race (${id.label}, ${backend}): ${ranSwapped} of ${SWAPS} runs of m4 swap.m4 read the harmful file after the gate allowed them`);
      } finally {
        writeFileSync(join(ws, "stop"), "");
        await new Promise<void>((resolve) => (flipper.exitCode !== null ? resolve() : flipper.on("close", () => resolve())));
      }
    });
  });
});

describe.skipIf(!haveM4)("control: the same command lines in plain bash with the real m4", () => {
  it("m4 defs.m4 deletes v1 and m4 -I. x.m4 prints the secret", () => {
    const ws = mkdtempSync(join(tmpdir(), "yoke-gate22-ctl-"));
    temps.push(ws);
    for (const [rel, text] of Object.entries(files())) {
      mkdirSync(join(ws, rel, ".."), { recursive: true });
      writeFileSync(join(ws, rel), text);
    }
    const run = (c: string) => spawnSync("bash", ["-c", c], { cwd: ws, encoding: "utf8", timeout: 60_000 });
    run(ATTACKS[0]!);
    expect(existsSync(join(ws, "v1"))).toBe(false);
    expect(run(ATTACKS[1]!).stdout).toContain(SECRET);
    rmSync(join(ws, "v2"), { recursive: true, force: true });
  });
});
