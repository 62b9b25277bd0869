import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { silentLogger } from "../../../src/core/ports";
import { createProvider } from "../../../src/core/providers/create";
import type { ModelMessage, Provider, ProviderConfig } from "../../../src/core/providers/types";
import { createLoadToolsTool, listedByLoader } from "../../../src/core/deferred-tools";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import type { ToolContext } from "../../../src/core/tools/types";
import { createNodeWorkspaceFs } from "../../../src/node/node-fs";
import { DEMO_FILE, demoModel, pickFile } from "../../../src/demo/demo-model";
import { type ScriptedServer, startScriptedLlmServer } from "../../../src/demo/scripted-llm-server";
import { collectEvents, textOf } from "../../support/llm";

let server: ScriptedServer | undefined;
let root: string;

beforeEach(async () => {
  await hashlineReady();
  root = fs.mkdtempSync(path.join(os.tmpdir(), "yoke-demo-"));
  fs.writeFileSync(path.join(root, "README.md"), "# Sample project\n\nA small thing.\nIt has three more lines.\n");
  fs.writeFileSync(path.join(root, "package.json"), '{ "name": "sample" }\n');
  fs.mkdirSync(path.join(root, "src"));
  fs.writeFileSync(path.join(root, "src", "index.ts"), "export const x = 1;\n");
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(root, { recursive: true, force: true });
});

/** A minimal agent loop: real provider over HTTP, real built-in tools on a temp workspace, the deferred ones behind load_tools as in a session. */
async function drive(provider: Provider, prompt: string): Promise<{ toolNames: string[]; answer: string }> {
  const builtin = createBuiltinTools();
  const tools = [...builtin, createLoadToolsTool(listedByLoader(builtin), () => builtin)];
  const registry = new ToolRegistry(tools);
  const wfs = createNodeWorkspaceFs(root);
  const messages: ModelMessage[] = [{ role: "user", text: prompt }];
  const toolNames: string[] = [];
  for (let turn = 0; turn < 8; turn++) {
    const events = await collectEvents(provider, { system: "demo", messages, tools: registry.specs() });
    const calls = events.flatMap((e) => (e.type === "tool_call" ? [e] : []));
    messages.push({ role: "assistant", text: textOf(events), toolCalls: calls.map(({ id, name, input }) => ({ id, name, input })) });
    if (!calls.length) return { toolNames, answer: textOf(events) };
    for (const c of calls) {
      toolNames.push(c.name);
      const v = registry.validate(c.name, c.input);
      if (!v.ok) throw new Error(`demo model sent invalid ${c.name} input: ${v.error}`);
      const ctx = {
        fs: wfs,
        search: undefined as never,
        signal: new AbortController().signal,
        sessionId: "s",
        callId: c.id,
        log: silentLogger,
        readState: new Map(),
        record: () => {},
      } as ToolContext;
      const out = await registry.get(c.name)!.run(v.args, ctx);
      messages.push({ role: "tool", callId: c.id, name: c.name, content: out.text, isError: out.isError ?? false });
    }
  }
  throw new Error("the demo model did not finish in 8 turns");
}

async function demoProvider(format: "openai" | "anthropic"): Promise<Provider> {
  server = await startScriptedLlmServer({ script: demoModel });
  const config: ProviderConfig =
    format === "openai" ? { provider: "openai-compatible", model: "demo", baseUrl: server.openaiBaseUrl } : { provider: "anthropic", model: "demo", baseUrl: server.anthropicBaseUrl };
  return createProvider(config);
}

describe("demo model", () => {
  for (const format of ["openai", "anthropic"] as const) {
    it(`lists, reads the README and answers in markdown over the ${format} wire format`, async () => {
      const provider = await demoProvider(format);
      const { toolNames, answer } = await drive(provider, "What is in this project?");
      expect(toolNames).toEqual(["list_files", "read_file"]);
      expect(answer).toContain("**Demo model.**");
      expect(answer).toContain("`README.md`: **4** lines");
      expect(answer).toContain("“# Sample project”");
      expect(answer).toContain("**3** entries (`src/`, `README.md`, `package.json`)");
      expect(server!.requests.every((r) => r.format === format)).toBe(true);
    });
  }

  it("keeps a todo list and writes yoke-demo.md when asked to write a todo file", async () => {
    const provider = await demoProvider("anthropic");
    const { toolNames, answer } = await drive(provider, "Please create a todo and write a file");
    expect(toolNames).toEqual(["list_files", "read_file", "todo_write", "write_file"]);
    expect(fs.readFileSync(path.join(root, DEMO_FILE), "utf8")).toContain("written by Yoke's demo model");
    expect(answer).toContain(`Created \`${DEMO_FILE}\``);
  });

  it("reports a denied write as failed over the OpenAI wire, which has no error flag", () => {
    const body = {
      model: "demo",
      tools: [{ type: "function", function: { name: "write_file" } }],
      messages: [
        { role: "user", content: "write something" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "write_file", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "c1", content: "The user denied write_file. Do not retry the same call." },
      ],
    };
    const turn = demoModel({ format: "openai", method: "POST", path: "/v1/chat/completions", headers: {}, body, stream: true });
    expect(turn.toolCalls).toBeUndefined();
    expect(turn.text).toContain("- `write_file` failed: The user denied write_file.");
    expect(turn.text).not.toContain("Created");
  });

  it("prefers a README, then package.json, then the first file", () => {
    expect(pickFile("Workspace root (depth 2):\nsrc/\n  a.ts\nCHANGELOG.md\nreadme.txt\n")).toBe("readme.txt");
    expect(pickFile("Workspace root (depth 2):\nLICENSE\npackage.json\n")).toBe("package.json");
    expect(pickFile("Workspace root (depth 2):\nsrc/\n  a.ts\nMakefile\n")).toBe("Makefile");
    expect(pickFile("Workspace root (depth 2):\n(empty folder)")).toBeUndefined();
  });
});
