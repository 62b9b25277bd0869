import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { activeYoke } from "./yoke-extension";

/** The API activate() returns (see src/host/extension.ts). */
interface YokeApi {
  snapshot(): Promise<{ protocol: number; state: string; items: unknown[]; modelLabel: string; restricted: boolean }>;
}

describe("Yoke chat view", () => {
  it("resolves when focused through its contributed focus command", async () => {
    await activeYoke();
    await vscode.commands.executeCommand("yoke.chat.focus");
    await vscode.commands.executeCommand("yoke.focus");
  });

  it("returns an idle, empty snapshot before anything was sent", async () => {
    const api = (await activeYoke()).exports as YokeApi;
    assert.equal(typeof api?.snapshot, "function", "activate() does not return the test API");
    const snap = await api.snapshot();
    assert.equal(snap.protocol, 1);
    assert.equal(snap.items.length, 0);
    assert.equal(snap.restricted, !vscode.workspace.isTrusted);
  });
});
