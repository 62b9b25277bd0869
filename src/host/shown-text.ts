/**
 * The text rules of src/host/shown.ts that need no VS Code (so views without it, such as the status
 * bar's, use them too): core/printable.ts escapes, plus what VS Code's own renderers read in text —
 * link syntax in notifications, `$(icon)` in labels, the start of a log entry.
 */
import { printable } from "../core/printable";

/** How a log entry's continuation lines start (VS Code starts an entry with its time stamp). */
export const LOG_CONTINUATION = "    ";

/** One log entry's text: escapes, and every line after the first indented (after `prefix` when given). */
export function logEntryText(message: string, prefix = ""): string {
  return printable(message).replace(/\n/g, `\n${LOG_CONTINUATION}${prefix}`);
}

// VS Code's notifications draw [label](https://…|command:…|file:…) as a link (its parseLinkedText).
const LINK = /\]\(((?:https?:\/\/|command:|file:)[^)\s]*)/gi;

/** A notification's text: escapes, and link syntax shown as the text it is (`] (command:…`). */
export function notificationText(message: string): string {
  return printable(message, { keepNewlines: false }).replace(LINK, "] ($1");
}

/**
 * A label VS Code draws with icons (a quick pick's label or description, the status bar): one line,
 * escapes, and `$(name)` written as text (`\$(name)`), so a quoted name cannot draw an icon.
 */
export function shownLabel(text: string): string {
  return printable(text, { keepNewlines: false }).replace(/\$\(/g, "\\$(");
}

/** An editor title (a diff's, naming a repository path): one line with escapes. */
export function shownTitle(text: string): string {
  return printable(text, { keepNewlines: false });
}

/**
 * An MCP server's log message as one entry of the output channel: the server named on the first
 * line and again on each continuation line (`    NAME | …`, after shownLog's indent), so a server
 * cannot write lines that pass for Yoke's own or another server's.
 */
export function mcpLogLine(server: string, level: string, text: string): string {
  const name = printable(server, { keepNewlines: false });
  return `MCP server "${name}" [${printable(level, { keepNewlines: false })}]: ${text.replace(/\r?\n/g, `\n${name} | `)}`;
}
