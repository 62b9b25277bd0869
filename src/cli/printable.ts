/**
 * Text from the model, a command's output, the repository or an MCP server, made safe to print on
 * a terminal. A terminal acts on control characters: ESC sequences move the cursor, erase lines,
 * hide text (SGR 8), retitle the window or set the clipboard (OSC 52), and bidi controls reorder
 * what is shown. Printed raw, a command line or its output could erase the permission question and
 * draw another in its place (red team 15: `rm -rf src` asked as "Allow read_file README.md"). A command's output is
 * already rendered to plain lines (core/commands/terminal-text.ts); its command line, the gate's
 * reason quoting it, the model's text and MCP servers' words were not.
 * Every such character is shown as a visible escape instead (`\x1b`, `\u202e`); newlines and tabs
 * stay (`keepNewlines: false` shows a newline as `\n` too, for one-line output).
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
 * Writes human-readable output that holds text Yoke did not write (an agent's file names, diffs and
 * messages, a session's title, guidance files' names) to stdout, every control character shown
 * (red team 17-host: an agent's added line `ESC[1A ESC[2K …` erased the line above it in `yoke agents
 * diff`, so the change the user reviewed before merging was not the one merged).
 */
export function say(text: string): void {
  process.stdout.write(printable(text));
}
