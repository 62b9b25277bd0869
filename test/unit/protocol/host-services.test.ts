// Merging the change reviewer's tool context with the command runner's (objects or functions of the session).
import { describe, expect, it, vi } from "vitest";

vi.mock("vscode", async () => (await import("./fake-vscode")).createFakeVscode());
const { combineToolContexts } = await import("../../../src/host/host-services");

describe("combineToolContexts", () => {
  it("gives a session both the object context and the per-session one", () => {
    const reviewer = { name: "reviewer" };
    const combined = combineToolContexts({ reviewer } as never, (s) => ({ commandsUnavailable: `none for ${s.id}` }));
    expect(typeof combined).toBe("function");
    const tc = (combined as (s: { id: string }) => Record<string, unknown>)({ id: "s9" });
    expect(tc).toEqual({ reviewer, commandsUnavailable: "none for s9" });
  });

  it("returns the only context given as it is", () => {
    const only = { commandsUnavailable: "x" };
    expect(combineToolContexts(undefined, only)).toBe(only);
    expect(combineToolContexts(only, undefined)).toBe(only);
    expect(combineToolContexts(undefined, undefined)).toBeUndefined();
  });
});
