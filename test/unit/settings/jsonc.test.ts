import { describe, expect, it } from "vitest";
import { findDuplicateKeys, parseJsonc } from "../../../src/core/settings/jsonc";

describe("the one settings parser (jsonc-parser)", () => {
  it("reads comments and trailing commas, also a commented-out entry after a trailing comma (.mcp.json)", () => {
    expect(parseJsonc('{"permissions": {"deny": ["Bash(rm:*)"],}}')).toEqual({ ok: true, value: { permissions: { deny: ["Bash(rm:*)"] } } });
    const mcp = '{\n  "mcpServers": {\n    "a": {"command": "x"},\n    // "b": {"command": "y"},\n    /* "c": {} */\n  }\n}\n';
    expect(parseJsonc(mcp)).toEqual({ ok: true, value: { mcpServers: { a: { command: "x" } } } });
    expect(parseJsonc('\ufeff{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it("never returns a partial value: any syntax error is the line and column of the first one", () => {
    expect(parseJsonc('{"permissions": {"allow": ["Bash(ls)"]\n  "deny": []}}')).toEqual({ ok: false, line: 2, column: 3, message: 'unexpected "\\"deny\\"" (a comma was expected)' });
    expect(parseJsonc("{ broken")).toMatchObject({ ok: false, line: 1, column: 3 });
    expect(parseJsonc("")).toMatchObject({ ok: false, message: "unexpected end of file (a value was expected)" });
  });

  it("finds keys written twice, with the object's path", () => {
    expect(findDuplicateKeys('{\n  "permissions": {\n    "deny": ["Read(./.env)"],\n    "deny": []\n  },\n  "model": "a",\n  "model": "b"\n}')).toEqual([
      { path: ["permissions"], key: "deny", line: 4, column: 5 },
      { path: [], key: "model", line: 7, column: 3 },
    ]);
  });
});
