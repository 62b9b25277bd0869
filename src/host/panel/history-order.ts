import type { SessionItemView } from "../../protocol/messages";

/**
 * The history list with each sub-agent's session right under the session that started it (its
 * own sub-agents under it, and so on), newest first at each level; a sub-agent whose parent is
 * not in the list stays where it is.
 */
export function nestUnderParents(items: SessionItemView[]): SessionItemView[] {
  const ids = new Set(items.map((s) => s.id));
  const children = new Map<string, SessionItemView[]>();
  for (const s of items) {
    if (s.parentId && ids.has(s.parentId) && s.parentId !== s.id) children.set(s.parentId, [...(children.get(s.parentId) ?? []), s]);
  }
  const out: SessionItemView[] = [];
  const seen = new Set<string>();
  const add = (s: SessionItemView) => {
    if (seen.has(s.id)) return;
    seen.add(s.id);
    out.push(s);
    for (const c of children.get(s.id) ?? []) add(c);
  };
  for (const s of items) if (!(s.parentId && ids.has(s.parentId) && s.parentId !== s.id)) add(s);
  // What a cycle of parentIds left out (a hand-edited log) is listed at the end rather than lost.
  for (const s of items) add(s);
  return out;
}
