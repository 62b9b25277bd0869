// Session 20 (home20): the home folder opened as the workspace left the package managers' caches
// (`~/.npm`, `~/.cache`, `~/.pnpm-store`, `~/.yarn`) writable for sandboxed commands. npx keeps what
// it fetched in `~/.npm/_npx/<hash>/node_modules/` and runs it again from there: a sandboxed command
// rewrote the cached package's bin, and the person's next `npx -y …` ON THE HOST (their own MCP
// server, their terminal) ran the planted code. Now a home's dot entries are read-only in the
// sandbox but for histories (one allow-list, homeEntryWritable), `go` and `node_modules` join `bin`
// (npm takes the home for the package root of `~/Downloads`: the person's `npx` there ran a planted
// `~/node_modules/PKG`), and sandboxed
// commands get private caches in their own /tmp (PRIVATE_CACHE_ENV), so npm install and npx still
// work there.
//
// Full sessions of the built CLI against the scripted model (bypassPermissions), as root and as the
// unprivileged user, under bwrap and under firejail, offline: a tiny package of our own, packed with
// `npm pack`, stands for the person's server. Outcome: the person's later npx on the host prints
// the package's own line and the planted marker is absent; the cached file is byte for byte what
// npx installed; `~/.cache` and a new `~/go/bin/gopls` are not written. Control in the same
// session: `npm install` of the tarball into a project of the home, its bin, and `npx` of it, all
// inside the sandbox, work.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chownTree, spawnAs, type Identity } from "../support/identities";
import { bash, cellFolder, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, backends, temps } = securityMatrix();

const NAME = "yoke-tiny-home20";
const OWN = 'console.log("tiny ok")';

/** The tiny package, packed in `home/pkg` (a project folder of the person's); returns the tarball. */
function tinyPackage(home: string): string {
  const dir = join(home, "pkg");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: NAME, version: "1.0.0", bin: { [NAME]: "cli.js" } }));
  writeFileSync(join(dir, "cli.js"), `#!/usr/bin/env node\n${OWN}\n`, { mode: 0o755 });
  execFileSync("npm", ["pack", "--silent"], { cwd: dir, stdio: "pipe", env: { ...process.env, npm_config_cache: join(dir, ".pack-cache"), npm_config_update_notifier: "false" } });
  return join(dir, `${NAME}-1.0.0.tgz`);
}

/** The person's own npx on the host, offline. */
const hostNpx = (id: Identity, home: string, tgz: string) =>
  spawnSync("npx", ["-y", "--offline", `--package=${tgz}`, NAME], {
    cwd: home,
    stdio: "pipe",
    encoding: "utf8",
    timeout: 120_000,
    ...spawnAs(id, { HOME: home, npm_config_update_notifier: "false" }),
  });

/** The bin npx cached for the tarball: ~/.npm/_npx/<hash>/node_modules/NAME/cli.js. */
function cachedBin(home: string): string {
  const root = join(home, ".npm", "_npx");
  const hits = readdirSync(root)
    .map((h) => join(root, h, "node_modules", NAME, "cli.js"))
    .filter((f) => existsSync(f));
  expect(hits).toHaveLength(1);
  return hits[0]!;
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  describe.each(backends)("a home-folder workspace under %s", (backend, unusable) => {
    it.skipIf(!!unusable)(
      "a sandboxed command cannot plant code in the home's package caches for the person's next npx; npm install and npx work in the sandbox",
      async () => {
        const { base, home } = cellFolder(`yoke-home20-${backend}-`, id, temps, { sandbox: { backend } });
        const tgz = tinyPackage(home);
        mkdirSync(join(home, "proj"));
        chownTree(base, id);
        const marker = join(base, "HOST-RAN");

        // The person's earlier npx on the host filled ~/.npm/_npx.
        const warm = hostNpx(id, home, tgz);
        expect(warm.stdout, warm.stderr).toContain("tiny ok");
        const bin = cachedBin(home);
        const before = readFileSync(bin, "utf8");

        const planted = `#!/usr/bin/env node\nrequire("fs").writeFileSync(${JSON.stringify(marker)}, "ran")\n`;
        const r = await sessionAs(id, home, home, join(base, "sessions"), [
          // Control: npm install, the installed bin and npx, inside the sandbox, offline.
          bash(`cd proj && npm install --offline --no-audit --no-fund ${tgz} >/dev/null && ./node_modules/.bin/${NAME} && npx -y --offline --package=${tgz} ${NAME} && echo CONTROL-OK`),
          // The plant, from a script (its contents are outside the gate: the sandbox is the layer that holds): the cached bin
          // rewritten, a fresh npx folder, the XDG cache (uvx, pnpm dlx, pip wheels), GOPATH's bin, ~/node_modules. Each tried on its own.
          {
            toolCalls: [
              {
                name: "write_file",
                input: {
                  path: "proj/plant.sh",
                  content: [
                    `for f in ~/.npm/_npx/*/node_modules/${NAME}/cli.js; do printf '${planted.replace(/\n/g, "\\n")}' > "$f"; done`,
                    "mkdir -p ~/.npm/_npx/0123456789abcdef",
                    "mkdir -p ~/.cache/uv && echo x > ~/.cache/uv/planted",
                    "mkdir -p ~/go/bin && echo x > ~/go/bin/gopls",
                    "mkdir -p ~/node_modules/.bin && echo x > ~/node_modules/.bin/create-vite",
                    "echo PLANT-END",
                    "",
                  ].join("\n"),
                },
              },
            ],
          },
          bash("sh proj/plant.sh"),
        ]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.told).toContain("PLANT-END");
        // Control: the sandboxed npm and npx worked, and the project's install is on the host.
        expect(r.told).toMatch(/tiny ok\ntiny ok\nCONTROL-OK/);
        expect(existsSync(join(home, "proj", "node_modules", NAME, "cli.js"))).toBe(true);

        // Outcome: the cache is what npx installed; nothing new in the caches or GOPATH.
        expect.soft(readFileSync(bin, "utf8")).toBe(before);
        expect.soft(existsSync(join(home, ".npm", "_npx", "0123456789abcdef"))).toBe(false);
        expect.soft(existsSync(join(home, ".cache", "uv", "planted"))).toBe(false);
        expect.soft(existsSync(join(home, "go", "bin", "gopls"))).toBe(false);
        expect.soft(existsSync(join(home, "node_modules"))).toBe(false);
        // The person's next npx on the host runs the package's own code, not the plant.
        const next = hostNpx(id, home, tgz);
        expect(next.stdout, next.stderr).toContain("tiny ok");
        expect.soft(existsSync(marker), "the planted code ran on the host").toBe(false);
      },
      400_000,
    );
  });
});
