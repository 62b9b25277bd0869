import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import { activeYoke } from "./yoke-extension";

interface ContributedCommand {
  command: string;
  title: string;
}

describe("Yoke extension in VS Code", () => {
  it("is active when the chat view has been opened", async () => {
    const ext = await activeYoke();
    assert.equal(ext.isActive, true);
  });

  it("registers every command its package.json contributes", async () => {
    const ext = await activeYoke();
    const declared = (ext.packageJSON.contributes.commands as ContributedCommand[]).map((c) => c.command);
    assert.ok(declared.includes("yoke.setApiKey"), "yoke.setApiKey is not contributed");
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(", ")}`);
  });

  it("declares limited support for untrusted workspaces and restricts the provider settings", async () => {
    const ext = await activeYoke();
    const untrusted = ext.packageJSON.capabilities?.untrustedWorkspaces;
    assert.equal(untrusted?.supported, "limited");
    assert.ok(untrusted.restrictedConfigurations.includes("yoke.baseUrl"));
  });

  it("exposes settings with their declared defaults", () => {
    const config = vscode.workspace.getConfiguration("yoke");
    assert.equal(config.inspect<number>("maxTurns")?.defaultValue, 50);
    assert.equal(config.inspect<string>("permissionMode")?.defaultValue, "default");
  });
});
