/**
 * MCP elicitation in a terminal: a server's form asked field by field on stderr (a choice by its
 * number or name, a yes/no, a number, text; Enter keeps the default or skips an optional field),
 * then Accept / Decline / Cancel. Without a terminal there is no elicitor: the form is declined.
 */
import { createInterface } from "node:readline/promises";
import type { McpElicitor } from "../core/mcp/client-requests";
import { validateElicitation, type ElicitAnswer, type ElicitField } from "../core/mcp/elicitation";
import { printable } from "./printable";
import { terminalStdin } from "./terminal";

/** A server's words on one line, with no control character (printable.ts). */
const oneLine = (text: string) => printable(text, { keepNewlines: false });

function prompt(f: ElicitField): string {
  const parts = [`  ${f.label}${f.required ? " *" : ""}`];
  if (f.description) parts.push(` — ${f.description}`);
  if (f.kind === "enum" || f.kind === "multi") parts.push(`\n${f.options.map((o, i) => `    ${i + 1}. ${o.label}`).join("\n")}\n   `);
  const hint =
    f.kind === "boolean"
      ? "y/n"
      : f.kind === "multi"
        ? "numbers or names, comma-separated"
        : f.kind === "enum"
          ? "number or name"
          : f.kind === "string" && f.format
            ? f.format
            : f.kind === "number" || f.kind === "integer"
              ? `${f.kind}${f.minimum !== undefined || f.maximum !== undefined ? ` ${f.minimum ?? "…"}–${f.maximum ?? "…"}` : ""}`
              : "";
  const def = f.default === undefined ? "" : ` [${Array.isArray(f.default) ? f.default.join(", ") : f.kind === "boolean" ? (f.default ? "y" : "n") : String(f.default)}]`;
  return `${parts.join("")}${hint ? ` (${hint})` : ""}${def}: `;
}

/** The terminal's elicitor, or undefined when stdin is not a terminal (forms are then declined). */
export function createTerminalElicitor(input: NodeJS.ReadStream | undefined = terminalStdin(), output: NodeJS.WriteStream = process.stderr): McpElicitor | undefined {
  if (!input?.isTTY) return undefined;
  return {
    async elicit(req, signal): Promise<ElicitAnswer> {
      const rl = createInterface({ input, output });
      try {
        output.write(`\n? The MCP server "${oneLine(req.server)}" asks: ${printable(req.message)}\n`);
        const raw: Record<string, unknown> = {};
        for (const f of req.fields) {
          for (;;) {
            const a = (await rl.question(printable(prompt(f)), { signal })).trim();
            const value = a === "" ? (f.default ?? "") : a;
            const one = validateElicitation([f], { [f.name]: value });
            if ("errors" in one) {
              output.write(`    ${printable(String(one.errors[f.name]))}\n`);
              continue;
            }
            raw[f.name] = value;
            break;
          }
        }
        const result = validateElicitation(req.fields, raw);
        if ("errors" in result) return { action: "cancel" };
        const choice = (await rl.question(`  Send this to "${oneLine(req.server)}"? [a]ccept / [d]ecline / [c]ancel: `, { signal })).trim();
        if (/^a(ccept)?$|^y(es)?$/i.test(choice)) return { action: "accept", content: result.content };
        return /^d(ecline)?$|^n(o)?$/i.test(choice) ? { action: "decline" } : { action: "cancel" };
      } finally {
        rl.close();
      }
    },
    // URL mode: the URL is shown with the server's name; Yoke does not start a browser. A yes tells
    // the server you are opening it.
    async openUrl(req, signal) {
      const rl = createInterface({ input, output });
      try {
        output.write(`\n? The MCP server "${oneLine(req.server)}" asks you to open a URL: ${printable(req.message)}\n  ${oneLine(req.url)}\n`);
        const a = (await rl.question(`  Will you open it in your browser? [y]es / [n]o / [c]ancel: `, { signal })).trim();
        if (/^y(es)?$|^a(ccept)?$|^o(pen)?$/i.test(a)) return "accept";
        return /^c(ancel)?$/i.test(a) ? "cancel" : "decline";
      } finally {
        rl.close();
      }
    },
    // While Yoke waits for the server's word that you finished: Enter says you did (the call is
    // retried at once). The question is withdrawn when the server's word (or the timeout) comes first.
    async urlDone(req, signal) {
      const rl = createInterface({ input, output });
      try {
        output.write(`  Waiting for "${req.server}" to hear that you finished at ${req.where} (at most ${Math.round(req.timeoutMs / 1000)} s).\n`);
        await rl.question(`  Press Enter when you have finished in the browser: `, { signal });
      } finally {
        rl.close();
        if (signal.aborted) output.write("\n");
      }
    },
  };
}
