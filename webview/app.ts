// The panel: builds the views and applies host messages to them. The host owns the state;
// the panel only renders snapshots and increments.
import { ContextMeter } from "./views/context-meter";
import { PROTOCOL_VERSION, type DemoView, type HostToWebview, type Snapshot, type ViewState } from "../src/protocol/messages";
import { RUNNING_STATES } from "./format";
import type { HostApi } from "./host-api";
import { button } from "./ui/components";
import { el, clear, setText } from "./ui/dom";
import { Composer } from "./views/composer";
import { FirstRun } from "./views/first-run";
import { Header } from "./views/header";
import { History } from "./views/history";
import { handleCopyClick } from "./views/markdown";
import { MessageList } from "./views/message-list";
import { PermissionCard } from "./views/permission-card";
import { PendingChanges } from "./views/pending-changes";
import { HostInfoPanel } from "./views/host-info";
import { GuidanceList } from "./views/guidance";
import { McpServersPanel } from "./views/mcp-servers";
import { CustomizationsView } from "./views/customizations";
import { ElicitationForm } from "./views/elicitation-form";
import { CheckpointsPanel } from "./views/checkpoints";
import { TranscriptSearch } from "./views/transcript-search";
import { DemoPrompts, DemoPromptsBar } from "./views/demo-prompts";
import { AgentsPanel } from "./views/agents";

export class App {
  private readonly header: Header;
  private readonly history: History;
  private readonly list: MessageList;
  private readonly composer: Composer;
  private readonly permission: PermissionCard;
  private readonly firstRun: FirstRun;
  /** Change review: pending and auto-applied file changes. */
  private readonly reviews: PendingChanges;
  private readonly hostInfo: HostInfoPanel;
  private readonly guidance: GuidanceList;
  private readonly mcpServers: McpServersPanel;
  private readonly elicitation: ElicitationForm;
  /** Customizations (issue 23): everything found, in force or not, and the plugins. */
  private readonly customizations: CustomizationsView;
  private readonly contextMeter: ContextMeter;
  /** Checkpoints: a restore's preview and "Undo restore" (the turn controls are in the message list). */
  private readonly checkpoints: CheckpointsPanel;
  /** Palette: context attached from the editor for the next message. */
  /** Long sessions: search over the whole transcript. */
  private readonly search: TranscriptSearch;
  /** Demo model: the suggested prompts of the empty panel. */
  private readonly demoPrompts: DemoPrompts;
  private readonly demoNext: DemoPromptsBar;
  /** Background agents: the Agents view (src/host/agents). */
  private readonly agents: AgentsPanel;
  /** The demo model's suggested prompts (while it is in use) and whether the session has turns. */
  private demo: { view: DemoView | undefined; hasItems: boolean; readOnly: boolean } = { view: undefined, hasItems: false, readOnly: false };
  private readonly restricted = el("div", { class: "banner restricted", "data-testid": "restricted-banner", role: "status", hidden: true }, [
    "Restricted Mode: Yoke can chat and read files but will not run commands or write files until you trust this workspace.",
  ]);
  private readonly resumedText = el("span", {});
  private readonly continueButton: HTMLElement;
  private readonly resumed = el("div", { class: "banner resumed", "data-testid": "resumed-banner", hidden: true }, [this.resumedText]);
  /** The session is written by another process (the CLI, another window): shown, not continued here. */
  private readonly readOnlyText = el("span", {});
  private readonly readOnly = el("div", { class: "banner readonly", "data-testid": "readonly-banner", role: "status", hidden: true }, [this.readOnlyText]);
  private readonly error = el("div", { class: "banner error", "data-testid": "error-banner", role: "alert", hidden: true });
  private readonly empty = el("div", { class: "empty", "data-testid": "empty-state", hidden: true }, ["Ask Yoke to explain, fix or change something in this workspace."]);
  private state: ViewState = "idle";
  /** The prompt last sent, until the host shows it: restored into the box if sending fails. */
  private unconfirmedPrompt: string | undefined;

  constructor(
    root: HTMLElement,
    private readonly host: HostApi,
  ) {
    const send = host.send;
    this.continueButton = button({ label: "Continue", appearance: "secondary", testid: "continue", onClick: () => send({ type: "continue" }) });
    this.resumed.append(this.continueButton);
    this.readOnly.append(button({ label: "Continue as a fork", appearance: "secondary", testid: "fork-session", onClick: () => send({ type: "forkSession" }) }));
    this.header = new Header(
      () => send({ type: "newSession" }),
      (mode) => send({ type: "setMode", mode }),
    );
    this.hostInfo = new HostInfoPanel((id) => send({ type: "killProcess", id }));
    this.guidance = new GuidanceList((id, action) => send({ type: "guidanceAction", id, action }));
    this.customizations = new CustomizationsView(send);
    this.contextMeter = new ContextMeter(() => send({ type: "compact" }));
    this.history = new History((id) => send({ type: "openSession", id }));
    this.firstRun = new FirstRun(send);
    this.checkpoints = new CheckpointsPanel(send);
    this.reviews = new PendingChanges((editId, action) => send({ type: "reviewAction", editId, action }));
    this.permission = new PermissionCard((callId, choice) => send({ type: "permissionAnswer", callId, ...choice }));
    this.mcpServers = new McpServersPanel((server, action) => send({ type: "mcpServerAction", server, action }));
    this.elicitation = new ElicitationForm((answer) => send({ type: "mcpElicitationAnswer", ...answer }));
    this.composer = new Composer(
      {
        send: (text, items, mode) => {
          this.hideError();
          if (mode === "send") this.unconfirmedPrompt = text;
          // Composer: a plain message stays a `prompt`; one with chips, or typed while the agent works, carries them.
          if (mode === "send" && items.length === 0) send({ type: "prompt", text });
          else send({ type: "composer.send", text, items, mode });
        },
        stop: () => send({ type: "stop" }),
        complete: (requestId, query, kind) => send({ type: "composer.complete", requestId, query, ...(kind ? { kind } : {}) }),
        editQueued: (id, patch) => send({ type: "composer.editQueued", id, ...patch }),
        removeQueued: (id) => send({ type: "composer.removeQueued", id }),
        saveChips: (items) => host.saveChips?.(items),
        runInBackground: (text, carry) => send({ type: "agents.start", text, carry }),
      },
      host.savedChips?.() ?? [],
    );
    const sendDemoPrompt = (text: string) => {
      this.hideError();
      this.unconfirmedPrompt = text;
      send({ type: "prompt", text });
    };
    this.demoPrompts = new DemoPrompts(sendDemoPrompt);
    this.demoNext = new DemoPromptsBar(sendDemoPrompt);
    this.agents = new AgentsPanel(send);
    const scroller = el("main", { class: "scroller" });
    this.list = new MessageList(scroller, send);
    this.search = new TranscriptSearch(send, (m) => this.list.jumpTo(m.index, { id: m.id, highlight: true }));
    scroller.append(this.firstRun.root, this.empty, this.demoPrompts.root, this.list.root);
    scroller.addEventListener("click", handleCopyClick);
    scroller.addEventListener("click", (ev) => this.checkpoints.handleClick(ev));
    root.append(
      this.header.root,
      this.restricted,
      this.hostInfo.root,
      this.guidance.root,
      this.mcpServers.root,
      this.customizations.root,
      this.contextMeter.root,
      this.history.root,
      this.agents.root,
      this.search.root,
      scroller,
      this.error,
      this.readOnly,
      this.resumed,
      this.reviews.root,
      this.checkpoints.root,
      this.permission.root,
      this.elicitation.root,
      this.demoNext.root,
      this.composer.root,
    );
  }

  start(): void {
    this.host.onMessage((msg) => this.apply(msg));
    this.host.send({ type: "ready", protocol: PROTOCOL_VERSION });
    this.composer.focus();
  }

  apply(msg: HostToWebview): void {
    switch (msg.type) {
      case "state":
        return this.applySnapshot(msg.snapshot);
      case "event":
        if (msg.view.kind === "user") this.unconfirmedPrompt = undefined;
        if (msg.insert && msg.index !== undefined) this.list.insert(msg.view, msg.index);
        else this.list.upsert(msg.view, msg.index);
        this.search.setAvailable(true);
        this.demoPrompts.show(undefined, false);
        this.demo.hasItems = true;
        this.showDemoNext();
        if (msg.view.kind === "notice" && msg.view.level === "error") this.list.dropLive();
        this.empty.hidden = true;
        return;
      case "delta":
        this.list.delta(msg.kind, msg.text);
        this.empty.hidden = true;
        return;
      case "status":
        this.setState(msg.state, msg.detail);
        return;
      case "usage":
        this.header.setUsage(msg.usage);
        return;
      case "permission":
        this.permission.show(msg.request);
        return;
      case "history":
        this.history.set(msg.sessions);
        return;
      case "firstRun":
        this.firstRun.show(msg.info);
        return;
      case "error":
        this.showError(msg.message);
        if (this.unconfirmedPrompt !== undefined) this.composer.restore(this.unconfirmedPrompt);
        this.unconfirmedPrompt = undefined;
        return;
      case "reviews":
        this.reviews.set(msg.items);
        return;
      case "hostInfo":
        this.header.setHostInfo(msg.info);
        this.hostInfo.set(msg.info);
        return;
      case "guidance":
        this.guidance.set(msg.items, msg.problems);
        return;
      case "mcpServers":
        this.mcpServers.set(msg.servers);
        return;
      case "customizations":
        this.customizations.set(msg);
        return;
      case "mcpElicitation":
        this.elicitation.show(msg.request);
        return;
      case "context":
        this.contextMeter.set(msg.meter);
        return;
      case "checkpointPreview":
        this.checkpoints.showPreview(msg.preview);
        return;
      case "checkpointUndo":
        this.checkpoints.setUndo(msg.undo);
        return;
      case "composer.focus":
        this.composer.focus();
        return;
      // --- composer: mention completion, the waiting messages, chips from outside ---
      case "composer.completions":
        this.composer.completions(msg.requestId, msg.items);
        return;
      case "composer.queue":
        this.composer.setQueue(msg.items);
        return;
      case "composer.addContext":
        this.composer.addContext(msg.item);
        return;
      // --- long sessions: parts of the transcript, search results ---
      case "items":
        this.list.onItems(msg);
        return;
      case "searchResults":
        this.search.onResults(msg);
        return;
      // --- background agents ---
      case "agents":
        this.agents.set(msg.agents);
        return;
      case "agents.transcript":
        this.agents.showTranscript(msg.id, msg.lines);
        return;
      case "agents.review":
        this.agents.showReview(msg.id, msg.files);
        return;
      case "agents.outcome":
        this.agents.showOutcome(msg.outcome);
        return;
      default:
        msg satisfies never;
    }
  }

  private applySnapshot(s: Snapshot): void {
    this.list.reset(s.items, s.omitted, s.streaming, s.sessionId);
    this.search.setAvailable(s.items.length > 0);
    this.header.setModel(s.modelLabel, s.mode);
    this.header.setUsage(s.usage);
    this.setState(s.state);
    this.history.set(s.history);
    this.history.root.open = !s.sessionId && s.history.length > 0 && !s.firstRun;
    this.permission.show(s.pending);
    this.reviews.set(s.reviews ?? []);
    this.header.setHostInfo(s.hostInfo ?? { mode: (s.mode as "default") ?? "default" });
    if (s.hostInfo) this.hostInfo.set(s.hostInfo);
    this.contextMeter.set(s.context);
    this.firstRun.show(s.firstRun);
    this.restricted.hidden = !s.restricted;
    this.readOnly.hidden = !s.readOnly;
    setText(this.readOnlyText, s.readOnly ? `Read-only: ${s.readOnly.by} is working on this session. It updates here as it goes; continue it there, or here in a copy.` : "");
    this.composer.setReadOnly(Boolean(s.readOnly));
    this.resumed.hidden = !s.resumed || s.items.length === 0 || Boolean(s.readOnly);
    const interrupted = s.state === "interrupted";
    this.resumedText.textContent = interrupted ? "This session was interrupted. Continue it, or send a message." : "Opened from history. Send a message to continue this session.";
    this.continueButton.hidden = !interrupted;
    this.empty.hidden = s.items.length > 0 || Boolean(s.firstRun) || Boolean(s.streaming);
    this.demoPrompts.show(s.demo, s.items.length === 0 && !s.firstRun && !s.streaming);
    this.demo = { view: s.firstRun ? undefined : s.demo, hasItems: s.items.length > 0 || s.omitted > 0, readOnly: Boolean(s.readOnly) };
    this.showDemoNext();
    this.hideError();
  }

  private setState(state: ViewState, detail?: string): void {
    this.state = state;
    this.header.setStatus(state, detail);
    const running = RUNNING_STATES.has(state);
    this.composer.setRunning(running);
    this.checkpoints.setRunning(running);
    this.showDemoNext();
    if (running) this.resumed.hidden = true;
    else if (state !== "idle") this.list.dropLive();
  }

  private showDemoNext(): void {
    this.demoNext.show(this.demo.view, this.demo.hasItems && !this.demo.readOnly && !RUNNING_STATES.has(this.state));
  }

  private showError(message: string): void {
    clear(this.error);
    this.error.append(el("span", { class: "error-text" }, [message]), button({ icon: "close", title: "Dismiss", onClick: () => this.hideError() }));
    this.error.hidden = false;
  }

  private hideError(): void {
    this.error.hidden = true;
  }
}
