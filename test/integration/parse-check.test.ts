/**
 * The parse check of tolerant edits in a whole `yoke run`: the session recipe hands the tools the
 * Node host's grammars (SessionServices.syntax), the model's edit_file call over real HTTP.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer | undefined;
let dir: string | undefined;
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const PY = "def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n    return result\n";
// SEARCH has a typo in a kept line ("itmes"): only the similarity stage places it.
const SEARCH = "    result = 0\n    for item in itmes:\n        result += item.price\n    return result";

describe("parse check through yoke run", () => {
  it("refuses a similar-text edit that would break a Python file, then applies the corrected one", async () => {
    dir = mkdtempSync(join(tmpdir(), "yoke-parse-"));
    const ws = join(dir, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "total.py"), PY);
    const edit = (replace: string) => ({ name: "edit_file", input: { path: "total.py", old_string: SEARCH, new_string: SEARCH.replace("return result", replace) } });
    server = await startScriptedLlmServer({ script: [{ toolCalls: [edit("return round(result, 2")] }, { toolCalls: [edit("return round(result, 2)")] }, { text: "Done." }] });
    const r = await runCli(
      [
        "run",
        "--trust",
        "--provider",
        "openai-compatible",
        "--base-url",
        server.openaiBaseUrl,
        "--model",
        "qwen3-coder",
        "--cwd",
        ws,
        "--session-dir",
        join(dir, "s"),
        "--permission-mode",
        "acceptEdits",
        "round the total",
      ],
      { env: { HOME: join(dir, "home") } },
    );
    expect(r.code, r.stderr).toBe(0);
    const results = (n: number) => (server!.requests[n]!.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "tool").map((m) => m.content);
    const first = results(1).at(-1)!;
    expect(first).toContain("Nothing was written to total.py: the edit applies only through tolerance (similar-text), and the result would not parse as Python, which the file did before: line 5");
    expect(first).toContain(">    5|     return round(result, 2");
    expect(results(2).at(-1)).toContain("Edited total.py");
    expect(readFileSync(join(ws, "total.py"), "utf8")).toBe(PY.replace("return result", "return round(result, 2)"));
  });
});
