// The panel's whole state in one message (the `state` snapshot): built synchronously, so no event
// can slip in between reading the state and posting it.
import * as vscode from "vscode";
import { describeHolder } from "../../node/session-store";
import { PROTOCOL_VERSION, type FirstRunView, type HostInfoView, type Snapshot } from "../../protocol/messages";
import type { CheckpointControls } from "../checkpoints";
import type { HostComposer } from "../composer";
import type { HostDemoModel } from "../demo-model";
import type { GuidanceControls } from "../guidance";
import type { PanelApprover } from "../panel-approver";
import { SNAPSHOT_ITEMS } from "../../node/panel/transcript";
import type { PermissionControls } from "../permission-controls";
import type { ReviewFeature } from "../review";
import { readSettings, type HostSettings } from "../settings";
import type { FirstRunProbe } from "./first-run";
import type { HistoryList } from "./history";
import type { LiveLink } from "./live";
import type { PanelState } from "./state";

export interface SnapshotDeps {
  state: PanelState;
  firstRun: FirstRunProbe;
  permissions: PermissionControls;
  live: LiveLink;
  approver: PanelApprover;
  history: HistoryList;
  review: ReviewFeature | undefined;
  demo: HostDemoModel;
  checkpoints: CheckpointControls;
  composer: HostComposer;
  guidance: GuidanceControls;
  log: { warn(msg: string): void; error(msg: string): void };
  /** The restore after a reload, awaited before the first state. */
  restoreOnce: () => Promise<void>;
}

/** The panel's state: taken (the `snapshot()` of tests and commands), or pushed to the panel. */
export class PanelSnapshots {
  constructor(private readonly d: SnapshotDeps) {}

  async take(): Promise<Snapshot> {
    await this.d.restoreOnce();
    await this.d.state.opening;
    const s = readSettings();
    const needsProvider = await this.d.firstRun.needsProvider(s);
    return this.build(s, needsProvider, await this.d.permissions.info().catch(() => undefined));
  }

  async push(): Promise<void> {
    const { d } = this;
    try {
      await d.restoreOnce();
      // A session being opened is shown once it is (its own push follows).
      if (d.state.opening) return;
      const s = readSettings();
      const needsProvider = await d.firstRun.needsProvider(s);
      const hostInfo = await d.permissions.info().catch((err: unknown) => {
        d.log.warn(`cannot build the permission/sandbox info: ${(err as Error)?.message ?? String(err)}`);
        return undefined;
      });
      d.state.post({ type: "state", snapshot: this.build(s, needsProvider, hostInfo) });
      d.checkpoints.pushUndo();
      d.composer.postQueue();
      d.guidance.show(d.live.session?.events() ?? [], true);
    } catch (err) {
      d.log.error(`cannot build the panel state: ${(err as Error).stack ?? String(err)}`);
      d.state.post({ type: "error", message: `Yoke could not load its state: ${(err as Error).message}` });
    }
  }

  /** Synchronous, so no event can slip in between reading the state and posting it. */
  private build(s: HostSettings, needsProvider: boolean, hostInfo: HostInfoView | undefined): Snapshot {
    const { d } = this;
    const firstRun = d.firstRun.view(needsProvider);
    return buildSnapshot({
      state: d.state,
      settings: s,
      firstRun,
      hostInfo,
      streaming: d.live.streaming,
      liveModel: d.live.current?.modelLabel,
      pending: d.approver.current,
      history: d.history.list(),
      reviews: d.review?.list() ?? [],
      context: d.live.contextMeter(),
      demo: firstRun ? undefined : d.demo.view(s),
    });
  }
}

export interface SnapshotParts {
  state: PanelState;
  settings: HostSettings;
  firstRun: FirstRunView | null;
  hostInfo: HostInfoView | undefined;
  /** The text streamed so far of the message being written. */
  streaming: { text: string; reasoning: string };
  /** The model the live session was opened with. */
  liveModel: string | undefined;
  pending: Snapshot["pending"];
  history: Snapshot["history"];
  reviews: Snapshot["reviews"];
  context: Snapshot["context"];
  demo: Snapshot["demo"];
}

export function buildSnapshot(p: SnapshotParts): Snapshot {
  const { state, settings: s, firstRun, hostInfo } = p;
  const { items, omitted } = state.vm.items(SNAPSHOT_ITEMS);
  const firstUser = omitted ? state.vm.range(0, 64).items.find((i) => i.kind === "user") : items.find((i) => i.kind === "user");
  const streaming = state.running && (p.streaming.text || p.streaming.reasoning) ? { ...p.streaming } : undefined;
  return {
    protocol: PROTOCOL_VERSION,
    sessionId: state.shownId,
    title: firstUser?.kind === "user" ? firstUser.text.slice(0, 80) : "New session",
    state: state.vm.state,
    resumed: state.resumed,
    ...(state.readOnly ? { readOnly: { by: describeHolder(state.readOnly) } } : {}),
    items,
    omitted,
    ...(streaming ? { streaming } : {}),
    pending: p.pending,
    usage: state.vm.usage,
    modelLabel: headerModel(p),
    mode: hostInfo?.mode ?? (state.shownId ? state.vm.mode : s.permissionMode),
    restricted: !vscode.workspace.isTrusted,
    firstRun,
    history: p.history,
    reviews: p.reviews,
    ...(hostInfo ? { hostInfo } : {}),
    ...(p.context ? { context: p.context } : {}),
    ...(!firstRun && p.demo ? { demo: p.demo } : {}),
  };
}

/**
 * The model the header names: the one answering while a run goes on (the live session was opened
 * with it; a resumed session's log names the model it started with), the holder's when another
 * process has the session, otherwise the one the next message uses: the settings' ("Switch
 * Model" shows at once).
 */
function headerModel({ state, settings: s, firstRun, liveModel }: SnapshotParts): string {
  if (state.running && liveModel) return liveModel;
  if ((state.running || state.readOnly) && state.vm.modelLabel) return state.vm.modelLabel;
  return firstRun ? "no model" : s.demoLabel || s.model || s.provider;
}
