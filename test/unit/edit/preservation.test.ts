import { beforeAll, describe, expect, it } from "vitest";
import { hashlineReady } from "../../../src/core/edit/hashline";
import { applySplices, decodeDoc, docFromString, docToString } from "../../../src/core/edit/text-doc";
import { anchor, applied, block, bytes, edit } from "./edit-helpers";

beforeAll(() => hashlineReady());

describe("text document", () => {
  it("round-trips LF, CRLF, mixed endings, a BOM and a missing final newline byte for byte", () => {
    for (const s of ["a\nb\n", "a\r\nb\r\n", "a\r\nb\nc\r\n", "\uFEFFx\r\ny", "", "\n", "lone\rcr\n", "no newline"]) {
      const d = decodeDoc(bytes(s));
      expect(d.ok && docToString(d.doc)).toBe(s);
    }
  });

  it("refuses binary content and invalid UTF-8 with a clear reason", () => {
    const bin = decodeDoc(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x01]));
    expect(bin).toEqual({ ok: false, reason: "binary", message: "it looks like a binary file (it contains NUL bytes); only text files can be edited" });
    const latin1 = decodeDoc(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(latin1.ok).toBe(false);
    expect(!latin1.ok && latin1.message).toBe("it is not valid UTF-8 text (another encoding?); only UTF-8 files can be edited, so convert it first or use run_command");
  });

  it("gives new lines the dominant ending and keeps unchanged lines' own endings in a replaced region", () => {
    const doc = docFromString("a\r\nb\nc\r\nd\r\n");
    const next = applySplices(doc, [{ start: 0, end: doc.text.indexOf("d"), text: "a\nb\nNEW\nc\n" }]);
    expect(docToString(next)).toBe("a\r\nb\nNEW\r\nc\r\nd\r\n");
  });
});

describe("edits preserve the file's conventions", () => {
  it("keeps CRLF for edited and inserted lines in a CRLF file", () => {
    const f = "one\r\ntwo\r\nthree\r\n";
    expect(applied(f, [block(["two"], ["TWO", "2.5"])])).toBe("one\r\nTWO\r\n2.5\r\nthree\r\n");
    expect(applied(f, [{ old_string: "two\r\nthree", new_string: "2\r\n3" }])).toBe("one\r\n2\r\n3\r\n");
    expect(applied(f, [{ op: "append", pos: anchor(f, 3), lines: ["four"] }])).toBe("one\r\ntwo\r\nthree\r\nfour\r\n");
  });

  it("keeps each untouched line's ending in a mixed file and gives new lines the dominant one", () => {
    const f = "a\r\nb\nc\r\nd\r\ne\n";
    expect(applied(f, [block(["c"], ["C", "C2"])])).toBe("a\r\nb\nC\r\nC2\r\nd\r\ne\n");
  });

  it("keeps a UTF-8 BOM", () => {
    const f = "\uFEFFfirst\nsecond\n";
    const r = edit(f, [block(["second"], ["2nd"])]);
    expect(r.ok && r.after).toBe("\uFEFFfirst\n2nd\n");
    expect(r.ok && Array.from(r.bytes.slice(0, 3))).toEqual([0xef, 0xbb, 0xbf]);
  });

  it("keeps the absence of a final newline, and its presence", () => {
    expect(applied("a\nb", [block(["b"], ["B"])])).toBe("a\nB");
    expect(applied("a\nb\n", [block(["b"], ["B"])])).toBe("a\nB\n");
    expect(applied("a\r\nb", [block(["b"], ["B", "C"])])).toBe("a\r\nB\r\nC");
    expect(applied("a\nb", [block(["b"], [])])).toBe("a");
  });

  it("writes re-indented lines with the file's tabs", () => {
    const f = "\tif (x) {\n\t\ty();\n\t}\n";
    expect(applied(f, [block(["if (x) {", "  y();", "}"], ["if (x) {", "  y();", "  z();", "}"])])).toBe("\tif (x) {\n\t\ty();\n\t\tz();\n\t}\n");
  });

  it("does not touch lines outside the edit", () => {
    const f = "keep  \r\n\tkeep\u00a0\nx\n";
    expect(applied(f, [block(["x"], ["y"])])).toBe("keep  \r\n\tkeep\u00a0\ny\n");
  });
});
