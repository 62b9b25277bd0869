/**
 * Fix hints: known tool-error patterns get an explicit "Fix:" line appended to the error the model
 * is told, on a failed run (tool.after) and on a call refused before it ran (tool.invalid: invalid
 * arguments, a path outside the workspace). The patterns match the texts Yoke's own tools and
 * validation produce (see the tests, which run the real tools).
 */
import type { Extension } from "../extensions/types";

export interface FixHint {
  /** Names the hint in tests and docs. */
  id: "missing_argument" | "stale_anchor" | "stale_copy" | "unread_file" | "outside_workspace" | "command_not_found";
  pattern: RegExp;
  hint(match: RegExpExecArray, tool: string): string;
}

export const FIX_HINTS: readonly FixHint[] = [
  {
    id: "missing_argument",
    pattern: /missing required argument "([^"]+)"/,
    hint: (m, tool) => `Fix: call ${tool} again with "${m[1]}" set. Give every required argument in each call; arguments from earlier calls are not remembered.`,
  },
  {
    id: "stale_anchor",
    pattern: /has changed since it was read \(anchor \d+#/,
    hint: () => `Fix: take the anchors (LINE#HASH before the "|") from the current lines shown above and send the edit again; do not reuse anchors from an older read.`,
  },
  {
    id: "stale_copy",
    pattern: /has changed on disk since you read it/,
    hint: (_m, tool) => `Fix: the file was changed by someone else. Call read_file on it, redo your change on the current content, then call ${tool} again.`,
  },
  {
    id: "unread_file",
    pattern: /already exists and you have not read it in this session/,
    hint: (_m, tool) => `Fix: call read_file on that file first, then call ${tool} again; to change only part of it, use edit_file.`,
  },
  {
    id: "outside_workspace",
    pattern: /is outside the workspace|a symbolic link on the way leads outside it|which is not expanded here \(home folders are outside the workspace\)/,
    hint: () => `Fix: use a path inside the workspace, relative to its root (e.g. "src/index.ts"). Tools cannot use files outside the workspace; if you need one, ask the user.`,
  },
  {
    id: "command_not_found",
    pattern: /\[Exit code 127 after|: command not found\b|: not found\n/,
    hint: () =>
      `Fix: exit code 127 means the program is not installed or not on PATH in the sandbox. Check with "command -v NAME", use the project's own tools ` +
      `(npx, npm run, ./node_modules/.bin, a virtualenv's bin), or ask the user to install it. Do not retry the same command.`,
  },
];

/** The hints for an error text, in table order, each at most once. */
export function hintsFor(text: string, tool: string): string[] {
  const out: string[] = [];
  for (const h of FIX_HINTS) {
    const m = h.pattern.exec(text);
    if (m) out.push(h.hint(m, tool));
  }
  // A stale anchor is also reported as a changed file: the anchor hint is the precise one.
  return out.length > 1 && out.some((x) => x.includes("LINE#HASH")) ? out.filter((x) => !x.includes("changed by someone else")) : out;
}

export function toolHintsExtension(): Extension {
  return {
    name: "tool-hints",
    setup(api) {
      api.on(
        "tool.after",
        ({ tool, output }) => {
          if (!output.isError) return undefined;
          const append = hintsFor(output.text, tool.name);
          return append.length ? { append } : undefined;
        },
        { priority: -50 },
      );
      api.on("tool.invalid", ({ call, error }) => {
        const append = hintsFor(error, call.name);
        return append.length ? { append } : undefined;
      });
    },
  };
}
