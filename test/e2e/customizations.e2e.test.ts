// The Customizations view in code-server (issue 23): a person opens it and sees the project's rule,
// command and agent and an installed plugin, each with its origin and state; reads what the
// plugin's hook would run and approves it (the digest-keyed approval `yoke plugins approve` writes);
// opens the rule's file from the list; and @-completes the manual rule into a message, which the
// session then sends to the model in full (asserted on the request the scripted server received).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../../src/demo/scripted-llm-server";
import type { RecordedRequest } from "../../src/demo/types";
import { ensureBuilt, runCli } from "../support/cli";
import { waitForAssistantText, waitForState } from "./support/yoke-panel";
import { useYokeVscode } from "./support/yoke-vscode";

const allText = (req: RecordedRequest) => JSON.stringify(req.body.messages);

function script(req: RecordedRequest): ScriptedTurn {
  return { text: allText(req).includes("HOUSE-STYLE-MARKER") ? "Written in the house style." : "No house style was given." };
}

function write(path: string, text: string) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A local marketplace with one plugin that has a command and a hook (from Claude Code's plugin reference). */
function marketplace(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-e2e-market-")));
  const kit = join(dir, "plugins", "stamp-kit");
  write(join(kit, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "stamp-kit", version: "1.0.0", description: "Stamps prompts" }));
  write(join(kit, "commands", "stamp.md"), "---\ndescription: Stamp the page\n---\nStamp $ARGUMENTS\n");
  write(join(kit, "hooks", "hooks.json"), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "bash ${CLAUDE_PLUGIN_ROOT}/scripts/stamp.sh" }] }] } }));
  write(join(kit, "scripts", "stamp.sh"), "#!/bin/bash\nexit 0\n");
  write(join(dir, ".claude-plugin", "marketplace.json"), JSON.stringify({ name: "e2e-market", owner: { name: "t" }, plugins: [{ name: "stamp-kit", source: "./plugins/stamp-kit" }] }));
  return dir;
}

describe("the Customizations view in code-server", () => {
  beforeAll(() => ensureBuilt(), 120_000);
  const vs = useYokeVscode({
    name: "customizations",
    model: { script },
    testsBuildOnEachOther: "one story: the view, the approval, the rule file and the @-completed message",
    files: {
      ".cursor/rules/house-style.mdc": "---\nalwaysApply: false\n---\nWrite in the house style. HOUSE-STYLE-MARKER\n",
      ".claude/commands/tide.md": "---\ndescription: Tell the tide of a day\nargument-hint: <day>\n---\nGive the high water of $1.\n",
      ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews a diff for mistakes\ntools: Read, Grep\n---\nYou review diffs.\n",
      // 7,800 characters: Windsurf reads a rule file's first 6,000, and the view says so.
      ".windsurf/rules/tide-tables.md": `---\ntrigger: manual\n---\n${"Tide tables. ".repeat(600)}`,
    },
  });

  it("shows the project's rule, command and agent and the plugin with origins and states; approves the plugin; opens the rule; @-completes it into a message the model receives", async () => {
    const { llm } = vs;
    const shot = vs.screenshots("customizations");
    // The plugin, installed as the user would with the CLI, in code-server's own HOME.
    const env = { HOME: vs.server.home };
    const market = marketplace();
    expect((await runCli(["plugins", "marketplace", "add", market], { env })).code).toBe(0);
    const installed = await runCli(["plugins", "install", "stamp-kit@e2e-market"], { env });
    expect(installed.code, installed.stderr).toBe(0);

    // This machine is shared and loaded: give the first page load more than the default 30 s.
    vs.page.setDefaultNavigationTimeout(180_000);
    await vs.openWorkbench();
    const frame = await vs.openPanel();
    await vs.widenSideBar(620);
    await frame.locator("[data-testid=customizations-title]").click();
    const row = (kind: string, name: string) => frame.locator(`[data-kind="${kind}"][data-name="${name}"]`).first();
    await row("rule", "house-style").waitFor({ state: "visible", timeout: 60_000 });

    const rule = row("rule", "house-style");
    expect(await rule.getAttribute("data-origin")).toBe("project");
    expect(await rule.getAttribute("data-state")).toBe("manual");
    expect(await rule.locator("[data-testid=customization-why]").textContent()).toContain("@house-style");
    // Windsurf's limits: what Yoke cut of a Windsurf rule, said on its line.
    expect(await row("rule", "tide-tables").locator("[data-testid=customization-why]").textContent()).toMatch(/Windsurf's limits: cut to its first 6,000 of 7,\d{3} characters/);
    const command = row("command", "/tide");
    expect(await command.getAttribute("data-origin")).toBe("project");
    expect(await command.locator("[data-testid=customization-why]").textContent()).toContain("Tell the tide of a day");
    const agent = row("agent", "reviewer");
    expect(await agent.getAttribute("data-origin")).toBe("project");
    expect(await agent.getAttribute("data-state")).toBe("listed");
    const pluginCommand = row("command", "/stamp");
    expect(await pluginCommand.getAttribute("data-origin")).toBe("plugin");
    expect(await pluginCommand.locator("[data-testid=customization-origin]").textContent()).toBe("plugin stamp-kit@e2e-market");
    const plugin = frame.locator('[data-testid=plugin][data-name="stamp-kit@e2e-market"]');
    expect(await plugin.getAttribute("data-state")).toBe("not-approved");
    expect(await plugin.getAttribute("data-approved")).toBe("false");
    expect(await plugin.locator("[data-testid=plugin-program]").textContent()).toContain("/scripts/stamp.sh");
    await shot("listing");

    // Approve, having read what it runs: the approval the CLI writes, keyed on the plugin's digest.
    await plugin.locator("[data-testid=plugin-approve]").click();
    await expect.poll(() => plugin.getAttribute("data-approved"), { timeout: 30_000 }).toBe("true");
    expect(await plugin.getAttribute("data-state")).toBe("enabled");
    const approvals = JSON.parse(readFileSync(join(vs.server.home, ".yoke", "plugins", "approvals.json"), "utf8")) as Record<string, { digest: string }>;
    expect(approvals["stamp-kit@e2e-market"]?.digest).toMatch(/^[0-9a-f]{64}$/);
    const listed = JSON.parse((await runCli(["plugins", "list", "--json"], { env })).stdout) as { installed: Array<{ id: string; hooksAndServers?: string }> };
    expect(listed.installed.find((p) => p.id === "stamp-kit@e2e-market")?.hooksAndServers).toBe("approved");
    await shot("approved");

    // Clicking the rule opens its file.
    await rule.locator("[data-testid=customization-open]").click();
    await vs.page.locator(".tab", { hasText: "house-style.mdc" }).first().waitFor({ state: "visible", timeout: 30_000 });

    // @-completion of the manual rule, then the message reaches the model with the rule's text.
    const input = frame.locator("[data-testid=prompt-input]");
    await input.click();
    await input.pressSequentially("Rewrite the README per @house");
    const item = frame.locator("[data-testid=mention-item]", { hasText: "@house-style" });
    await item.waitFor({ state: "visible", timeout: 30_000 });
    expect(await item.textContent()).toContain("rule (manual)");
    await shot("completion");
    await input.press("Enter");
    await expect.poll(() => input.inputValue()).toBe("Rewrite the README per @house-style ");
    await input.pressSequentially("please");
    await input.press("Enter");
    await waitForAssistantText(frame, "Written in the house style.");
    await waitForState(frame, "done");
    const req = llm.requests.find((r) => allText(r).includes("Rewrite the README per @house-style please"));
    expect(req).toBeDefined();
    expect(allText(req!)).toContain("HOUSE-STYLE-MARKER");
    await shot("answered");
  });
});
