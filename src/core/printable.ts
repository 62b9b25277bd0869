/**
 * Text Yoke did not write — from the model, a command's output, the repository (a settings key, a
 * rule, a file name), an MCP server — made safe to show on a terminal or in a notification. A
 * terminal acts on control characters: ESC sequences move the cursor, erase lines, hide text
 * (SGR 8), make links (OSC 8), retitle the window or set the clipboard (OSC 52); a carriage return
 * overwrites the line; bidi controls reorder what is shown. Printed raw, a command line or its
 * output could erase the permission question and draw another in its place (red team 15: `rm -rf
 * src` asked as "Allow read_file README.md"), and a committed settings key quoted in a warning could
 * rewrite the lines around it. Every such character is shown as a visible escape instead (`\x1b`,
 * `\u202e`); newlines and tabs stay (`keepNewlines: false` shows a newline as `\n` too, for
 * one-line output). The one helper for every message that quotes such text: the CLI's stdout and
 * stderr (cli/printable.ts `say`, `warn`), the extension's notifications.
 */
// C0 controls but tab and newline, DEL, C1 controls, and Unicode's bidi and invisible format characters.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

const shown = (c: string): string => {
  const code = c.charCodeAt(0);
  if (c === "\n") return "\\n";
  if (c === "\r") return "\\r";
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

export function printable(text: string, opts: { keepNewlines?: boolean } = {}): string {
  // (Zero-width joiners stay: emoji sequences need them, and they move nothing.)
  if (opts.keepNewlines !== false) text = text.replace(/\r\n/g, "\n");
  return text.replace(opts.keepNewlines === false ? UNSAFE_LINE : UNSAFE, shown);
}

/**
 * JSON text of `value` with the same characters escaped (`\u001b`, `\u202e`): JSON.stringify leaves
 * C1 controls, bidi and invisible format characters raw, and `printable` on JSON would write `\x..`,
 * which JSON does not read. Such characters can only be inside strings, where `\uXXXX` means them.
 */
export function printableJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? "null";
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
