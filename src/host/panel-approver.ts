// The Approver of the extension: a question becomes a permission card in the panel and, when the
// panel is hidden, also a notification. Whichever answers first wins.
import * as vscode from "vscode";
import type { Approver, PermissionAnswer, PermissionCheck, PermissionQuestion } from "../core/loop/types";
import { FOR_RUN_CHOICES, type PermissionView } from "../protocol/messages";
import { formatInput } from "../node/panel/view-model";

interface Pending {
  view: PermissionView;
  settle(answer: PermissionAnswer): void;
}

/** The rule "Always allow" would write for a question, or null when no rule is safe. */
export type RuleProposer = (req: PermissionCheck) => Promise<string | null>;

export class PanelApprover implements Approver {
  private pending: Pending | undefined;
  /** Set by the host once the permission gate exists. */
  proposeRule: RuleProposer | undefined;
  /** "Always allow" from the notification: writes the rule, then allows (set by the host). */
  alwaysAllow: ((callId: string, rule: string) => Promise<void>) | undefined;
  private readonly changed = new vscode.EventEmitter<PermissionView | null>();
  /** Fires with the question to show, or null when it was answered or withdrawn. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly isPanelVisible: () => boolean) {}

  get current(): PermissionView | null {
    return this.pending?.view ?? null;
  }

  async ask(q: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    this.pending?.settle({ decision: "deny", message: "Another permission question replaced this one." });
    let rule: string | null = null;
    // A question for the whole run (a project command's allowed-tools) proposes no rule: "Always allow" would write one for this call's tool.
    if (!q.forRun) {
      try {
        rule = (await this.proposeRule?.({ tool: q.tool, permission: q.permission, input: q.input, mutates: !q.readOnly })) ?? null;
      } catch {
        rule = null; // no proposal: the card offers Allow once and Deny only
      }
    }
    if (signal.aborted) return { decision: "deny", message: "The run was stopped." };
    this.pending?.settle({ decision: "deny", message: "Another permission question replaced this one." });
    const view: PermissionView = {
      callId: q.callId,
      tool: q.tool,
      permission: q.permission,
      summary: q.summary || q.tool,
      detail: formatInput(q.input),
      reason: q.reason,
      ...(rule ? { rule } : {}),
      ...(q.forRun ? { forRun: [...q.forRun.grants] } : {}),
    };
    return new Promise<PermissionAnswer>((resolve) => {
      const onAbort = () => entry.settle({ decision: "deny", message: "The run was stopped." });
      const entry: Pending = {
        view,
        settle: (answer) => {
          if (this.pending !== entry) return;
          this.pending = undefined;
          signal.removeEventListener("abort", onAbort);
          this.changed.fire(null);
          resolve(answer);
        },
      };
      this.pending = entry;
      signal.addEventListener("abort", onAbort, { once: true });
      this.changed.fire(view);
      if (!this.isPanelVisible()) void this.notify(entry);
    });
  }

  /** An answer from the panel; ignored when it is not about the open question. */
  answer(callId: string, answer: PermissionAnswer): boolean {
    if (this.pending?.view.callId !== callId) return false;
    this.pending.settle(answer);
    return true;
  }

  /** Denies the open question (the run is being stopped). */
  cancel(message = "The run was stopped."): void {
    this.pending?.settle({ decision: "deny", message });
  }

  dispose(): void {
    this.cancel("VS Code closed the session.");
    this.changed.dispose();
  }

  private async notify(entry: Pending): Promise<void> {
    const v = entry.view;
    if (v.forRun) {
      // What is clicked is what happens: allowed for the rest of the run, or each call asked as usual.
      const choice = await vscode.window.showWarningMessage(`Yoke: ${v.summary}`, { detail: v.reason }, FOR_RUN_CHOICES.allow, FOR_RUN_CHOICES.ask, "Show");
      if (choice === FOR_RUN_CHOICES.allow) entry.settle({ decision: "allow" });
      else if (choice === FOR_RUN_CHOICES.ask) entry.settle({ decision: "deny" });
      else if (choice === "Show") void vscode.commands.executeCommand("yoke.focus");
      return;
    }
    const always = v.rule && this.alwaysAllow ? `Always Allow ${v.rule}` : undefined;
    const choice = await vscode.window.showWarningMessage(`Yoke wants to use ${v.tool}: ${v.summary}`, { detail: v.reason }, "Allow", ...(always ? [always] : []), "Deny", "Show");
    if (choice === "Allow") entry.settle({ decision: "allow" });
    else if (always && choice === always && v.rule) void this.alwaysAllow?.(v.callId, v.rule);
    else if (choice === "Deny") entry.settle({ decision: "deny", message: "The user denied this in VS Code." });
    else if (choice === "Show") void vscode.commands.executeCommand("yoke.focus");
  }
}
