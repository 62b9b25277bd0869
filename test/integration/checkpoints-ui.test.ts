/**
 * What the panel's and the palette's checkpoint controls stand on, with real parts: the git store's
 * readFile (the right side of the preview's diff editor), the per-file +/- counts of a real
 * restore plan, and a conversation restore appended to a live session from outside the loop —
 * refused while a turn runs, in force for the next request once idle.
 */
import { mkdtempSync, mkdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { planStats, restoreTo, turnsOf } from "../../src/core/checkpoints";
import { AgentSession } from "../../src/core/loop/agent-session";
import { silentLogger, type Searcher, type WorkspaceFs } from "../../src/core/ports";
import { projectConversation } from "../../src/core/session/projection";
import { defineTool } from "../../src/core/tools/types";
import { createGitCheckpointStore } from "../../src/node/checkpoint-store";
import { createFakeProvider, textTurn, toolTurn } from "../support/fake-provider";
import { createMemoryStore } from "../support/memory-store";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

function folder() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-ui-"));
  temps.push(dir);
  const ws = join(dir, "ws");
  mkdirSync(join(ws, "src"), { recursive: true });
  return { ws, store: createGitCheckpointStore({ storageDir: join(dir, "storage") }) };
}

describe("checkpoint previews", () => {
  it("counts the lines a restore writes back and takes out, per file, and reads a file as it was", async () => {
    const { ws, store } = folder();
    writeFileSync(join(ws, "src", "a.ts"), "one\ntwo\nthree\n");
    writeFileSync(join(ws, "gone.txt"), "g1\ng2\n");
    writeFileSync(join(ws, "name with space.md"), "x\n");
    writeFileSync(join(ws, "bin.dat"), Buffer.from([0, 1, 2, 3]));
    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    expect(snap.commit).toBeDefined();
    writeFileSync(join(ws, "src", "a.ts"), "one\nTWO\nthree\nfour\n");
    unlinkSync(join(ws, "gone.txt"));
    writeFileSync(join(ws, "new.ts"), "n\n");
    writeFileSync(join(ws, "name with space.md"), "y\n");
    writeFileSync(join(ws, "bin.dat"), Buffer.from([9, 0, 9]));
    const plan = await store.plan(ws, snap.commit!);
    const stats = Object.fromEntries(planStats(plan).map((s) => [s.path, s]));
    expect(stats["src/a.ts"]).toMatchObject({ action: "write", added: 1, removed: 2, counted: true, binary: false });
    expect(stats["gone.txt"]).toMatchObject({ action: "write", added: 2, removed: 0, counted: true });
    expect(stats["new.ts"]).toMatchObject({ action: "delete", added: 0, removed: 1, counted: true });
    expect(stats["name with space.md"]).toMatchObject({ action: "write", added: 1, removed: 1, counted: true });
    expect(stats["bin.dat"]).toMatchObject({ action: "write", binary: true, counted: true });
    expect(Object.keys(stats).sort()).toEqual(["bin.dat", "gone.txt", "name with space.md", "new.ts", "src/a.ts"]);

    expect(Buffer.from((await store.readFile(ws, snap.commit!, "src/a.ts"))!).toString()).toBe("one\ntwo\nthree\n");
    expect(await store.readFile(ws, snap.commit!, "new.ts")).toBeUndefined();
    expect(await store.readFile(ws, snap.commit!, "src")).toBeUndefined();
    await expect(store.readFile(ws, snap.commit!, "../outside")).rejects.toThrow(/not a path inside the folder/);
    await expect(store.readFile(ws, "HEAD", "src/a.ts")).rejects.toThrow(/not a checkpoint commit/);
  });

  it("gives no counts for a file whose diff was cut at the bound, instead of wrong ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-ckpt-ui-"));
    temps.push(dir);
    const ws = join(dir, "ws");
    mkdirSync(ws);
    const store = createGitCheckpointStore({ storageDir: join(dir, "storage"), maxDiffChars: 200 });
    writeFileSync(join(ws, "a.txt"), "a\n");
    writeFileSync(join(ws, "z.txt"), Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n"));
    const snap = await store.snapshot({ root: ws, name: "ws", budgetMs: 10_000 });
    writeFileSync(join(ws, "a.txt"), "b\n");
    unlinkSync(join(ws, "z.txt"));
    const plan = await store.plan(ws, snap.commit!);
    expect(plan.diffTruncated).toBe(true);
    const stats = Object.fromEntries(planStats(plan).map((s) => [s.path, s]));
    expect(stats["a.txt"]).toMatchObject({ added: 1, removed: 1, counted: true });
    expect(stats["z.txt"]).toMatchObject({ action: "write", counted: false });
  });
});

describe("a conversation restore in a live session", () => {
  it("is refused while a turn runs, and once idle the next request holds only the conversation up to the turn", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const wait = defineTool({
      name: "wait",
      description: "waits for the test",
      schema: z.object({}),
      permission: "Read",
      capabilities: { reads: true },
      summarize: () => "",
      timeoutMs: 30_000,
      hookInput: () => ({}),
      run: async () => {
        await gate;
        return { text: "waited" };
      },
    });
    const provider = createFakeProvider([textTurn("first answer"), toolTurn({ id: "w1", name: "wait", input: {} }), textTurn("second answer"), textTurn("third answer")]);
    const session = await AgentSession.create({
      store: createMemoryStore(),
      provider,
      tools: [wait],
      services: { fs: { root: "/ws" } as WorkspaceFs, search: {} as Searcher, log: silentLogger },
      approver: { ask: async () => ({ decision: "allow" }) },
      retry: { maxRetries: 0 },
    });
    await session.send("turn one");
    const running = session.send("turn two");
    await new Promise((r) => setTimeout(r, 50));
    const restore = () =>
      restoreTo({ store: createGitCheckpointStore({ storageDir: "/nonexistent" }), events: () => session.events(), append: (e) => session.appendFromHost(e), folders: [] }, 1, "conversation");
    await expect(restore()).rejects.toThrow(/the agent is working: stop it \(or wait until it is done\) first/);
    expect(session.events().some((e) => e.type === "rewind")).toBe(false);
    release();
    await running;
    expect(turnsOf(session.events())).toHaveLength(2);
    const r = await restore();
    expect(r.rewind).toMatchObject({ type: "rewind", turn: 1, conversation: true, files: false });
    expect(turnsOf(session.events())).toHaveLength(1);
    await session.send("turn three");
    const last = provider.requests.at(-1)!;
    const sent = JSON.stringify(last.messages);
    expect(sent).toContain("turn one");
    expect(sent).toContain("turn three");
    expect(sent).not.toContain("turn two");
    expect(sent).not.toContain("second answer");
    expect(projectConversation(session.events()).filter((m) => m.role === "user")).toHaveLength(2);
  });
});
