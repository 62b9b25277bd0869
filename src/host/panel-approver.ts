// The Approver of the extension: a question becomes a permission card in the panel and, when the
// panel is hidden, also a notification. Whichever answers first wins. Questions wait in order, the
// first one shown; a background agent's question (a `background: true` custom agent, which outlives
// the turn and the session that started it) names the agent, its worktree and branch, and is never
// answered for the person: Stop and New Session withdraw only the shown session's own question.
import * as vscode from "vscode";
import type { Approver, AskerRules, PermissionAnswer, PermissionCheck, PermissionQuestion } from "../core/loop/types";
import { FOR_RUN_CHOICES, type PermissionView } from "../protocol/messages";
import { formatInput } from "../node/panel/view-model";
import { notify } from "./shown";

interface Pending {
  view: PermissionView;
  /** The asker's own rules (an agent in a worktree), which "Always allow" extends too. */
  rules?: AskerRules;
  settle(answer: PermissionAnswer): void;
}

/** The rule "Always allow" would write for a question, or null when no rule is safe. */
export type RuleProposer = (req: PermissionCheck) => Promise<string | null>;

const REPLACED = "Another permission question replaced this one.";

/** Who asks, in words: "the background agent "x" (ID, branch B)". */
export function askerWords(a: NonNullable<PermissionView["asker"]>): string {
  const where = [a.id, a.branch ? `branch ${a.branch}` : undefined].filter(Boolean).join(", ");
  return `the ${a.background ? "background " : ""}agent "${a.agent}"${where ? ` (${where})` : ""}`;
}

export class PanelApprover implements Approver {
  private pending: Pending[] = [];
  /** Set by the host once the permission gate exists. */
  proposeRule: RuleProposer | undefined;
  /** "Always allow" from the notification: writes the rule, then allows (set by the host). */
  alwaysAllow: ((callId: string, rule: string) => Promise<void>) | undefined;
  private readonly changed = new vscode.EventEmitter<PermissionView | null>();
  /** Fires with the question to show, or null when none is left. */
  readonly onDidChange = this.changed.event;

  constructor(private readonly isPanelVisible: () => boolean) {}

  /** The shown session's own question waits (not only a background agent's). */
  get waitingOwn(): boolean {
    return this.pending.some((p) => !p.view.asker?.background);
  }

  /** The own rules of the agent asking the waiting question `callId`, when it has some (PermissionQuestion.rules). */
  rulesOf(callId: string): AskerRules | undefined {
    return this.pending.find((p) => p.view.callId === callId)?.rules;
  }

  /** The question shown (the first waiting). */
  get current(): PermissionView | null {
    return this.pending[0]?.view ?? null;
  }

  /** The session's own questions (not a background agent's): one at a time, a new one replaces it. */
  private replaceOwn(q: PermissionQuestion): void {
    if (q.asker?.background) return;
    for (const p of this.pending.filter((p) => !p.view.asker?.background)) p.settle({ decision: "deny", message: REPLACED });
  }

  async ask(q: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
    this.replaceOwn(q);
    let rule: string | null = null;
    // A question for the whole run (a project command's allowed-tools) proposes no rule: "Always allow" would write one for this call's tool.
    if (!q.forRun) {
      try {
        // An agent with rules of its own (a worktree's) gets the rule of its own folder; the host saves it for the workspace too.
        const req = { tool: q.tool, permission: q.permission, input: q.input, mutates: !q.readOnly };
        rule = (q.rules ? await q.rules.propose(req) : await this.proposeRule?.(req)) ?? null;
      } catch {
        rule = null; // no proposal: the card offers Allow once and Deny only
      }
    }
    if (signal.aborted) return { decision: "deny", message: "The run was stopped." };
    this.replaceOwn(q);
    const view: PermissionView = {
      callId: q.callId,
      tool: q.tool,
      permission: q.permission,
      summary: q.summary || q.tool,
      detail: formatInput(q.input),
      reason: q.reason,
      ...(rule ? { rule } : {}),
      ...(q.asker ? { asker: { ...q.asker } } : {}),
      ...(q.forRun ? { forRun: [...q.forRun.grants] } : {}),
    };
    return new Promise<PermissionAnswer>((resolve) => {
      const onAbort = () => entry.settle({ decision: "deny", message: "The run was stopped." });
      const entry: Pending = {
        view,
        ...(q.rules ? { rules: q.rules } : {}),
        settle: (answer) => {
          const at = this.pending.indexOf(entry);
          if (at < 0) return;
          this.pending.splice(at, 1);
          signal.removeEventListener("abort", onAbort);
          if (at === 0) this.changed.fire(this.current);
          resolve(answer);
        },
      };
      this.pending.push(entry);
      signal.addEventListener("abort", onAbort, { once: true });
      if (this.pending[0] === entry) this.changed.fire(view);
      if (!this.isPanelVisible()) void this.notify(entry);
    });
  }

  /** An answer from the panel; ignored when no waiting question has that call id. */
  answer(callId: string, answer: PermissionAnswer): boolean {
    const entry = this.pending.find((p) => p.view.callId === callId);
    if (!entry) return false;
    entry.settle(answer);
    return true;
  }

  /**
   * Denies the shown session's open question (the run is being stopped: Stop, New Session). A
   * background agent's question stays: it is not part of that run, and nobody answered it.
   */
  cancel(message = "The run was stopped."): void {
    for (const p of this.pending.filter((p) => !p.view.asker?.background)) p.settle({ decision: "deny", message });
  }

  dispose(): void {
    // The window closes: every question goes (the agents asking them end with the extension host).
    for (const p of [...this.pending]) p.settle({ decision: "deny", message: "VS Code closed the session." });
    this.changed.dispose();
  }

  private async notify(entry: Pending): Promise<void> {
    const v = entry.view;
    if (v.forRun) {
      // What is clicked is what happens: allowed for the rest of the run, or each call asked as usual.
      const choice = await notify("warning", `Yoke: ${v.summary}`, { detail: v.reason }, FOR_RUN_CHOICES.allow, FOR_RUN_CHOICES.ask, "Show");
      if (choice === FOR_RUN_CHOICES.allow) entry.settle({ decision: "allow" });
      else if (choice === FOR_RUN_CHOICES.ask) entry.settle({ decision: "deny" });
      else if (choice === "Show") void vscode.commands.executeCommand("yoke.focus");
      return;
    }
    const always = v.rule && this.alwaysAllow ? `Always Allow ${v.rule}` : undefined;
    const who = v.asker ? `Yoke's ${askerWords(v.asker).replace(/^the /, "")}` : "Yoke";
    const choice = await notify("warning", `${who} wants to use ${v.tool}: ${v.summary}`, { detail: v.reason }, "Allow", ...(always ? [always] : []), "Deny", "Show");
    if (choice === "Allow") entry.settle({ decision: "allow" });
    else if (always && choice === always && v.rule) void this.alwaysAllow?.(v.callId, v.rule);
    else if (choice === "Deny") entry.settle({ decision: "deny", message: "The user denied this in VS Code." });
    else if (choice === "Show") void vscode.commands.executeCommand("yoke.focus");
  }
}
