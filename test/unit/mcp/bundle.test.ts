// The MCP SDK rides in its own bundle (mcp-sdk.js), loaded when the first MCP server starts: never
// in the activation bundle, the session bundle or the CLI; the minified bundles still load (a
// dynamic import of the SDK once broke zod's init order in the session bundle).
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

  it("only mcp-sdk.js has the MCP SDK: not extension.js (activation), session.js or cli.js", () => {
    for (const f of ["extension.js", "session.js", "cli.js"]) {
      // A header name the SDK's HTTP transport sends (the class names stay as the hub's property names).
      expect(readFileSync(join(out, f), "utf8"), f).not.toContain("mcp-session-id");
    }
    expect(readFileSync(join(out, "mcp-sdk.js"), "utf8")).toContain("mcp-session-id");
  });

  it("the minified mcp-sdk.js loads and has what the hub takes from it", () => {
    const r = spawnSync(
      process.execPath,
      ["-e", `const m = require(${JSON.stringify(join(out, "mcp-sdk.js"))}); console.log(Object.keys(m).sort().join(","), typeof new m.Client({ name: "t", version: "1" }).connect)`],
      {
        encoding: "utf8",
      },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe(
      "Client,ClientTaskStore,CreateMessageRequestSchema,DEFAULT_INHERITED_ENV_VARS,ElicitRequestSchema,ElicitationCompleteNotificationSchema,GroupStdioTransport,ListRootsRequestSchema,LoggingMessageNotificationSchema,McpError,OAuthMetadataSchema,OpenIdProviderDiscoveryMetadataSchema,ResourceUpdatedNotificationSchema,SSEClientTransport,StreamableHTTPClientTransport,StreamableHTTPError,TaskTakenError,UnauthorizedError,callToolAsTask,limitedFetch function",
    );
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
