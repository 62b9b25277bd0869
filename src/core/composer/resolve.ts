/**
 * What a mention becomes for the model: each item read through the session's services (the
 * workspace fs with its deny rules, the command runner for the git diff and the last command,
 * the host's problems) and rendered as one bounded `<attachment>` block.
 */
import { formatBoundedOutput, formatDuration } from "../commands/output";
import { shellQuote } from "../commands/shell-quote";
import { TerminalLineRenderer } from "../commands/terminal-text";
import type { CommandRunner, RunningCommand } from "../commands/types";
import { resolveWorkspacePath } from "../paths";
import type { SessionServices } from "../ports";
import { listFilesTool } from "../tools/list-files";
import { readFileTool } from "../tools/read-file";
import type { ToolContext } from "../tools/types";
import type { Diagnostic } from "../verification/types";
import { itemLabel, uniqueItems, type ContextItem } from "./mentions";

/** Characters of one attachment the model gets; the rest is said to be left out, with how to get it. */
export const MAX_ATTACHMENT_CHARS = 30_000;
/** Characters of all the attachments of one message. */
export const MAX_ATTACHMENTS_CHARS = 100_000;
/** Problems listed per attachment. */
export const MAX_PROBLEMS = 200;
/** The git command of `@git-diff`: what changed (untracked files too), then the diff against HEAD (or the index in a repository without commits). */
export const GIT_DIFF_COMMAND =
  "git -c color.ui=never status --short --untracked-files=normal && { git --no-pager diff --no-ext-diff --no-color HEAD -- 2>/dev/null || git --no-pager diff --no-ext-diff --no-color; }";
const GIT_DIFF_TIMEOUT_MS = 30_000;

/** What resolving needs besides the session's services: the host's problems (VS Code's diagnostics). */
export interface MentionSources {
  services: SessionServices;
  sessionId: string;
  /** The problems of one file (absolute path) or, without a path, of the whole workspace. */
  problems?: (path: string | undefined, signal: AbortSignal) => Promise<Diagnostic[]>;
}

/** One item as attached: its text for the model, or why it could not be. */
export interface ResolvedMention {
  item: ContextItem;
  label: string;
  /** Attributes of the block (path, lines, command…). */
  attrs: Record<string, string>;
  text: string;
  error?: string;
  truncated?: boolean;
}

/** Reads every item (repeats once); a failure is said in its block, never thrown. */
export async function resolveMentions(items: readonly ContextItem[], sources: MentionSources, signal: AbortSignal): Promise<ResolvedMention[]> {
  const out: ResolvedMention[] = [];
  for (const item of uniqueItems(items)) out.push(await resolveOne(item, sources, signal));
  return out;
}

async function resolveOne(item: ContextItem, s: MentionSources, signal: AbortSignal): Promise<ResolvedMention> {
  const base = { item, label: itemLabel(item) };
  try {
    switch (item.kind) {
      case "file":
      case "folder":
        return { ...base, ...(await readPath(item.path, item.kind, s, signal)) };
      case "selection": {
        const { rel } = await allowedPath(item.path, s);
        return { ...base, ...bounded(item.text, "Read the file with read_file for more."), attrs: { path: rel, lines: `${item.startLine}-${item.endLine}` } };
      }
      case "problems":
        return { ...base, ...(await problems(item.path, s, signal)) };
      case "terminal":
        return { ...base, ...terminal(s.services.commands) };
      case "git-diff":
        return { ...base, ...(await gitDiff(s, signal)) };
    }
  } catch (err) {
    if (signal.aborted) throw err;
    return { ...base, attrs: "path" in item && item.path ? { path: item.path } : {}, text: "", error: err instanceof Error ? err.message : String(err) };
  }
}

/** A workspace path no deny rule keeps from being read. */
async function allowedPath(path: string, s: MentionSources): Promise<{ abs: string; rel: string }> {
  const r = await resolveWorkspacePath(s.services.fs, path);
  const rule = await s.services.access?.deniedBy("Read", r.abs);
  if (rule) throw new Error(`not attached: the permission rule ${rule} denies reading ${r.rel}`);
  return r;
}

function toolContext(s: MentionSources, signal: AbortSignal): ToolContext {
  return { ...s.services, signal, sessionId: s.sessionId, callId: "mention", readState: new Map(), record: () => {} };
}

async function readPath(path: string, kind: "file" | "folder", s: MentionSources, signal: AbortSignal): Promise<Omit<ResolvedMention, "item" | "label">> {
  const { abs, rel } = await allowedPath(path, s);
  const st = await s.services.fs.stat(abs);
  const isDir =
    st?.type === "directory" ||
    (st?.type === "symlink" &&
      (await s.services.fs.readDir(abs).then(
        () => true,
        () => false,
      )));
  if (!st) throw new Error(`not found: ${rel}`);
  const ctx = toolContext(s, signal);
  if (isDir || kind === "folder") {
    if (!isDir) throw new Error(`${rel} is a file, not a folder`);
    const r = await listFilesTool.run({ path: abs, depth: 2 }, ctx);
    if (r.isError) throw new Error(r.text);
    return { attrs: { kind: "folder", path: rel }, ...bounded(r.text, `Call list_files with path="${rel}" for more.`) };
  }
  const r = await readFileTool.run({ path: abs }, ctx);
  if (r.isError) throw new Error(r.text);
  return { attrs: { path: rel }, ...bounded(r.text, `Call read_file with path="${rel}" and an offset for the rest.`) };
}

async function problems(path: string | undefined, s: MentionSources, signal: AbortSignal): Promise<Omit<ResolvedMention, "item" | "label">> {
  if (!s.problems) throw new Error("this host reports no problems (diagnostics)");
  const target = path ? await allowedPath(path, s) : undefined;
  // A diagnostic's message may quote its file: none of a file a deny rule (or an ignore file) keeps from the model.
  const all = await s.problems(target?.abs, signal);
  const list: Diagnostic[] = [];
  let hidden = 0;
  for (const d of all) {
    if (s.services.access && (await s.services.access.deniedBy("Read", d.path))) hidden++;
    else list.push(d);
  }
  const fs = s.services.fs;
  const rank = { error: 0, warning: 1, info: 2, hint: 3 } as const;
  const sorted = [...list].sort((a, b) => rank[a.severity] - rank[b.severity] || a.path.localeCompare(b.path) || a.line - b.line);
  const lines = sorted.slice(0, MAX_PROBLEMS).map((d) => {
    const where = `${relOf(fs.root, d.path)}:${d.line}${d.column ? `:${d.column}` : ""}`;
    return `${where} ${d.severity}${d.code ? ` ${d.code}` : ""}: ${d.message.replace(/\s+/g, " ").trim()}${d.source ? ` (${d.source})` : ""}`;
  });
  if (sorted.length > MAX_PROBLEMS) lines.push(`(${sorted.length - MAX_PROBLEMS} more problems not listed)`);
  if (hidden) lines.push(`(${hidden} problem${hidden === 1 ? "" : "s"} of files a permission rule denies reading left out)`);
  const attrs: Record<string, string> = { scope: target ? target.rel : "workspace", count: String(list.length) };
  return { attrs, ...bounded(lines.length ? lines.join("\n") : "No problems reported.", "") };
}

function relOf(root: string, abs: string): string {
  return abs.startsWith(`${root}/`) ? abs.slice(root.length + 1) : abs;
}

function lastCommand(commands: CommandRunner | undefined): RunningCommand | undefined {
  return commands?.list().at(-1);
}

function terminal(commands: CommandRunner | undefined): Omit<ResolvedMention, "item" | "label"> {
  if (!commands) throw new Error("no commands run in this session (commands are not available here)");
  const cmd = lastCommand(commands);
  if (!cmd) throw new Error("no command has run in this session yet");
  const r = cmd.result;
  const attrs: Record<string, string> = {
    command: cmd.command,
    id: cmd.id,
    status: r ? (r.exitCode !== null ? `exit ${r.exitCode}` : r.signal ? `ended by ${r.signal}` : "ended") : "running",
    ...(r ? { duration: formatDuration(r.durationMs) } : {}),
  };
  return { attrs, ...bounded(formatBoundedOutput(cmd.bounded(), cmd.id), `Call command_output with id "${cmd.id}" for the rest.`) };
}

/** The changed and untracked paths `git status -z` lists (both names of a rename). */
export function statusPaths(z: string): string[] {
  const parts = z.split("\0");
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const e = parts[i]!;
    if (e.length < 4) continue;
    out.push(e.slice(3));
    // A rename or copy: the original name follows as its own field.
    if (/^[RC]|^.[RC]/.test(e) && i + 1 < parts.length) out.push(parts[++i]!);
  }
  return out.filter((p) => p !== "");
}

async function runGit(commands: CommandRunner, root: string, command: string, signal: AbortSignal): Promise<{ cmd: RunningCommand; exitCode: number | null; text: string; more: string }> {
  const cmd = commands.start({ command, cwd: root, background: false, network: "off", timeoutMs: GIT_DIFF_TIMEOUT_MS, signal, confine: { readOnly: true } });
  const r = await cmd.wait();
  if (r.error) throw new Error(`git could not run: ${r.error}`);
  const page = await cmd.outputSince(1, { maxLines: 5_000, maxBytes: MAX_ATTACHMENT_CHARS + 1_000 });
  const text = cleanLines(page.lines).join("\n").replace(/^\n+/, "").trimEnd();
  if (r.exitCode !== 0) throw new Error(`git failed (exit ${r.exitCode ?? r.signal ?? "?"}): ${text.split("\n").slice(-3).join(" ") || "no output"}`);
  const more = page.more || page.to < page.totalLines ? `\n… (lines ${page.to + 1}-${page.totalLines} left out: call command_output with id "${cmd.id}" and since ${page.to + 1})` : "";
  return { cmd, exitCode: r.exitCode, text, more };
}

/**
 * `git status` and `git diff HEAD`, without the changed files a deny rule (or another agent's ignore
 * file) keeps from the model: those are named as left out, with the rule, and excluded from both
 * commands by pathspec (a file the sandbox hides would otherwise also make git diff fail).
 */
async function gitDiff(s: MentionSources, signal: AbortSignal): Promise<Omit<ResolvedMention, "item" | "label">> {
  const commands = s.services.commands;
  const root = s.services.fs.root;
  if (!commands) throw new Error("git cannot run here: this session has no command runner");
  await commands.prepare?.();
  const denied: Array<{ path: string; rule: string }> = [];
  if (s.services.access) {
    // The listing is NUL-separated, which the output pager keeps as text; file names with newlines are read whole.
    const listed = await runGit(commands, root, "git -c core.quotePath=false status --porcelain=v1 -z --untracked-files=normal | tr '\\0' '\\n' | sed 's/^/\\//'", signal);
    const z = listed.text
      .split("\n")
      .map((l) => (l.startsWith("/") ? l.slice(1) : l))
      .join("\0");
    for (const path of new Set(statusPaths(z))) {
      const rule = await s.services.access.deniedBy("Read", `${root}/${path.replace(/\/$/, "")}`);
      if (rule) denied.push({ path, rule });
    }
  }
  const except = denied.map((d) => ` ${shellQuote(`:(exclude,literal)${d.path.replace(/\/$/, "")}`)}`).join("");
  const command = denied.length
    ? `git -c color.ui=never status --short --untracked-files=normal -- .${except} && { git --no-pager diff --no-ext-diff --no-color HEAD -- .${except} 2>/dev/null || git --no-pager diff --no-ext-diff --no-color -- .${except}; }`
    : GIT_DIFF_COMMAND;
  const { cmd, text, more } = await runGit(commands, root, command, signal);
  const left = denied.map((d) => `${d.path}: left out (the permission rule ${d.rule} denies reading it)`).join("\n");
  const body = (text || "No changes: the working tree matches HEAD.") + more + (left ? `\n${left}` : "");
  return { attrs: { command: "git diff HEAD", id: cmd.id }, ...bounded(body, `Call command_output with id "${cmd.id}" for the rest.`) };
}

/** Raw output lines (a pty's `\r`, colours) as the terminal shows them. */
function cleanLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  const r = new TerminalLineRenderer((l) => out.push(l), 2_000);
  for (const l of lines) r.push(`${l}\n`);
  r.end();
  return out;
}

function bounded(text: string, how: string): { text: string; truncated?: boolean } {
  if (text.length <= MAX_ATTACHMENT_CHARS) return { text };
  return { text: `${text.slice(0, MAX_ATTACHMENT_CHARS)}\n… (${text.length - MAX_ATTACHMENT_CHARS} more characters left out.${how ? ` ${how}` : ""})`, truncated: true };
}

/** An attribute value as it may stand between quotes. */
export function attr(v: string): string {
  return v.replace(/[\r\n]+/g, " ").replace(/"/g, "'");
}

/** Content that cannot close its block (`<tag>…</tag>`) early. */
export function blockBody(text: string, tag = "attachment"): string {
  return text.replace(new RegExp(`</${tag}`, "gi"), `<\\/${tag}`);
}

/**
 * The text the model gets with the message: one block per item, in the order attached, within
 * MAX_ATTACHMENTS_CHARS in all (an item past the limit is named, not sent).
 */
export function attachmentsText(resolved: readonly ResolvedMention[]): string {
  if (resolved.length === 0) return "";
  const blocks: string[] = [];
  let used = 0;
  for (const r of resolved) {
    const attrs = Object.entries({ kind: r.item.kind, ...r.attrs })
      .map(([k, v]) => `${k}="${attr(v)}"`)
      .join(" ");
    let block: string;
    if (r.error) block = `<attachment ${attrs} error="${attr(r.error)}"/>`;
    else if (used + r.text.length > MAX_ATTACHMENTS_CHARS) block = `<attachment ${attrs} omitted="the attachments of this message reached ${MAX_ATTACHMENTS_CHARS} characters"/>`;
    else {
      block = `<attachment ${attrs}>\n${blockBody(r.text)}\n</attachment>`;
      used += r.text.length;
    }
    blocks.push(block);
  }
  return `The user attached ${resolved.length === 1 ? "this" : "these"} to the message before this (@-mentions), as it was when the message was sent:\n${blocks.join("\n")}`;
}
