// The panel's host side on a 10,000-event session (SessionController with the real core and store,
// the disk-backed vscode stand-in, a scripted model): the open runs in slices (the event loop keeps
// turning while it runs), the snapshot carries the end of the transcript and how much is before it,
// the panel can load any part and search it all, and continuing the session appends after it.
// Also the demo model offered in the first-run view.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { longSessionLines, longSessionPrompt } from "../../../src/bench/long-session/fixture";
import { DEMO_PROMPTS } from "../../../src/demo/demo-tour";
import { startScriptedLlmServer, type ScriptedServer } from "../../../src/demo/scripted-llm-server";
import { defaultSessionDir } from "../../../src/node/session-store";
import { parseHostToWebview, type HostToWebview, type Snapshot } from "../../../src/protocol/messages";
import type { FakeVscodeState } from "../protocol/fake-vscode";

vi.mock("vscode", async () => (await import("../protocol/fake-vscode")).createFakeVscode());
// Slices of no time (a yield every few items): how many the open takes no longer depends on how fast
// the machine is (with 8 ms slices a quiet machine opened the log in 5 turns, and the check below failed).
vi.mock("../../../src/node/panel/transcript", async (importOriginal) => {
  const m = await importOriginal<typeof import("../../../src/node/panel/transcript")>();
  return { ...m, hostSlicer: (cancelled?: () => boolean) => m.hostSlicer(cancelled, 0) };
});

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts, openTrustedFolder } = await import("../protocol/fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

const ID = "20260101-000000-long00";
let dir: string;
let workspace: string;
let server: ScriptedServer | undefined;
const savedHome = process.env.HOME;
const controllers: Array<{ dispose(): void }> = [];

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-longsess-")));
  workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(workspace);
  fs.mkdirSync(nodePath.join(dir, "home"));
  process.env.HOME = nodePath.join(dir, "home");
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never);
});

afterEach(async () => {
  for (const c of controllers.splice(0)) c.dispose();
  await server?.close();
  server = undefined;
  process.env.HOME = savedHome;
  fs.rmSync(dir, { recursive: true, force: true });
});

function open() {
  const posted: HostToWebview[] = [];
  const parts = fakeExtensionParts(nodePath.join(dir, "storage"));
  const controller = new SessionController(parts.context as never, parts.log as never, new ApiKeys(parts.context.secrets as never), () => true);
  controller.connect((msg) => posted.push(msg));
  controllers.push(controller);
  return { controller, posted };
}

async function until<T>(fn: () => T | undefined, what: string, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const snapshots = (posted: HostToWebview[]) => posted.flatMap((m) => (m.type === "state" ? [m.snapshot] : []));

describe("a 10,000-event session in the panel's host", () => {
  beforeEach(async () => {
    server = await startScriptedLlmServer({ script: () => ({ text: "Continued after the long history." }) });
    const s = vscode.__state;
    s.config.set("yoke.provider", "openai-compatible");
    s.config.set("yoke.baseUrl", server.openaiBaseUrl);
    s.config.set("yoke.model", "scripted");
    const store = defaultSessionDir(workspace, nodePath.join(dir, "home"));
    fs.mkdirSync(store, { recursive: true });
    fs.writeFileSync(nodePath.join(store, `${ID}.jsonl`), `${longSessionLines({ events: 10_000, sessionId: ID, cwd: workspace }).join("\n")}\n`);
  });

  it("opens in slices, shows its end, loads any part, searches it all and continues after it", async () => {
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    // The history summarises the long log in slices: listed once that is done.
    await until(() => posted.find((m) => m.type === "history" && m.sessions.some((x) => x.id === ID && x.title.startsWith("Request #0001"))), "the history entry");

    // The event loop turns while the session is opened: the work is in slices, not one block.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const before = snapshots(posted).length;
    await controller.handle({ type: "openSession", id: ID });
    ticking = false;
    const snap: Snapshot = await until(
      () =>
        snapshots(posted)
          .slice(before)
          .find((x) => x.sessionId === ID),
      "the snapshot",
    );
    expect(turns).toBeGreaterThan(5);
    expect(snap.items).toHaveLength(200);
    expect(snap.omitted).toBe(4_799); // 4 items per turn and the checkpoint control between turns
    expect(snap.title).toBe(longSessionPrompt(0).slice(0, 80));
    expect(snap.items.at(-1)).toMatchObject({ kind: "assistant" });

    await controller.handle({ type: "loadItems", req: 7, start: 0, count: 100 });
    const items = await until(() => posted.find((m): m is Extract<HostToWebview, { type: "items" }> => m.type === "items" && m.req === 7), "the items");
    expect(items).toMatchObject({ sessionId: ID, start: 0, total: 4_999 });
    expect(items.items[0]).toMatchObject({ kind: "user", text: longSessionPrompt(0) });

    await controller.handle({ type: "searchTranscript", req: 3, query: "request #0042:" });
    const found = await until(() => posted.find((m): m is Extract<HostToWebview, { type: "searchResults" }> => m.type === "searchResults" && m.req === 3), "the search");
    expect(found.matches).toEqual([expect.objectContaining({ index: 205, kind: "user" })]);

    // Continuing: the new items come after the 4,999 shown, with their index.
    await controller.handle({ type: "prompt", text: "go on" });
    const events = posted.flatMap((m) => (m.type === "event" ? [m] : []));
    const user = events.find((m) => m.view.kind === "user" && m.view.text === "go on");
    expect(user?.index).toBe(5_000); // after the last turn's checkpoint control
    const answer = events.find((m) => m.view.kind === "assistant" && m.view.text === "Continued after the long history.");
    expect(answer?.index).toBe(5_001);
  }, 120_000);

  it("a newer open supersedes one still in progress", async () => {
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    const first = controller.handle({ type: "openSession", id: ID });
    controller.newSession();
    await first;
    await until(() => snapshots(posted).at(-1), "a snapshot");
    await new Promise((r) => setTimeout(r, 200));
    expect(snapshots(posted).at(-1)!.sessionId).toBeNull();
  }, 120_000);
});

describe("the demo model in the first-run view", () => {
  it("starts it in the extension host, points the settings at it, and suggests the tour's prompts", async () => {
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    expect(snapshots(posted).at(-1)!.firstRun).not.toBeNull();
    await controller.handle({ type: "useDemoModel" });
    const s = vscode.__state;
    expect(s.config.get("yoke.provider")).toBe("openai-compatible");
    expect(s.config.get("yoke.demoLabel")).toBe("demo model");
    const snap = await until(() => snapshots(posted).findLast((x) => x.demo), "a snapshot with the demo prompts");
    expect(snap.firstRun).toBeNull();
    expect(snap.demo!.prompts).toEqual(DEMO_PROMPTS);
    expect(snap.modelLabel).toBe("demo model");
    // Every message is one the webview accepts (it drops what its schema rejects).
    for (const m of posted) expect(parseHostToWebview(m)).toMatchObject({ ok: true });
    // The demo model answers, labelled as such.
    await controller.handle({ type: "prompt", text: "hello" });
    const answers = posted.flatMap((m) => (m.type === "event" && m.view.kind === "assistant" ? [m.view.text] : []));
    expect(posted.filter((m) => m.type === "error")).toEqual([]);
    expect(answers.at(-1)).toContain("**Demo model.**");
  }, 120_000);
});
