/**
 * What the extension shows the person outside the panel — notifications and the output channel —
 * shown honestly. Their text quotes the repository (a path, a rule, a settings key), the model (a
 * command) and MCP servers (a name, a log line): a bidi control (U+202E) there reorders what is
 * read, an invisible character makes two names look alike, a carriage return or a newline makes
 * one entry look like several. Every string goes through core/printable.ts (visible escapes such as
 * `\u202e`; ordinary text of any script stays), and:
 * - a log entry's continuation lines are indented, so no line of it can pass for an entry of its own
 *   (the channel starts each entry with its time and level at the line's start);
 * - a notification shows `[label](command:…)` as text: VS Code draws that syntax as a link that runs
 *   the command when clicked, so a quoted name could carry a disguised command.
 * The host shows notifications only through `notify` (eslint forbids vscode.window.show*Message
 * elsewhere in src/host), and its one output channel is wrapped by `shownLog` where it is made.
 */
import * as vscode from "vscode";
import { printable } from "../core/printable";
import { logEntryText, notificationText, shownLabel } from "./shown-text";

export { LOG_CONTINUATION, logEntryText, mcpLogLine, notificationText, shownLabel, shownTitle } from "./shown-text";

type Level = "info" | "warning" | "error";
type Options = vscode.MessageOptions;

/**
 * vscode.window.show{Information,Warning,Error}Message with the message, the detail and the button
 * labels shown honestly. Resolves to the label as the caller gave it (or undefined).
 */
export function notify(level: Level, message: string, ...items: string[]): Promise<string | undefined>;
export function notify(level: Level, message: string, options: Options, ...items: string[]): Promise<string | undefined>;
export async function notify(level: Level, message: string, ...rest: Array<string | Options>): Promise<string | undefined> {
  const options = typeof rest[0] === "object" ? (rest.shift() as Options) : undefined;
  const items = rest as string[];
  const shownItems = items.map((i) => notificationText(i));
  const shownOptions: Options | undefined = options ? { ...options, ...(options.detail !== undefined ? { detail: printable(options.detail) } : {}) } : undefined;
  const show = level === "info" ? vscode.window.showInformationMessage : level === "warning" ? vscode.window.showWarningMessage : vscode.window.showErrorMessage;
  const text = notificationText(message);
  const picked = shownOptions ? await show(text, shownOptions, ...shownItems) : await show(text, ...shownItems);
  if (picked === undefined) return undefined;
  const k = shownItems.indexOf(picked);
  return k >= 0 ? items[k] : undefined;
}

const ENTRY_METHODS = new Set(["trace", "debug", "info", "warn", "error"]);
const TEXT_METHODS = new Set(["append", "appendLine", "replace"]);

/**
 * The output channel with every line it is given shown honestly: entries (info, warn…) with escapes
 * and indented continuation lines, raw text (append…) with escapes. Everything else is the channel's own.
 */
export function shownLog(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  const shownArg = (a: unknown): unknown => (typeof a === "string" ? printable(a) : a);
  return new Proxy(channel, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof prop === "string" && ENTRY_METHODS.has(prop) && typeof value === "function") {
        return (message: string | Error, ...args: unknown[]) => {
          const text = message instanceof Error ? (message.stack ?? message.message) : String(message);
          return (value as (...a: unknown[]) => void).call(target, logEntryText(text), ...args.map(shownArg));
        };
      }
      if (typeof prop === "string" && TEXT_METHODS.has(prop) && typeof value === "function") {
        return (text: string) => (value as (t: string) => void).call(target, printable(String(text)));
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A quick pick item with its label, description and detail shown honestly (the rest kept). */
export function shownItem<T extends vscode.QuickPickItem>(item: T): T {
  return {
    ...item,
    label: shownLabel(item.label),
    ...(item.description !== undefined ? { description: shownLabel(item.description) } : {}),
    ...(item.detail !== undefined ? { detail: shownLabel(item.detail) } : {}),
  };
}
