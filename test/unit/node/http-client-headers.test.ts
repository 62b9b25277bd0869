/**
 * FetchHeaders (src/node/http-client/headers.ts) against Node's own Headers (undici), operation by
 * operation: the same sequence of appends, sets, deletes and reads, the same answers and the same
 * refusals. Sequences are generated from a fixed seed, with names in mixed case, repeated names,
 * set-cookie, values with edge whitespace and invalid names and values.
 */
import { describe, expect, it } from "vitest";
import { FetchHeaders } from "../../../src/node/http-client/headers";
import { __yokeReadableStream as SdkReadableStream, FormData as SdkFormData } from "../../../src/node/http-client/sdk-globals";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

const NAMES = ["Content-Type", "content-type", "X-Api-Key", "set-cookie", "Set-Cookie", "retry-after", "a", "B", "x_y", "bad name", "é", ""];
const VALUES = ["text/plain", " padded\t", "a, b", "k=v; Path=/", "", "\tx y\t", "bad\nvalue", "nul\0", "ünï"];

type Op = ["append" | "set", string, string] | ["delete" | "get" | "has", string];

function run(h: { [k: string]: unknown }, ops: Op[]): unknown[] {
  const out: unknown[] = [];
  for (const op of ops) {
    try {
      out.push((h[op[0]] as (...a: string[]) => unknown).apply(h, op.slice(1) as string[]) ?? "void");
    } catch (err) {
      out.push(`throws ${(err as Error).name}`);
    }
  }
  const headers = h as unknown as Headers;
  out.push([...headers], [...headers.keys()], [...headers.values()], headers.getSetCookie());
  const each: unknown[] = [];
  headers.forEach((v, k) => each.push([k, v]));
  out.push(each);
  return out;
}

describe("FetchHeaders", () => {
  it("answers as Node's Headers over 300 generated sequences", () => {
    const r = rng(20261206);
    const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    for (let n = 0; n < 300; n++) {
      const ops: Op[] = Array.from({ length: 1 + Math.floor(r() * 12) }, () => {
        const kind = pick(["append", "append", "set", "delete", "get", "has"] as const);
        return kind === "append" || kind === "set" ? [kind, pick(NAMES), pick(VALUES)] : [kind, pick(NAMES)];
      });
      expect(run(new FetchHeaders() as never, ops), JSON.stringify(ops)).toEqual(run(new Headers() as never, ops));
    }
  });

  it("is built from the same inits, and refuses the same bad ones", () => {
    const inits: unknown[] = [
      { A: "1", b: " 2 " },
      [
        ["x", "1"],
        ["X", "2"],
        ["set-cookie", "a=1"],
        ["set-cookie", "b=2"],
      ],
      new Headers({ q: "r" }),
      new FetchHeaders({ q: "r" }),
    ];
    for (const init of inits) expect([...new FetchHeaders(init as never)]).toEqual([...new Headers(init as never)]);
    for (const bad of [[["only-name"]], { "bad name": "x" }, 5]) {
      expect(() => new Headers(bad as never)).toThrow(TypeError);
      expect(() => new FetchHeaders(bad as never)).toThrow(TypeError);
    }
    expect(Object.prototype.toString.call(new FetchHeaders())).toBe("[object Headers]");
  });
});

// The SDK bundles' `globalThis.ReadableStream` and `FormData` (esbuild.mjs): the same answers as Node's classes.
describe("the SDK bundles' ReadableStream and FormData", () => {
  it("answer instanceof as Node's classes do, and make Node's own", () => {
    const real = new ReadableStream({ start: (c) => c.close() });
    expect(real instanceof SdkReadableStream).toBe(true);
    for (const v of [{}, { model: "m", messages: [] }, null, "text", new Uint8Array(2), { [Symbol.toStringTag]: "ReadableStream" }, (async function* () {})()]) {
      expect(v instanceof SdkReadableStream, String(v)).toBe(v instanceof ReadableStream);
    }
    const made = new SdkReadableStream({ start: (c: ReadableStreamDefaultController) => c.close() });
    expect(made).toBeInstanceOf(ReadableStream);
    expect(new SdkFormData()).toBeInstanceOf(FormData);
    expect({} instanceof SdkFormData).toBe(false);
    expect(new FormData() instanceof SdkFormData).toBe(true);
  });
});
