// A Roo Code mode written in the mapping form (`customModes` keyed by slug, its edit group as
// `{group: "edit", options: {fileRegex}}`) is a custom agent with its edit tools, and its fileRegex
// holds: through `task`, its write to a Markdown file lands, its write to a source file is refused
// and nothing is written. A full `yoke run` with the scripted model.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";
import { subagentDepthOf } from "../support/scripted-run";

let server: ScriptedServer | undefined;
let base: string | undefined;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (base) rmSync(base, { recursive: true, force: true });
});

type Wire = { role: string; content?: unknown };
const toolResults = (r: RecordedRequest) => ((r.body.messages as Wire[]) ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));

it("a mode in map form edits only what its fileRegex allows", async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-roo-map-")));
  const ws = join(base, "ws");
  const home = join(base, "home");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(ws, ".roomodes"),
    [
      "customModes:",
      "  docs:",
      "    name: Docs",
      "    roleDefinition: You write docs (DOCS-ROLE).",
      "    whenToUse: Documentation changes",
      "    groups:",
      "      - read",
      "      - group: edit",
      "        options:",
      "          fileRegex: \\.md$",
      "          description: Markdown only",
      "",
    ].join("\n"),
  );
  const queues: Record<number, Array<{ text?: string; toolCalls?: Array<{ name: string; input: Record<string, unknown> }> }>> = {
    0: [{ toolCalls: [{ name: "task", input: { description: "Docs", prompt: "Write the notes.", subagent_type: "docs" } }] }, { text: "Done." }],
    1: [
      { toolCalls: [{ name: "write_file", input: { path: "NOTES.md", content: "# Notes\n" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "src/x.ts", content: "export const x = 1;\n" } }] },
      { text: "Wrote what I could." },
    ],
  };
  server = await startScriptedLlmServer({ script: async (q: RecordedRequest) => queues[subagentDepthOf(q)]?.shift() ?? { text: "(no more turns)" } });
  const r = await runCli(
    [
      "run",
      "--trust",
      "write the notes",
      "--provider",
      "openai-compatible",
      "--base-url",
      server.openaiBaseUrl,
      "--model",
      "m",
      "--cwd",
      ws,
      "--session-dir",
      join(base, "s"),
      "--permission-mode",
      "acceptEdits",
    ],
    { env: { HOME: home, OPENAI_API_KEY: "k" } },
  );
  expect(r.code, r.stderr).toBe(0);
  const child = server.requests.filter((q) => subagentDepthOf(q) === 1);
  expect(child.length).toBe(3);
  expect(JSON.stringify(child[0]!.body)).toContain("DOCS-ROLE");
  // Its edit tools are there (the map form used to leave them out), and the limit holds on disk.
  expect((child[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual(expect.arrayContaining(["write_file", "edit_file"]));
  expect(readFileSync(join(ws, "NOTES.md"), "utf8")).toBe("# Notes\n");
  expect(existsSync(join(ws, "src/x.ts"))).toBe(false);
  expect(toolResults(child[2]!).join("\n")).toMatch(/\\\.md\$/);
}, 180_000);
