// The built CLI sends the built-in tools' JSON Schemas from the table the build wrote
// (src/core/tools/schema-table.ts): what reaches the model must be exactly what converting this
// source's zod schemas gives, for the whole tool set and for a `--tools` set where run_command's
// schema names fewer tools. Fails when the table and the zod schemas drift apart (a stale or
// wrongly keyed table), not only when the table is missing.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { createLoadToolsTool } from "../../src/core/deferred-tools";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { zodJsonSchema } from "../../src/core/tools/registry";
import { trimTools } from "../../src/core/tools/types";
import { ensureBuilt, runCli } from "../support/cli";

beforeAll(() => ensureBuilt(), 120_000);
const temps: string[] = [];
afterAll(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

/** The source's tools after `--tools` (all when undefined), each tool's schema converted from zod. */
function expectedSchemas(kept?: string[]): Map<string, string> {
  const all = createBuiltinTools();
  const tools = kept ? trimTools(all.filter((t) => kept.includes(t.name))) : all;
  const out = new Map(tools.map((t) => [t.name, JSON.stringify(zodJsonSchema(t.schema))]));
  out.set("load_tools", JSON.stringify(zodJsonSchema(createLoadToolsTool([], () => []).schema)));
  return out;
}

describe("the built CLI's tool schemas", () => {
  it("are the zod schemas' JSON, for all tools and for a --tools set", async () => {
    const server = await startScriptedLlmServer({ script: [{ text: "One." }, { text: "Two." }] });
    try {
      const run = async (extra: string[]) => {
        const work = mkdtempSync(join(tmpdir(), "yoke-schema-table-"));
        temps.push(work);
        const r = await runCli(["run", "--trust", "--provider", "anthropic", "--base-url", server.anthropicBaseUrl, "--cwd", work, "--session-dir", join(work, ".s"), ...extra, "hi"], {
          env: { HOME: work, ANTHROPIC_API_KEY: "test-key" },
        });
        expect(r.code, r.stderr).toBe(0);
        const tools = server.requests.at(-1)!.body.tools as Array<{ name: string; input_schema: unknown }>;
        return new Map(tools.map((t) => [t.name, JSON.stringify(t.input_schema)]));
      };
      const whole = await run([]);
      const expected = expectedSchemas();
      expect(whole.size).toBeGreaterThanOrEqual(6);
      for (const [name, schema] of whole) expect(schema, name).toBe(expected.get(name));
      const trimmed = await run(["--tools", "run_command,kill_command,read_file"]);
      const expectedTrimmed = expectedSchemas(["run_command", "kill_command", "read_file"]);
      // kill_command is deferred, but a deferred tool `--tools` names is sent whole.
      expect([...trimmed.keys()].sort()).toEqual(["kill_command", "read_file", "run_command"]);
      for (const [name, schema] of trimmed) expect(schema, name).toBe(expectedTrimmed.get(name));
      // The variant differs from the whole set's: it names kill_command but not command_output.
      expect(trimmed.get("run_command")).not.toBe(whole.get("run_command"));
      expect(trimmed.get("run_command")).toContain("kill_command");
      expect(trimmed.get("run_command")).not.toContain("command_output");
    } finally {
      await server.close();
    }
  }, 120_000);
});
