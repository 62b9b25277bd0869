// The panel on the shared session store (SessionController with the real core and store, a
// disk-backed vscode stand-in, a scripted model, real child processes as other writers): the
// default folder is ~/.yoke/sessions/<workspace-key>/, old per-window sessions move there, the
// lock is let go when the panel is idle, a session written elsewhere is picked up, and one a live
// process holds is shown read-only and continued as a fork.
import { spawn, type ChildProcess } from "node:child_process";
import { buildSync } from "esbuild";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startScriptedLlmServer, type ScriptedServer } from "../../../src/demo/scripted-llm-server";
import { readExchange } from "../../../src/demo/wire-conversation";
import { parseLog } from "../../../src/core/session/session-log";
import { createFileSessionStore, defaultSessionDir } from "../../../src/node/session-store";
import type { HostToWebview } from "../../../src/protocol/messages";
import type { FakeVscodeState } from "./fake-vscode";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts, openTrustedFolder } = await import("./fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

let dir: string;
let workspace: string;
let home: string;
let server: ScriptedServer;
let parts: ReturnType<typeof fakeExtensionParts>;
let bundle: string;
const savedHome = process.env.HOME;
const controllers: Array<{ dispose(): void }> = [];
const children: ChildProcess[] = [];

beforeAll(() => {
  bundle = nodePath.join(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-ctl-store-bundle-")), "store.cjs");
  buildSync({ entryPoints: [nodePath.resolve("src/node/session-store.ts")], bundle: true, platform: "node", format: "cjs", outfile: bundle, logLevel: "silent" });
});
afterAll(() => fs.rmSync(nodePath.dirname(bundle), { recursive: true, force: true }));

beforeEach(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-ctl-store-")));
  workspace = nodePath.join(dir, "ws");
  home = nodePath.join(dir, "home");
  fs.mkdirSync(workspace);
  fs.mkdirSync(home);
  process.env.HOME = home; // the default store is under the home: this test's own
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never);
  server = await startScriptedLlmServer({ script: (req) => ({ text: `Noted: ${readExchange(req).userText}` }) });
  s.config.set("yoke.provider", "openai-compatible");
  s.config.set("yoke.baseUrl", server.openaiBaseUrl);
  s.config.set("yoke.model", "scripted");
  parts = fakeExtensionParts(nodePath.join(dir, "storage"));
});

afterEach(async () => {
  for (const c of controllers.splice(0)) c.dispose();
  for (const c of children.splice(0)) c.kill("SIGKILL");
  await server.close();
  process.env.HOME = savedHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

function open() {
  const posted: HostToWebview[] = [];
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true);
  controller.connect((msg) => posted.push(msg));
  controllers.push(controller);
  return { controller, posted };
}

const store = () => defaultSessionDir(workspace, home);
const userTexts = (id: string) =>
  parseLog(
    fs
      .readFileSync(nodePath.join(store(), `${id}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean),
  ).events.flatMap((e) => (e.type === "user_message" ? [e.text] : []));

/** Another process that only holds the lock of `id` until it is killed. */
function otherHolder(id: string): Promise<ChildProcess> {
  const body = `
    const m = require(${JSON.stringify(bundle)});
    const store = m.createFileSessionStore(${JSON.stringify(store())}, { owner: "yoke resume" });
    if (!store.lock(${JSON.stringify(id)}).ok) process.exit(5);
    process.stdout.write("ready\\n");
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", body], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`holder exited ${code}`)));
  });
}

/** Another process appending a user message and an answer to `id` (as `yoke resume` would), or holding its lock. */
function otherWriter(id: string, opts: { hold?: boolean; text?: string } = {}): Promise<ChildProcess> {
  const body = `
    const m = require(${JSON.stringify(bundle)});
    const store = m.createFileSessionStore(${JSON.stringify(store())}, { owner: "yoke resume" });
    const lines = store.read(${JSON.stringify(id)});
    let seq = lines.length;
    const add = (e) => store.append(${JSON.stringify(id)}, JSON.stringify({ seq: seq++, ts: new Date().toISOString(), ...e }));
    add({ type: "user_message", text: ${JSON.stringify(opts.text ?? "from the cli")} });
    add({ type: "assistant_message", text: "CLI answer.", toolCalls: [] });
    add({ type: "status", state: "done" });
    process.stdout.write("ready\\n");
    ${opts.hold ? 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0));' : "process.exit(0);"}
  `;
  const child = spawn(process.execPath, ["-e", body], { stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => code !== 0 && reject(new Error(`writer exited ${code}`)));
  });
}

describe("SessionController on the shared store", () => {
  it("keeps sessions in ~/.yoke/sessions/<workspace-key>/ and holds no lock once idle", async () => {
    const { controller } = open();
    await controller.handle({ type: "prompt", text: "one" });
    const id = (await controller.snapshot()).sessionId!;
    expect(fs.readdirSync(store())).toEqual([`${id}.jsonl`]);
    // Idle: another process may append to it right away.
    const other = createFileSessionStore(store(), { owner: "yoke resume" });
    expect(other.lock(id)).toEqual({ ok: true });
    other.dispose();
  });

  it("moves sessions of the old per-window storage into the shared store the first time", async () => {
    const legacy = nodePath.join(dir, "storage", "sessions");
    fs.mkdirSync(legacy, { recursive: true });
    const start = { seq: 0, ts: "2026-01-01T00:00:00.000Z", type: "session_start", sessionId: "20260101-000000-aaaaaa", cwd: workspace, provider: "openai-compatible", model: "scripted", version: 1 };
    const user = { seq: 1, ts: "2026-01-01T00:00:01.000Z", type: "user_message", text: "from the old storage" };
    fs.writeFileSync(nodePath.join(legacy, "20260101-000000-aaaaaa.jsonl"), `${JSON.stringify(start)}\n${JSON.stringify(user)}\n`);
    const { controller } = open();
    expect(controller.history(true)).toEqual([expect.objectContaining({ id: "20260101-000000-aaaaaa", title: "from the old storage" })]);
    expect(fs.existsSync(legacy)).toBe(false);
    expect(parts.logLines.some((l) => l.includes(`moved 1 session(s) from ${legacy} to the shared store ${store()}`))).toBe(true);
  });

  it("lists a session another process adds, and continues one it wrote with its whole conversation", async () => {
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await controller.handle({ type: "prompt", text: "panel first" });
    const id = (await controller.snapshot()).sessionId!;
    // The CLI continues the panel's session while the panel is idle on it.
    await otherWriter(id);
    // The watcher refreshes the panel: the shown session now has the CLI's turn.
    await vi.waitFor(async () => expect((await controller.snapshot()).items.filter((i) => i.kind === "user").map((i) => i.kind === "user" && i.text)).toEqual(["panel first", "from the cli"]), {
      timeout: 5_000,
    });
    await controller.handle({ type: "prompt", text: "panel again" });
    expect(userTexts(id)).toEqual(["panel first", "from the cli", "panel again"]);
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain("from the cli");
    expect(sent).toContain("CLI answer.");
    const log = parseLog(
      fs
        .readFileSync(nodePath.join(store(), `${id}.jsonl`), "utf8")
        .split("\n")
        .filter(Boolean),
    ).events;
    expect(log.map((e) => e.seq)).toEqual([...log.keys()]);
    expect(ofType(posted, "history").length).toBeGreaterThan(0);
  });

  it("shows a session a live process holds read-only, refuses to send there, and continues it as a fork", async () => {
    const first = open();
    await first.controller.handle({ type: "prompt", text: "started in the panel" });
    const id = (await first.controller.snapshot()).sessionId!;
    const holder = await otherWriter(id, { hold: true });

    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    const history = controller.history(true);
    expect(history[0]).toMatchObject({ id, inUse: expect.stringContaining(`yoke resume (pid ${holder.pid} on `) });
    await controller.handle({ type: "openSession", id });
    const shown = await controller.snapshot();
    expect(shown.readOnly?.by).toContain(`yoke resume (pid ${holder.pid}`);
    await controller.handle({ type: "prompt", text: "not here" });
    expect(ofType(posted, "error").at(-1)!.message).toContain(`This session is in use by yoke resume (pid ${holder.pid}`);
    expect(userTexts(id)).toEqual(["started in the panel", "from the cli"]);

    await controller.handle({ type: "forkSession" });
    const fork = await controller.snapshot();
    expect(fork.sessionId).not.toBe(id);
    expect(fork.readOnly).toBeUndefined();
    await controller.handle({ type: "prompt", text: "in the fork" });
    expect(userTexts(fork.sessionId!)).toEqual(["started in the panel", "from the cli", "in the fork"]);
    expect(userTexts(id)).toEqual(["started in the panel", "from the cli"]);
    expect(controller.history(true).find((h) => h.id === fork.sessionId)?.title).toBe("started in the panel (fork)");

    // Back on the original (still held), then its holder goes away (here: killed, so no file
    // changes): the view is writable again without the user doing anything.
    await controller.handle({ type: "openSession", id });
    expect((await controller.snapshot()).readOnly).toBeDefined();
    holder.kill("SIGKILL");
    await vi.waitFor(async () => expect((await controller.snapshot()).readOnly).toBeUndefined(), { timeout: 8_000 });
    await controller.handle({ type: "prompt", text: "back in the original" });
    expect(userTexts(id)).toEqual(["started in the panel", "from the cli", "back in the original"]);
  });

  it("asks a restored session's open question again once the process holding it is gone", async () => {
    await server.close();
    server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "hi\n" } }] }, { text: "Written." }] });
    vscode.__state.config.set("yoke.baseUrl", server.openaiBaseUrl);
    const first = open();
    void first.controller.handle({ type: "prompt", text: "write notes" });
    await vi.waitFor(() => expect(first.posted.some((m) => m.type === "permission" && m.request)).toBe(true), { timeout: 10_000 });
    const id = (await first.controller.snapshot()).sessionId!;
    first.controller.dispose(); // the window closes with the question open: it stays unanswered in the log
    const holder = await otherHolder(id);

    const second = open();
    await second.controller.handle({ type: "ready", protocol: 1 });
    const shown = await second.controller.snapshot();
    expect(shown).toMatchObject({ sessionId: id, readOnly: { by: expect.stringContaining(`pid ${holder.pid}`) } });
    expect(second.posted.some((m) => m.type === "permission" && m.request)).toBe(false);
    holder.kill("SIGKILL");
    await vi.waitFor(() => expect(second.posted.some((m) => m.type === "permission" && m.request?.summary === "notes.md")).toBe(true), { timeout: 10_000 });
    expect((await second.controller.snapshot()).readOnly).toBeUndefined();
  });

  it("uses the yoke.sessionDir user setting instead of the shared store", async () => {
    const custom = nodePath.join(dir, "custom");
    vscode.__state.config.set("yoke.sessionDir", custom);
    const { controller } = open();
    await controller.handle({ type: "prompt", text: "custom" });
    const id = (await controller.snapshot()).sessionId!;
    expect(fs.existsSync(nodePath.join(custom, `${id}.jsonl`))).toBe(true);
    expect(fs.existsSync(store())).toBe(false);
  });
});

const ofType = <T extends HostToWebview["type"]>(posted: HostToWebview[], type: T) => posted.filter((m): m is Extract<HostToWebview, { type: T }> => m.type === type);
