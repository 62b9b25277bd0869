// The MCP SDK rides in the lazily loaded session bundle, never in the activation bundle, and the
// minified session bundle still loads (a dynamic import of the SDK once broke zod's init order there).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");

describe("MCP in the production bundles", () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "yoke-mcp-bundle-"));
    const r = spawnSync(process.execPath, ["esbuild.mjs", "--production", `--outdir=${out}`], { cwd: root, encoding: "utf8" });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("extension.js (activation) has no MCP SDK; session.js has it", () => {
    expect(readFileSync(join(out, "extension.js"), "utf8")).not.toContain("StreamableHTTPClientTransport");
    expect(readFileSync(join(out, "session.js"), "utf8")).toContain("mcp-session-id");
  });

  it("the minified session.js loads (with a stand-in for the vscode module)", () => {
    const stub = join(out, "node_modules", "vscode");
    mkdirSync(stub, { recursive: true });
    writeFileSync(join(stub, "index.js"), "const f = new Proxy(function () {}, { get: () => f, apply: () => f, construct: () => f }); module.exports = f;");
    const r = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(join(out, "session.js"))}); console.log("loaded")`], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("loaded");
  });
});
