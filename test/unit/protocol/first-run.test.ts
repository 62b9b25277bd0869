// The panel's first-run view as a newcomer meets it: no provider configured and no local model
// server. On such a machine the probe for local servers ends at once (every port refuses), often
// while the panel's first state is still being built; the view the panel ends up with must say what
// the probe found and offer the demo model, not spin on "Looking for local model servers…" forever.
// SessionController with the real core and store and the disk-backed vscode stand-in; only the
// probe is replaced, so it answers in the same tick as on a machine where nothing listens.
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import * as nodePath from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEMO_PROMPTS } from "../../../src/demo/demo-tour";
import type { FirstRunView, HostToWebview } from "../../../src/protocol/messages";
import type { FakeVscodeState } from "./fake-vscode";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());
const probe = vi.hoisted(() => ({ calls: 0, answer: (): Promise<Array<{ name: string; baseUrl: string; model: string }>> => Promise.resolve([]) }));
vi.mock("../../../src/host/local-servers", () => ({
  probeLocalServers: () => {
    probe.calls += 1;
    return probe.answer();
  },
}));

const vscode = (await import("vscode")) as unknown as { __state: FakeVscodeState; Uri: { file(p: string): unknown } };
const { fakeExtensionParts, openTrustedFolder } = await import("./fake-vscode");
const { SessionController } = await import("../../../src/host/session-controller");
const { ApiKeys } = await import("../../../src/host/settings");

let dir: string;
const controllers: Array<{ dispose(): void }> = [];
const savedHome = process.env.HOME;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), "yoke-first-run-")));
  const workspace = nodePath.join(dir, "ws");
  fs.mkdirSync(workspace);
  fs.mkdirSync(nodePath.join(dir, "home"));
  fs.writeFileSync(nodePath.join(workspace, "README.md"), "# tidewatch\n");
  process.env.HOME = nodePath.join(dir, "home");
  const s = vscode.__state;
  openTrustedFolder(s, vscode.Uri.file(workspace) as never, nodePath.join(dir, "sessions"));
  probe.calls = 0;
  probe.answer = () => Promise.resolve([]);
});

afterEach(() => {
  for (const c of controllers.splice(0)) c.dispose();
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

/** What the panel's first-run view shows after `posted`, replayed in order as the webview does (app.ts). */
function shownFirstRun(posted: HostToWebview[]): FirstRunView | null | undefined {
  let shown: FirstRunView | null | undefined;
  for (const m of posted) {
    if (m.type === "state") shown = m.snapshot.firstRun;
    else if (m.type === "firstRun") shown = m.info;
  }
  return shown;
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 50));
}

describe("the first-run view with no provider and no local server", () => {
  it("ends up showing the probe's answer (no server) and the demo model offer, not the probe in progress", async () => {
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await settle();
    expect(probe.calls).toBe(1);
    // The webview renders the "Try the demo model" button only once probing is false.
    expect(shownFirstRun(posted)).toEqual({ servers: [], probing: false });
  });

  it("shows a server the probe found, even when the probe ends while the state is being built", async () => {
    probe.answer = () => Promise.resolve([{ name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder" }]);
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await settle();
    expect(shownFirstRun(posted)).toEqual({ servers: [{ name: "Ollama", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder" }], probing: false });
  });

  it("a probe that ends after a provider was set does not bring the first-run view back", async () => {
    let finish!: (v: []) => void;
    probe.answer = () => new Promise((r) => (finish = r));
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    expect(shownFirstRun(posted)).toEqual({ servers: [], probing: true });
    // The user points Yoke at a server by hand while the probe still runs.
    vscode.__state.config.set("yoke.provider", "openai-compatible");
    vscode.__state.config.set("yoke.baseUrl", "http://127.0.0.1:9/v1");
    await controller.handle({ type: "probeLocalServers" });
    finish([]);
    await settle();
    expect(shownFirstRun(posted)).toBeNull();
  });

  it("one click on the demo offer: the first-run view goes, the tour's prompts and the demo model's label come", async () => {
    const { controller, posted } = open();
    await controller.handle({ type: "ready", protocol: 1 });
    await settle();
    expect(shownFirstRun(posted)?.probing).toBe(false);
    await controller.handle({ type: "useDemoModel" });
    await settle();
    const last = posted.filter((m) => m.type === "state").at(-1);
    expect(last?.type === "state" && last.snapshot).toMatchObject({ firstRun: null, modelLabel: "demo model", demo: { label: "demo model", prompts: DEMO_PROMPTS } });
    expect(shownFirstRun(posted)).toBeNull();
    expect(posted.filter((m) => m.type === "error")).toEqual([]);
  });
});
