// The open permission question, pinned above the prompt: allow once, always allow, or deny with a message.
import { FOR_RUN_CHOICES, type PermissionView } from "../../src/protocol/messages";
import { button } from "../ui/components";
import { el, clear, codeEl } from "../ui/dom";

export type PermissionChoice = { decision: "allow" | "deny"; always?: boolean; message?: string };

/** Who asks, when it is a custom agent (a background agent's question outlives the session that started it). */
function askerLine(a: NonNullable<PermissionView["asker"]>): HTMLElement {
  const where = [a.id ? `agent ${a.id}` : undefined, a.branch ? `branch ${a.branch}` : undefined].filter((x): x is string => Boolean(x));
  return el(
    "div",
    { class: "permission-asker", "data-testid": "permission-asker", "data-agent": a.agent, ...(a.id ? { "data-agent-id": a.id } : {}), ...(a.worktree ? { title: `Works in ${a.worktree}` } : {}) },
    [a.background ? "The background agent " : "The agent ", el("strong", {}, [a.agent]), where.length ? ` (${where.join(", ")})` : "", " asks:"],
  );
}

export class PermissionCard {
  readonly root = el("div", { class: "permission-slot" });
  private callId: string | undefined;

  constructor(private readonly onAnswer: (callId: string, choice: PermissionChoice) => void) {}

  show(request: PermissionView | null): void {
    if (request?.callId === this.callId) return;
    clear(this.root);
    this.callId = request?.callId;
    if (!request) return;
    const message = el("input", {
      class: "deny-message",
      "data-testid": "deny-message",
      type: "text",
      placeholder: "Optional: tell the agent why (sent with Deny)",
      "aria-label": "Message sent with Deny",
    }) as HTMLInputElement;
    const answer = (choice: PermissionChoice) => {
      if (this.callId !== request.callId) return;
      this.onAnswer(request.callId, choice);
      this.show(null);
    };
    message.addEventListener("keydown", (e) => {
      if (e.key === "Enter") answer({ decision: "deny", message: message.value.trim() || undefined });
    });
    if (request.forRun) {
      // A question for the whole run (a project command's allowed-tools): the buttons say what
      // happens — allowed until the run ends, or each call asked as usual. No message: nothing is denied.
      this.root.appendChild(
        el(
          "div",
          {
            class: "permission-card",
            "data-testid": "permission-card",
            "data-call-id": request.callId,
            "data-tool": request.tool,
            "data-scope": "run",
            role: "alertdialog",
            "aria-label": `Permission for this run: ${request.forRun.join(", ")}`,
          },
          [
            el("div", { class: "permission-title" }, ["Allow for the rest of this run: ", el("strong", {}, [request.forRun.join(", ")]), "?"]),
            codeEl("pre", { class: "permission-summary" }, request.summary),
            el("div", { class: "permission-reason" }, [request.reason]),
            el("details", { class: "permission-detail" }, [el("summary", {}, [`The call that asked first: ${request.tool}`]), codeEl("pre", {}, request.detail)]),
            el("div", { class: "permission-actions" }, [
              button({
                label: FOR_RUN_CHOICES.allow,
                title: `Allow ${request.forRun.join(", ")} until this run ends (deny rules, protected paths and the mode still apply)`,
                testid: "allow-run",
                onClick: () => answer({ decision: "allow" }),
              }),
              button({
                label: FOR_RUN_CHOICES.ask,
                title: "Grant nothing: the permission rules decide each call, asking as usual",
                appearance: "secondary",
                testid: "ask-each-time",
                onClick: () => answer({ decision: "deny" }),
              }),
            ]),
          ],
        ),
      );
      return;
    }
    this.root.appendChild(
      el(
        "div",
        { class: "permission-card", "data-testid": "permission-card", "data-call-id": request.callId, "data-tool": request.tool, role: "alertdialog", "aria-label": `Permission for ${request.tool}` },
        [
          request.asker ? askerLine(request.asker) : null,
          el("div", { class: "permission-title" }, ["Allow ", el("strong", {}, [request.tool]), ` (${request.permission})?`]),
          codeEl("pre", { class: "permission-summary" }, request.summary),
          el("div", { class: "permission-reason" }, [request.reason]),
          el("details", { class: "permission-detail" }, [el("summary", {}, ["Arguments"]), codeEl("pre", {}, request.detail)]),
          message,
          el("div", { class: "permission-actions" }, [
            button({ label: "Allow once", testid: "allow-once", onClick: () => answer({ decision: "allow" }) }),
            request.rule
              ? button({
                  label: `Always allow ${request.rule}`,
                  title: `Allow now and add the rule ${request.rule} to .yoke/settings.local.json`,
                  appearance: "secondary",
                  testid: "always-allow",
                  onClick: () => answer({ decision: "allow", always: true }),
                })
              : null,
            button({ label: "Deny", appearance: "secondary", testid: "deny", onClick: () => answer({ decision: "deny", message: message.value.trim() || undefined }) }),
          ]),
        ],
      ),
    );
  }
}
