/**
 * Red team 18: the MCP config's file:line notes (session 15) counted each server's line from the
 * start of the file — O(servers × size). A repository's 1 MB `.mcp.json` of 40,000 servers kept
 * `yoke mcp list` (and every session start that reads the workspace's servers) busy for minutes
 * (over 120 s here, on the built CLI before the fix). The lines are now counted in one pass. The
 * listing is still right: every server is listed with its own line. Built CLI, as root and as an
 * unprivileged user (no sandbox is involved: no server is started).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyLines } from "../../src/core/settings/jsonc";
import { ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, type Identity } from "../support/identities";

const { list: who, missing } = identities();
const temps: string[] = [];

beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

it("runs as root and as an unprivileged user (or says why it cannot)", () => {
  if (missing) console.warn(missing);
  expect(who.length).toBeGreaterThan(0);
});

it("keyLines names each key's own line (comments, values over several lines, CRLF, a BOM)", () => {
  const text =
    '\ufeff{\r\n  // a comment\r\n  "servers": {\r\n    "a": { "command": "x",\r\n      "args": [\r\n "1"] },\r\n    /* two\r\n lines */ "b": {},\r\n\r\n    "c": {"url": "http://x"}\r\n  }\r\n}\r\n';
  expect([...keyLines(text, ["servers"])]).toEqual([
    ["a", 4],
    ["b", 8],
    ["c", 10],
  ]);
  expect([...keyLines('{"x": 1,\n"y": 2}', [])]).toEqual([
    ["x", 1],
    ["y", 2],
  ]);
});

const SERVERS = 40_000;

describe.each(who.map((w) => [w.label, w] as const))("as %s", (_label, id: Identity) => {
  it("`yoke mcp list` in a repository whose .mcp.json is 1 MB of 40,000 servers answers (each server with its line), not after minutes", async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-red18-mcp-")));
    temps.push(base);
    const home = join(base, "home");
    const ws = join(base, "repo");
    mkdirSync(home);
    mkdirSync(ws);
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: ws });
    const body = Array.from({ length: SERVERS }, (_, i) => `"s${i}":{"command":"x"}`).join(",\n");
    writeFileSync(join(ws, ".mcp.json"), `{"mcpServers":{\n${body}\n}}`);
    chownTree(base, id);
    // Before the fix this took over 120 s on this machine (the CLI was still counting lines when killed); the bound is generous for a loaded machine.
    const r = await runCliAs(id, ["mcp", "list", "--cwd", ws], { cwd: ws, env: { HOME: home }, timeoutMs: 90_000 });
    expect(r.signal, "yoke mcp list was still running after 90 s").toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`from ${join(ws, ".mcp.json")}:2\n`);
    expect(r.stdout).toContain(`from ${join(ws, ".mcp.json")}:${SERVERS + 1}\n`);
    expect(r.stdout).toContain(`yoke mcp approve s${SERVERS - 1}`);
  }, 120_000);
});
