// The webview's messages, each sent to the part of the controller that handles it. The switch is
// exhaustive: a message type added to the protocol without a case here fails to compile.
import * as vscode from "vscode";
import type { AgentSession } from "../../core/loop/agent-session";
import { PROTOCOL_VERSION, type HostToWebview, type WebviewToHost } from "../../protocol/messages";
import type { HostAgents } from "../agents";
import type { CheckpointControls } from "../checkpoints";
import type { HostComposer } from "../composer";
import type { HostCustomizations } from "../customizations";
import type { HostDemoModel } from "../demo-model";
import type { GuidanceControls } from "../guidance";
import type { HostServices } from "../host-services";
import type { HostMcp } from "../mcp";
import type { TranscriptRequests } from "../../node/panel/transcript";
import type { PermissionControls } from "../permission-controls";
import type { ReviewFeature } from "../review";
import { writeSetting } from "../settings";
import type { ComposerGlue } from "./composer-glue";
import type { FirstRunProbe } from "./first-run";
import type { LiveLink } from "./live";
import { reviewAction } from "./review-glue";

export interface RouterTargets {
  log: vscode.LogOutputChannel;
  post: (msg: HostToWebview) => void;
  pushState: () => Promise<void>;
  run: (act: (session: AgentSession) => Promise<void>) => Promise<void>;
  stop: () => void;
  newSession: () => void;
  openSession: (id: string) => Promise<void>;
  forkShown: () => void;
  live: LiveLink;
  services: HostServices;
  mcp: HostMcp;
  composer: HostComposer;
  composed: ComposerGlue;
  permissions: PermissionControls;
  guidance: GuidanceControls;
  customizations: HostCustomizations;
  checkpoints: CheckpointControls;
  transcript: TranscriptRequests;
  demo: HostDemoModel;
  firstRun: FirstRunProbe;
  review: ReviewFeature | undefined;
  /** Background agents (src/host/agents). */
  agents: HostAgents;
}

export async function routeMessage(t: RouterTargets, msg: WebviewToHost): Promise<void> {
  switch (msg.type) {
    case "ready":
      if (msg.protocol !== PROTOCOL_VERSION) t.log.warn(`webview speaks protocol ${msg.protocol}, host ${PROTOCOL_VERSION}`);
      t.post({ type: "mcpServers", servers: t.mcp.views() });
      t.post({ type: "mcpElicitation", request: t.mcp.openForm });
      await t.pushState();
      t.composer.panelConnected();
      t.agents.panelConnected();
      return;
    case "prompt":
      return t.composed.send(msg.text, [], "send");
    case "continue":
      return t.run((session) => session.continue());
    case "stop":
      return t.stop();
    case "newSession":
      return t.newSession();
    case "openSession":
      return t.openSession(msg.id);
    case "forkSession":
      return t.forkShown();
    case "permissionAnswer":
      return t.permissions.answer(msg);
    case "setMode":
      return t.permissions.setMode(msg.mode);
    case "killProcess":
      if (t.live.session) await t.services.kill(t.live.session.id, msg.id);
      return t.permissions.pushInfo();
    case "useLocalServer":
      await writeSetting("provider", "openai-compatible");
      await writeSetting("baseUrl", msg.baseUrl);
      await writeSetting("model", msg.model);
      t.log.info(`using local server ${msg.baseUrl} (${msg.model})`);
      return t.pushState();
    case "probeLocalServers":
      t.firstRun.again(true);
      return t.pushState();
    case "setApiKey":
      await vscode.commands.executeCommand("yoke.setApiKey");
      return;
    case "openLog":
      t.log.show(true);
      return;
    case "openSettings":
      await vscode.commands.executeCommand("workbench.action.openSettings", "@ext:yoke-dev.yoke");
      return;
    case "guidanceAction":
      return t.guidance.action(msg.id, msg.action);
    // --- customizations (issue 23): the listing, opening a file, plugins ---
    case "customizations.refresh":
      return t.customizations.refresh();
    case "customizations.open":
      return t.customizations.open(msg.path);
    case "plugins.action":
      return t.customizations.pluginAction(msg);
    case "reviewAction":
      return reviewAction(t.review, msg, t.post);
    case "compact":
      return t.live.compact();
    case "checkpointPreview":
    case "checkpointRestore":
    case "checkpointUndo":
    case "checkpointFork":
    case "checkpointDiff":
      return t.checkpoints.handle(msg);
    // --- composer: @-mention completion, messages with attachments, steering and the queue ---
    case "composer.complete":
      return msg.kind === "command" ? t.composer.completeCommand(msg.requestId, msg.query) : t.composer.complete(msg.requestId, msg.query);
    case "composer.send":
      return t.composed.send(msg.text, msg.items, msg.mode);
    case "composer.editQueued":
      return t.composed.editQueued(msg.id, msg);
    case "composer.removeQueued":
      return t.composed.removeQueued(msg.id);
    // --- long sessions: the panel's window over the transcript ---
    case "loadItems":
      return t.transcript.load(msg);
    case "searchTranscript":
      return t.transcript.search(msg);
    case "useDemoModel":
      await t.demo.use().catch((err: unknown) => t.post({ type: "error", message: `The demo model did not start: ${(err as Error)?.message ?? String(err)}` }));
      t.firstRun.again(false);
      return t.pushState();
    // --- background agents: run in background, the Agents view, review, merge back, discard ---
    case "agents.start":
    case "agents.open":
    case "agents.stop":
    case "agents.discard":
    case "agents.note":
    case "agents.merge":
    case "agents.reviewInEditor":
      return t.agents.handle(msg);
    // --- MCP: the servers view's actions, a server's form ---
    case "mcpServerAction":
      await t.mcp.serverAction(msg.server, msg.action).catch((err: unknown) => t.post({ type: "error", message: `MCP server ${msg.server}: ${(err as Error)?.message ?? String(err)}` }));
      return;
    case "mcpElicitationAnswer":
      return t.mcp.answerForm(msg.id, msg.action, msg.content);
    default:
      msg satisfies never;
  }
}
