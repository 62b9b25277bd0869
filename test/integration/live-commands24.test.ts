// Session 24 (cmd24), issue 23: a command added while a session runs is offered to the model from
// the person's next message (Claude Code's skills page, "live change detection": skills and commands
// added, edited or removed take effect in the current session without restarting), appended in that
// request's guidance message — every earlier message, the cached prefix, unchanged. Before, it was
// offered only from the next session. A skill added is still offered from the next session (reading
// the whole guidance again per message kept the panel's run from ending: see guidance/extension.ts). Real files, the real loaders, the scripted model over HTTP;
// the command and the skill are written from Claude Code's docs (`description`, `argument-hint`).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { modelCommandBridge } from "../../src/core/custom-commands";
import { guidanceExtension } from "../../src/core/guidance";
import { AgentSession } from "../../src/core/loop/agent-session";
import { silentLogger } from "../../src/core/ports";
import { createProvider } from "../../src/core/providers/create";
import { createBuiltinTools } from "../../src/core/tools/builtin";
import { startScriptedLlmServer, type ScriptedServer } from "../../src/demo/scripted-llm-server";
import { createNodeServices } from "../../src/node/agent-services";
import { nodeCustomCommandsExtension } from "../../src/node/custom-commands";
import { createNodeGuidanceFiles } from "../../src/node/guidance-files";
import { createNodeWorkspaceFs } from "../../src/node/node-fs";
import { createRipgrepSearcher } from "../../src/node/ripgrep-searcher";
import { createFileSessionStore } from "../../src/node/session-store";
import { toolResultTexts } from "../support/scripted-run";
import { closeServerAndRemoveTemps } from "../support/teardown";
import { createWorkspaceWithHome } from "../support/workspace";

let server: ScriptedServer | undefined;
const temps: string[] = [];
afterEach(async () => {
  server = await closeServerAndRemoveTemps(server, temps);
});

type Wire = { role: string; content?: unknown };
const messagesOf = (i: number) => (server!.requests[i]!.body.messages as Wire[]) ?? [];

describe("commands added during a session", () => {
  it("are listed from the next message, appended; the earlier messages stay byte for byte; the model runs the new command", async () => {
    const {
      base,
      cwd: ws,
      home,
    } = createWorkspaceWithHome("yoke-live24-", { "README.md": "x\n", ".claude/commands/lint.md": "---\ndescription: Lint the code\n---\nRun the linter.\n" }, temps, { realpath: true });
    const sessions = join(base, "sessions");
    server = await startScriptedLlmServer({
      script: [{ text: "Hello." }, { toolCalls: [{ name: "load_skill", input: { name: "deploy", arguments: "staging" } }] }, { text: "Deployed." }],
    });
    const node = createNodeServices({ cwd: ws, sessionDir: sessions, trusted: true, home });
    const approver = { ask: async () => ({ decision: "deny" as const }) };
    const bridge = modelCommandBridge();
    const s = await AgentSession.create({
      store: createFileSessionStore(sessions),
      provider: createProvider({ provider: "openai-compatible", baseUrl: server.openaiBaseUrl, model: "scripted", apiKey: "k" }),
      tools: createBuiltinTools(),
      services: (x) => ({ fs: createNodeWorkspaceFs(ws), search: createRipgrepSearcher(), log: silentLogger, access: node.access, ...node.commands(x) }),
      approver,
      gate: node.gate,
      permissionMode: "default",
      retry: { maxRetries: 0 },
      compaction: false,
      extensions: [
        guidanceExtension({ files: createNodeGuidanceFiles({ home, builtinDir: null }), commands: bridge }),
        nodeCustomCommandsExtension({ cwd: ws, home }, { approver, check: (r, m) => node.gate.check(r, m), warn: () => undefined, bridge }),
      ],
    });
    await s.send("hello");
    const first = JSON.stringify(messagesOf(0));
    expect(first).toContain("- lint: (command) Lint the code");
    expect(first).not.toContain("deploy");
    // Added while the session runs: the project's command and a personal skill.
    for (const [file, text] of [
      [join(ws, ".claude/commands/deploy.md"), "---\ndescription: Deploy the app to an environment\nargument-hint: [environment]\n---\nDeploy to $ARGUMENTS now.\n"],
      [join(home, ".claude/skills/changelog/SKILL.md"), "---\nname: changelog\ndescription: Write the changelog entry for a change\n---\nCHANGELOG-BODY\n"],
    ] as const) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
    await s.send("deploy to staging");
    await s.end();
    const second = messagesOf(1);
    // The cached prefix: everything the first request sent is the start of the second, unchanged.
    expect(JSON.stringify(second.slice(0, messagesOf(0).length))).toBe(first);
    const appended = JSON.stringify(second.slice(messagesOf(0).length));
    expect(appended).toContain("- deploy: (command, arguments: [environment]) Deploy the app to an environment");
    // A skill added during the session waits for the next session (not live, unlike Claude Code).
    expect(appended).not.toContain("changelog");
    // Listed once: not again in the next request's new messages.
    const third = messagesOf(2);
    expect(JSON.stringify(third.slice(second.length)).match(/- deploy: \(command/g)).toBeNull();
    // And the model ran it, its arguments in its text.
    expect(toolResultTexts(server.requests[2]).join("\n")).toContain("Deploy to staging now.");
  }, 60_000);
});
