// MCP tasks (2025-11-25): a tool whose `execution.taskSupport` is "required" cannot be called as a
// plain tools/call (the SDK's client refuses it: "requires task-based execution"). The real
// server-everything from the npm registry has one, simulate-research-query (four stages of 1 s,
// each a task status). Yoke calls such a tool as a task (the SDK's callToolStream: tasks/get until
// done, then tasks/result), shows each status as progress, and the model gets the tool's result.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createNodeMcp } from "../../src/node/mcp/setup";
import { everythingArgv, everythingSettings } from "../support/mcp-fixtures";
import { pidsOf } from "../support/processes";

const dir = mkdtempSync(join(tmpdir(), "yoke-mcp-tasks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a tool that must run as a task", () => {
  it("is called as a task: its statuses are shown as progress, its result is the call's", async () => {
    const argv = everythingArgv("tasks");
    const settings = join(dir, "settings.json");
    writeFileSync(settings, everythingSettings(argv, []));
    const mcp = createNodeMcp({ cwd: dir, home: dir, storageDir: join(dir, ".yoke"), trusted: true, extraSettings: [settings], env: { PATH: process.env.PATH } });
    const progress: Array<{ progress: number; message?: string }> = [];
    try {
      const servers = await mcp.hub.catalog();
      const tool = servers.find((s) => s.config.name === "everything")?.tools?.find((t) => t.name === "simulate-research-query");
      expect(tool).toBeDefined();
      const r = await mcp.hub.call("everything", "simulate-research-query", { topic: "tide pools" }, { signal: new AbortController().signal, timeoutMs: 60_000, onProgress: (p) => progress.push(p) });
      const text = JSON.stringify(r.content);
      expect(r.isError ?? false).toBe(false);
      expect(text).toContain("tide pools");
      expect(progress.map((p) => p.message ?? "").join("\n")).toMatch(/Gathering sources|Analyzing content|Synthesizing findings|Generating report/);

      // Stopped while it runs (the user's Stop, a timeout): the call ends at once, and the server still answers.
      const ac = new AbortController();
      const stopped = mcp.hub.call("everything", "simulate-research-query", { topic: "kelp" }, { signal: ac.signal, timeoutMs: 60_000, onProgress: () => ac.abort() });
      await expect(stopped).rejects.toThrow();
      const echo = await mcp.hub.call("everything", "echo", { message: "still here" }, { signal: new AbortController().signal, timeoutMs: 30_000 });
      expect(JSON.stringify(echo.content)).toContain("still here");
    } finally {
      await mcp.dispose();
    }
    expect(pidsOf(argv)).toEqual([]);
  }, 90_000);
});
