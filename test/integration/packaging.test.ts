// `npm run package` for this machine's target (one production build): the platform .vsix carries
// @lydell/node-pty and its prebuilt binary where dist/session.js resolves it, and that binary
// really opens a pseudo-terminal; the universal .vsix carries no native code (commands run on pipes).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageAll, PTY_TARGETS } from "../../scripts/package.mjs";

const host = `${process.platform}-${process.arch}`;
const out = mkdtempSync(join(tmpdir(), "yoke-package-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function entries(vsix: string): string[] {
  const r = spawnSync("unzip", ["-Z1", vsix], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.split("\n").filter(Boolean);
}

describe("platform packages", () => {
  it.runIf(PTY_TARGETS.includes(host))(
    `the ${host} .vsix carries node-pty's binary for it, the universal one none`,
    async () => {
      const results = await packageAll({ targets: [host], outDir: out, log: () => undefined });
      const universal = results.find((r) => !r.target)!;
      const target = results.find((r) => r.target === host)!;
      expect(universal.vsix).toBe(join(out, "yoke.vsix"));
      expect(target.vsix).toBe(join(out, `yoke-${host}.vsix`));

      const u = entries(universal.vsix);
      const t = entries(target.vsix);
      for (const list of [u, t])
        for (const f of [
          "extension/dist/extension.js",
          "extension/dist/session.js",
          "extension/dist/otel.js",
          "extension/dist/mcp-sdk.js",
          "extension/dist/anthropic-sdk.js",
          "extension/dist/openai-sdk.js",
          "extension/package.json",
        ])
          expect(list).toContain(f);
      expect(u.filter((f) => f.includes("node_modules") || f.endsWith(".node"))).toEqual([]);
      expect(t).toContain(`extension/dist/node_modules/@lydell/node-pty-${host}/pty.node`);
      expect(t).toContain("extension/dist/node_modules/@lydell/node-pty/index.js");
      // Only this target's binary: no other platform's.
      expect(t.filter((f) => /node-pty-[a-z0-9]+-[a-z0-9]+\//.test(f) && !f.includes(`node-pty-${host}/`))).toEqual([]);
      const manifest = spawnSync("unzip", ["-p", target.vsix, "extension.vsixmanifest"], { encoding: "utf8" }).stdout;
      expect(manifest).toContain(`TargetPlatform="${host}"`);
      expect(spawnSync("unzip", ["-p", universal.vsix, "extension.vsixmanifest"], { encoding: "utf8" }).stdout).not.toContain("TargetPlatform=");
      // The OpenTelemetry SDK is in dist/otel.js only: not on activation's path, not in the session bundle.
      const bundle = (f: string) => spawnSync("unzip", ["-p", universal.vsix, `extension/dist/${f}`], { encoding: "utf8", maxBuffer: 64 << 20 }).stdout;
      expect(bundle("otel.js")).toContain("BatchSpanProcessor");
      for (const f of ["extension.js", "session.js"]) expect(bundle(f)).not.toContain("BatchSpanProcessor");
      // The MCP SDK is in dist/mcp-sdk.js only, loaded when the first MCP server starts.
      expect(bundle("mcp-sdk.js")).toContain("Not connected");
      for (const f of ["extension.js", "session.js"]) expect(bundle(f)).not.toContain("Not connected");
      // The provider SDKs are bundles of their own, required by the session bundle on the first request.
      // (X-Stainless-*: the headers both SDKs send; Yoke's own code never writes them.)
      expect(bundle("anthropic-sdk.js")).toContain("X-Stainless");
      expect(bundle("openai-sdk.js")).toContain("OpenAI-Organization");
      for (const f of ["extension.js", "session.js"]) for (const sdk of ["X-Stainless", "OpenAI-Organization"]) expect(bundle(f)).not.toContain(sdk);
      expect(bundle("session.js")).toContain('require("./anthropic-sdk.js")');

      // Unpacked as VS Code installs it: node-pty resolves from dist/ and its binary opens a pty.
      const dir = join(out, "unpacked");
      expect(spawnSync("unzip", ["-q", target.vsix, "-d", dir]).status).toBe(0);
      const fromSession = createRequire(join(dir, "extension", "dist", "session.js"));
      const resolved = fromSession.resolve("@lydell/node-pty");
      expect(resolved.startsWith(join(dir, "extension", "dist", "node_modules"))).toBe(true);
      const pty = fromSession("@lydell/node-pty") as typeof import("@lydell/node-pty");
      const term = pty.spawn("/bin/sh", ["-c", "test -t 1 && echo on-a-tty; echo pty-ok"], { cols: 80, rows: 24 });
      let output = "";
      term.onData((d) => (output += d));
      const code = await new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
      expect(code).toBe(0);
      await expect.poll(() => output, { timeout: 10_000 }).toContain("pty-ok");
      expect(output).toContain("on-a-tty");
    },
    300_000,
  );
});
