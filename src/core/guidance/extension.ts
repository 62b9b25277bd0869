/**
 * The guidance extension: injects what applies, once per session, as appended context messages
 * (request.prepare; never a change to the system prompt or to earlier messages), and offers the
 * load_skill tool. Rules, project memory, the skill list and loaded skills persist through
 * compaction (`persist: true`); lessons are situational and may be summarised away.
 */
import { z } from "zod";
import type { EventOf } from "../events";
import type { ContextMessage, Extension, ExtensionApi } from "../extensions/types";
import { normalizePath } from "../paths";
import { defineTool, ToolError, type ToolDefinition, type ToolIdentity } from "../tools/types";
import { foldersDownTo, loadFolderMemory, loadGuidance } from "./loader";
import { estimateTokens, rank, relForGlob, scoreEntry, type ScoreContext } from "./match";
import type { GuidanceEntry, GuidanceFiles, GuidancePrefs, GuidanceSet, MatchSignals, ScoredEntry } from "./types";
import { resolveTouches } from "../tools/touches";

export const GUIDANCE_SOURCE = "guidance";
export const LOAD_SKILL = "load_skill";
/** The load_skill tool, as the permission engine knows it: it adds a skill's text to the conversation. */
export const LOAD_SKILL_TOOL: ToolIdentity = { name: LOAD_SKILL, permission: "Skill", permissionClass: "session", capabilities: { reads: true } };

export interface GuidanceBudget {
  /** Tokens of lessons per request (default 1,500). */
  lessonTokens: number;
  /** Lessons per request (default 3). */
  maxLessons: number;
  /** Tokens of the skill list (default 1,000). */
  catalogTokens: number;
}

export const DEFAULT_BUDGET: GuidanceBudget = { lessonTokens: 1500, maxLessons: 3, catalogTokens: 1000 };

export interface GuidanceExtensionOptions {
  /** Built-in and user guidance (the Node port); absent: only the workspace's. */
  files?: GuidanceFiles;
  /** Pinned and muted entries (read before every request). */
  prefs?: () => GuidancePrefs;
  budget?: Partial<GuidanceBudget>;
  /** Loads the set instead of reading the workspace (tests, benches). */
  load?: () => Promise<GuidanceSet>;
}

type InjectedRecord = EventOf<"guidance">["injected"][number];

/** The effective entries: for one kind and name, the workspace's wins over the user's over the built-in one. */
export function effectiveEntries(entries: readonly GuidanceEntry[]): GuidanceEntry[] {
  const rankOf = { builtin: 0, user: 1, workspace: 2 } as const;
  const best = new Map<string, GuidanceEntry>();
  for (const e of entries) {
    const key = e.kind === "memory" ? e.id : `${e.kind}:${e.name.toLowerCase()}`;
    const cur = best.get(key);
    if (!cur || rankOf[e.origin] >= rankOf[cur.origin]) best.set(key, e);
  }
  return entries.filter((e) => best.get(e.kind === "memory" ? e.id : `${e.kind}:${e.name.toLowerCase()}`) === e);
}

/** Tool name → lower-case aliases (permission and hook names), so a lesson may say `Bash` or `run_command`. */
export function toolAliases(tools: readonly ToolDefinition[]): (name: string) => string[] {
  const map = new Map(tools.map((t) => [t.name, [t.permission, t.hookName].filter((x): x is string => !!x).map((x) => x.toLowerCase())]));
  return (name) => map.get(name) ?? [];
}

/** Skills (and agent-requested rules) load_skill can load. */
function loadable(e: GuidanceEntry): boolean {
  return e.kind === "skill" || (e.kind === "rule" && (e.activation === "requested" || e.activation === "manual"));
}

export function guidanceExtension(opts: GuidanceExtensionOptions = {}): Extension {
  return {
    name: "guidance",
    async setup(api) {
      const set = await (opts.load ?? (() => loadGuidance({ fs: api.session.services.fs, files: opts.files, access: api.session.services.access })))();
      const state = new GuidanceState(api, set, opts);
      api.addTools([state.loadSkillTool()]);
      api.on("tool.after", async ({ tool, args, output }) => {
        await state.observe(tool, args, output.text);
        return undefined;
      });
      api.on("request.prepare", async () => ({ append: await state.prepare() }));
    },
  };
}

class GuidanceState {
  private readonly entries: GuidanceEntry[];
  private readonly injected = new Set<string>();
  private readonly listedSkills = new Set<string>();
  private readonly seenDirs = new Set<string>();
  private readonly pendingSkills: GuidanceEntry[] = [];
  private tools: string[] = [];
  private outputs: string[] = [];
  private files: string[] = [];
  private lastUserSeq = -1;
  private started: boolean;
  private readonly budget: GuidanceBudget;
  private aliases: (name: string) => string[] = () => [];

  constructor(
    private readonly api: ExtensionApi,
    private readonly set: GuidanceSet,
    private readonly opts: GuidanceExtensionOptions,
  ) {
    this.entries = effectiveEntries(set.entries);
    this.budget = { ...DEFAULT_BUDGET, ...opts.budget };
    const events = api.session.events();
    // A resumed session: what its log says was injected stays injected (never twice).
    for (const e of events) {
      if (e.type === "guidance") for (const i of e.injected) this.markInjected(i);
      if (e.type === "user_message") this.lastUserSeq = e.seq;
    }
    this.started = events.some((e) => e.type === "guidance");
    // Sessions from before the loader had the root memory in their (stored) system prompt.
    const start = events.find((e) => e.type === "session_start");
    const system = start?.type === "session_start" ? (start.systemPrompt ?? "") : "";
    for (const e of this.entries) if (e.kind === "memory" && system.includes(`Project instructions from ${e.source}:`)) this.injected.add(e.id);
    if (set.problems.length) {
      api.session.services.log.warn(`guidance: ${set.problems.length} problem(s): ${set.problems.map((p) => `${p.path}${p.line ? `:${p.line}` : ""}: ${p.message}`).join("; ")}`);
    }
  }

  private markInjected(i: InjectedRecord): void {
    if (i.kind === "skill" && i.listed) this.listedSkills.add(i.id);
    else this.injected.add(i.id);
    if (i.dir) this.seenDirs.add(i.dir);
  }

  private get score(): ScoreContext {
    return { fs: this.api.session.services.fs, toolAliases: this.aliases };
  }

  async observe(tool: ToolDefinition, args: unknown, output: string): Promise<void> {
    this.aliases = toolAliasesOf(tool, this.aliases);
    this.tools.push(tool.name);
    this.outputs.push(output);
    const a = (args ?? {}) as Record<string, unknown>;
    const fs = this.api.session.services.fs;
    // The path arguments, and the files a call touches besides (a patch's).
    const named = (tool.pathArgs ?? []).map((key) => a[key]).filter((p): p is string => typeof p === "string" && p !== "");
    const touched = tool.touches ? (await resolveTouches(tool, args, fs)).flatMap((t) => ("abs" in t ? [t.abs] : [])) : [];
    for (const p of [...named, ...touched]) {
      const st = await fs.stat(p).catch(() => undefined);
      if (st?.type === "file") this.files.push(normalizePath(p));
    }
  }

  loadSkillTool(): ToolDefinition {
    const names = () => this.entries.filter(loadable).map((e) => e.name);
    return defineTool({
      ...LOAD_SKILL_TOOL,
      description:
        "Load a skill (or an agent-requested rule) by name: its full instructions are added to the conversation, with the names of the files that come with it. The available ones are listed in a guidance message.",
      schema: z.object({ name: z.string().min(1).describe("The skill's name, as listed") }),
      timeoutMs: 10_000,
      summarize: (i) => String(i.name ?? ""),
      hookInput: (a) => ({ skill: a.name }),
      run: async ({ name }) => {
        const wanted = name.trim().toLowerCase();
        const e =
          this.entries.find((x) => loadable(x) && x.name.toLowerCase() === wanted) ??
          this.entries.find((x) => loadable(x) && x.name.toLowerCase().replace(/[\s_]+/g, "-") === wanted.replace(/[\s_]+/g, "-"));
        if (!e) {
          const all = names();
          throw new ToolError(all.length ? `No skill named "${name}". Available: ${all.join(", ")}.` : `No skill named "${name}": this workspace has no skills.`);
        }
        if (this.muted(e)) throw new ToolError(`The skill "${e.name}" is muted by the user in this workspace.`);
        if (this.injected.has(e.id) || this.pendingSkills.includes(e)) return { text: `The skill "${e.name}" is already loaded: its instructions are in the conversation above.` };
        this.pendingSkills.push(e);
        const files = e.files?.length ? ` It comes with ${e.files.length} file(s), listed with it.` : "";
        return { text: `Loaded the ${e.kind} "${e.name}" (${e.source}). Its full instructions follow in the next guidance message.${files}` };
      },
    }) as ToolDefinition;
  }

  private prefs(): GuidancePrefs {
    try {
      return this.opts.prefs?.() ?? { pinned: [], muted: [] };
    } catch {
      return { pinned: [], muted: [] };
    }
  }

  private muted(e: GuidanceEntry): boolean {
    return this.prefs().muted.includes(e.id);
  }

  /** What to append before this request. */
  async prepare(): Promise<ContextMessage[]> {
    const prefs = this.prefs();
    const muted = new Set(prefs.muted);
    const signals = this.takeSignals();
    const inForce: Array<{ e: GuidanceEntry; reasons: string[] }> = [];
    const lessons: ScoredEntry[] = [];
    const newSkills: ScoredEntry[] = [];
    const first = !this.started;
    this.started = true;
    const fresh = (e: GuidanceEntry) => !this.injected.has(e.id) && !muted.has(e.id);

    for (const e of this.entries) if (prefs.pinned.includes(e.id) && fresh(e)) inForce.push({ e, reasons: ["pinned"] });
    if (first) {
      for (const e of this.entries) {
        if ((e.kind === "memory" || e.kind === "rule") && e.activation === "always" && fresh(e) && !inForce.some((x) => x.e === e)) inForce.push({ e, reasons: ["always"] });
      }
    }
    // Nested project memory: folders of files touched for the first time, nearest first.
    for (const file of signals.files ?? []) {
      for (const dir of foldersDownTo(this.api.session.services.fs, file)) {
        if (this.seenDirs.has(dir)) continue;
        this.seenDirs.add(dir);
        for (const p of await loadFolderMemory(this.api.session.services.fs, dir, this.opts.files, this.api.session.services.access)) {
          if (p.problems.length) this.api.session.services.log.warn(`guidance: ${p.problems.map((x) => `${x.path}${x.line ? `:${x.line}` : ""}: ${x.message}`).join("; ")}`);
          if (p.entry && fresh(p.entry)) {
            this.entries.push(p.entry);
            inForce.push({ e: p.entry, reasons: [`file ${displayRel(this.score, file)} in its folder`] });
          }
        }
      }
    }
    for (const s of rank(this.entries, signals, this.score)) {
      const e = s.entry;
      if (muted.has(e.id) || inForce.some((x) => x.e === e)) continue;
      if (e.kind === "rule" && e.activation === "glob" && fresh(e)) inForce.push({ e, reasons: s.reasons });
      else if (e.kind === "lesson" && fresh(e)) lessons.push(s);
      else if (e.kind === "skill" && e.match.globs.length && !this.listedSkills.has(e.id) && s.reasons.some((r) => r.startsWith("glob "))) newSkills.push(s);
    }
    for (const e of this.pendingSkills.splice(0)) if (!this.injected.has(e.id)) inForce.push({ e, reasons: ["loaded with load_skill"] });

    const records: InjectedRecord[] = [];
    const persisted: string[] = [];
    for (const { e, reasons } of inForce) {
      persisted.push(render(e, reasons));
      records.push(record(e, reasons, e.body));
    }
    // The skill list: skills without paths at the start, those with paths when a matching file is touched.
    const catalog = first ? this.entries.filter((e) => loadable(e) && !muted.has(e.id) && !this.listedSkills.has(e.id) && (e.kind !== "skill" || !e.match.globs.length)) : [];
    const listed = [...catalog, ...newSkills.map((s) => s.entry).filter((e) => !muted.has(e.id))];
    if (listed.length) {
      const { text, shown } = renderCatalog(listed, this.budget.catalogTokens, signals);
      persisted.push(text);
      for (const e of shown) {
        this.listedSkills.add(e.id);
        records.push({ ...record(e, [newSkills.some((s) => s.entry === e) ? (newSkills.find((s) => s.entry === e)!.reasons[0] ?? "listed") : "listed"], ""), listed: true });
      }
    }
    const lessonTexts: string[] = [];
    let tokens = 0;
    for (const s of lessons) {
      if (lessonTexts.length >= this.budget.maxLessons) break;
      const t = render(s.entry, s.reasons);
      if (tokens + estimateTokens(t) > this.budget.lessonTokens) continue;
      tokens += estimateTokens(t);
      lessonTexts.push(t);
      records.push(record(s.entry, s.reasons, t));
    }
    for (const r of records) this.markInjected(r);
    if (!records.length) return [];
    this.api.record({ type: "guidance", injected: records, ...(first && this.set.problems.length ? { problems: this.set.problems } : {}) });
    const out: ContextMessage[] = [];
    if (persisted.length) out.push({ source: GUIDANCE_SOURCE, text: persisted.join("\n\n"), persist: true });
    if (lessonTexts.length) out.push({ source: GUIDANCE_SOURCE, text: ["Lessons that apply to what you are doing now:", ...lessonTexts].join("\n\n") });
    return out;
  }

  private takeSignals(): MatchSignals {
    const messages: string[] = [];
    for (const e of this.api.session.events()) {
      if (e.type === "user_message" && e.seq > this.lastUserSeq) {
        this.lastUserSeq = e.seq;
        if (e.from !== "hook" && e.from !== "extension") messages.push(e.text);
      }
    }
    const s: MatchSignals = { message: messages.join("\n"), tools: this.tools, outputs: this.outputs, files: this.files };
    this.tools = [];
    this.outputs = [];
    this.files = [];
    return s;
  }
}

function toolAliasesOf(tool: ToolDefinition, prev: (name: string) => string[]): (name: string) => string[] {
  const own = [tool.permission, tool.hookName].filter((x): x is string => !!x).map((x) => x.toLowerCase());
  return (name) => (name === tool.name ? own : prev(name));
}

function displayRel(ctx: ScoreContext, file: string): string {
  return relForGlob(ctx.fs, file);
}

function record(e: GuidanceEntry, reasons: string[], text: string): InjectedRecord {
  return { id: e.id, name: e.name, kind: e.kind, source: e.source, reasons, tokens: estimateTokens(text), ...(e.dir && e.kind === "memory" ? { dir: e.dir } : {}) };
}

const KIND_LABEL = { lesson: "Lesson", skill: "Skill", rule: "Rule", memory: "Project memory" } as const;

/** One entry as the model reads it: what it is, where from, why it applies, then its text. */
export function render(e: GuidanceEntry, reasons: string[]): string {
  const why = reasons.length ? ` — ${reasons.join("; ")}` : "";
  const title = e.kind === "lesson" && e.title ? `${e.title} ` : e.kind === "skill" ? `${e.name} ` : "";
  const head = `## ${KIND_LABEL[e.kind]}: ${title}(${e.source}${why})`;
  const files =
    e.kind === "skill" && e.files?.length
      ? `\n\nFiles of this skill (in ${e.source.replace(/\/SKILL\.md$/, "")}/; read them with read_file when the instructions refer to them):\n${e.files.map((f) => `- ${f}`).join("\n")}`
      : "";
  return `${head}\n${e.body}${files}`;
}

const MAX_DESCRIPTION = 240;

/** The list of loadable skills and rules, best match first, within the token budget. */
export function renderCatalog(entries: GuidanceEntry[], budgetTokens: number, signals: MatchSignals = {}): { text: string; shown: GuidanceEntry[] } {
  const ordered = [...entries].sort((a, b) => scoreEntry(b, signals).score - scoreEntry(a, signals).score || (a.name < b.name ? -1 : 1));
  const head = `Skills you can load with the ${LOAD_SKILL} tool when a task needs them (name: when to use it):`;
  const lines: string[] = [];
  const shown: GuidanceEntry[] = [];
  let tokens = estimateTokens(head);
  for (const e of ordered) {
    const desc = (e.description ?? "").replace(/\s+/g, " ").trim();
    const line = `- ${e.name}${desc ? `: ${desc.length > MAX_DESCRIPTION ? `${desc.slice(0, MAX_DESCRIPTION - 1)}…` : desc}` : ""}`;
    if (tokens + estimateTokens(line) > budgetTokens) continue;
    tokens += estimateTokens(line);
    lines.push(line);
    shown.push(e);
  }
  const left = entries.length - shown.length;
  if (left > 0) lines.push(`(${left} more not listed for space; ${LOAD_SKILL} loads any skill by its exact name.)`);
  return { text: [head, ...lines].join("\n"), shown };
}
