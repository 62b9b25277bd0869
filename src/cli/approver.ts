/** Permission questions in a terminal: asked on stderr when there is a TTY, refused otherwise. */
import { createInterface } from "node:readline/promises";
import type { Approver, PermissionAnswer, PermissionQuestion } from "../core/loop/types";
import { FOR_RUN_CHOICES } from "../protocol/choices";
import { printable } from "./printable";
import { terminalStdin } from "./terminal";

/** `input`: the terminal (default: stdin when it is one, looked at when a question comes). */
export function createTerminalApprover(given?: NodeJS.ReadStream, output: NodeJS.WriteStream = process.stderr): Approver {
  return {
    async ask(q: PermissionQuestion, signal: AbortSignal): Promise<PermissionAnswer> {
      const input = given ?? terminalStdin();
      if (!input?.isTTY) {
        return {
          decision: "deny",
          // (The mode may already be bypassPermissions, whose questions no mode answers: name both ways, promise neither.)
          message: `no one to ask (not a terminal): ${q.reason.replace(/[.\s]+$/, "")}. Without a terminal, only what the permission mode (--permission-mode) and allow rules (~/.yoke/settings.json, .yoke/settings.local.json) allow can run`,
        };
      }
      const rl = createInterface({ input, output });
      try {
        if (q.forRun) {
          // A question for the whole run (a project command's allowed-tools): the keys say what
          // happens — granted until the run ends, or each call asked as usual (nothing is denied).
          const answer = await rl.question(
            `\n? ${printable(q.reason, { keepNewlines: false })}\n  y = ${FOR_RUN_CHOICES.allow.toLowerCase()} (${printable(q.forRun.grants.join(", "), { keepNewlines: false })}), N = ${FOR_RUN_CHOICES.ask.toLowerCase()} [y/N] `,
            { signal },
          );
          return /^y(es)?$/i.test(answer.trim()) ? { decision: "allow" } : { decision: "deny" };
        }
        // A multi-line summary (an MCP server's sampling request: its messages) is shown whole first.
        // Nothing of it reaches the terminal as a control character (printable.ts): the question
        // the user answers is the one asked.
        const shown = q.summary.includes("\n") ? `\n${printable(q.summary)}` : "";
        const answer = await rl.question(
          `${shown}\n? Allow ${printable(q.tool, { keepNewlines: false })} ${shown ? "" : summarize(q.input) + " "}(${printable(q.reason, { keepNewlines: false })})? [y/N/message] `,
          { signal },
        );
        const a = answer.trim();
        if (/^y(es)?$/i.test(a)) return { decision: "allow" };
        return { decision: "deny", message: a && !/^no?$/i.test(a) ? a : undefined };
      } finally {
        rl.close();
      }
    },
  };
}

function summarize(input: unknown): string {
  const text = printable(JSON.stringify(input) ?? "", { keepNewlines: false });
  return text.length > 160 ? text.slice(0, 159) + "…" : text;
}
