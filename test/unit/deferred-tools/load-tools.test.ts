import { describe, expect, it } from "vitest";
import { createLoadToolsTool, deferredToolsExtension, listedByLoader, loadToolsDescription } from "../../../src/core/deferred-tools";
import type { ExtensionApi } from "../../../src/core/extensions/types";
import { AgentSession } from "../../../src/core/loop/agent-session";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../../src/core/ports";
import { createBuiltinTools } from "../../../src/core/tools/builtin";
import { ToolRegistry } from "../../../src/core/tools/registry";
import type { ToolContext, ToolDefinition } from "../../../src/core/tools/types";
import { createFakeProvider, textTurn } from "../../support/fake-provider";
import { createMemoryStore } from "../../support/memory-store";

const builtin = createBuiltinTools();
const ctx = {} as ToolContext;

describe("ToolRegistry.keepOnly (yoke run --tools)", () => {
  it("keeps only the named tools: the others are neither sent nor callable", () => {
    const reg = new ToolRegistry(builtin);
    reg.keepOnly(["run_command"]);
    expect(reg.specs().map((s) => s.name)).toEqual(["run_command"]);
    expect(reg.names()).toEqual(["run_command"]);
    expect(reg.get("read_file")).toBeUndefined();
    const v = reg.validate("read_file", { path: "a" });
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.error).toBe('Unknown tool "read_file". Available tools: run_command. Call one of these by its exact name.');
  });

  it("lists a deferred tool it was given by name, in registration order", () => {
    const reg = new ToolRegistry(builtin);
    reg.keepOnly(["kill_command", "run_command"]);
    expect(reg.specs().map((s) => s.name)).toEqual(["run_command", "kill_command"]);
  });

  it("throws on a name the session does not have, naming the ones it has, and changes nothing", () => {
    const reg = new ToolRegistry(builtin);
    expect(() => reg.keepOnly(["bash", "run_command"])).toThrow(
      'no tool named "bash"; this session\'s tools: read_file, list_files, glob, grep, edit_file, write_file, run_command, command_output, kill_command, todo_write',
    );
    expect(reg.names()).toHaveLength(10);
  });
});

describe("deferred tool definitions (load_tools)", () => {
  const deferred = listedByLoader(builtin);

  it("the deferred built-in tools describe themselves in one line; the loader lists them by name", () => {
    expect(deferred.map((t) => t.name)).toEqual(["list_files", "command_output", "kill_command", "todo_write"]);
    expect(loadToolsDescription(deferred)).toBe(
      "Get the definitions of these tools (available, listed here by name only), then call them like any other:\n" +
        "- list_files: list a folder as a tree\n" +
        "- command_output: read a command's output (a background one, or all of a long one)\n" +
        "- kill_command: stop a background command\n" +
        "- todo_write: keep a todo list for multi-step work (shown to the user)",
    );
  });

  it("answers with each named tool's whole description and the JSON Schema the provider would get", async () => {
    const reg = new ToolRegistry(builtin);
    const tool = createLoadToolsTool(deferred, () => builtin);
    const out = await tool.run({ names: ["kill_command"] }, ctx);
    const kill = builtin.find((t) => t.name === "kill_command")!;
    expect(out.isError).toBe(false);
    expect(out.text).toBe(`1 tool loaded; call it by name:\n\nkill_command: ${kill.description}\nArguments (JSON Schema): ${JSON.stringify(reg.jsonSchema("kill_command"))}`);
    expect(out.meta).toEqual({ loaded: ["kill_command"] });
  });

  it("says when a name is listed already or is no deferred tool", async () => {
    const tool = createLoadToolsTool(deferred, () => builtin);
    const out = await tool.run({ names: ["grep", "bash"] }, ctx);
    expect(out.isError).toBe(true);
    expect(out.text).toBe('grep is already listed with its definition: call it directly.\n\nNo deferred tool is named "bash"; these are: list_files, command_output, kill_command, todo_write.');
    const both = await tool.run({ names: ["command_output", "bash", "command_output"] }, ctx);
    expect(both.isError).toBe(false);
    expect(both.text.startsWith("1 tool loaded; call it by name:\n\ncommand_output: ")).toBe(true);
    expect(both.text.endsWith('No deferred tool is named "bash"; these are: list_files, command_output, kill_command, todo_write.')).toBe(true);
  });

  it("is offered only when the session has deferred tools with a brief (an MCP tool deferred without one is mcp_search's)", async () => {
    const offered = async (tools: ToolDefinition[]) => {
      const added: ToolDefinition[] = [];
      const api = { session: { tools: () => tools }, addTools: (t: readonly ToolDefinition[]) => added.push(...t) } as unknown as ExtensionApi;
      await deferredToolsExtension().setup(api);
      return added.map((t) => t.name);
    };
    expect(await offered(builtin)).toEqual(["load_tools"]);
    expect(await offered(builtin.filter((t) => !t.deferred))).toEqual([]);
    const mcpDeferred = { ...builtin[0]!, name: "mcp__s__x", deferred: true, brief: undefined };
    expect(await offered([...builtin.filter((t) => !t.deferred), mcpDeferred])).toEqual([]);
  });
});

describe("load_tools under --tools (AgentSessionOptions.onlyTools): built from what is kept", () => {
  const store = () => createMemoryStore();
  const services = { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger };
  const session = async (onlyTools?: string[]) => {
    const provider = createFakeProvider([textTurn("ok")]);
    const s = await AgentSession.create({
      store: store(),
      provider,
      tools: builtin,
      services,
      approver: { ask: async () => ({ decision: "allow" }) },
      retry: { maxRetries: 0 },
      compaction: false,
      ...(onlyTools ? { onlyTools } : {}),
    });
    await s.send("hi");
    await s.end();
    const tools = provider.requests[0]!.tools ?? [];
    return { names: tools.map((t) => t.name), loader: tools.find((t) => t.name === "load_tools")?.description, s };
  };

  it("without --tools: every deferred tool is behind the loader", async () => {
    const r = await session();
    expect(r.names).toEqual(["read_file", "glob", "grep", "edit_file", "write_file", "run_command", "load_tools"]);
    expect(r.loader).toBe(loadToolsDescription(listedByLoader(builtin)));
  });

  it("a deferred tool named with load_tools stays behind it; the tools --tools dropped are neither listed nor described", async () => {
    const r = await session(["run_command", "kill_command", "load_tools"]);
    expect(r.names).toEqual(["run_command", "load_tools"]);
    expect(r.loader).toBe("Get the definitions of these tools (available, listed here by name only), then call them like any other:\n- kill_command: stop a background command");
    const loaded = await r.s.tool("load_tools")!.run({ names: ["command_output", "kill_command"] }, ctx);
    expect(loaded.text.startsWith("1 tool loaded; call it by name:\n\nkill_command: ")).toBe(true);
    expect(loaded.text.endsWith('No deferred tool is named "command_output"; these are: kill_command.')).toBe(true);
  });

  it("a deferred tool named without load_tools is sent whole, and no loader is offered", async () => {
    const r = await session(["kill_command", "run_command"]);
    expect(r.names).toEqual(["run_command", "kill_command"]);
    expect(r.loader).toBeUndefined();
  });

  it("load_tools named when nothing deferred is kept: refused before any request, as any tool the session does not have", async () => {
    const provider = createFakeProvider([textTurn("never")]);
    await expect(
      AgentSession.create({ store: store(), provider, tools: builtin, services, approver: { ask: async () => ({ decision: "allow" }) }, compaction: false, onlyTools: ["run_command", "load_tools"] }),
    ).rejects.toThrow('no tool named "load_tools"; this session\'s tools: read_file, list_files, glob, grep, edit_file, write_file, run_command, command_output, kill_command, todo_write');
    expect(provider.requests).toHaveLength(0);
  });
});
