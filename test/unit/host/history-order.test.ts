import { describe, expect, it } from "vitest";
import { nestUnderParents } from "../../../src/host/panel/history-order";
import type { SessionItemView } from "../../../src/protocol/messages";

const item = (id: string, parentId?: string): SessionItemView => ({
  id,
  title: id,
  status: "idle",
  updatedAt: "2026-12-01T10:00:00.000Z",
  modelLabel: "m",
  active: false,
  ...(parentId ? { parentId } : {}),
});

const ids = (xs: SessionItemView[]) => xs.map((x) => x.id);

describe("the history list's order", () => {
  it("lists each sub-agent's session under its parent (nested ones under theirs), newest first at each level", () => {
    // Newest first, as the store lists them: the children finished after their parent's last write or before.
    const list = [item("c2", "p1"), item("p2"), item("g1", "c1"), item("c1", "p1"), item("p1"), item("p0")];
    expect(ids(nestUnderParents(list))).toEqual(["p2", "p1", "c2", "c1", "g1", "p0"]);
  });

  it("keeps a sub-agent whose parent is not listed where it was, and loses nothing to a cycle", () => {
    expect(ids(nestUnderParents([item("a"), item("orphan", "gone"), item("b")]))).toEqual(["a", "orphan", "b"]);
    const cyclic = nestUnderParents([item("x", "y"), item("y", "x"), item("z")]);
    expect(ids(cyclic).sort()).toEqual(["x", "y", "z"]);
    expect(cyclic).toHaveLength(3);
  });
});
