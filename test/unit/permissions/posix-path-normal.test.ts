/**
 * normalizeAbs's fast path (a path already normalised is returned as it is) against the full
 * component walk, on random paths built from the characters that matter.
 */
import { describe, expect, it } from "vitest";
import { normalizeAbs } from "../../../src/core/permissions/posix-path";

function walk(p: string): string {
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

describe("normalizeAbs", () => {
  it("agrees with the component walk on 50,000 random paths", () => {
    let seed = 7;
    const r = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const parts = ["/", ".", "..", "a", "b.", ".c", "..d", "e..", "/"];
    for (let i = 0; i < 50_000; i++) {
      let p = r() < 0.8 ? "/" : "";
      const n = Math.floor(r() * 8);
      for (let j = 0; j < n; j++) p += parts[Math.floor(r() * parts.length)]!;
      expect(normalizeAbs(p), JSON.stringify(p)).toBe(walk(p));
    }
  });

  it("keeps the usual cases", () => {
    expect(normalizeAbs("/")).toBe("/");
    expect(normalizeAbs("/a/b/")).toBe("/a/b");
    expect(normalizeAbs("/a/./b/../c")).toBe("/a/c");
    expect(normalizeAbs("//a//b")).toBe("/a/b");
    expect(normalizeAbs("/a/.b/..c/d..")).toBe("/a/.b/..c/d..");
    expect(normalizeAbs("a/b")).toBe("/a/b");
  });
});
