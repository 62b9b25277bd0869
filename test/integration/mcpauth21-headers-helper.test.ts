/**
 * Claude Code's `headersHelper` for a remote MCP server (src/node/mcp/headers-helper.ts), with the
 * built CLI against a real Streamable HTTP MCP server that answers 401 unless the helper's headers
 * are there (test/support/mcp-http-server.ts, `requireHeaders`):
 * - your own server: the helper's headers reach the server in a full `yoke run` (over a static
 *   header of the same name in another letter case), with CLAUDE_CODE_MCP_SERVER_NAME/URL; the
 *   token it prints reaches neither the model, the session log nor the terminal;
 * - a repository's server, as root and as the unprivileged user: its helper does not run before
 *   you approve that definition (the approval shows the command), runs after, in the workspace,
 *   without the provider API key;
 * - bad helpers (not JSON, a number value, a failing exit, one that never ends): each fails its own
 *   server with a clear reason that never quotes what it printed; another server still runs; the
 *   slow one is stopped (process table).
 * MCP servers and their helpers run outside the command sandbox: no sandbox matrix.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/cli";
import { identities, runCliAs, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace } from "../support/sandbox-matrix";
import { startRecordingMcpServer, type RecordingMcpServer } from "../support/mcp-http-server";
import { runScriptedSession, toldOf } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const temps: string[] = [];
const servers: RecordingMcpServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

const TOKEN = "tok-mcpauth21-7f3a9c2e51";

async function server(requireHeaders: Record<string, string>): Promise<RecordingMcpServer> {
  const s = await startRecordingMcpServer("streamable", { requireHeaders });
  servers.push(s);
  return s;
}

function script(path: string, text: string): string {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}

describe("headersHelper", () => {
  it("your own server: the helper's headers (name and URL in its environment) reach the server at each connection, over a static header; the token reaches neither the model, the log nor the terminal", async () => {
    const ws = createWorkspaceWithHome("yoke-mcpauth21-own-", { "~/.yoke/settings.json": "{}" }, temps);
    const srv = await server({ authorization: `Bearer ${TOKEN}`, "x-server": "own" });
    writeFileSync(join(ws.home, "token"), TOKEN);
    const helper = script(
      join(ws.home, "helper.sh"),
      `#!/bin/sh\necho ran >> "$HOME/helper-runs"\nprintf '{"Authorization":"Bearer %s","X-Server":"%s","X-Url":"%s"}' "$(cat "$HOME/token")" "$CLAUDE_CODE_MCP_SERVER_NAME" "$CLAUDE_CODE_MCP_SERVER_URL"\n`,
    );
    const settings = {
      mcpServers: { own: { type: "http", url: srv.url, headers: { authorization: "Bearer stale", "X-Static": "kept" }, headersHelper: `sh ${helper}` } },
      permissions: { allow: ["mcp__own"] },
    };
    writeFileSync(join(ws.home, ".yoke", "settings.json"), JSON.stringify(settings));
    const r = await runScriptedSession(ws.cwd, ws.home, [{ toolCalls: [{ name: "mcp__own__add", input: { a: 2, b: 3 } }] }, { text: "done" }]);
    expect(r.code, r.stderr).toBe(0);
    expect(toldOf(r.requests)).toContain("sum=5");
    expect(srv.calls).toHaveLength(1);
    const h = srv.calls[0]!.headers;
    expect(h.authorization).toBe(`Bearer ${TOKEN}`);
    expect(h["x-url"]).toBe(srv.url);
    expect(h["x-static"]).toBe("kept");
    expect(readFileSync(join(ws.home, "helper-runs"), "utf8").trim().split("\n").length).toBeGreaterThanOrEqual(1);
    for (const [what, text] of [
      ["the requests to the model", JSON.stringify(r.requests)],
      ["the session log", JSON.stringify(r.events)],
      ["the terminal", r.stdout + r.stderr],
    ] as const)
      expect(text.includes(TOKEN), `the token in ${what}`).toBe(false);
  }, 120_000);

  it("the older HTTP+SSE transport gets the helper's headers too (the event stream and the messages)", async () => {
    const ws = createWorkspaceWithHome("yoke-mcpauth21-sse-", { "~/.yoke/settings.json": "{}" }, temps);
    const srv = await startRecordingMcpServer("sse", { requireHeaders: { authorization: `Bearer ${TOKEN}` } });
    servers.push(srv);
    writeFileSync(join(ws.home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { old: { type: "sse", url: srv.url, headersHelper: `printf '{"Authorization":"Bearer ${TOKEN}"}'` } } }));
    const r = await runCli(["mcp", "list", "--json", "--cwd", ws.cwd], { env: { HOME: ws.home } });
    const row = (JSON.parse(r.stdout) as { servers: Array<{ name: string; state: string }> }).servers.find((s) => s.name === "old");
    expect(row?.state, r.stdout).toBe("running");
  }, 60_000);

  it("a token the server refuses mid-session (401): Yoke connects again, which runs the helper again, and makes the call once more", async () => {
    const ws = createWorkspaceWithHome("yoke-mcpauth21-expiry-", { "~/.yoke/settings.json": "{}" }, temps);
    // Each run of the helper gives a new token; a token a call was made with is refused after that call (one-use, as if it expired).
    const srv: RecordingMcpServer = await startRecordingMcpServer("streamable", {
      accepts: (h) => /^Bearer tok-\d+$/.test(String(h.authorization)) && !srv.calls.some((c) => c.headers.authorization === h.authorization),
    });
    servers.push(srv);
    const helper = script(join(ws.home, "helper.sh"), `#!/bin/sh\necho ran >> "$HOME/runs"\nprintf '{"Authorization":"Bearer tok-%s"}' "$(wc -l < "$HOME/runs" | tr -d ' ')"\n`);
    writeFileSync(
      join(ws.home, ".yoke", "settings.json"),
      JSON.stringify({ mcpServers: { exp: { type: "http", url: srv.url, headersHelper: `sh ${helper}` } }, permissions: { allow: ["mcp__exp"] } }),
    );
    const r = await runScriptedSession(ws.cwd, ws.home, [
      { toolCalls: [{ name: "mcp__exp__add", input: { a: 1, b: 1 } }] },
      { toolCalls: [{ name: "mcp__exp__add", input: { a: 2, b: 2 } }] },
      { text: "done" },
    ]);
    expect(r.code, r.stderr).toBe(0);
    const told = toldOf(r.requests);
    expect(told).toContain("sum=2");
    expect(told).toContain("sum=4");
    expect(srv.calls.map((c) => c.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  }, 120_000);

  it.each(identities().list.map((w) => [w.label, w] as const))(
    "a repository's server (as %s): its helper runs only after you approve that definition (shown in the approval), in the workspace, without the provider API key",
    async (_label, id: Identity) => {
      const srv = await server({ authorization: `Bearer ${TOKEN}`, "x-key": "none" });
      const { base, home } = cellFolder("yoke-mcpauth21-repo-", id, temps, {});
      const helperSh = `#!/bin/sh\ntouch "$HOME/repo-helper-ran"\nprintf '{"Authorization":"Bearer %s","X-Key":"%s"}' "$(cat token.txt)" "\${ANTHROPIC_API_KEY:-none}"\n`;
      const mcpJson = (helper: string) => JSON.stringify({ mcpServers: { repo: { type: "http", url: srv.url, headersHelper: helper } } });
      const cwd = committedWorkspace(join(base, "ws"), { "token.txt": TOKEN, "helper.sh": helperSh, ".mcp.json": mcpJson("sh ./helper.sh") }, id);
      const env = { HOME: home, ANTHROPIC_API_KEY: "sk-ant-mcpauth21-never" };
      const ran = join(home, "repo-helper-ran");

      const before = await runCliAs(id, ["mcp", "list", "--cwd", cwd], { cwd, env });
      expect(before.stdout).toContain("repo  not_approved");
      expect(before.stdout).toContain(`running the command "sh ./helper.sh" on your machine at each connection for its headers`);
      expect(existsSync(ran), "the helper ran before the approval").toBe(false);

      const approve = await runCliAs(id, ["mcp", "approve", "repo", "--cwd", cwd], { cwd, env });
      expect(approve.code, approve.stderr).toBe(0);
      expect(existsSync(ran), "approving runs nothing").toBe(false);

      const after = await runCliAs(id, ["mcp", "list", "--json", "--cwd", cwd], { cwd, env });
      const row = (JSON.parse(after.stdout) as { servers: Array<{ name: string; state: string; lastError: string | null }> }).servers.find((s) => s.name === "repo");
      // Running: the server let it in, so the token from the workspace's file was sent and X-Key was "none" (no API key in its environment).
      expect(row?.state, after.stdout).toBe("running");
      expect(existsSync(ran)).toBe(true);

      // A changed helper is a new definition: not run until approved again.
      rmSync(ran, { force: true });
      writeFileSync(join(cwd, ".mcp.json"), mcpJson("sh ./helper.sh # v2"));
      const changed = await runCliAs(id, ["mcp", "list", "--cwd", cwd], { cwd, env });
      expect(changed.stdout).toContain("repo  not_approved");
      expect(existsSync(ran)).toBe(false);
    },
    120_000,
  );

  it("a helper that prints no JSON, a number, fails or never ends fails its own server with a clear reason (its output never quoted); another server runs; the slow one is stopped", async () => {
    const ws = createWorkspaceWithHome("yoke-mcpauth21-bad-", { "~/.yoke/settings.json": "{}" }, temps);
    const srv = await server({ authorization: `Bearer ${TOKEN}` });
    const good = `printf '{"Authorization":"Bearer ${TOKEN}"}'`;
    const slow = script(join(ws.home, `slow-helper-${process.pid}.js`), "setTimeout(() => process.stdout.write('{}'), 60000);\n");
    // What a helper prints is where a token is: it is never quoted in a message (the value comes from a file, so the command line does not hold it).
    const leak = join(ws.home, "leak");
    writeFileSync(leak, "LEAKED-SECRET-mcpauth21");
    const def = (headersHelper: string) => ({ type: "http", url: srv.url, headersHelper });
    const settings = {
      mcpServers: {
        notjson: def(`echo "Bearer $(cat ${leak}) is not JSON"`),
        number: def(`printf '{"Authorization": 1}'`),
        failing: def(`printf '{"A":"%s"}' "$(cat ${leak})"; echo 'helper broke' >&2; exit 3`),
        slow: def(`${JSON.stringify(process.execPath)} ${slow}`),
        good: def(good),
      },
    };
    writeFileSync(join(ws.home, ".yoke", "settings.json"), JSON.stringify(settings));
    const r = await runCli(["mcp", "list", "--json", "--cwd", ws.cwd], { env: { HOME: ws.home } });
    expect(r.code, "a failed server fails the listing").toBe(1);
    const rows = new Map((JSON.parse(r.stdout) as { servers: Array<{ name: string; state: string; lastError: string | null }> }).servers.map((s) => [s.name, s]));
    expect(rows.get("good")?.state).toBe("running");
    const why = (n: string) => {
      expect(rows.get(n)?.state, n).toBe("failed");
      return rows.get(n)!.lastError!;
    };
    expect(why("notjson")).toMatch(/its headersHelper .* did not print JSON: it must print a JSON object of header names to string values/);
    expect(why("number")).toContain('gave the header "Authorization" a number value: every value must be a string');
    expect(why("failing")).toContain("failed (exit code 3) — its stderr: helper broke");
    expect(why("slow")).toContain("did not finish within 10 s");
    expect(r.stdout + r.stderr).not.toMatch(/LEAKED-SECRET/);
    const left = readdirSync("/proc").filter((p) => {
      try {
        return /^\d+$/.test(p) && readFileSync(`/proc/${p}/cmdline`, "utf8").includes(slow);
      } catch {
        return false;
      }
    });
    expect(left, "the slow helper is stopped").toEqual([]);
  }, 120_000);
});
