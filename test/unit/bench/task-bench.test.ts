// The task benchmark's parts that need no CLI: reading tool output the way the policies do, the
// token accounting, the goal's locator, and edit_file taking SEARCH/REPLACE blocks (aider-style).
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashlineReady, lineTag } from "../../../src/core/edit/hashline";
import { editFileTool } from "../../../src/core/tools/edit-file";
import { grepTool } from "../../../src/core/tools/grep";
import { readFileTool } from "../../../src/core/tools/read-file";
import { locate } from "../../../src/bench/tasks/goal";
import { parseGrep, parseView } from "../../../src/bench/tasks/policies";
import { answerTokens, costUsd, countTokens, freshParts, MIN_CACHEABLE_TOKENS, requestParts, requestSegments, requestTokens, writtenTokens } from "../../../src/bench/tasks/tokens";
import { cacheBreaksOf, type TaskRun } from "../../../src/bench/tasks/driver";
import { perRequestReport } from "../../../src/bench/tasks/index";
import type { RecordedRequest } from "../../../src/demo/types";
import { callTool, createTempWorkspace, type TempWorkspace } from "../../support/workspace";

beforeAll(() => hashlineReady());

let ws: TempWorkspace;
afterEach(() => ws?.cleanup());

const FILE = "export function a() {\n  return 1;\n}\n\nexport function b() {\n  return 1;\n}\n";

describe("policies read the real tools' output", () => {
  it("takes anchors and text from read_file's hashline view", async () => {
    ws = createTempWorkspace({ "src/x.ts": FILE });
    const out = await callTool([readFileTool], "read_file", { path: "src/x.ts", offset: 5, limit: 2 }, ws.context());
    const view = parseView(out.text);
    expect(view).toEqual([
      { n: 5, anchor: lineTag(5, "export function b() {"), text: "export function b() {" },
      { n: 6, anchor: lineTag(6, "  return 1;"), text: "  return 1;" },
    ]);
  });

  it("groups grep's lines by file, with anchors the edit accepts", async () => {
    ws = createTempWorkspace({ "src/x.ts": FILE, "src/y.ts": "const b = 2;\n" });
    const out = await callTool([grepTool], "grep", { pattern: "\\bb\\b" }, ws.context());
    const files = parseGrep(out.text);
    expect([...files.keys()]).toEqual(["src/x.ts", "src/y.ts"]);
    const [line] = files.get("src/x.ts")!;
    expect(line).toMatchObject({ n: 5, text: "export function b() {" });
    const edit = await callTool([editFileTool], "edit_file", { path: "src/x.ts", edits: [{ op: "replace", pos: line!.anchor, lines: ["export function c() {"] }] }, ws.context());
    expect(edit.isError).toBeFalsy();
    expect(ws.read("src/x.ts")).toContain("export function c() {\n  return 1;\n}\n");
  });
});

describe("edit_file with SEARCH/REPLACE blocks as the edits", () => {
  it("applies every block of the text, as old_string/new_string pairs", async () => {
    ws = createTempWorkspace({ "src/x.ts": FILE });
    const blocks = [
      "src/x.ts",
      "<<<<<<< SEARCH",
      "export function a() {",
      "=======",
      "export function first() {",
      ">>>>>>> REPLACE",
      "",
      "<<<<<<< SEARCH",
      "export function b() {",
      "  return 1;",
      "=======",
      "export function b() {",
      "  return 2;",
      ">>>>>>> REPLACE",
    ].join("\n");
    const out = await callTool([editFileTool], "edit_file", { path: "src/x.ts", edits: blocks }, ws.context());
    expect(out.isError).toBeFalsy();
    expect(ws.read("src/x.ts")).toBe("export function first() {\n  return 1;\n}\n\nexport function b() {\n  return 2;\n}\n");
  });

  it("refuses blocks for another file and writes nothing", async () => {
    ws = createTempWorkspace({ "src/x.ts": FILE });
    const blocks = ["src/other.ts", "<<<<<<< SEARCH", "export function a() {", "=======", "export function z() {", ">>>>>>> REPLACE"].join("\n");
    const out = await callTool([editFileTool], "edit_file", { path: "src/x.ts", edits: blocks }, ws.context());
    expect(out.isError).toBe(true);
    expect(out.text).toContain('a block is for "src/other.ts", but the edit is for src/x.ts');
    expect(ws.read("src/x.ts")).toBe(FILE);
  });

  it("refuses a SEARCH block whose text is not in the file, and writes nothing", async () => {
    ws = createTempWorkspace({ "src/x.ts": FILE });
    const blocks = ["<<<<<<< SEARCH", "export function nope() {", "=======", "export function z() {", ">>>>>>> REPLACE"].join("\n");
    const out = await callTool([editFileTool], "edit_file", { path: "src/x.ts", edits: blocks }, ws.context());
    expect(out.isError).toBe(true);
    expect(ws.read("src/x.ts")).toBe(FILE);
  });
});

describe("the goal's locator", () => {
  const lines = FILE.split("\n");
  it("finds from/to after near, and the first line otherwise", () => {
    expect(locate(lines, { kind: "replace", from: "return 1;", lines: [] })).toEqual({ start: 1, end: 1 });
    expect(locate(lines, { kind: "replace", near: "function b", from: "return 1;", lines: [] })).toEqual({ start: 5, end: 5 });
    expect(locate(lines, { kind: "replace", from: "function b", to: "}", lines: [] })).toEqual({ start: 4, end: 6 });
    expect(locate(lines, { kind: "insert", after: "nowhere", lines: [] })).toBeUndefined();
  });
});

describe("token accounting", () => {
  const req = (messages: unknown[]): RecordedRequest => ({
    format: "anthropic",
    method: "POST",
    path: "/v1/messages",
    headers: {},
    stream: true,
    body: { system: "You are Yoke.", tools: [{ name: "read_file", description: "Read a file.", input_schema: {} }], messages },
  });

  it("counts the text the model sees with o200k_base, and the unchanged prefix as cached", () => {
    expect(countTokens("hello world")).toBe(2);
    const first = req([{ role: "user", content: "Fix the bug." }]);
    const second = req([
      { role: "user", content: "Fix the bug." },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1#ZZ|const a = 1;" }] },
    ]);
    const s1 = requestSegments(first);
    const s2 = requestSegments(second);
    expect(s2.slice(0, s1.length)).toEqual(s1);
    expect(s2[3]).toBe('assistant\nread_file {"path":"a.ts"}');
    const t1 = requestTokens(s1, undefined);
    const t2 = requestTokens(s2, s1);
    expect(t1.cached).toBe(0);
    expect(t2.shared).toBe(t1.input);
    // A prefix shorter than the priced model's cache minimum (1,024 tokens) is not served from the cache.
    expect(t2.cached).toBe(0);
    expect(requestTokens(s2, s1, 0).cached).toBe(t1.input);
    expect(t2.input).toBeGreaterThan(t1.input);
    // A changed system prompt breaks the prefix from there on.
    const changed = requestSegments({ ...second, body: { ...second.body, system: "Other." } });
    expect(requestTokens(changed, s2).shared).toBe(countTokens(s2[0]!));
  });

  it("serves a shared prefix from the cache from MIN_CACHEABLE_TOKENS on, and all of it", () => {
    expect(MIN_CACHEABLE_TOKENS).toBe(1024);
    const long = "word ".repeat(1100);
    const first = req([{ role: "user", content: long }]);
    const second = req([
      { role: "user", content: long },
      { role: "assistant", content: "ok" },
      { role: "user", content: "more" },
    ]);
    const s1 = requestSegments(first);
    const t1 = requestTokens(s1, undefined);
    expect(t1.input).toBeGreaterThanOrEqual(1024);
    const t2 = requestTokens(requestSegments(second), s1);
    expect(t2.cached).toBe(t1.input);
    expect(t2.shared).toBe(t1.input);
  });

  it("tells where a request's input goes: each tool definition, the system prompt, the messages; and the fresh part by tool", () => {
    const first = req([{ role: "user", content: "Fix the bug." }]);
    const parts = requestParts(first);
    expect(parts.get("tool read_file")).toBe(countTokens(JSON.stringify({ name: "read_file", description: "Read a file.", input_schema: {} })));
    expect(parts.get("system")).toBe(countTokens("system\nYou are Yoke.") + 3);
    // The parts add up to the request's input.
    expect([...parts.values()].reduce((a, b) => a + b, 0)).toBe(requestTokens(requestSegments(first), undefined).input);
    const second = req([
      { role: "user", content: "Fix the bug." },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "run_command", input: { command: "grep -n x a.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "3:x" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "read_file", input: { path: "a.ts" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "1#ZZ|const a = 1;" }] },
    ]);
    const fresh = new Map<string, number>();
    const s1 = requestSegments(first);
    const s2 = requestSegments(second);
    freshParts(s2, s1, fresh);
    expect([...fresh.keys()]).toEqual(["call run_command:grep", "result run_command:grep", "call read_file", "result read_file"]);
    expect([...fresh.values()].reduce((a, b) => a + b, 0)).toBe(requestTokens(s2, s1).input - requestTokens(s2, s1).shared);
  });

  it("counts answers and prices them with the stated table", () => {
    expect(answerTokens("Done.", [])).toBe(countTokens("Done."));
    expect(answerTokens(undefined, [{ name: "grep", input: { pattern: "x" } }])).toBe(countTokens('grep {"pattern":"x"}'));
    expect(costUsd(1_000_000, 1_000_000, 1_000_000)).toBeCloseTo(3 + 0.3 + 15, 6);
    // Fresh input written to the cache costs 1.25x: a prompt of 1,024 tokens or more writes all its fresh tokens, a shorter one nothing.
    expect(costUsd(1_000_000, 0, 0, 1_000_000)).toBeCloseTo(3.75, 6);
    expect(writtenTokens({ input: 1500, cached: 1200 })).toBe(300);
    expect(writtenTokens({ input: 1023, cached: 0 })).toBe(0);
  });
});

describe("request by request", () => {
  const run = (policy: string, perRequest: TaskRun["perRequest"], cacheBreaks?: number) =>
    ({ task: "t", policy, perRequest, ...(cacheBreaks === undefined ? {} : { cacheBreaks }) }) as unknown as TaskRun;

  it("means each request's figures over the runs that had it, and the later requests' share against 95 %", () => {
    const text = perRequestReport([
      run(
        "yoke",
        [
          { input: 2000, cached: 0, shared: 0, output: 10 },
          { input: 2200, cached: 2000, shared: 2000, output: 5 },
        ],
        0,
      ),
      run(
        "yoke",
        [
          { input: 1000, cached: 0, shared: 0, output: 20 },
          { input: 1400, cached: 0, shared: 1000, output: 5 },
          { input: 1500, cached: 1400, shared: 1400, output: 1 },
        ],
        0,
      ),
    ]);
    expect(text).toContain("#1 (2 runs): input 1,500, cached 0, shared 0, fresh 1,500, output 15");
    expect(text).toContain("#2 (2 runs): input 1,800, cached 1,000, shared 1,500, fresh 300, output 5");
    expect(text).toContain("#3 (1 runs): input 1,500, cached 1,400, shared 1,400, fresh 100, output 1");
    // Later requests: 2,200 + 1,400 + 1,500 = 5,100 input; cached 3,400; shared 4,400.
    expect(text).toContain(
      "Requests after each run's first: 3, input 5,100, cached 3,400 (66.7 %; shared with the request before, whatever its length: 4,400, 86.3 %), fresh 700; 95 % cached would allow 255 fresh.",
    );
    expect(text).toContain("Cache breaks recorded by Yoke's prompt-cache watch: 0.");
  });

  it("reads the cache breaks from yoke run --json, and says when there are none to read", () => {
    expect(cacheBreaksOf(JSON.stringify({ answer: "Done.", cost: { total: { cacheBreaks: 2 } } }))).toBe(2);
    expect(cacheBreaksOf("Done.")).toBeUndefined();
    expect(perRequestReport([run("x", [{ input: 1, cached: 0, shared: 0, output: 1 }])])).toContain("prompt-cache watch: not reported.");
  });
});
