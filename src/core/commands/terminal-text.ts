/**
 * Turns raw terminal output into the plain lines a person would see: ANSI escape sequences
 * removed, and `\r` / erase-line redraws (progress bars) resolved to the final state of the line.
 * Streaming: feed chunks as they come; escape sequences may be split across chunks.
 */

type Mode = "text" | "esc" | "escArg" | "csi" | "str" | "strEsc";

// eslint-disable-next-line no-control-regex
const SPECIAL = /[\x00-\x1f\x7f]/g;

export class TerminalLineRenderer {
  private mode: Mode = "text";
  private params = "";
  private line = "";
  private cursor = 0;
  /** Visible characters dropped beyond maxLineChars on the current line. */
  private cut = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLineChars = 1000,
  ) {}

  push(text: string): void {
    let i = 0;
    const n = text.length;
    while (i < n) {
      if (this.mode === "text") {
        SPECIAL.lastIndex = i;
        const m = SPECIAL.exec(text);
        const end = m ? m.index : n;
        if (end > i) this.write(text.slice(i, end));
        if (!m) return;
        this.control(text.charCodeAt(end));
        i = end + 1;
        continue;
      }
      this.escape(text[i]!);
      i++;
    }
  }

  /** The current unfinished line as rendered so far ("" when there is none). */
  partial(): string {
    return this.render();
  }

  /** Emits the unfinished last line, if any. */
  end(): void {
    if (this.line.length > 0 || this.cut > 0) this.emit();
    this.mode = "text";
  }

  private control(code: number): void {
    switch (code) {
      case 10: // \n
        this.emit();
        break;
      case 13: // \r
        this.cursor = 0;
        break;
      case 8: // backspace
        if (this.cursor > 0) this.cursor--;
        break;
      case 9: // tab
        this.write("\t");
        break;
      case 27:
        this.mode = "esc";
        break;
      default:
        break; // other control characters are invisible
    }
  }

  private escape(ch: string): void {
    switch (this.mode) {
      case "esc":
        if (ch === "[") {
          this.mode = "csi";
          this.params = "";
        } else if (ch === "]" || ch === "P" || ch === "X" || ch === "^" || ch === "_") this.mode = "str";
        else if ("()*+-./#%".includes(ch)) this.mode = "escArg";
        else this.mode = "text";
        return;
      case "escArg":
        this.mode = "text";
        return;
      case "csi": {
        const c = ch.charCodeAt(0);
        if (c >= 0x20 && c <= 0x3f) {
          if (this.params.length < 32) this.params += ch;
          return;
        }
        this.mode = "text";
        if (c >= 0x40 && c <= 0x7e) this.csi(ch);
        return;
      }
      case "str":
        if (ch === "\x07") this.mode = "text";
        else if (ch === "\x1b") this.mode = "strEsc";
        return;
      case "strEsc":
        this.mode = ch === "\\" ? "text" : "str";
        return;
      default:
        return;
    }
  }

  private csi(final: string): void {
    const n = Number.parseInt(this.params.replace(/^[?>=]/, ""), 10);
    switch (final) {
      case "K": // erase in line
        if (!n) this.line = this.line.slice(0, this.cursor);
        else if (n === 1) this.line = " ".repeat(Math.min(this.cursor, this.line.length)) + this.line.slice(this.cursor);
        else this.line = "";
        if (n !== 1) this.cut = 0;
        break;
      case "G": // cursor to column
        this.cursor = Math.max(0, (n || 1) - 1);
        break;
      case "C": // cursor forward
        this.cursor += n || 1;
        break;
      case "D": // cursor back
        this.cursor = Math.max(0, this.cursor - (n || 1));
        break;
      default:
        break; // colours, cursor up/down, screen erase: not rendered in the text
    }
  }

  private write(s: string): void {
    const room = this.maxLineChars - this.cursor;
    let text = s;
    if (room <= 0) {
      this.cut = Math.max(this.cut, this.cursor + s.length - this.maxLineChars);
      this.cursor += s.length;
      return;
    }
    if (text.length > room) {
      this.cut = Math.max(this.cut, this.cursor + text.length - this.maxLineChars);
      text = text.slice(0, room);
    }
    if (this.cursor === this.line.length) this.line += text;
    else if (this.cursor > this.line.length) this.line = this.line.padEnd(this.cursor) + text;
    else this.line = this.line.slice(0, this.cursor) + text + this.line.slice(this.cursor + text.length);
    this.cursor += s.length;
  }

  private render(): string {
    const text = this.line.replace(/\s+$/, "");
    return this.cut > 0 ? `${text} … [${this.cut} more characters on this line]` : text;
  }

  private emit(): void {
    const out = this.render();
    this.line = "";
    this.cursor = 0;
    this.cut = 0;
    this.onLine(out);
  }
}

/** Renders a whole raw text at once: one plain string per line. */
export function renderTerminalText(raw: string, maxLineChars = 1000): string[] {
  const lines: string[] = [];
  const r = new TerminalLineRenderer((l) => lines.push(l), maxLineChars);
  r.push(raw);
  r.end();
  return lines;
}
