// The Node hub with real processes: which workspace servers start (trust, approvals remembered per
// definition, Claude Code's enabled/disabled lists), results described for the model, and no
// process left after dispose.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatResult } from "../../../src/core/mcp/adapter";
import { buildMcpTools, DEFAULT_MCP_BUDGET } from "../../../src/core/mcp/extension";
import { createMcpSearchTool, searchTools } from "../../../src/core/mcp/search";
import { createNodeMcp } from "../../../src/node/mcp/setup";
import type { ApprovalRequest } from "../../../src/node/mcp/hub";
import { pidsOf } from "../../support/processes";
import { EVERYTHING } from "../../support/mcp-fixtures";
import { createWorkspaceWithHome } from "../../support/workspace";

const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function setup(files: Record<string, string>) {
  const { cwd, home, base } = createWorkspaceWithHome("yoke-mcp-hub-", files, temps);
  return { cwd, home, base };
}

/** A "server" that only leaves a marker file: proof that it was started. */
function marker(base: string, name: string) {
  const path = join(base, `${name}.started`);
  return { path, def: { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(path)}, "x")`] } };
}

async function catalogOf(cwd: string, home: string, trusted: boolean, approve?: (r: ApprovalRequest) => Promise<"allow" | "deny" | undefined>) {
  const mcp = createNodeMcp({ cwd, home, trusted, approve, env: { ...process.env, HOME: home } });
  try {
    return await mcp.hub.catalog();
  } finally {
    await mcp.dispose();
  }
}

describe("workspace-defined servers", () => {
  it("in an untrusted workspace are not started (nor asked about); the user's own still are", async () => {
    const { cwd, home, base } = setup({});
    const repo = marker(base, "repo");
    const user = marker(base, "user");
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { repo: repo.def } }));
    mkdirSync(join(home, ".yoke"), { recursive: true });
    writeFileSync(join(home, ".yoke", "settings.json"), JSON.stringify({ mcpServers: { user: user.def } }));
    let asked = 0;
    const cat = await catalogOf(cwd, home, false, async () => {
      asked++;
      return "allow";
    });
    expect(cat.find((s) => s.config.name === "repo")).toMatchObject({ state: "untrusted" });
    expect(existsSync(repo.path)).toBe(false);
    expect(asked).toBe(0);
    expect(existsSync(user.path)).toBe(true);
  }, 30_000);

  it("ask once; the answer is remembered; a changed definition asks again", async () => {
    const { cwd, home, base } = setup({});
    const first = marker(base, "first");
    mkdirSync(join(cwd, ".vscode"), { recursive: true });
    writeFileSync(join(cwd, ".vscode", "mcp.json"), JSON.stringify({ servers: { tool: first.def } }));
    const asked: ApprovalRequest[] = [];
    const approve = async (r: ApprovalRequest) => {
      asked.push(r);
      return "allow" as const;
    };
    await catalogOf(cwd, home, true, approve);
    expect(asked.map((r) => r.server.name)).toEqual(["tool"]);
    expect(asked[0]!.description).toContain(process.execPath);
    expect(existsSync(first.path)).toBe(true);
    rmSync(first.path);
    await catalogOf(cwd, home, true, approve);
    expect(asked).toHaveLength(1); // remembered
    expect(existsSync(first.path)).toBe(true);
    const changed = marker(base, "changed");
    writeFileSync(join(cwd, ".vscode", "mcp.json"), JSON.stringify({ servers: { tool: changed.def } }));
    const cat = await catalogOf(cwd, home, true, async () => "deny");
    expect(cat[0]).toMatchObject({ state: "disabled" });
    expect(existsSync(changed.path)).toBe(false);
    // The refusal is remembered too, without asking again.
    let again = 0;
    await catalogOf(cwd, home, true, async () => {
      again++;
      return "allow";
    });
    expect(again).toBe(0);
    expect(existsSync(changed.path)).toBe(false);
  }, 30_000);

  it("with no one to ask (the CLI), a new workspace server is not started and says how to approve it", async () => {
    const { cwd, home, base } = setup({});
    const m = marker(base, "m");
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { repo: m.def } }));
    const cat = await catalogOf(cwd, home, true);
    expect(cat[0]!.state).toBe("not_approved");
    expect(cat[0]!.detail).toContain("yoke mcp approve repo");
    expect(existsSync(m.path)).toBe(false);
  }, 30_000);

  it("honours Claude Code's enabledMcpjsonServers / disabledMcpjsonServers / enableAllProjectMcpServers; a committed .claude/settings.json cannot approve", async () => {
    const { cwd, home, base } = setup({});
    const a = marker(base, "a");
    const b = marker(base, "b");
    const c = marker(base, "c");
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { a: a.def, b: b.def, c: c.def } }));
    mkdirSync(join(home, ".claude"), { recursive: true });
    mkdirSync(join(cwd, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ enabledMcpjsonServers: ["a", "b"] }));
    writeFileSync(join(cwd, ".claude", "settings.local.json"), JSON.stringify({ disabledMcpjsonServers: ["b"] }));
    writeFileSync(join(cwd, ".claude", "settings.json"), JSON.stringify({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ["c"] }));
    let asked: string[] = [];
    const cat = await catalogOf(cwd, home, true, async (r) => {
      asked.push(r.server.name);
      return undefined;
    });
    expect(existsSync(a.path)).toBe(true);
    expect(cat.find((s) => s.config.name === "b")).toMatchObject({ state: "disabled", detail: expect.stringContaining("disabledMcpjsonServers") });
    expect(existsSync(b.path)).toBe(false);
    expect(asked).toEqual(["c"]);
    expect(existsSync(c.path)).toBe(false);
    // Claude Code's per-project approvals in ~/.claude.json count too.
    writeFileSync(join(home, ".claude.json"), JSON.stringify({ projects: { [cwd]: { enabledMcpjsonServers: ["c"] } } }));
    asked = [];
    await catalogOf(cwd, home, true, async (r) => {
      asked.push(r.server.name);
      return undefined;
    });
    expect(asked).toEqual([]);
    expect(existsSync(c.path)).toBe(true);
  }, 30_000);
});

describe("a real server's results and tools", () => {
  it("describes images and resources in text, lists tools, defers beyond the budget, and leaves no process", async () => {
    const tag = `--yoke-hub=${process.pid}-${Math.random().toString(36).slice(2)}`;
    const argv = [process.execPath, EVERYTHING, "stdio", tag];
    const { cwd, home } = setup({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: { command: argv[0], args: argv.slice(1) } } }) });
    const mcp = createNodeMcp({ cwd, home, trusted: true });
    try {
      const cat = await mcp.hub.catalog();
      expect(cat[0]).toMatchObject({ state: "running", fromCache: false });
      expect(pidsOf(argv)).toHaveLength(1);
      const signal = new AbortController().signal;
      const image = formatResult(await mcp.hub.call("everything", "get-tiny-image", {}, { signal, timeoutMs: 20_000 }));
      // The image goes with the result (for the provider to send), not in its text.
      expect(image.text).toMatch(/\[image \(image\/png, [\d.]+ (KB|bytes)\) returned by the tool: image 1, attached\]/);
      expect(image.text).not.toMatch(/[A-Za-z0-9+/]{200}/); // no base64
      expect(image.images).toHaveLength(1);
      expect(image.images![0]!.mimeType).toBe("image/png");
      expect(Buffer.from(image.images![0]!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
      const links = formatResult(await mcp.hub.call("everything", "get-resource-links", { count: 2 }, { signal, timeoutMs: 20_000 }));
      expect(links.text).toContain("[resource link");
      const structured = formatResult(await mcp.hub.call("everything", "get-structured-content", { location: "New York" }, { signal, timeoutMs: 20_000 }));
      expect(structured.text).toContain("temperature");

      const tools = buildMcpTools(cat, mcp.hub, { maxTools: 5, maxSchemaTokens: DEFAULT_MCP_BUDGET.maxSchemaTokens });
      expect(tools.filter((t) => !t.deferred)).toHaveLength(5);
      expect(tools.every((t) => t.group === "mcp:everything" && t.permission === t.name && t.capabilities.network)).toBe(true);
      const deferred = tools.filter((t) => t.deferred);
      expect(searchTools(deferred, "structured")[0]!.name).toBe("mcp__everything__get-structured-content");
      const search = createMcpSearchTool(deferred);
      const found = await search.run({ query: "structured content" }, {} as never);
      expect(found.text).toContain("mcp__everything__get-structured-content");
      expect(found.text).toContain("location");
    } finally {
      await mcp.dispose();
    }
    expect(pidsOf(argv)).toEqual([]);
    // The next session knows the tools without starting the server (the cache), and starts it on first use.
    const next = createNodeMcp({ cwd, home, trusted: true });
    try {
      const cat = await next.hub.catalog();
      expect(cat[0]).toMatchObject({ state: "configured", fromCache: true });
      expect(cat[0]!.tools!.map((t) => t.name)).toContain("echo");
      expect(pidsOf(argv)).toEqual([]);
      const echo = await next.hub.call("everything", "echo", { message: "lazy" }, { signal: new AbortController().signal, timeoutMs: 20_000 });
      expect(formatResult(echo).text).toBe("Echo: lazy");
      expect(next.hub.status()[0]!.state).toBe("running");
    } finally {
      await next.dispose();
    }
    expect(pidsOf(argv)).toEqual([]);
  }, 60_000);

  it("a server that fails to start is reported with its stderr; calls then say why", async () => {
    const { cwd, home } = setup({
      "~/.yoke/settings.json": JSON.stringify({
        mcpServers: { bad: { command: process.execPath, args: ["-e", "console.error('missing TOKEN'); process.exit(3)"] }, nope: { command: "/no/such/binary" } },
      }),
    });
    const mcp = createNodeMcp({ cwd, home, trusted: true });
    try {
      const cat = await mcp.hub.catalog();
      const bad = cat.find((s) => s.config.name === "bad")!;
      expect(bad.state).toBe("failed");
      expect(bad.detail).toContain("missing TOKEN");
      expect(cat.find((s) => s.config.name === "nope")!.detail).toContain("command not found: /no/such/binary");
      await expect(mcp.hub.call("bad", "x", {}, { signal: new AbortController().signal, timeoutMs: 5000 })).rejects.toThrow(/failed to start/);
    } finally {
      await mcp.dispose();
    }
  }, 30_000);

  it("a server that dies is reported and restarted on its next use, a few times at most", async () => {
    const tag = `--yoke-restart=${process.pid}-${Math.random().toString(36).slice(2)}`;
    const argv = [process.execPath, EVERYTHING, "stdio", tag];
    const { cwd, home } = setup({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: { command: argv[0], args: argv.slice(1) } } }) });
    const mcp = createNodeMcp({ cwd, home, trusted: true });
    const changes: string[] = [];
    mcp.hub.onChange((s) => changes.push(`${s.state}${s.detail ? `: ${s.detail}` : ""}`));
    const call = () => mcp.hub.call("everything", "echo", { message: "again" }, { signal: new AbortController().signal, timeoutMs: 20_000 });
    try {
      await mcp.hub.catalog();
      const [first] = mcp.hub.pids();
      process.kill(first!, "SIGKILL");
      for (let i = 0; i < 50 && mcp.hub.status()[0]!.state === "running"; i++) await new Promise((r) => setTimeout(r, 100));
      expect(mcp.hub.status()[0]).toMatchObject({ state: "failed", detail: expect.stringContaining("restarted on its next use") });
      expect(formatResult(await call()).text).toBe("Echo: again");
      const [second] = mcp.hub.pids();
      expect(second).not.toBe(first);
      expect(changes).toContain("running");
      // Killed again and again: after MAX_RESTARTS restarts it is not started any more.
      for (let n = 0; n < 3; n++) {
        process.kill(mcp.hub.pids()[0]!, "SIGKILL");
        for (let i = 0; i < 50 && mcp.hub.status()[0]!.state === "running"; i++) await new Promise((r) => setTimeout(r, 100));
        if (n < 2) await call();
      }
      await expect(call()).rejects.toThrow(/not started again in this session/);
    } finally {
      await mcp.dispose();
    }
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);
});

describe("roots", () => {
  it("a change of the workspace folders reaches a running server (roots/list_changed, then roots/list)", async () => {
    const { cwd, home, base } = setup({ "~/.yoke/settings.json": JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } } }) });
    const second = join(base, "second");
    mkdirSync(second);
    const mcp = createNodeMcp({ cwd, home, trusted: true, roots: [cwd], env: { ...process.env, HOME: home } });
    const signal = new AbortController().signal;
    const roots = async () => formatResult(await mcp.hub.call("everything", "get-roots-list", {}, { signal, timeoutMs: 20_000 })).text;
    try {
      await mcp.hub.catalog();
      expect(await roots()).toContain(`Current MCP Roots (1 total):\n\n1. ws\n   URI: file://${cwd}`);
      mcp.hub.setRoots([cwd, second]);
      let text = "";
      for (let i = 0; i < 50 && !text.includes("(2 total)"); i++) {
        await new Promise((r) => setTimeout(r, 100));
        text = await roots();
      }
      expect(text).toContain(`2. second\n   URI: file://${second}`);
    } finally {
      await mcp.dispose();
    }
  }, 60_000);
});
