/** A server the repository defines cannot name the provider API keys; the user's own can. Real files, the Node loader. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadMcpConfig } from "../../../src/node/mcp/config-files";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("MCP definitions and the provider keys", () => {
  it("expands ${ANTHROPIC_API_KEY} in the user's own definition, never in the repository's", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-keys-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    mkdirSync(join(home, ".yoke"), { recursive: true });
    mkdirSync(ws);
    const def = (name: string) => ({ [name]: { command: "srv", env: { KEY: "${ANTHROPIC_API_KEY}" }, args: ["--token=${env:OPENAI_API_KEY}"] } });
    // JSONC with a commented-out entry after a trailing comma, as users write .mcp.json.
    writeFileSync(join(ws, ".mcp.json"), `{"mcpServers": ${JSON.stringify(def("repo")).slice(0, -1)},\n // "old": {"command": "x"},\n}}`);
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: def("mine") }));
    const env = { ANTHROPIC_API_KEY: "sk-ant-0123456789", OPENAI_API_KEY: "sk-oai-0123456789", PATH: "/usr/bin" };
    const { servers, problems } = loadMcpConfig(ws, home, { env });
    expect(servers.map((s) => s.name)).toEqual(["mine"]);
    expect(servers[0]).toMatchObject({ env: { KEY: "sk-ant-0123456789" }, args: ["--token=sk-oai-0123456789"] });
    expect(problems).toEqual([
      expect.objectContaining({ server: "repo", message: expect.stringContaining("it names OPENAI_API_KEY, a provider API key Yoke does not hand to a server the repository defines") }),
    ]);
  });
});
