/**
 * A command's prompt with its arguments, shell lines and file references filled in, as its own
 * tool does it:
 * - Claude Code: `$ARGUMENTS` (all, as typed), `$ARGUMENTS[N]` and `$N` (0-based positional: `$0` is
 *   the first; quotes group words), `$name` for the frontmatter's `arguments` names; without any
 *   placeholder, the arguments follow as `ARGUMENTS: …`. `` !`cmd` `` (and a ```` ```! ```` fenced
 *   block, as a script) runs the command first and puts its output there; `@path` attaches the file.
 * - Copilot prompt files: `${input:name}` / `${input:name:placeholder}` take `name=value` from the
 *   message (`/prompt: name=value`), else what the user answered when asked (`answers`);
 *   `${workspaceFolder}`, `${workspaceFolderBasename}`, `${selection}` / `${selectedText}`, `${file}`,
 *   `${fileBasename}`, `${fileBasenameNoExtension}`, `${fileDirname}` (the editor's); `#file:path`
 *   and Markdown links to files attach them; the rest of the message follows the prompt.
 * - Cline workflows and Roo commands: the file's text, then the rest of the message.
 */
import type { CustomCommand } from "./types";

export interface ExpandEnv {
  /** Runs one `!` shell line through the permission gate and the sandbox; the text the model gets in its place. */
  shell(command: string): Promise<string>;
  /** A referenced file (relative to `base`, or absolute): its text, or why it is not attached. */
  file(path: string, base: string): Promise<{ path: string; text: string } | { error: string }>;
  workspaceRoot: string;
  /** The editor's active file and selection when the command runs (the panel); absent in the CLI. */
  editor?: EditorContext;
  /** Copilot `${input:name}` values asked of the user (the panel's input box, the terminal's prompt). */
  answers?: ReadonlyMap<string, string>;
}

/** What the editor shows when a command runs: Copilot's `${file}`, `${selection}`, … */
export interface EditorContext {
  /** The active editor's file (absolute). */
  file?: string;
  /** Its selected text ("" or absent: nothing selected). */
  selection?: string;
}

const INPUT = /\$\{input:([A-Za-z_][\w-]*)(?::([^}]*))?\}/g;

/**
 * A Copilot prompt's `${input:name}` values: `name=value` words of the message; `missing` lists the
 * inputs it did not give (each once, with its placeholder), for the host to ask.
 */
export function copilotInputs(cmd: CustomCommand, args: string): { given: Map<string, string>; rest: string[]; missing: Array<{ name: string; placeholder?: string }> } {
  const given = new Map<string, string>();
  const rest: string[] = [];
  for (const w of splitArgs(args)) {
    const kv = /^([A-Za-z_][\w-]*)=([\s\S]*)$/.exec(w);
    if (kv) given.set(kv[1]!, kv[2]!);
    else rest.push(w);
  }
  const missing: Array<{ name: string; placeholder?: string }> = [];
  for (const m of cmd.body.matchAll(INPUT)) {
    if (given.has(m[1]!) || missing.some((x) => x.name === m[1])) continue;
    missing.push({ name: m[1]!, ...(m[2]?.trim() ? { placeholder: m[2].trim() } : {}) });
  }
  return { given, rest, missing };
}

/** `/name args` → the name and the rest; undefined when the message is not a slash command. */
export function parseInvocation(message: string): { name: string; args: string } | undefined {
  const m = /^\/([^\s/][^\s]*)(?:\s+([\s\S]*))?$/.exec(message.trim());
  if (!m) return undefined;
  let name = m[1]!;
  let args = (m[2] ?? "").trim();
  // Copilot: `/prompt: name=value`.
  if (name.endsWith(":") && name.length > 1) name = name.slice(0, -1);
  else if (args.startsWith(": ")) args = args.slice(2).trim();
  return { name, args };
}

/** Shell-like words: quotes group, backslash escapes (for `$1`…). */
export function splitArgs(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|((?:[^\s"'\\]|\\.)+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(args))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2] !== undefined ? m[2] : m[3]!.replace(/\\(.)/g, "$1"));
  return out;
}

/** The error ExpandEnv.file gives for a reference that names no file: it is left as text. */
export const NO_SUCH_FILE = "no such file";

const SHELL_LINE = /!`([^`\n]+)`/g;
const OPEN_BLOCK = /^[ \t]*```![ \t]*$/;
const CLOSE_BLOCK = /^[ \t]*```[ \t]*$/;

/**
 * The text in reading order as runs of plain lines and Claude Code's ```` ```! ```` blocks (a script
 * run like a `` !`cmd` `` line), each block taking the place of its lines from fence to fence. Lines are scanned once: a block's closing fence is searched from its opening
 * on, and when none is left no later opening can close either (a regular expression for blocks was
 * quadratic — 80 KB of unclosed openings took 12 s).
 */
function shellSegments(text: string): Array<{ text: string } | { script: string }> {
  const lines = text.split("\n");
  const out: Array<{ text: string } | { script: string }> = [];
  let plain: string[] = [];
  let closable = true;
  for (let i = 0; i < lines.length; i++) {
    if (closable && OPEN_BLOCK.test(lines[i]!)) {
      let j = i + 1;
      while (j < lines.length && !CLOSE_BLOCK.test(lines[j]!)) j++;
      if (j < lines.length) {
        if (plain.length) out.push({ text: plain.join("\n") });
        plain = [];
        out.push({ script: lines.slice(i + 1, j).join("\n") });
        i = j;
        continue;
      }
      closable = false;
    }
    plain.push(lines[i]!);
  }
  if (plain.length || !out.length) out.push({ text: plain.join("\n") });
  return out;
}

/**
 * `` !`cmd` `` lines and ```` ```! ```` blocks run in reading order through `env.shell`, each output in
 * its place; the file's text is read once, so an output holding `` !`…` `` or a block stays text.
 */
async function runShell(body: string, env: Pick<ExpandEnv, "shell">): Promise<string> {
  const parts: string[] = [];
  for (const seg of shellSegments(body)) {
    if ("script" in seg) parts.push(seg.script.trim() ? await env.shell(seg.script) : "");
    else parts.push(await replaceAsync(seg.text, SHELL_LINE, (_m, command) => env.shell(command ?? "")));
  }
  return parts.join("\n");
}

/** Does the text hold a `` !`cmd` `` line or a ```` ```! ```` block (Claude Code's preprocessing)? */
export function hasShellLines(body: string): boolean {
  return new RegExp(SHELL_LINE.source).test(body) || shellSegments(body).some((s) => "script" in s);
}

/** A skill's text with its `` !`cmd` `` lines and ```` ```! ```` blocks run through `shell` (a skill loaded by the model: no arguments, no `@file`). */
export function runShellLines(body: string, shell: ExpandEnv["shell"]): Promise<string> {
  return runShell(body, { shell });
}

export async function expandCommand(cmd: CustomCommand, args: string, env: ExpandEnv): Promise<string> {
  const dir = cmd.path.slice(0, cmd.path.lastIndexOf("/")) || "/";
  switch (cmd.format) {
    case "claude":
      return claude(cmd, args, env);
    case "copilot":
      return copilot(cmd, args, env, dir);
    case "codex":
      return codex(cmd.body, args);
    case "cline":
    case "roo":
    case "cursor":
    case "windsurf":
      return withRest(cmd.body, args);
  }
}

/**
 * Codex's custom prompts: `$1`…`$9` the words typed after the name, `$ARGUMENTS` all of them, an
 * upper-case named placeholder (`$FILE`, `$TICKET_ID`) the value given as `FILE=value` (one not given
 * is said in its place), `$$` a `$`.
 */
function codex(body: string, args: string): string {
  // Shell-like words: `PR_TITLE="Add a"` is one word (the quotes join, then go).
  const words = [...args.matchAll(/(?:"(?:[^"\\]|\\.)*"|'[^']*'|(?:[^\s"'\\]|\\.))+/g)].map((m) =>
    m[0].replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'|\\(.)/g, (_q, dq?: string, sq?: string, esc?: string) => (dq !== undefined ? dq.replace(/\\(.)/g, "$1") : (sq ?? esc ?? ""))),
  );
  const named = new Map<string, string>();
  const positional: string[] = [];
  for (const w of words) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(w);
    if (m) named.set(m[1]!, m[2]!);
    else positional.push(w);
  }
  return body.replace(/\$\$|\$([1-9])|\$(ARGUMENTS)\b|\$([A-Z][A-Z0-9_]*)/g, (all, n?: string, a?: string, name?: string) => {
    if (all === "$$") return "$";
    if (n) return positional[Number(n) - 1] ?? "";
    if (a) return positional.join(" ");
    return named.get(name!) ?? `[${name} — not given: type ${name}=VALUE after the command]`;
  });
}

async function claude(cmd: CustomCommand, args: string, env: ExpandEnv): Promise<string> {
  // Claude Code's substitution order: named arguments, `$ARGUMENTS[N]`, `$N` (0-based: `$0` is the
  // first argument, `$1` the second), then `$ARGUMENTS` (the text as typed). A placeholder with no
  // argument becomes empty. Only when nothing was substituted do the arguments follow as `ARGUMENTS: …`.
  const words = splitArgs(args);
  const original = cmd.body;
  let body = original;
  (cmd.argumentNames ?? []).forEach((name, i) => {
    body = body.replace(new RegExp(`\\$${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\[\\w])`, "g"), () => words[i] ?? "");
  });
  body = body.replace(/\$ARGUMENTS\[(\d+)\]/g, (_m, n: string) => words[Number(n)] ?? "");
  body = body.replace(/\$(\d+)(?!\w)/g, (_m, n: string) => words[Number(n)] ?? "");
  body = body.replace(/\$ARGUMENTS/g, () => args);
  if (body === original && args) body = `${body}\n\nARGUMENTS: ${args}`;
  body = await runShell(body, env);
  const files = await attach(body, /(?:^|\s)@([^\s`'"]+)/g, env, env.workspaceRoot);
  return files.length ? `${body}\n\n${files.join("\n\n")}` : body;
}

async function copilot(cmd: CustomCommand, args: string, env: ExpandEnv, dir: string): Promise<string> {
  const { given, rest } = copilotInputs(cmd, args);
  const root = env.workspaceRoot;
  let body = cmd.body.replace(INPUT, (_m, name: string, placeholder?: string) => {
    const v = given.get(name) ?? env.answers?.get(name);
    if (v !== undefined) return v;
    return `[${name}${placeholder ? `: ${placeholder}` : ""} — not given]`;
  });
  // VS Code's variables (as its prompt files take them): the workspace, the editor's file and selection.
  const file = env.editor?.file;
  const base = file ? file.slice(file.lastIndexOf("/") + 1) : undefined;
  const noFile = "[no file is open in the editor]";
  const selection = env.editor?.selection ? env.editor.selection : env.editor ? "[no text is selected in the editor]" : "[no editor selection: run from the command line]";
  const vars: Record<string, string> = {
    workspaceFolder: root,
    workspaceFolderBasename: root.slice(root.lastIndexOf("/") + 1),
    selection,
    selectedText: selection,
    file: file ?? noFile,
    fileBasename: base ?? noFile,
    fileBasenameNoExtension: base ? base.replace(/\.[^.]*$/, "") || base : noFile,
    fileDirname: file ? file.slice(0, file.lastIndexOf("/")) || "/" : noFile,
  };
  body = body.replace(/\$\{(workspaceFolder|workspaceFolderBasename|selection|selectedText|file|fileBasename|fileBasenameNoExtension|fileDirname)\}/g, (_m, v: string) => vars[v]!);
  const files = [
    ...(await attach(body, /#file:([^\s`'")\]]+)/g, env, root)),
    // Markdown links to files, relative to the prompt file (not URLs or anchors).
    ...(await attach(body, /\[[^\]]*\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)/gi, env, dir)),
  ];
  const withFiles = files.length ? `${body}\n\n${files.join("\n\n")}` : body;
  const leftover = args && given.size ? rest.join(" ") : args;
  return withRest(withFiles, leftover);
}

function withRest(body: string, rest: string): string {
  return rest.trim() ? `${body}\n\n${rest.trim()}` : body;
}

/** Each file a pattern references, attached once, as a block the model can tell from the prompt. */
async function attach(body: string, re: RegExp, env: ExpandEnv, base: string): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of body.matchAll(re)) {
    const ref = m[1]!.replace(/[.,;:!?]+$/, "");
    if (!ref || seen.has(ref)) continue;
    seen.add(ref);
    const r = await env.file(ref, base);
    if ("error" in r) {
      // `@name` that names no file is text (a handle, a decorator), not a reference.
      if (r.error === NO_SUCH_FILE) continue;
      out.push(`<file path="${ref}" error="${r.error.replace(/"/g, "'")}" />`);
      continue;
    }
    out.push(`<file path="${r.path}">\n${r.text}\n</file>`);
  }
  return out;
}

async function replaceAsync(text: string, re: RegExp, fn: (match: string, ...groups: Array<string | undefined>) => Promise<string>): Promise<string> {
  const parts: string[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    parts.push(text.slice(last, m.index), await fn(m[0], ...m.slice(1)));
    last = m.index! + m[0].length;
  }
  parts.push(text.slice(last));
  return parts.join("");
}
