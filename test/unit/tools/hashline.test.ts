import xxhash from "xxhash-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { HASHLINE_ALPHABET, formatHashline, hashlineReady, lineHash } from "../../../src/core/edit/hashline";

/** Reference xxHash32, written from the specification, independent of xxhash-wasm. */
function xxh32(input: Uint8Array, seed: number): number {
  const P1 = 2654435761,
    P2 = 2246822519,
    P3 = 3266489917,
    P4 = 668265263,
    P5 = 374761393;
  const rotl = (x: number, r: number) => ((x << r) | (x >>> (32 - r))) >>> 0;
  const u32 = (i: number) => (input[i]! | (input[i + 1]! << 8) | (input[i + 2]! << 16) | (input[i + 3]! << 24)) >>> 0;
  const round = (acc: number, lane: number) => Math.imul(rotl((acc + Math.imul(lane, P2)) >>> 0, 13), P1) >>> 0;
  const len = input.length;
  let i = 0;
  let h: number;
  if (len >= 16) {
    let v1 = (seed + P1 + P2) >>> 0,
      v2 = (seed + P2) >>> 0,
      v3 = seed >>> 0,
      v4 = (seed - P1) >>> 0;
    for (; i + 16 <= len; i += 16) {
      v1 = round(v1, u32(i));
      v2 = round(v2, u32(i + 4));
      v3 = round(v3, u32(i + 8));
      v4 = round(v4, u32(i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else {
    h = (seed + P5) >>> 0;
  }
  h = (h + len) >>> 0;
  for (; i + 4 <= len; i += 4) h = Math.imul(rotl((h + Math.imul(u32(i), P3)) >>> 0, 17), P4) >>> 0;
  for (; i < len; i++) h = Math.imul(rotl((h + Math.imul(input[i]!, P5)) >>> 0, 11), P1) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, P2) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, P3) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

function expectedHash(lineNumber: number, line: string): string {
  const text = line.replace(/\r/g, "").trimEnd();
  const seed = /[\p{L}\p{N}]/u.test(text) ? 0 : lineNumber;
  const byte = xxh32(new TextEncoder().encode(text), seed) % 256;
  return HASHLINE_ALPHABET[byte >>> 4]! + HASHLINE_ALPHABET[byte & 15]!;
}

describe("hashline hashing", () => {
  beforeAll(() => hashlineReady());

  it("agrees with the reference xxHash32 on the known vectors", async () => {
    expect(xxh32(new Uint8Array(), 0)).toBe(0x02cc5d05);
    expect(xxh32(new TextEncoder().encode("abc"), 0)).toBe(0x32d153ff);
    // The WebAssembly hasher hashline.ts loads gives the full 32-bit values...
    const wasm = await xxhash();
    expect(wasm.h32("", 0) >>> 0).toBe(0x02cc5d05);
    expect(wasm.h32("abc", 0) >>> 0).toBe(0x32d153ff);
    // ...and through the module: "" hashes with seed = line number (0 here), "abc" with seed 0; the low byte is kept.
    expect(lineHash(0, "")).toBe(HASHLINE_ALPHABET[0x0]! + HASHLINE_ALPHABET[0x5]!);
    expect(lineHash(7, "abc")).toBe(HASHLINE_ALPHABET[0xf]! + HASHLINE_ALPHABET[0xf]!);
  });

  it("computes lineHash like an independent implementation", () => {
    const lines = ['import { z } from "zod";', "  return a + b;   ", "}", "", "   ", "const ünïcode = '日本語';", "x\r", "// a comment that is longer than sixteen bytes, to use the four-lane path"];
    lines.forEach((line, i) => expect(lineHash(i + 1, line)).toBe(expectedHash(i + 1, line)));
    expect(lineHash(3, "}")).not.toBe(lineHash(4, "}"));
    expect(lineHash(3, "foo")).toBe(lineHash(4, "foo"));
  });

  it("formats a line as LINE#HH|text without a trailing CR", () => {
    expect(formatHashline(12, "x\r")).toBe(`12#${expectedHash(12, "x")}|x`);
    expect(formatHashline(1, "const a = 1;")).toMatch(/^1#[ZPMQVRWSNKTXJBYH]{2}\|const a = 1;$/);
  });
});
