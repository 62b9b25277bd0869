// The CLI on the shared store (real dist/cli.js, real processes, a scripted model): sessions go to
// ~/.yoke/sessions/<workspace-key>/ however the folder is named; old per-path folders are moved
// in; a session a live `yoke run` is writing is listed as in use, `yoke resume` refuses it (exit 1,
// naming the holder) and `yoke fork` continues a copy; after a kill -9 the session resumes.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { readExchange } from "../../src/demo/wire-conversation";
import { parseLog } from "../../src/core/session/session-log";
import { defaultSessionDir, legacyCliSessionDir } from "../../src/node/session-location";
import { ensureBuilt, runCli, startCli } from "../support/cli";
import { closeServerAndRemoveTemps } from "../support/teardown";

let server: ScriptedServer | undefined;
const temps: string[] = [];

function setup() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-cli-store-")));
  temps.push(dir);
  const ws = join(dir, "ws");
  const home = join(dir, "home");
  mkdirSync(ws);
  mkdirSync(home);
  writeFileSync(join(ws, "README.md"), "# Widget\n");
  return { dir, ws, home, env: { HOME: home } };
}

const model = (url: string) => ["--provider", "openai-compatible", "--base-url", url, "--model", "m"];
const events = (dir: string, id: string) =>
  parseLog(
    readFileSync(join(dir, `${id}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean),
  ).events;

beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

describe("the CLI on the shared session store", () => {
  it("keeps sessions in ~/.yoke/sessions/<workspace-key>/, one store however the folder is reached", async () => {
    const { dir, ws, home, env } = setup();
    server = await startScriptedLlmServer({ script: (req) => ({ text: `Noted: ${readExchange(req).userText}` }) });
    const r = await runCli(["run", "--trust", ...model(server.openaiBaseUrl), "--cwd", ws, "--json", "first"], { env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { sessionId: string; sessionDir: string };
    const store = defaultSessionDir(ws, home);
    expect(out.sessionDir).toBe(store);
    expect(readdirSync(store)).toEqual([`${out.sessionId}.jsonl`]); // the lock is gone with the process
    symlinkSync(ws, join(dir, "ws-link"));
    const listed = await runCli(["sessions", "--cwd", join(dir, "ws-link"), "--json"], { env });
    expect(JSON.parse(listed.stdout)).toMatchObject({ sessionDir: store, sessions: [{ id: out.sessionId, title: "first", status: "done", inUseBy: null }] });
    const resumed = await runCli(["resume", "--trust", out.sessionId, ...model(server.openaiBaseUrl), "--cwd", join(dir, "ws-link"), "second"], { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Noted: second");
    expect(
      events(store, out.sessionId)
        .filter((e) => e.type === "user_message")
        .map((e) => (e as { text: string }).text),
    ).toEqual(["first", "second"]);
  });

  it("moves the sessions of the old per-path folder into the shared store", async () => {
    const { ws, home, env } = setup();
    const legacy = legacyCliSessionDir(ws, home);
    mkdirSync(legacy, { recursive: true });
    const start = { seq: 0, ts: "2026-01-01T00:00:00.000Z", type: "session_start", sessionId: "20260101-000000-abcdef", cwd: ws, provider: "openai-compatible", model: "m", version: 1 };
    const user = { seq: 1, ts: "2026-01-01T00:00:01.000Z", type: "user_message", text: "from before" };
    writeFileSync(join(legacy, "20260101-000000-abcdef.jsonl"), `${JSON.stringify(start)}\n${JSON.stringify(user)}\n`);
    const r = await runCli(["sessions", "--cwd", ws], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`moved 1 session(s) from ${legacy} to ${defaultSessionDir(ws, home)}`);
    expect(r.stdout).toContain("20260101-000000-abcdef");
    expect(r.stdout).toContain("from before");
    const again = await runCli(["sessions", "--cwd", ws], { env });
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("from before");
  });

  it("refuses to resume a session a live yoke run is writing, forks it, and resumes it after a kill -9", async () => {
    const { ws, home, env } = setup();
    let hang = true;
    let onHang: () => void = () => {};
    const hanging = new Promise<void>((r) => (onHang = r));
    server = await startScriptedLlmServer({
      script: (req) => {
        const text = readExchange(req).userText;
        if (text === "long task" && hang) {
          onHang();
          return { text: "Working on it", hang: true };
        }
        return { text: `Noted: ${text}` };
      },
    });
    const store = defaultSessionDir(ws, home);
    const holder = startCli(["run", "--trust", ...model(server.openaiBaseUrl), "--cwd", ws, "long task"], { env });
    await hanging;
    const id = readdirSync(store)
      .find((f) => f.endsWith(".jsonl"))!
      .replace(/\.jsonl$/, "");

    const listed = await runCli(["sessions", "--cwd", ws], { env });
    expect(listed.stdout).toMatch(new RegExp(`^${id}  running .*long task  \\(in use by yoke run \\(pid ${holder.pid} on `, "m"));
    const json = JSON.parse((await runCli(["sessions", "--cwd", ws, "--json"], { env })).stdout) as { sessions: Array<{ inUseBy: { pid: number; owner: string } }> };
    expect(json.sessions[0]!.inUseBy).toMatchObject({ pid: holder.pid, owner: "yoke run" });

    const before = readFileSync(join(store, `${id}.jsonl`), "utf8");
    const refused = await runCli(["resume", "--trust", id, ...model(server.openaiBaseUrl), "--cwd", ws, "butting in"], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`yoke resume: session ${id} is in use by yoke run (pid ${holder.pid} on `);
    expect(refused.stderr).toContain(`continue a copy of it: yoke fork ${id}`);
    expect(readFileSync(join(store, `${id}.jsonl`), "utf8")).toBe(before);
    expect(server.requests.some((r) => JSON.stringify(r.body).includes("butting in"))).toBe(false);

    const forked = await runCli(["fork", id, "--cwd", ws], { env });
    expect(forked.code).toBe(0);
    const forkId = forked.stdout.trim();
    expect(forkId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(forked.stderr).toContain(`forked ${id} (1 turn) as ${forkId}; continue it with: yoke resume ${forkId}`);
    const inFork = await runCli(["resume", "--trust", forkId, ...model(server.openaiBaseUrl), "--cwd", ws, "in the fork"], { env });
    expect(inFork.code).toBe(0);
    expect(inFork.stdout).toContain("Noted: in the fork");
    const forkRequest = JSON.stringify(server.requests.at(-1)!.body);
    expect(forkRequest).toContain("long task");
    expect(forkRequest).toContain("in the fork");
    expect(readFileSync(join(store, `${id}.jsonl`), "utf8")).toBe(before); // the original is not touched

    holder.kill("SIGKILL");
    expect((await holder.result).signal).toBe("SIGKILL");
    hang = false;
    const after = await runCli(["resume", "--trust", id, ...model(server.openaiBaseUrl), "--cwd", ws, "after the kill"], { env });
    expect(after.stderr).not.toContain("in use");
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("Noted: after the kill");
    const log = events(store, id);
    expect(log.filter((e) => e.type === "user_message").map((e) => (e as { text: string }).text)).toEqual(["long task", "after the kill"]);
    expect(log.map((e) => e.seq)).toEqual([...log.keys()]);
  });

  it("forks from any turn (the files from checkpoints, see checkpoints.test.ts) and refuses a turn out of range", async () => {
    const { ws, env } = setup();
    server = await startScriptedLlmServer({ script: (req) => ({ text: `Noted: ${readExchange(req).userText}` }) });
    const first = JSON.parse((await runCli(["run", "--trust", ...model(server.openaiBaseUrl), "--cwd", ws, "--json", "one"], { env })).stdout) as { sessionId: string };
    await runCli(["resume", "--trust", first.sessionId, ...model(server.openaiBaseUrl), "--cwd", ws, "two"], { env });
    const early = await runCli(["fork", first.sessionId, "1", "--cwd", ws, "--json"], { env });
    expect(early.code, early.stderr).toBe(0);
    // No turn changed files, so there is nothing to put back.
    expect(JSON.parse(early.stdout)).toMatchObject({ forkedFrom: first.sessionId, turn: 1, files: [expect.stringContaining("no change was checkpointed after turn 1")] });
    const bad = await runCli(["fork", first.sessionId, "9", "--cwd", ws], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("TURN must be a turn of the session, 1 to 2");
    const last = await runCli(["fork", first.sessionId, "2", "--cwd", ws, "--json"], { env });
    expect(last.code).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({ forkedFrom: first.sessionId });
    const missing = await runCli(["fork", "20990101-000000-ffffff", "--cwd", ws], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no session "20990101-000000-ffffff"');
  });
});
