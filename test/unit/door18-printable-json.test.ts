/**
 * core/printable.ts printableJson: JSON text with every control, bidi and invisible format character
 * escaped as JSON does (`\u001b`, `\u202e`, `\u009b`), so the JSON the CLI prints (`--json`) reaches a
 * terminal without one raw control and still reads back as the very same value.
 */
import { describe, expect, it } from "vitest";
import { printable, printableJson } from "../../src/core/printable";

// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

describe("printableJson", () => {
  it("escapes what JSON.stringify leaves raw (C1, bidi, BOM) and reads back the same", () => {
    const value = { reason: "a\u001b[2K\rb\u009b31m\u202eevil\u2066x\ufeff", list: ["\u0085", "ok", "é 😀 \u200d"], n: 1 };
    expect(JSON.stringify(value)).toMatch(RAW); // the problem: raw C1/bidi in plain JSON.stringify
    const text = printableJson(value, 2);
    expect(text).not.toMatch(RAW);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("leaves ordinary JSON as JSON.stringify writes it", () => {
    const value = { a: "plain text\twith tab", b: [1, 2, { c: null }] };
    expect(printableJson(value, 2)).toBe(JSON.stringify(value, null, 2));
    expect(printableJson(undefined)).toBe("null");
  });

  it("printable shows every control as a visible escape, the carriage return too", () => {
    expect(printable("x\u001b[1A\ry\u202e\n")).toBe("x\\x1b[1A\\ry\\u202e\n");
  });
});
