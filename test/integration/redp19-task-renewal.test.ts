// Red team P (session 19) on red team L's renewal: when a Streamable HTTP server answers 404
// ("Session not found"), Yoke starts a new session and makes the tool call once more. That is right
// when the 404 answers the call itself (the server never ran it). But a tool that runs as an MCP
// task is accepted first (tools/call → a task) and then polled (tasks/get): a 404 on a poll came
// after the server took the call, and the renewal sent the call again — the tool ran twice (a mail
// sent twice), from one call the model made and the gate allowed once.
//
// A Streamable HTTP server (test/support/mcp-task-404-server.mjs, JSON answers) whose one tool must
// run as a task and whose first tasks/get answers 404; the person's own server (~/.yoke/settings.json),
// a full `yoke run` of the built CLI against the scripted model, as root and as the unprivileged user.
// Outcome: the server received tools/call once, and the model is told the call's fate is unknown.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chownTree, type Identity } from "../support/identities";
import { cellFolder, committedWorkspace, securityMatrix, sessionAs } from "../support/sandbox-matrix";

const { who, temps } = securityMatrix();
const SERVER = join(__dirname, "..", "support", "mcp-task-404-server.mjs");
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

async function startServer(base: string): Promise<{ url: string; count: string }> {
  const portFile = join(base, "port");
  const count = join(base, "calls");
  child = spawn(process.execPath, [SERVER, portFile, count], { stdio: "ignore" });
  const deadline = Date.now() + 60_000;
  while (!existsSync(portFile) || readFileSync(portFile, "utf8") === "") {
    if (Date.now() > deadline) throw new Error("the test server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${readFileSync(portFile, "utf8")}/mcp`, count };
}

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("a task call the server took is not sent again when a poll answers 404", async () => {
    const { base, home } = cellFolder("yoke-redp19-task-", id, temps, {});
    const ws = committedWorkspace(join(base, "ws"), { "README.md": "# app\n" }, id);
    const { url, count } = await startServer(base);
    const settingsFile = join(home, ".yoke", "settings.json");
    writeFileSync(settingsFile, JSON.stringify({ mcpServers: { t: { type: "http", url } } }));
    chownTree(settingsFile, id);
    const s = await sessionAs(id, home, ws, join(home, "sessions"), [{ toolCalls: [{ name: "mcp__t__send_mail", input: {} }] }]);
    expect(s.code, s.stderr).toBe(0);
    const calls = existsSync(count) ? readFileSync(count, "utf8").trim().split("\n").length : 0;
    expect(calls, s.told).toBe(1);
    expect(s.told).toMatch(/404|no longer knows|session/i);
  });
});
