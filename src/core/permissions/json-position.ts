/** Parses strict JSON; on failure reports the line and column of the first error (JSON.parse does not, on Node 20). */

export type JsonResult = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

export function parseJsonWithPosition(text: string): JsonResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const offset = findErrorOffset(text);
    const before = text.slice(0, offset);
    const line = before.split("\n").length;
    const column = offset - before.lastIndexOf("\n");
    const found = offset >= text.length ? "end of file" : JSON.stringify(text[offset]);
    return { ok: false, line, column, message: `unexpected ${found} (${err instanceof Error ? err.message.split("\n")[0] : String(err)})` };
  }
}

/** Offset of the first character a JSON parser would reject. */
function findErrorOffset(s: string): number {
  let i = 0;
  const ws = () => {
    while (i < s.length && " \t\r\n".includes(s[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = s[i];
    if (c === "{") {
      i++;
      ws();
      if (s[i] === "}") return void i++;
      for (;;) {
        ws();
        if (s[i] !== '"') fail();
        string();
        ws();
        if (s[i] !== ":") fail();
        i++;
        value();
        ws();
        if (s[i] === ",") i++;
        else if (s[i] === "}") return void i++;
        else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (s[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (s[i] === ",") i++;
        else if (s[i] === "]") return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    const lit = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(s.slice(i));
    if (!lit) fail();
    i += lit![0].length;
  };
  const string = () => {
    i++;
    while (i < s.length && s[i] !== '"') {
      if (s[i] === "\\") {
        i++;
        if (s[i] === "u" && !/^u[0-9a-fA-F]{4}/.test(s.slice(i, i + 5))) fail();
        if (!'"\\/bfnrtu'.includes(s[i] ?? "")) fail();
      } else if (s.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= s.length) fail();
    i++;
  };
  try {
    value();
    ws();
    return i < s.length ? i : s.length;
  } catch (at) {
    return typeof at === "number" ? Math.min(at, s.length) : 0;
  }
}

/**
 * Keys that appear twice in one object of a valid JSON text (JSON.parse keeps only the last value):
 * each with the path of the object (`["permissions"]`), the key and its 1-based line and column.
 */
export function findDuplicateKeys(s: string): Array<{ path: string[]; key: string; line: number; column: number }> {
  const out: Array<{ path: string[]; key: string; line: number; column: number }> = [];
  let i = 0;
  const ws = () => {
    while (i < s.length && " \t\r\n".includes(s[i]!)) i++;
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < s.length && s[i] !== '"') i += s[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(s.slice(start, i)) as string;
  };
  const value = (path: string[]): void => {
    ws();
    const c = s[i];
    if (c === "{") {
      i++;
      const seen = new Set<string>();
      for (;;) {
        ws();
        if (s[i] === "}") return void i++;
        if (s[i] === ",") {
          i++;
          continue;
        }
        const at = i;
        const key = string();
        if (seen.has(key)) {
          const before = s.slice(0, at);
          out.push({ path, key, line: before.split("\n").length, column: at - before.lastIndexOf("\n") });
        }
        seen.add(key);
        ws();
        i++; // ':'
        value([...path, key]);
      }
    }
    if (c === "[") {
      i++;
      for (let n = 0; ; n++) {
        ws();
        if (s[i] === "]") return void i++;
        if (s[i] === ",") {
          i++;
          n--;
          continue;
        }
        value([...path, String(n)]);
      }
    }
    if (c === '"') return void string();
    while (i < s.length && !",]} \t\r\n".includes(s[i]!)) i++;
  };
  try {
    value([]);
  } catch {
    return out;
  }
  return out;
}
