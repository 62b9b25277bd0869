// More real MCP servers from the npm registry than server-everything, installed by the test into a
// temp folder with npm (exact versions, not vendored), run through full `yoke run` sessions with
// the scripted model (issue 22's held-out set):
// - @playwright/mcp (Microsoft's browser server) driving Debian's chromium headless against a page
//   on 127.0.0.1: the page's text reaches the model through the tool result, and its screenshot
//   as an image; no browser process is left after the run.
// - @modelcontextprotocol/server-filesystem started with no folder argument: it takes its allowed
//   folders from the client's MCP roots (Yoke's workspace folder), reads a workspace file, and is
//   refused outside it.
// - @modelcontextprotocol/server-memory (the knowledge-graph server): entities the model creates
//   are written to the file its config names (MEMORY_FILE_PATH) and found again by a search in the
//   next call; a second session reads them back from that file.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import type { ScriptedTurn } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { scriptedRunArgs } from "../support/scripted-run";
import { createWorkspaceWithHome } from "../support/workspace";

const PACKAGES = ["@playwright/mcp@0.0.86", "@modelcontextprotocol/server-filesystem@2026.8.31", "@modelcontextprotocol/server-memory@2026.8.31"];
const CHROMIUM = "/usr/bin/chromium";

const temps: string[] = [];
let bin = "";
let page: Server | undefined;
let pageUrl = "";

beforeAll(async () => {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "yoke-npm-servers-"));
  temps.push(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "servers", private: true }));
  // From the registry, as a user's npx would (exact versions; no vendored copy).
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...PACKAGES], { cwd: dir, stdio: "pipe", timeout: 280_000 });
  bin = join(dir, "node_modules", ".bin");
  page = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>Yoke held-out page</title><body><h1>Inventory</h1><p>There are 42 blue widgets.</p></body>");
  });
  await new Promise<void>((r) => page!.listen(0, "127.0.0.1", r));
  pageUrl = `http://127.0.0.1:${(page.address() as { port: number }).port}/`;
}, 300_000);

afterAll(async () => {
  await new Promise((r) => (page ? page.close(r) : r(undefined)));
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

type Msg = { role: string; content?: unknown };
const toolTexts = (body: Record<string, unknown>) => (body.messages as Msg[]).filter((m) => m.role === "tool").map((m) => String(m.content));

async function session(files: Record<string, string>, script: ScriptedTurn[] | ((cwd: string) => ScriptedTurn[])) {
  const { cwd, home } = createWorkspaceWithHome("yoke-npm-srv-", files, temps, { realpath: true });
  const llm = await startScriptedLlmServer({ script: typeof script === "function" ? script(cwd) : script });
  try {
    const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, join(home, "sessions")), "go"], { env: { HOME: home } });
    return { ...r, cwd, home, requests: llm.requests };
  } finally {
    await llm.close();
  }
}

/** Live processes whose command line contains `text`. */
function processesWith(text: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      const state = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmd.includes(text) && state !== "Z") out.push(`${name} ${cmd.replace(/\0/g, " ").slice(0, 120)}`);
    } catch {
      // gone
    }
  }
  return out;
}

describe("real MCP servers from the npm registry, beyond server-everything", () => {
  it("@playwright/mcp: navigates chromium to a 127.0.0.1 page, the page's text and its screenshot reach the model, no browser is left", async () => {
    expect(existsSync(CHROMIUM), "Debian's chromium (the e2e setup installs it)").toBe(true);
    const profile = mkdtempSync(join(tmpdir(), "yoke-pw-profile-"));
    temps.push(profile);
    const r = await session(
      {
        "~/.yoke/settings.json": JSON.stringify({
          mcpServers: {
            pw: { command: join(bin, "playwright-mcp"), args: ["--headless", "--no-sandbox", "--browser", "chromium", "--executable-path", CHROMIUM, "--user-data-dir", profile] },
          },
          permissions: { allow: ["mcp__pw"] },
        }),
      },
      [
        { toolCalls: [{ name: "mcp__pw__browser_navigate", input: { url: pageUrl } }] },
        { toolCalls: [{ name: "mcp__pw__browser_evaluate", input: { function: "() => document.body.innerText" } }] },
        { toolCalls: [{ name: "mcp__pw__browser_take_screenshot", input: { type: "png" } }] },
        { text: "The page lists 42 blue widgets." },
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    const [navigated, read, shot] = toolTexts(r.requests[3]!.body);
    expect(navigated).toContain("Page Title: Yoke held-out page");
    expect(read).toContain("There are 42 blue widgets.");
    expect(shot).toMatch(/\[image \(image\/png, [\d.]+ (KB|bytes)\) returned by the tool: image 1, attached\]/);
    // The screenshot itself, as an image part of the next request (Chat Completions: a user message after the tool messages).
    const images = (r.requests[3]!.body.messages as Msg[])
      .filter((m) => m.role === "user" && Array.isArray(m.content))
      .flatMap((m) => m.content as Array<{ type: string; image_url?: { url: string } }>)
      .filter((p) => p.type === "image_url");
    expect(images).toHaveLength(1);
    expect(images[0]!.image_url!.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(r.stdout).toContain("42 blue widgets");
    // Neither the server nor the browser it started outlives the run.
    expect(processesWith(profile)).toEqual([]);
    expect(processesWith(join(bin, "playwright-mcp"))).toEqual([]);
  }, 240_000);

  it("server-filesystem with no folder argument takes the workspace from Yoke's MCP roots: reads inside, refused outside", async () => {
    const outside = mkdtempSync(join(tmpdir(), "yoke-outside-"));
    temps.push(outside);
    writeFileSync(join(outside, "secret.txt"), "not for the server");
    const r = await session(
      {
        "notes/todo.md": "- ship the held-out run\n",
        "~/.yoke/settings.json": JSON.stringify({ mcpServers: { fs: { command: join(bin, "mcp-server-filesystem") } }, permissions: { allow: ["mcp__fs"] } }),
      },
      (cwd) => [
        { toolCalls: [{ name: "mcp__fs__list_allowed_directories", input: {} }] },
        { toolCalls: [{ name: "mcp__fs__read_text_file", input: { path: join(cwd, "notes", "todo.md") } }] },
        { toolCalls: [{ name: "mcp__fs__read_text_file", input: { path: join(outside, "secret.txt") } }] },
        { text: "done" },
      ],
    );
    expect(r.code, r.stderr).toBe(0);
    const [allowed, inside, denied] = toolTexts(r.requests[3]!.body);
    // No folder on its command line: the folders it allows are the roots Yoke gave it (the workspace).
    expect(allowed).toContain(r.cwd);
    expect(allowed).not.toContain(outside);
    expect(inside).toContain("- ship the held-out run");
    expect(denied).toMatch(/Access denied|outside allowed directories/i);
    expect(denied).not.toContain("not for the server");
  }, 180_000);

  it("server-memory: entities the model creates land in the file its config names and are found by the next call; a later session reads them back", async () => {
    const store = mkdtempSync(join(tmpdir(), "yoke-memory-"));
    temps.push(store);
    const memoryFile = join(store, "memory.jsonl");
    const settings = JSON.stringify({ mcpServers: { memory: { command: join(bin, "mcp-server-memory"), env: { MEMORY_FILE_PATH: memoryFile } } }, permissions: { allow: ["mcp__memory"] } });
    const r = await session({ "~/.yoke/settings.json": settings }, [
      { toolCalls: [{ name: "mcp__memory__create_entities", input: { entities: [{ name: "Widget", entityType: "product", observations: ["There are 42 blue widgets"] }] } }] },
      { toolCalls: [{ name: "mcp__memory__search_nodes", input: { query: "blue" } }] },
      { text: "remembered" },
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [created, found] = toolTexts(r.requests[2]!.body);
    expect(created).toContain("Widget");
    expect(found).toContain("There are 42 blue widgets");
    // On disk, where the config said.
    const lines = readFileSync(memoryFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; name?: string; observations?: string[] });
    expect(lines).toEqual([expect.objectContaining({ type: "entity", name: "Widget", observations: ["There are 42 blue widgets"] })]);
    // Another session (another process, another server start) reads the graph back from the file.
    const again = await session({ "~/.yoke/settings.json": settings }, [{ toolCalls: [{ name: "mcp__memory__read_graph", input: {} }] }, { text: "read" }]);
    expect(again.code, again.stderr).toBe(0);
    expect(toolTexts(again.requests[1]!.body)[0]).toContain("There are 42 blue widgets");
  }, 180_000);
});
