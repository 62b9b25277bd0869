/**
 * @-mentions (issue 13): what a user attaches to a message — a file, a folder, the editor's
 * selection, the problems, the last command's output, the git diff — as typed in the text or
 * picked from the completion list (a chip). Pure: parsing and the shapes; resolve.ts reads them.
 */
import * as z from "zod/mini";

/** Longest path a mention may name. */
const MAX_PATH = 4_096;
/** Largest selection text a context item may carry (it is bounded again when sent to the model). */
export const MAX_SELECTION_CHARS = 200_000;

const path = z.string().check(z.minLength(1), z.maxLength(MAX_PATH));

/**
 * One thing attached to a message. `file`/`folder` paths are workspace-relative (a multi-root
 * workspace: starting with the folder's name) or absolute inside a folder; a `file` that turns
 * out to be a folder is attached as one. `selection` carries its text: it is what the editor
 * showed when it was attached. `problems` without a path: the whole workspace.
 */
export const ContextItem = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), path }),
  z.object({ kind: z.literal("folder"), path }),
  z.object({
    kind: z.literal("selection"),
    path,
    /** 1-based, inclusive. */
    startLine: z.int().check(z.gte(1)),
    endLine: z.int().check(z.gte(1)),
    text: z.string().check(z.maxLength(MAX_SELECTION_CHARS)),
  }),
  z.object({ kind: z.literal("problems"), path: z.optional(path) }),
  z.object({ kind: z.literal("terminal") }),
  z.object({ kind: z.literal("git-diff") }),
]);
export type ContextItem = z.infer<typeof ContextItem>;
export type ContextKind = ContextItem["kind"];

/** A mention as typed: a keyword, or a path the resolver looks up (file or folder). */
export type MentionRef = { kind: "path"; path: string } | { kind: "selection" } | { kind: "problems"; path?: string } | { kind: "terminal" } | { kind: "git-diff" };

export interface MentionToken {
  ref: MentionRef;
  /** The text as typed, with the `@`. */
  raw: string;
  /** Offsets in the text: [start, end). */
  start: number;
  end: number;
}

/** The keywords a mention may be, besides a path (the completion list offers them first). */
export const MENTION_KEYWORDS: ReadonlyArray<{ keyword: string; kind: Exclude<MentionRef["kind"], "path">; detail: string }> = [
  { keyword: "selection", kind: "selection", detail: "the active editor's selection" },
  { keyword: "problems", kind: "problems", detail: "the problems (diagnostics) of the workspace" },
  { keyword: "terminal", kind: "terminal", detail: "the output of the last command Yoke ran" },
  { keyword: "git-diff", kind: "git-diff", detail: "the working tree's changes (git status and git diff HEAD)" },
];

/** Punctuation that ends a sentence after a mention, not part of a path. */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/**
 * The mentions typed in a message: `@` at the start or after white space (so `a@b.com` is no
 * mention), then a keyword, `problems:<path>`, a path, or a quoted path (`@"docs/my notes.md"`).
 * Sentence punctuation after it is not part of it. What a path names is found out on resolving:
 * a typed path that does not exist is left as text.
 */
export function parseMentions(text: string): MentionToken[] {
  const out: MentionToken[] = [];
  const re = /(^|[\s(])@(?:"([^"\n]{1,4096})"|([^\s"]+))/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const start = m.index + m[1]!.length;
    let body = m[2] ?? m[3] ?? "";
    let end = start + 1 + (m[2] !== undefined ? body.length + 2 : body.length);
    if (m[2] === undefined) {
      const cut = TRAILING.exec(body);
      if (cut) {
        body = body.slice(0, cut.index);
        end -= cut[0].length;
      }
    }
    if (!body) continue;
    const ref = refOf(body, m[2] !== undefined);
    if (ref) out.push({ ref, raw: text.slice(start, end), start, end });
  }
  return out;
}

function refOf(body: string, quoted: boolean): MentionRef | undefined {
  if (!quoted) {
    const keyword = MENTION_KEYWORDS.find((k) => k.keyword === body);
    if (keyword) return keyword.kind === "problems" ? { kind: "problems" } : { kind: keyword.kind };
    if (body.startsWith("problems:") && body.length > "problems:".length) return { kind: "problems", path: body.slice("problems:".length) };
  }
  if (body.length > MAX_PATH || body.includes("\0")) return undefined;
  return { kind: "path", path: body };
}

/** The one-line label of a chip: `src/a.ts`, `src/ (folder)`, `a.ts:3-7`, `problems`, `terminal`, `git diff`. */
export function itemLabel(item: ContextItem): string {
  switch (item.kind) {
    case "file":
      return item.path;
    case "folder":
      return item.path.endsWith("/") ? item.path : `${item.path}/`;
    case "selection":
      return `${baseOf(item.path)}:${item.startLine === item.endLine ? item.startLine : `${item.startLine}-${item.endLine}`}`;
    case "problems":
      return item.path ? `problems: ${item.path}` : "problems";
    case "terminal":
      return "terminal";
    case "git-diff":
      return "git diff";
  }
}

/** A stable key: the same thing attached twice is attached once. */
export function itemKey(item: ContextItem): string {
  switch (item.kind) {
    case "file":
    case "folder":
      return `path:${item.path.replace(/\/+$/, "")}`;
    case "selection":
      return `selection:${item.path}:${item.startLine}-${item.endLine}:${item.text.length}`;
    case "problems":
      return `problems:${item.path ?? ""}`;
    default:
      return item.kind;
  }
}

/** The items without repeats, in their first order. */
export function uniqueItems(items: readonly ContextItem[]): ContextItem[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = itemKey(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function baseOf(p: string): string {
  const parts = p.split("/");
  return parts[parts.length - 1] || p;
}
