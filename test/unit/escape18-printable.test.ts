/**
 * Issue 18, repository text shown to the person: core/printable.ts shows every bidi control and
 * every invisible character as a visible escape — where the CLI prints, in the panel, in
 * notifications and the output channel — and leaves ordinary text of every script as it is,
 * including the invisible characters that text needs where it needs them (joiners inside emoji
 * and Indic/Persian words, one variation selector, an emoji flag's tags).
 */
import { describe, expect, it } from "vitest";
import { printable, printableJson, printableParts } from "../../src/core/printable";

/** The text back from its parts: escaped characters as they were. */
const rebuilt = (text: string, keepNewlines = true) =>
  printableParts(text, { keepNewlines })
    .map((p) => ("text" in p ? p.text : String.fromCodePoint(p.codePoint)))
    .join("");

const ORDINARY = [
  "café naïve façade Ñandú Øresund Ærø straße",
  "日本語のテキスト、漢字とかな",
  "中文文本 繁體中文",
  "한국어 텍스트",
  "עברית: שלום עולם",
  "العربية: مرحبا بالعالم",
  "فارسی: می‌خواهم", // ZWNJ between Persian letters
  "हिन्दी क्‍ष", // ZWJ in a Devanagari conjunct
  "Ελληνικά, Русский текст",
  "👩‍💻 🧑🏽‍🚀 👨‍👩‍👧‍👦 ❤️‍🔥 👍🏽 ©️ ™️", // ZWJ sequences, skin tones, one VS16
  "1️⃣ #️⃣ *️⃣", // keycaps: VS16 after ASCII, then U+20E3
  "🏴󠁧󠁢󠁳󠁣󠁴󠁿 🏴󠁧󠁢󠁷󠁬󠁳󠁿", // Scotland, Wales: black flag + tag letters + cancel tag
  "葛󠄀城市", // an ideographic variation sequence (one selector of the supplement)
  "ᠮᠣᠩᠭᠣᠯ᠋", // a Mongolian free variation selector after a Mongolian letter
  "tabs\tand\nnewlines stay",
];

describe("printable: ordinary text of every script stays as it is", () => {
  for (const text of ORDINARY) {
    it(JSON.stringify(text), () => {
      expect(printable(text)).toBe(text);
      expect(printableParts(text)).toEqual([{ text }]);
    });
  }
});

describe("printable: bidi controls are shown as escapes", () => {
  const BIDI = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
  for (const c of BIDI) {
    it(`U+${c.toString(16).toUpperCase()}`, () => {
      const text = `rm -rf ${String.fromCodePoint(c)}crs/ # x`;
      const shown = printable(text);
      expect(shown).toBe(`rm -rf \\u${c.toString(16).padStart(4, "0")}crs/ # x`);
      expect(shown).not.toContain(String.fromCodePoint(c));
    });
  }

  it("the Trojan Source shape: an RLO hiding the end of a command is visible, in order", () => {
    // Displayed raw, this reads "rm -rf /tmp/build ‮" … with the rest reversed.
    const text = "rm -rf ~/\u202e dliub/pmt/ \u2066# clean\u2069";
    expect(printable(text)).toBe("rm -rf ~/\\u202e dliub/pmt/ \\u2066# clean\\u2069");
  });
});

describe("printable: invisible characters are shown where they only hide", () => {
  const cases: Array<[string, string]> = [
    [".e\u200bnv", ".e\\u200bnv"], // zero-width space
    [".e\u00adnv", ".e\\xadnv"], // soft hyphen
    ["r\u200dm -rf src", "r\\u200dm -rf src"], // a joiner between ASCII letters
    ["src\u200c/", "src\\u200c/"], // a non-joiner beside ASCII
    ["a\u2060b\ufeffc", "a\\u2060b\\ufeffc"], // word joiner, BOM
    ["x\u3164y", "x\\u3164y"], // Hangul filler (the "invisible identifier")
    ["x\u115f\u1160y\uffa0", "x\\u115f\\u1160y\\uffa0"],
    ["a\u180eb", "a\\u180eb"], // Mongolian vowel separator
    ["a\u034fb", "a\\u034fb"], // combining grapheme joiner
    ["a\u2028b\u2029c", "a\\u2028b\\u2029c"], // line and paragraph separators
    ["a\ufff9b\ufffbc", "a\\ufff9b\\ufffbc"], // interlinear annotation
    [".env\ufe0f", ".env\\ufe0f"], // a variation selector after an ASCII letter
    ["1\ufe0f", "1\\ufe0f"], // after a digit but no keycap
    ["😀\ufe0f\ufe01", "😀\ufe0f\\ufe01"], // a second selector in a row
    ["x\u{e0041}\u{e0042}", "x\\u{e0041}\\u{e0042}"], // tag characters hiding text ("ASCII smuggling")
    ["🏴\u{e0067}\u{e0062}", "🏴\\u{e0067}\\u{e0062}"], // tags after a black flag but no cancel tag
    ["a\u{e0100}", "a\\u{e0100}"], // a supplement selector after ASCII
    ["葛\u{e0100}\u{e0101}\u{e0102}", "葛\u{e0100}\\u{e0101}\\u{e0102}"], // a run of them hides data
    ["a\u180bb", "a\\u180bb"], // a Mongolian selector after a Latin letter
    ["\u200d😀", "\\u200d😀"], // a joiner with nothing before it
    ["😀\u200d", "😀\\u200d"], // a joiner at the end
    ["a\ud800b", "a\\ud800b"], // a lone surrogate half
  ];
  for (const [text, shown] of cases) {
    it(JSON.stringify(text), () => {
      expect(printable(text)).toBe(shown);
      expect(rebuilt(text)).toBe(text);
    });
  }
});

describe("printable: controls", () => {
  it("C0, C1, DEL and a lone carriage return are escapes; CRLF is a newline; keepNewlines: false escapes newlines", () => {
    expect(printable("a\u0000b\u001b[2Kc\u007fd\u0085e\u009bf\rg\r\nh")).toBe("a\\x00b\\x1b[2Kc\\x7fd\\x85e\\x9bf\\rg\nh");
    expect(printable("one\ntwo\r\nthree", { keepNewlines: false })).toBe("one\\ntwo\\r\\nthree");
    expect(printable("tab\there", { keepNewlines: false })).toBe("tab\there");
  });
});

describe("printable: properties over random text", () => {
  // A seeded generator: ASCII, Latin-1, CJK, RTL letters, emoji, and every kind of control and invisible character.
  let seed = 18;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const POOL = [
    0x41, 0x20, 0x2f, 0x31, 0x23, 0xe9, 0x65e5, 0xd55c, 0x5d0, 0x627, 0x1f600, 0x1f3f4, 0x1f469, 0x2764, 0x1820, 0x0, 0x1b, 0x7f, 0x85, 0x9b, 0x0a, 0x0d, 0x09, 0xad, 0x34f, 0x61c, 0x115f, 0x180b,
    0x180e, 0x200b, 0x200c, 0x200d, 0x200e, 0x202e, 0x2028, 0x2060, 0x2066, 0x3164, 0xfe0f, 0xfe00, 0xfeff, 0xfff9, 0x20e3, 0xe0041, 0xe007f, 0xe0100, 0xd800,
  ];
  const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\u2028\u2029\ufff9-\ufffb]/u;
  // eslint-disable-next-line no-control-regex
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it("every escaped character is given back by its part, no control survives, and no bidi control or invisible one stands beside ASCII", () => {
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: 1 + rand(12) }, () => String.fromCodePoint(POOL[rand(POOL.length)]!)).join("");
      const source = text.replace(/\r\n/g, "\n");
      expect(rebuilt(text)).toBe(source);
      const shown = printable(text);
      expect(shown).not.toMatch(CONTROL);
      expect(shown).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\u00ad\u200b\u2060\ufeff\u3164\u180e]/);
      // What stays invisible is next to a visible non-ASCII character (a joiner: on both sides).
      const cps = Array.from(shown);
      cps.forEach((ch, i) => {
        if (!INVISIBLE.test(ch)) return;
        const prev = cps[i - 1] ?? "";
        expect(prev.codePointAt(0) ?? 0, `${JSON.stringify(text)} → ${JSON.stringify(shown)}`).toBeGreaterThan(0x22);
      });
      // Shown again, shown text is unchanged (escapes are plain ASCII).
      expect(printable(shown)).toBe(shown);
    }
  });

  it("printableJson reads back the same value and holds no raw control, bidi or lone invisible", () => {
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: 1 + rand(10) }, () => String.fromCodePoint(POOL[rand(POOL.length)]!)).join("");
      const json = printableJson({ text }, 2);
      expect(JSON.parse(json)).toEqual({ text });
      expect(json).not.toMatch(/[\u202e\u2066\u200b\u3164\u0085]/);
    }
  });
});
