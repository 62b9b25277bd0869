// The panel's permission controls: the permission mode (shown and switchable), "Always allow"
// (writes the proposed rule, then allows), and the info line of the panel (mode, settings
// problems, sandbox, background commands).
import * as vscode from "vscode";
import { PERMISSION_MODES } from "../core/permissions/merge-settings";
import type { PermissionMode } from "../core/loop/types";
import type { HostInfoView, HostToWebview, WebviewToHost } from "../protocol/messages";
import type { HostServices } from "./host-services";
import { askerWords, type PanelApprover } from "./panel-approver";
import { NO_SANDBOX_WARNING } from "../node/commands/sandbox/none";
import { notify } from "./shown";

export interface PermissionControlsDeps {
  services: HostServices;
  approver: PanelApprover;
  log: vscode.LogOutputChannel;
  post: (msg: HostToWebview) => void;
  /** Adds a notice to the shown session's message list. */
  notice: (id: string, level: "info" | "warning" | "error", text: string) => void;
  /** The live session, if any. */
  live: () => { readonly id: string; setPermissionMode(mode: PermissionMode): void } | undefined;
  /** The sandbox of the shown session (from its session_start). */
  sandbox: () => { name: string; warning?: string } | undefined;
}

export class PermissionControls {
  /** The mode of the live session and the next one; undefined until first needed. */
  private current: PermissionMode | undefined;

  constructor(private readonly deps: PermissionControlsDeps) {
    deps.approver.proposeRule = async (req) => (await deps.services.gate?.proposeRule(req)) ?? null;
    deps.approver.alwaysAllow = (callId, rule) => this.alwaysAllow(callId, rule);
  }

  /** The mode now ("default" before it was read from the settings). */
  get mode(): PermissionMode {
    return this.current ?? "default";
  }

  /** The mode shown and used: picked from the settings the first time. */
  async currentMode(): Promise<PermissionMode> {
    this.current ??= await this.deps.services.startMode();
    return this.current;
  }

  /** The permission mode from now on (also for the session running now). */
  async setMode(mode: PermissionMode): Promise<void> {
    const gate = this.deps.services.gate;
    if (gate && !(await gate.modeAllowed(mode).catch(() => false))) {
      const message = `The ${mode} mode is turned off by the permission settings (disableBypassPermissionsMode); the mode stays ${this.mode}.`;
      this.deps.log.warn(message);
      this.deps.post({ type: "error", message });
      void notify("warning", message);
      await this.pushInfo();
      return;
    }
    this.current = mode;
    this.deps.live()?.setPermissionMode(mode);
    this.deps.log.info(`permission mode: ${mode}`);
    await this.pushInfo();
  }

  /** An answer from the permission card. */
  async answer(msg: Extract<WebviewToHost, { type: "permissionAnswer" }>): Promise<void> {
    const { approver } = this.deps;
    const rule = approver.current?.callId === msg.callId ? approver.current.rule : undefined;
    if (msg.always && msg.decision === "allow" && rule) return this.alwaysAllow(msg.callId, rule);
    approver.answer(msg.callId, { decision: msg.decision, ...(msg.message ? { message: msg.message } : {}) });
  }

  /**
   * "Always allow": writes the rule to .yoke/settings.local.json, then allows the call. An agent
   * that works under rules of its own (a background agent in its worktree, which does not read the
   * workspace's file) gets the rule too, for the rest of its session.
   */
  async alwaysAllow(callId: string, rule: string): Promise<void> {
    const { approver, log } = this.deps;
    const gate = this.deps.services.gate;
    if (approver.current?.callId !== callId || !gate) return;
    const asker = approver.current.asker;
    try {
      const { path } = await gate.addLocalRule(rule);
      approver.rulesOf(callId)?.add(rule, "allow");
      const rel = vscode.workspace.asRelativePath ? vscode.workspace.asRelativePath(path) : path;
      const also = asker && approver.rulesOf(callId) ? ` It also holds for ${askerWords(asker)} in its worktree from now on.` : "";
      log.info(`always allow: added ${rule} to ${path}${also ? ` and to the rules of ${askerWords(asker!)}` : ""}`);
      this.deps.notice(`rule-${callId}`, "info", `Always allowed: added ${rule} to ${rel}.${also}`);
      approver.answer(callId, { decision: "allow" });
    } catch (err) {
      // The card stays: the user can still allow once or deny.
      const message = `Could not save the rule ${rule}: ${(err as Error)?.message ?? String(err)}`;
      log.warn(message);
      this.deps.post({ type: "error", message });
    }
  }

  async info(): Promise<HostInfoView> {
    const { services } = this.deps;
    const mode = await this.currentMode();
    const problems = await services.problems();
    const live = this.deps.live();
    // Before a session has a runner, a sandbox switched off in the settings is already warned about.
    const sandbox = this.deps.sandbox() ?? (services.services()?.sandboxSettings.backend === "none" ? { name: "none", warning: NO_SANDBOX_WARNING } : undefined);
    const network = live ? services.network(live.id) : undefined;
    const gate = services.gate;
    const disabled = gate ? (await Promise.all(PERMISSION_MODES.map(async (m) => ((await gate.modeAllowed(m).catch(() => true)) ? undefined : m)))).filter((m): m is PermissionMode => !!m) : [];
    return {
      mode,
      problems,
      ...(disabled.length ? { disabledModes: disabled } : {}),
      ...(sandbox ? { sandbox: { ...sandbox, ...(network ? { network } : {}) } } : {}),
      background: live ? services.background(live.id) : [],
    };
  }

  async pushInfo(): Promise<void> {
    try {
      this.deps.post({ type: "hostInfo", info: await this.info() });
    } catch (err) {
      this.deps.log.warn(`cannot build the permission/sandbox info: ${(err as Error)?.message ?? String(err)}`);
    }
  }
}
