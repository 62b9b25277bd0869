// The demo model's tour through the real CLI and loop: each suggested prompt makes its feature
// happen for real — a two-hunk edit_file, a read-only command in the sandbox, a command that needs
// permission, a loop the stuck detector stops, a compaction — and every answer says it is the demo model.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoModel } from "../../src/demo/demo-model";
import { CHECKPOINT_LINE, DEMO_BANNER, DEMO_PROMPTS, DEMO_TOUR, twoHunkEdits } from "../../src/demo/demo-tour";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { parseLog } from "../../src/core/session/session-log";
import type { SessionEvent } from "../../src/core/events";
import { ensureBuilt, runCli } from "../support/cli";

let server: ScriptedServer;
const temps: string[] = [];
const README = ["# Widget", "", "Widgets are counted by count.ts.", "", "## Usage", "", "Call count() with a list.", "", "## License", "", "MIT"].join("\n") + "\n";

beforeAll(async () => {
  ensureBuilt();
  server = await startScriptedLlmServer({ script: demoModel });
}, 120_000);
afterAll(async () => {
  await server?.close();
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

async function tour(prompt: string, mode = "default", before?: string): Promise<{ ws: string; events: SessionEvent[]; stdout: string; stderr: string; code: number | null }> {
  const dir = mkdtempSync(join(tmpdir(), "yoke-demo-tour-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), README);
  writeFileSync(join(ws, "count.ts"), "export function count(xs: number[]): number {\n  return xs.length;\n}\n");
  const sessions = join(dir, "sessions");
  const opts = ["--provider", "openai-compatible", "--base-url", server.openaiBaseUrl, "--model", "demo", "--cwd", ws, "--session-dir", sessions, "--permission-mode", mode];
  let r;
  if (before) {
    // An earlier prompt first (a tour stop of its own), then `prompt` in the same session.
    await runCli(["run", "--trust", ...opts, before], { env: { HOME: dir } });
    const id = readdirSync(sessions)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    r = await runCli(["resume", "--trust", id, ...opts, prompt], { env: { HOME: dir } });
  } else r = await runCli(["run", "--trust", ...opts, prompt], { env: { HOME: dir } });
  const file = readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!;
  const events = parseLog(readFileSync(join(sessions, file), "utf8").split("\n").filter(Boolean)).events;
  return { ws, events, stdout: r.stdout, stderr: r.stderr, code: r.code };
}

const text = (events: SessionEvent[]) =>
  events
    .filter((e) => e.type === "assistant_message")
    .map((e) => (e.type === "assistant_message" ? e.text : ""))
    .join("\n");
const stop = (label: string) => DEMO_TOUR.find((s) => s.label === label)!.text;

describe("the demo model's tour", () => {
  it("suggests one prompt per feature, each distinct", () => {
    expect(DEMO_PROMPTS.map((p) => p.label)).toEqual([
      "Review a two-part edit",
      "Run a sandboxed command",
      "Answer a permission question",
      "Stop a stuck loop",
      "Compact the context",
      "Restore a checkpoint",
    ]);
    expect(new Set(DEMO_PROMPTS.map((p) => p.text)).size).toBe(DEMO_PROMPTS.length);
  });

  it("plans two separate hunks with unique old strings, in the file's comment syntax", () => {
    const edits = twoHunkEdits("README.md", README.trimEnd().split("\n"))!;
    expect(edits).toHaveLength(2);
    expect(edits[0]!.old_string).toBe("# Widget");
    expect(edits[1]!.old_string).toBe("MIT");
    expect(edits[0]!.new_string).toContain("<!-- Change 1 of 2");
    expect(twoHunkEdits("a.py", ["x = 1", "", "", "", "y = 2"])![1]!.new_string).toBe("y = 2\n# Change 2 of 2 by Yoke's demo model: reject this one.");
    expect(twoHunkEdits("a.ts", ["a", "b"])).toBeUndefined();
  });

  it("edits a file in two places with one edit_file call", async () => {
    const { ws, events, code } = await tour(stop("Review a two-part edit"), "acceptEdits");
    expect(code).toBe(0);
    const edit = events.find((e) => e.type === "tool_result" && e.name === "edit_file");
    expect(edit?.type === "tool_result" && edit.isError).toBe(false);
    const after = readFileSync(join(ws, "README.md"), "utf8");
    expect(after).toContain("# Widget\n<!-- Change 1 of 2 by Yoke's demo model: accept this one. -->\n");
    expect(after).toContain("MIT\n<!-- Change 2 of 2 by Yoke's demo model: reject this one. -->\n");
    expect(text(events)).toContain(DEMO_BANNER);
  });

  it("runs a read-only command in the sandbox without asking", async () => {
    const { events, code } = await tour(stop("Run a sandboxed command"));
    expect(code).toBe(0);
    const decision = events.find((e) => e.type === "permission_decision");
    expect(decision).toMatchObject({ decision: "allow" });
    const result = events.find((e) => e.type === "tool_result" && e.name === "run_command");
    expect(result?.type === "tool_result" ? result.output : "").toContain("Hello from the Yoke sandbox");
    expect(text(events)).toContain("Hello from the Yoke sandbox");
  });

  it("gets stuck listing the same folder and is stopped by the stuck detector", async () => {
    const { events } = await tour(stop("Stop a stuck loop"));
    const stuck = events.filter((e) => e.type === "stuck");
    expect(stuck.map((e) => (e.type === "stuck" ? e.action : ""))).toContain("stop");
    expect(events.filter((e) => e.type === "tool_result" && e.name === "list_files").length).toBeLessThan(12);
  });

  it("without earlier turns, says a compaction needs some, and compacts nothing", async () => {
    const { events } = await tour(stop("Compact the context"));
    expect(events.some((e) => e.type === "compaction")).toBe(false);
    expect(text(events)).toContain("Try the other suggested prompts first");
  });

  it("after another prompt, pretends its context is full, and Yoke compacts it and sends the request again", async () => {
    const { events, code, stderr } = await tour(stop("Compact the context"), "default", stop("Run a sandboxed command"));
    expect(code, stderr + JSON.stringify(events.filter((e) => e.type === "error" || e.type === "compaction").slice(-4))).toBe(0);
    const compaction = events.find((e) => e.type === "compaction");
    expect(compaction).toMatchObject({ trigger: "overflow" });
    expect(text(events)).toContain("Yoke compacted the context and sent the request again");
  });

  it("after an earlier turn, changes a file and says how to restore the turn before; the restore puts the file back", async () => {
    const { ws, events, code } = await tour(stop("Restore a checkpoint"), "acceptEdits", stop("Review a two-part edit"));
    expect(code).toBe(0);
    const afterTurn1 = readFileSync(join(ws, "README.md"), "utf8").replace(`\n<!-- ${CHECKPOINT_LINE} -->`, "");
    expect(readFileSync(join(ws, "README.md"), "utf8")).toContain(`# Widget\n<!-- ${CHECKPOINT_LINE} -->\n`);
    // A checkpoint was taken before the change, and the answer names turn 1's Restore….
    expect(events.some((e) => e.type === "checkpoint")).toBe(true);
    const answer = text(events);
    expect(answer).toContain(DEMO_BANNER);
    expect(answer).toContain("under my answer to turn 1 (the turn before this one) press **Restore…**");
    expect(answer).toContain("**Files only**");
    const sessions = join(dirname(ws), "sessions");
    const id = readdirSync(sessions)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");
    const r = await runCli(["checkpoints", "restore", id, "1", "--files", "--session-dir", sessions, "--cwd", ws], { env: { HOME: dirname(ws) } });
    expect(r.code).toBe(0);
    expect(readFileSync(join(ws, "README.md"), "utf8")).toBe(afterTurn1);
    expect(afterTurn1).toContain("Change 1 of 2");
  });

  it("as the first prompt of a session, points at turn 0 in Yoke: Restore Checkpoint…", async () => {
    const { events } = await tour(stop("Restore a checkpoint"), "acceptEdits");
    expect(text(events)).toContain("**Yoke: Restore Checkpoint…**");
    expect(text(events)).toContain("turn 0");
  });
});
