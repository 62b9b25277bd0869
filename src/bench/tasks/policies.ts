/**
 * Policy models: deterministic programs that play the model's side of a session, one per harness
 * style. Each turns the same goal spec into the tool calls its style makes, and reads every
 * location, anchor and line number from what the tools returned (never from the files directly).
 */
import { escapeRegex, isEdit, locate, primaryText, type Goal, type Step } from "./goal";

export interface ToolResult {
  output: string;
  isError: boolean;
}

export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** The model's side of the conversation: each call is one model response; it resolves with what the tools returned. */
export interface ModelIO {
  call(name: string, input: Record<string, unknown>): Promise<ToolResult>;
  /** Several tool calls in one response. */
  parallel(calls: ToolCall[]): Promise<ToolResult[]>;
}

/** Plays a whole task; resolves with the final answer's text. */
export type Policy = (goal: Goal, io: ModelIO) => Promise<string>;

type EditStep = Extract<Step, { kind: "replace" | "insert" }>;

// ---- reading tool output -------------------------------------------------------------------

interface ViewLine {
  n: number;
  anchor: string;
  text: string;
}

/** A hashline row (refusals quote current lines indented). */
const HASHLINE = /^\s{0,8}(\d+)#([ZPMQVRWSNKTXJBYH]{2})\|(.*)$/;

/** The LINE#HASH|text lines of a read_file or grep result. */
export function parseView(output: string): ViewLine[] {
  const out: ViewLine[] = [];
  for (const l of output.split("\n")) {
    const m = HASHLINE.exec(l);
    if (m) out.push({ n: Number(m[1]), anchor: `${m[1]}#${m[2]}`, text: m[3]! });
  }
  return out;
}

/** grep's first line: "N matching lines in M files (searched …):". */
const GREP_HEAD = /^\d+ matching lines? /;

/** grep's result: the lines shown per file (matches and context). */
export function parseGrep(output: string): Map<string, ViewLine[]> {
  const files = new Map<string, ViewLine[]>();
  let current: ViewLine[] | undefined;
  for (const l of output.split("\n")) {
    const m = HASHLINE.exec(l);
    if (m) current?.push({ n: Number(m[1]), anchor: `${m[1]}#${m[2]}`, text: m[3]! });
    else if (l.endsWith(":") && !GREP_HEAD.test(l) && !l.startsWith(" ")) {
      current = [];
      files.set(l.slice(0, -1), current);
    }
  }
  return files;
}

/** A tool result the loop cut to its start and end (too long for the context). */
const SPILLED = /^\[This result is [\d,]+ characters .* too long for the context/;
/** read_file's header: "File: p (lines A-B of N)". */
const SHOWN_PART = /^File: .* \(lines (\d+)-(\d+) of (\d+)/m;
/** The next line to read after a ranged read, when the file goes on. */
const nextOf = (output: string): number | undefined => {
  const m = SHOWN_PART.exec(output);
  return m && Number(m[2]) < Number(m[3]) ? Number(m[2]) + 1 : undefined;
};

/** "Call read_file with offset=N" when a read stopped before the end of the file. */
const moreAt = (output: string): number | undefined => {
  const m = /Call read_file with offset=(\d+) to see more/.exec(output);
  return m ? Number(m[1]) : undefined;
};

function fail(why: string): never {
  throw new Error(why);
}

/** Groups consecutive edit steps on one file (the styles that batch edits send them in one call). */
function editGroups(steps: EditStep[]): EditStep[][] {
  const groups: EditStep[][] = [];
  for (const s of steps) {
    const last = groups[groups.length - 1];
    if (last && s.file !== undefined && last[0]!.file === s.file) last.push(s);
    else groups.push([s]);
  }
  return groups;
}

/** Runs the steps, batching consecutive edits of one file into a group. */
async function walk(goal: Goal, handlers: { edits(group: EditStep[]): Promise<void>; other(step: Exclude<Step, EditStep>): Promise<void> }): Promise<void> {
  const steps = goal.steps;
  for (let i = 0; i < steps.length;) {
    if (isEdit(steps[i]!)) {
      const run: EditStep[] = [];
      while (i < steps.length && isEdit(steps[i]!)) run.push(steps[i++] as EditStep);
      for (const g of editGroups(run)) await handlers.edits(g);
    } else await handlers.other(steps[i++] as Exclude<Step, EditStep>);
  }
}

/** Each (file, line) a command's output names. */
function namedLines(output: string, pattern: string): Array<{ file: string; line: number }> {
  const out: Array<{ file: string; line: number }> = [];
  for (const m of output.matchAll(new RegExp(pattern, "gm"))) out.push({ file: m[1]!, line: Number(m[2]) });
  return out;
}

/** Widens [start, end] by whole lines until its text occurs once in the file (what an old_string / SEARCH block needs). */
function uniqueSpan(lines: string[], start: number, end: number, wantNext = false): { start: number; end: number } {
  const text = lines.join("\n");
  if (wantNext && end + 1 < lines.length) end++;
  const count = (s: string) => text.split(s).length - 1;
  while (count(lines.slice(start, end + 1).join("\n")) > 1) {
    if (start > 0) start--;
    else if (end + 1 < lines.length) end++;
    else break;
    if (count(lines.slice(start, end + 1).join("\n")) > 1 && end + 1 < lines.length) end++;
  }
  return { start, end };
}

/** The old text and new text of an edit step, as whole lines of the file, made unique. */
function textEdit(lines: string[], s: EditStep): { start: number; end: number; before: string[]; after: string[] } {
  const at = locate(lines, s) ?? fail(`cannot find the place for ${JSON.stringify(primaryText(s))}`);
  const replacement = s.kind === "insert" ? [lines[at.start]!, ...s.lines] : s.lines;
  // Deleting lines: take the next line along so no empty line is left.
  const span = uniqueSpan(lines, at.start, at.end, s.kind === "replace" && s.lines.length === 0);
  const before = lines.slice(span.start, span.end + 1);
  const after = [...lines.slice(span.start, at.start), ...replacement, ...lines.slice(at.end + 1, span.end + 1)];
  return { start: span.start, end: span.end, before, after };
}

const renameLine = (text: string, word: string, to: string) => text.replace(new RegExp(`\\b${escapeRegex(word)}\\b`, "g"), to);

// ---- yoke: targeted reads, grep with anchors, hashline ops ---------------------------------

export const yokePolicy: Policy = async (goal, io) => {
  const findFile = async (pattern: string): Promise<string> => {
    const r = await io.call("grep", { pattern });
    return [...parseGrep(r.output).keys()][0] ?? fail(`grep found no file for /${pattern}/`);
  };

  const edits = async (group: EditStep[]) => {
    const file = group[0]!.file ?? (await findFile(group[0]!.find ?? primaryText(group[0]!)));
    const known = new Map<number, ViewLine>();
    const learn = (ls: ViewLine[]) => ls.forEach((l) => known.set(l.n, l));
    const patterns = [...new Set(group.map((s) => escapeRegex(primaryText(s))))];
    const withContext = group.some((s) => s.near !== undefined);
    const g = await io.call("grep", { pattern: patterns.join("|"), path: file, ...(withContext ? { context: 3 } : {}) });
    for (const ls of parseGrep(g.output).values()) learn(ls);
    /** Known lines as a dense array from line `from` while they are contiguous. */
    const denseFrom = (from: number): ViewLine[] => {
      const out: ViewLine[] = [];
      for (let n = from; known.has(n); n++) out.push(known.get(n)!);
      return out;
    };
    const ops: Record<string, unknown>[] = [];
    for (const s of group) {
      const sorted = [...known.values()].sort((a, b) => a.n - b.n);
      const first = sorted.find((l) => l.text.includes(primaryText(s))) ?? fail(`grep did not show ${primaryText(s)}`);
      // Read on from the first line until the whole place (near..from..to) is in view.
      let at: { start: number; end: number } | undefined;
      for (let tries = 0; tries < 20; tries++) {
        const view = denseFrom(first.n);
        at = locate(
          view.map((l) => l.text),
          s,
        );
        const needsBody = s.kind === "replace" && s.to !== undefined;
        if (at && (!needsBody || view.length > at.end)) break;
        const next = first.n + view.length;
        const r = await io.call("read_file", { path: file, offset: next, limit: 40 });
        learn(parseView(r.output));
        if (!parseView(r.output).length) break;
      }
      if (!at) fail(`cannot find the place for ${primaryText(s)} in ${file}`);
      const view = denseFrom(first.n);
      const start = view[at.start]!;
      const end = view[at.end]!;
      if (s.kind === "insert") ops.push({ op: "append", pos: start.anchor, lines: s.lines });
      else ops.push({ op: "replace", pos: start.anchor, ...(end.n > start.n ? { end: end.anchor } : {}), lines: s.lines.length ? s.lines : null });
    }
    const r = await io.call("edit_file", { path: file, edits: ops });
    if (!r.isError) return;
    // Refused (e.g. an insertion whose last line looks like the next line of the file): read the
    // lines around each insertion point and send it again as a replace that covers the next line too.
    const points = ops.filter((op) => op.op === "append").map((op) => Number(String(op.pos).split("#")[0]));
    if (!points.length) fail(`edit_file failed: ${r.output.slice(0, 300)}`);
    const reads = await io.parallel(points.map((n) => ({ name: "read_file", input: { path: file, offset: n, limit: 2, force: true } })));
    reads.forEach((x) => learn(parseView(x.output)));
    const retry = ops.map((op) => {
      if (op.op !== "append") return op;
      const n = Number(String(op.pos).split("#")[0]);
      const at = known.get(n) ?? fail(`read_file did not show line ${n}`);
      const next = known.get(n + 1);
      if (!next) return op;
      return { op: "replace", pos: at.anchor, end: next.anchor, lines: [at.text, ...(op.lines as string[]), next.text] };
    });
    const again = await io.call("edit_file", { path: file, edits: retry });
    if (again.isError) fail(`edit_file failed twice: ${again.output.slice(0, 300)}`);
  };

  await walk(goal, {
    edits,
    other: async (s) => {
      if (s.kind === "run") await io.call("run_command", { command: s.command });
      else if (s.kind === "create") await io.call("write_file", { path: s.file, content: s.content });
      else if (s.kind === "rename") {
        const r = await io.call("grep", { pattern: `\\b${escapeRegex(s.word)}\\b`, ...(s.path ? { path: s.path } : {}) });
        const calls: ToolCall[] = [];
        for (const [file, ls] of parseGrep(r.output)) {
          const ops = ls.filter((l) => new RegExp(`\\b${escapeRegex(s.word)}\\b`).test(l.text)).map((l) => ({ op: "replace", pos: l.anchor, lines: [renameLine(l.text, s.word, s.to)] }));
          if (ops.length) calls.push({ name: "edit_file", input: { path: file, edits: ops } });
        }
        const results = await io.parallel(calls);
        if (results.some((x) => x.isError)) fail("a rename edit failed");
      } else if (s.kind === "fix") {
        const r = await io.call("run_command", { command: s.command });
        const named = namedLines(r.output, s.pattern);
        const reads = await io.parallel(named.map((x) => ({ name: "read_file", input: { path: x.file, offset: x.line, limit: 1 } })));
        const byFile = new Map<string, Record<string, unknown>[]>();
        named.forEach((x, i) => {
          const line = parseView(reads[i]!.output)[0] ?? fail(`read_file did not show ${x.file}:${x.line}`);
          byFile.set(x.file, [...(byFile.get(x.file) ?? []), { op: "replace", pos: line.anchor, lines: [s.rewrite(line.text)] }]);
        });
        await io.parallel([...byFile].map(([path, ops]) => ({ name: "edit_file", input: { path, edits: ops } })));
      }
    },
  });
  return "Done.";
};

// ---- whole-file styles: shared mental copy of the files read ---------------------------------

/** The files a whole-file policy has seen, as it believes they are now (what it read, plus its own edits). */
class FileMemory {
  readonly files = new Map<string, string[]>();
  constructor(private readonly io: ModelIO) {}

  /** Reads a whole file (continuing while read_file stops early), unless it is already known. */
  async ensure(path: string, force = false, inPieces = false): Promise<string[]> {
    const have = this.files.get(path);
    if (have && !force) return have;
    const lines: string[] = [];
    let offset: number | undefined = inPieces ? 1 : undefined;
    let limit: number | undefined = inPieces ? 1000 : undefined;
    for (;;) {
      const r = await this.io.call("read_file", { path, ...(offset ? { offset } : {}), ...(limit ? { limit } : {}), ...(force ? { force: true } : {}) });
      if (r.isError) fail(`read_file ${path} failed: ${r.output.slice(0, 200)}`);
      if (SPILLED.test(r.output) && !limit) {
        // Too long for the context (only its start and end are shown): read it in smaller pieces.
        limit = 1000;
        offset ??= 1;
        continue;
      }
      lines.push(...parseView(r.output).map((l) => l.text));
      offset = moreAt(r.output) ?? (limit && SHOWN_PART.exec(r.output) ? nextOf(r.output) : undefined);
      if (!offset) break;
    }
    this.files.set(path, lines);
    return lines;
  }

  /** Reads several whole files in one response. */
  async ensureAll(paths: string[], force = false): Promise<void> {
    const todo = paths.filter((p) => force || !this.files.has(p));
    if (todo.length <= 1) {
      for (const p of todo) await this.ensure(p, force);
      return;
    }
    const results = await this.io.parallel(todo.map((path) => ({ name: "read_file", input: { path, ...(force ? { force: true } : {}) } })));
    todo.forEach((p, i) => {
      if (moreAt(results[i]!.output) || SPILLED.test(results[i]!.output)) this.files.delete(p);
      else
        this.files.set(
          p,
          parseView(results[i]!.output).map((l) => l.text),
        );
    });
    for (const p of todo) if (!this.files.has(p)) await this.ensure(p, force, true);
  }

  apply(path: string, start: number, end: number, after: string[]): void {
    const lines = this.files.get(path)!;
    lines.splice(start, end - start + 1, ...after);
  }
}

async function grepFiles(io: ModelIO, pattern: string, path?: string): Promise<string[]> {
  const r = await io.call("grep", { pattern, ...(path ? { path } : {}) });
  return [...parseGrep(r.output).keys()];
}

async function runOther(io: ModelIO, s: Exclude<Step, EditStep>): Promise<boolean> {
  if (s.kind === "run") await io.call("run_command", { command: s.command });
  else if (s.kind === "create") await io.call("write_file", { path: s.file, content: s.content });
  else return false;
  return true;
}

// ---- claude-code-style: whole-file reads, old_string / new_string edits ---------------------

export const claudeCodePolicy: Policy = async (goal, io) => {
  const mem = new FileMemory(io);
  const editOne = async (file: string, s: EditStep) => {
    const lines = await mem.ensure(file);
    const e = textEdit(lines, s);
    const r = await io.call("edit_file", { file_path: file, old_string: e.before.join("\n"), new_string: e.after.join("\n") });
    if (r.isError) fail(`edit_file failed: ${r.output.slice(0, 300)}`);
    mem.apply(file, e.start, e.end, e.after);
  };
  await walk(goal, {
    edits: async (group) => {
      const file = group[0]!.file ?? (await grepFiles(io, group[0]!.find ?? primaryText(group[0]!)))[0] ?? fail("grep found no file");
      for (const s of group) await editOne(file, s);
    },
    other: async (s) => {
      if (await runOther(io, s)) return;
      if (s.kind === "rename") {
        const files = await grepFiles(io, `\\b${escapeRegex(s.word)}\\b`, s.path);
        await mem.ensureAll(files);
        const calls: ToolCall[] = [];
        const whole = new RegExp(`\\b${escapeRegex(s.word)}\\b`, "g");
        for (const f of files) {
          const text = mem.files.get(f)!.join("\n");
          // replace_all is safe when every occurrence of the text is the whole word.
          if ((text.match(whole) ?? []).length === text.split(s.word).length - 1) {
            calls.push({ name: "edit_file", input: { file_path: f, old_string: s.word, new_string: s.to, replace_all: true } });
          } else {
            const lines = mem.files.get(f)!;
            lines.forEach((l, i) => {
              if (!whole.test(l)) return;
              whole.lastIndex = 0;
              const span = uniqueSpan(lines, i, i);
              const before = lines.slice(span.start, span.end + 1);
              calls.push({ name: "edit_file", input: { file_path: f, old_string: before.join("\n"), new_string: before.map((x) => renameLine(x, s.word, s.to)).join("\n") } });
            });
          }
        }
        const results = await io.parallel(calls);
        if (results.some((x) => x.isError)) fail("a rename edit failed");
        for (const f of files)
          mem.files.set(
            f,
            mem.files.get(f)!.map((l) => renameLine(l, s.word, s.to)),
          );
      } else if (s.kind === "fix") {
        const r = await io.call("run_command", { command: s.command });
        for (const x of namedLines(r.output, s.pattern)) {
          const lines = await mem.ensure(x.file);
          const line = lines[x.line - 1] ?? fail(`${x.file} has no line ${x.line}`);
          const span = uniqueSpan(lines, x.line - 1, x.line - 1);
          const before = lines.slice(span.start, span.end + 1);
          const after = before.map((l, i) => (span.start + i === x.line - 1 ? s.rewrite(line) : l));
          const e = await io.call("edit_file", { file_path: x.file, old_string: before.join("\n"), new_string: after.join("\n") });
          if (e.isError) fail(`edit_file failed: ${e.output.slice(0, 300)}`);
          mem.apply(x.file, span.start, span.end, after);
        }
      }
    },
  });
  return "Done.";
};

// ---- aider-style: whole files in the chat, SEARCH/REPLACE blocks -----------------------------

function block(file: string, before: string[], after: string[]): string {
  return [file, "<<<<<<< SEARCH", ...before, "=======", ...after, ">>>>>>> REPLACE"].join("\n");
}

export const aiderPolicy: Policy = async (goal, io) => {
  const mem = new FileMemory(io);
  // Aider sends the current text of every file in the chat with each request: after editing, the
  // next request carries the edited files again (here: read again in full).
  const stale = new Set<string>();
  const refresh = async () => {
    if (stale.size) await mem.ensureAll([...stale], true);
    stale.clear();
  };
  const send = async (edits: Map<string, Array<{ start: number; end: number; before: string[]; after: string[] }>>) => {
    const files = [...edits.keys()];
    const results = await io.parallel(
      files.map((f) => ({
        name: "edit_file",
        input: {
          path: f,
          edits: edits
            .get(f)!
            .map((e) => block(f, e.before, e.after))
            .join("\n\n"),
        },
      })),
    );
    results.forEach((r, i) => {
      if (r.isError) fail(`edit_file ${files[i]} failed: ${r.output.slice(0, 300)}`);
    });
    for (const f of files) {
      for (const e of [...edits.get(f)!].sort((a, b) => b.start - a.start)) mem.apply(f, e.start, e.end, e.after);
      stale.add(f);
    }
  };
  await walk(goal, {
    edits: async (group) => {
      await refresh();
      const file = group[0]!.file ?? (await grepFiles(io, group[0]!.find ?? primaryText(group[0]!)))[0] ?? fail("grep found no file");
      const lines = await mem.ensure(file);
      await send(new Map([[file, group.map((s) => textEdit(lines, s))]]));
    },
    other: async (s) => {
      await refresh();
      if (await runOther(io, s)) return;
      if (s.kind === "rename") {
        const files = await grepFiles(io, `\\b${escapeRegex(s.word)}\\b`, s.path);
        await mem.ensureAll(files);
        const whole = new RegExp(`\\b${escapeRegex(s.word)}\\b`);
        const edits = new Map<string, Array<{ start: number; end: number; before: string[]; after: string[] }>>();
        for (const f of files) {
          const lines = mem.files.get(f)!;
          const list: Array<{ start: number; end: number; before: string[]; after: string[] }> = [];
          for (let i = 0; i < lines.length; i++) {
            if (!whole.test(lines[i]!)) continue;
            // One block per run of neighbouring lines with the word, widened until unique.
            let end = i;
            while (end + 1 < lines.length && whole.test(lines[end + 1]!)) end++;
            const span = uniqueSpan(lines, i, end);
            const prev = list[list.length - 1];
            if (prev && span.start <= prev.end) {
              prev.end = span.end;
              prev.before = lines.slice(prev.start, prev.end + 1);
            } else list.push({ start: span.start, end: span.end, before: lines.slice(span.start, span.end + 1), after: [] });
            i = span.end;
          }
          for (const e of list) e.after = e.before.map((l) => renameLine(l, s.word, s.to));
          if (list.length) edits.set(f, list);
        }
        await send(edits);
      } else if (s.kind === "fix") {
        const r = await io.call("run_command", { command: s.command });
        const named = namedLines(r.output, s.pattern);
        await mem.ensureAll([...new Set(named.map((x) => x.file))]);
        const edits = new Map<string, Array<{ start: number; end: number; before: string[]; after: string[] }>>();
        for (const x of named) {
          const lines = mem.files.get(x.file)!;
          const span = uniqueSpan(lines, x.line - 1, x.line - 1);
          const before = lines.slice(span.start, span.end + 1);
          const after = before.map((l, i) => (span.start + i === x.line - 1 ? s.rewrite(l) : l));
          edits.set(x.file, [...(edits.get(x.file) ?? []), { start: span.start, end: span.end, before, after }]);
        }
        await send(edits);
      }
    },
  });
  return "Done.";
};

// ---- bash-only (mini-swe-agent): cat / grep / nl | sed -n, edits by sed and python ----------

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const EXCLUDES = "--exclude-dir=node_modules --exclude-dir=.git";

/** `nl -ba FILE | sed -n 'A,Bp'` lines: number, tab, text. */
function parseNl(output: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const l of output.split("\n")) {
    const m = /^\s*(\d+)\t(.*)$/.exec(l);
    if (m) out.set(Number(m[1]), m[2]!);
  }
  return out;
}

/** A python3 heredoc that replaces 0-based line ranges of one file (bottom-up). */
function pythonEdit(file: string, edits: Array<{ start: number; end: number; lines: string[] }>): string {
  const body = [...edits]
    .sort((a, b) => b.start - a.start)
    .map((e) => `lines[${e.start}:${e.end + 1}] = ${JSON.stringify(e.lines)}`)
    .join("\n");
  return `python3 - <<'PY'\np = ${JSON.stringify(file)}\nlines = open(p).read().split("\\n")\n${body}\nopen(p, "w").write("\\n".join(lines))\nPY`;
}

export const bashOnlyPolicy: Policy = async (goal, io) => {
  const sh = (command: string) => io.call("run_command", { command });
  const findFile = async (pattern: string) => {
    const r = await sh(`grep -rlE ${EXCLUDES} ${sq(pattern)} .`);
    const first = r.output.split("\n").find((l) => /^\.\//.test(l.trim()));
    return first?.trim().slice(2) ?? fail(`grep found no file for ${pattern}`);
  };
  await walk(goal, {
    edits: async (group) => {
      const file = group[0]!.file ?? (await findFile(group[0]!.find ?? escapeRegex(primaryText(group[0]!))));
      const texts = [...new Set(group.map(primaryText))];
      const g = await sh(`grep -nF ${texts.map((t) => `-e ${sq(t)}`).join(" ")} ${sq(file)}`);
      const hits = [...g.output.matchAll(/^(\d+):(.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
      const seen = new Map<number, string>(hits.map((h) => [h.n, h.text]));
      const edits: Array<{ start: number; end: number; lines: string[] }> = [];
      for (const s of group) {
        const first = hits.find((h) => h.text.includes(primaryText(s))) ?? fail(`grep -n did not show ${primaryText(s)}`);
        const single = s.near === undefined && (s.kind === "insert" || s.to === undefined);
        let at: { start: number; end: number } | undefined;
        if (single) at = { start: first.n - 1, end: first.n - 1 };
        else {
          // Look at the code from the hit on, a screenful at a time, until the place is in view.
          for (let from = first.n; !at && from < first.n + 400; from += 30) {
            const v = await sh(`nl -ba ${sq(file)} | sed -n '${from},${from + 29}p'`);
            const shown = parseNl(v.output);
            if (!shown.size) break;
            for (const [n, t] of shown) seen.set(n, t);
            const dense: string[] = [];
            for (let n = first.n; seen.has(n); n++) dense.push(seen.get(n)!);
            const found = locate(dense, s);
            if (found) at = { start: found.start + first.n - 1, end: found.end + first.n - 1 };
          }
        }
        if (!at) fail(`cannot find the place for ${primaryText(s)}`);
        if (s.kind === "insert") edits.push({ start: at.start + 1, end: at.start, lines: s.lines });
        else edits.push({ start: at.start, end: at.end, lines: s.lines });
      }
      await sh(pythonEdit(file, edits));
    },
    other: async (s) => {
      if (s.kind === "run") await sh(s.command);
      else if (s.kind === "create") {
        const dir = s.file.includes("/") ? `mkdir -p ${sq(s.file.slice(0, s.file.lastIndexOf("/")))} && ` : "";
        await sh(`${dir}cat > ${sq(s.file)} <<'EOF'\n${s.content.replace(/\n$/, "")}\nEOF`);
      } else if (s.kind === "rename") {
        const r = await sh(`grep -rlw ${EXCLUDES} -e ${sq(s.word)} ${s.path ? sq(s.path) : "."}`);
        const files = r.output
          .split("\n")
          .map((l) => l.trim())
          .filter((l) => /^[\w./-]+$/.test(l) && !l.startsWith("["));
        if (!files.length) fail(`no file has ${s.word}`);
        await sh(`sed -i 's/\\b${s.word}\\b/${s.to}/g' ${files.map(sq).join(" ")}`);
      } else if (s.kind === "fix") {
        const r = await sh(s.command);
        const named = namedLines(r.output, s.pattern);
        const byFile = new Map<string, Array<{ start: number; end: number; lines: string[] }>>();
        for (const x of named) {
          const v = await sh(`sed -n '${x.line}p' ${sq(x.file)}`);
          const text = v.output.split("\n")[0] ?? "";
          byFile.set(x.file, [...(byFile.get(x.file) ?? []), { start: x.line - 1, end: x.line - 1, lines: [s.rewrite(text)] }]);
        }
        for (const [file, edits] of byFile) await sh(pythonEdit(file, edits));
      }
    },
  });
  return "Done.";
};

/** A policy for testing the checks: the yoke policy with the goal's last change left out. */
export const brokenPolicy: Policy = async (goal, io) => {
  const last = goal.steps.map((s) => s.kind !== "run").lastIndexOf(true);
  return yokePolicy({ ...goal, steps: goal.steps.filter((_, i) => i !== last) }, io);
};

export const POLICIES: Record<string, Policy> = {
  yoke: yokePolicy,
  "claude-code-style": claudeCodePolicy,
  "aider-style": aiderPolicy,
  "bash-only": bashOnlyPolicy,
};

/**
 * The tools each harness style sends (`yoke run --tools`): a bash-only harness (mini-swe-agent) has
 * one tool, so its requests carry one definition; a policy not named here gets all of Yoke's tools.
 */
export const POLICY_TOOLS: Record<string, readonly string[]> = { "bash-only": ["run_command"] };

export const TEST_POLICIES: Record<string, Policy> = { broken: brokenPolicy };
