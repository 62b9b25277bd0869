import { describe, expect, it } from "vitest";
import { bridgeToolContext, bridgeToolErrors } from "../../../src/host/bundle-bridge";
import { ToolError } from "../../../src/core/tools/types";

/** What another bundle's copy of ToolError looks like from here: same name, other class. */
class ForeignToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

describe("bridgeToolErrors", () => {
  it("turns another bundle's ToolError from an async method into this bundle's ToolError", async () => {
    const reviewer = { async review(path: string) { throw new ForeignToolError(`${path} already has a change waiting`); } };
    const err = await bridgeToolErrors(reviewer).review("a.ts").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe("a.ts already has a change waiting");
  });

  it("maps sync throws too, and leaves other errors and results alone", () => {
    const obj = {
      n: 3,
      boom() { throw new ForeignToolError("refused"); },
      other() { throw new TypeError("bug"); },
      twice(x: number) { return x * this.n; },
    };
    const bridged = bridgeToolErrors(obj);
    expect(() => bridged.boom()).toThrow(ToolError);
    expect(() => bridged.other()).toThrow(TypeError);
    expect(bridged.twice(2)).toBe(6);
    expect(bridged.n).toBe(3);
  });

  it("bridges each object member of a tool context and keeps plain values", async () => {
    const readState = new Map([["a", 1]]);
    const ctx = bridgeToolContext({ reviewer: { async go() { throw new ForeignToolError("x"); } }, flag: true, readState });
    expect(ctx!.flag).toBe(true);
    expect(ctx!.readState).toBe(readState);
    await expect(ctx!.reviewer.go()).rejects.toBeInstanceOf(ToolError);
  });
});
