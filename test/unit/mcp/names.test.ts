import { describe, expect, it } from "vitest";
import { assignServerParts, assignToolNames, MAX_TOOL_NAME, mcpToolName, sanitizeServerName } from "../../../src/core/mcp/names";
import { ruleAppliesTo } from "../../../src/core/permissions/rule-syntax";

describe("MCP tool names", () => {
  it("are mcp__<server>__<tool> with characters outside [a-zA-Z0-9_-] replaced", () => {
    expect(mcpToolName("everything", "echo")).toBe("mcp__everything__echo");
    expect(mcpToolName("rec.db", "get item")).toBe("mcp__rec_db__get_item");
    expect(mcpToolName("Ünïcode srv", "tööl/x")).toBe("mcp__n_code_srv__t__l_x");
  });

  it("fold underscores in the server part so mcp__<server> rules name exactly one server", () => {
    expect(sanitizeServerName("my__srv")).toBe("my_srv");
    expect(sanitizeServerName("__")).toMatch(/^server_[a-z0-9]{6}$/);
    const name = mcpToolName("my__srv", "do__it");
    expect(name).toBe("mcp__my_srv__do__it");
    expect(ruleAppliesTo("mcp__my_srv", name)).toBe(true);
    expect(ruleAppliesTo("mcp__my", name)).toBe(false);
    expect(ruleAppliesTo("mcp__my_srv__*", name)).toBe(true);
    expect(ruleAppliesTo("mcp__my_srv__do__it", name)).toBe(true);
  });

  it("cap at 64 characters with a hash of the full name, so two long names stay distinct", () => {
    const a = mcpToolName("server", "x".repeat(80) + "a");
    const b = mcpToolName("server", "x".repeat(80) + "b");
    expect(a.length).toBe(MAX_TOOL_NAME);
    expect(b.length).toBe(MAX_TOOL_NAME);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(a.startsWith("mcp__server__xxx")).toBe(true);
  });

  it("resolve collisions deterministically: in listing order, against the session's other tools too", () => {
    const tools = [
      { server: "s", tool: "a.b" },
      { server: "s", tool: "a_b" },
      { server: "s", tool: "a b" },
    ];
    expect(assignToolNames(tools)).toEqual(["mcp__s__a_b", "mcp__s__a_b_2", "mcp__s__a_b_3"]);
    expect(assignToolNames(tools)).toEqual(assignToolNames(tools));
    expect(assignToolNames([{ server: "s", tool: "x" }], ["mcp__s__x"])).toEqual(["mcp__s__x_2"]);
    const long = assignToolNames([
      { server: "s", tool: "y".repeat(70) },
      { server: "s", tool: "y".repeat(70) },
    ]);
    expect(long[1]!.length).toBeLessThanOrEqual(MAX_TOOL_NAME);
    expect(new Set(long).size).toBe(2);
  });

  it("make server parts distinct when two server names sanitise alike", () => {
    expect([...assignServerParts(["a.b", "a b", "c"]).values()]).toEqual(["a_b", "a_b_2", "c"]);
  });
});
