/**
 * The guidance extension: injects what applies, once per session, as appended context messages
 * (request.prepare; never a change to the system prompt or to earlier messages), and offers the
 * load_skill tool. Rules, project memory, the skill list and loaded skills persist through
 * compaction (`persist: true`); lessons are situational and may be summarised away.
 */
import { z } from "zod";
import type { EventOf } from "../events";
import type { ContextMessage, Extension, ExtensionApi } from "../extensions/types";
import { normalizePath, relativePath } from "../paths";
import { defineTool, ToolError, type ToolContext, type ToolDefinition, type ToolIdentity, type ToolOutput } from "../tools/types";
import { forkRunner, TASK_TIMEOUT_MS } from "../subagents/index";
import { hasShellLines, runShellLines } from "../custom-commands/expand";
import type { LoadedSkill } from "../custom-commands/extension";
import { modelInvocable, type ModelCommands } from "../custom-commands/model-commands";
import type { CustomCommand } from "../custom-commands/types";
import { foldersDownTo, loadFolderMemory, loadFolderRules, loadGuidance } from "./loader";
import { bounded } from "./parse";
import { estimateTokens, rank, relForGlob, scoreEntry, type ScoreContext } from "./match";
import type { ExcludedFile, GuidanceEntry, GuidanceFiles, GuidancePrefs, GuidanceSet, MatchSignals, ScoredEntry } from "./types";
import { applyWindsurfLimits, windsurfCharsUsed } from "./windsurf-limits";
import { resolveTouches } from "../tools/touches";
import { hooksFingerprint, recordedHooks } from "../hooks/frontmatter";

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
  /** Tokens of guidance the first request may carry (default 16,000; setting `guidance.firstRequestTokens`). */
  firstTokens: number;
  /** Tokens of guidance added on Yoke's own initiative in the whole session, the first request included (default 40,000; setting `guidance.maxTokens`). */
  totalTokens: number;
}

export const DEFAULT_BUDGET: GuidanceBudget = { lessonTokens: 1500, maxLessons: 3, catalogTokens: 1000, firstTokens: 16_000, totalTokens: 40_000 };

/** Entries named in the note of what the budget left out, at most (the rest are counted). */
export const MAX_WITHHELD_NAMED = 30;

export interface GuidanceExtensionOptions {
  /** Built-in and user guidance (the Node port); absent: only the workspace's. */
  files?: GuidanceFiles;
  /** Pinned and muted entries (read before every request). */
  prefs?: () => GuidancePrefs;
  budget?: Partial<GuidanceBudget>;
  /** Loads the set instead of reading the workspace (tests, benches). */
  load?: () => Promise<GuidanceSet>;
  /**
   * Runs a skill's `` !`cmd` `` lines before its text is sent, as Claude Code does for every skill it
   * loads (custom-commands' skillPreprocessor: the same gate as a command's `!` lines). Absent: the
   * lines stay text.
   */
  preprocess?: (api: ExtensionApi, skill: LoadedSkill, callId: string) => Promise<string>;
  /**
   * Switches the session's model to an inline skill's `model` until the turn ends (undefined: back
   * to the session's own), as a custom command's `model` is (custom-commands' useModel: the
   * session's provider); resolves to why it could not, or undefined when it did. Absent: not applied, said in the log.
   */
  useModel?(model: string | undefined, whose?: string): Promise<string | undefined>;
  /**
   * The custom commands (custom-commands' bridge): those the model may run (modelInvocable) are
   * listed beside the skills, under the same budget and ranking, and load_skill runs one with
   * `arguments`, expanded as `/name args` typed by the person. Absent: no command is offered.
   */
  commands?: ModelCommands;
}

/** A custom command the model may run, as the listing sees it (its text is never sent as guidance: running it expands it). */
interface CommandEntry {
  e: GuidanceEntry;
  cmd: CustomCommand;
}

type InjectedRecord = EventOf<"guidance">["injected"][number];

/** The effective entries: for one kind and name, the workspace's wins over the user's over the built-in one. */
export function effectiveEntries(entries: readonly GuidanceEntry[]): GuidanceEntry[] {
  const rankOf = { builtin: 0, user: 1, workspace: 2 } as const;
  const keyOf = (e: GuidanceEntry) => (e.kind === "memory" || e.kind === "rule" ? e.id : `${e.kind}:${e.name.toLowerCase()}`);
  const best = new Map<string, GuidanceEntry>();
  for (const e of entries) {
    const key = keyOf(e);
    const cur = best.get(key);
    if (!cur || rankOf[e.origin] >= rankOf[cur.origin]) best.set(key, e);
  }
  return entries.filter((e) => best.get(keyOf(e)) === e);
}

/** Tool name → lower-case aliases (permission and hook names), so a lesson may say `Bash` or `run_command`. */
export function toolAliases(tools: readonly ToolDefinition[]): (name: string) => string[] {
  const map = new Map(tools.map((t) => [t.name, [t.permission, t.hookName].filter((x): x is string => !!x).map((x) => x.toLowerCase())]));
  return (name) => map.get(name) ?? [];
}

/** Listed by description for the model to load: skills (without paths, or once a file matches) and agent-requested rules. Manual rules are not listed. */
function listable(e: GuidanceEntry): boolean {
  return (e.kind === "skill" && e.activation !== "manual") || (e.kind === "rule" && e.activation === "requested");
}

/** What load_skill loads by name: any skill or rule, and whatever the budget left out. */
function loadable(e: GuidanceEntry, withheld: ReadonlySet<string>): boolean {
  // A skill with disable-model-invocation is the user's to invoke (@name), never the model's.
  if (e.kind === "skill" && e.activation === "manual") return false;
  return e.kind === "skill" || e.kind === "rule" || withheld.has(e.id);
}

export function guidanceExtension(opts: GuidanceExtensionOptions = {}): Extension {
  return {
    name: "guidance",
    async setup(api) {
      const set = await (opts.load ?? (() => loadGuidance({ fs: api.session.services.fs, files: opts.files, access: api.session.services.access })))();
      const state = new GuidanceState(api, set, opts);
      if (opts.commands) state.setCommands(await opts.commands.list().catch(() => []));
      await state.restoreHooks();
      api.addTools([state.loadSkillTool()]);
      // A loaded skill's `effort` holds to the end of the turn (Claude Code: until the user's next message).
      api.onEvent((e) => {
        if (e.type === "status" && (e.state === "done" || e.state === "error" || e.state === "cancelled")) state.endTurn();
      });
      api.on("tool.after", async ({ tool, args, output }) => {
        await state.observe(tool, args, output.text);
        return undefined;
      });
      api.on("request.prepare", async (_input, hctx) => ({ append: await state.prepare(hctx.signal) }));
    },
  };
}

/** An entry about to be sent, and why. `explicit`: asked for (pinned, @name, load_skill) — not held to the budget. */
interface Candidate {
  e: GuidanceEntry;
  reasons: string[];
  explicit?: boolean;
}

class GuidanceState {
  private readonly entries: GuidanceEntry[];
  /** Entries whose text the model has been sent. */
  private readonly injected = new Set<string>();
  /** Entries the model was told of by name and description only. */
  private readonly listedSkills = new Set<string>();
  /** Real paths of every file whose text was sent (a file is sent once, whichever entry carried it). */
  private readonly sentPaths = new Set<string>();
  /** Entries the budget left out (the model was told their names and how to load them). */
  private readonly withheld = new Set<string>();
  private readonly seenDirs = new Set<string>();
  /** Skills load_skill loaded, to send with the next request (their `!` lines already run). */
  private readonly pendingSkills: GuidanceEntry[] = [];
  private tools: string[] = [];
  private outputs: string[] = [];
  private files: string[] = [];
  private lastUserSeq = -1;
  private started: boolean;
  /** Tokens of guidance sent on Yoke's own initiative so far. */
  private used = 0;
  private readonly budget: GuidanceBudget;
  private aliases: (name: string) => string[] = () => [];
  /** A loaded skill's effort holds now (cleared when the turn ends). */
  private effortSet = false;
  /** A loaded skill's model answers now (back to the session's when the turn ends). */
  private modelSet = false;
  /** Skills whose effort and model were applied in this turn (loading or naming one again in it changes nothing). */
  private readonly activeInTurn = new Set<string>();
  /** Custom commands the model may run (listed with the skills); `userOnly`: the others, which load_skill refuses saying why. */
  private commands: CommandEntry[] = [];
  private userOnly: CustomCommand[] = [];

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
    for (const e of this.entries) if (this.injected.has(e.id)) this.markSent(e);
    if (set.problems.length) {
      api.session.services.log.warn(`guidance: ${set.problems.length} problem(s): ${set.problems.map((p) => `${p.path}${p.line ? `:${p.line}` : ""}: ${p.message}`).join("; ")}`);
    }
  }

  /**
   * A resumed session: the hooks of the skills it loaded hold for the rest of it, as before the
   * restart — only as they were when loaded (the log recorded a digest of what they run): a skill
   * file whose hooks changed since registers none until it is loaded again, and the log says so.
   */
  async restoreHooks(): Promise<void> {
    const events = this.api.session.events();
    const loaded = new Set<string>();
    for (const e of events) if (e.type === "guidance") for (const i of e.injected) if (!i.listed && i.kind === "skill" && loadedSkill(i.reasons)) loaded.add(i.id);
    const recorded = recordedHooks(events);
    for (const e of this.entries) {
      if (e.kind !== "skill" || !loaded.has(e.id) || e.fork) continue;
      const was = recorded.get(`file:${e.path}`);
      // Registered by /name (custom commands): restored there.
      if (was && was.by !== GUIDANCE_SOURCE) continue;
      const now = e.hooks?.length ? await hooksFingerprint(e.hooks) : undefined;
      if (now && was?.fingerprint === now) await this.skillHooks(e, true);
      else if (now || was)
        this.note(
          `the skill "${e.name}" (${e.source}): not applied after the resume: its hooks (${
            was ? "they changed since it was loaded in this session" : "they were not registered when it was loaded in this session, or the log does not say which they were"
          }); none of them run until it is loaded again`,
        );
    }
  }

  /**
   * The custom commands: a skill of the same name wins (as in Claude Code); a SKILL.md is a skill
   * already. The model is offered only those modelInvocable allows; the rest load_skill refuses.
   */
  setCommands(all: readonly CustomCommand[]): void {
    const skills = new Set(this.entries.filter((e) => e.kind === "skill").map((e) => e.name.toLowerCase()));
    const own = all.filter((c) => !/(^|\/)SKILL\.md$/.test(c.path) && !skills.has(c.name.toLowerCase()));
    const root = this.api.session.services.fs.root;
    this.commands = own.filter(modelInvocable).map((cmd) => ({ cmd, e: commandEntry(cmd, root) }));
    this.userOnly = own.filter((c) => !modelInvocable(c));
  }

  private markInjected(i: InjectedRecord): void {
    if (i.listed) this.listedSkills.add(i.id);
    else {
      this.injected.add(i.id);
      if (!i.reasons.includes("loaded with load_skill") && !i.reasons.some((r) => r.startsWith("named @") || r === "pinned")) this.used += i.tokens;
    }
    if (i.dir) this.seenDirs.add(i.dir);
  }

  private markSent(e: GuidanceEntry): void {
    for (const p of e.includes ?? (e.realPath ? [e.realPath] : [])) this.sentPaths.add(p);
  }

  /** The file of this entry was sent already (as part of another entry, or under another name). */
  private alreadySent(e: GuidanceEntry): boolean {
    return !!e.realPath && this.sentPaths.has(e.realPath);
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
    const names = () => [...this.entries.filter((e) => listable(e) || this.withheld.has(e.id)).map((e) => e.name), ...this.commands.map((c) => c.cmd.name)];
    const entries = () => this.entries;
    const commands = () => this.commands;
    // Whether a skill has `!` lines, read once per entry (the getter below is asked for every call).
    const seen = new WeakMap<GuidanceEntry, boolean>();
    const shellLines = (e: GuidanceEntry) => {
      if (e.kind !== "skill") return false;
      let has = seen.get(e);
      if (has === undefined) seen.set(e, (has = hasShellLines(e.body)));
      return has;
    };
    return defineTool({
      ...LOAD_SKILL_TOOL,
      description:
        'Load a skill or a rule by name: its full instructions are added to the conversation, with the names of the files that come with it. The available ones are listed in a guidance message (with any the guidance budget left out). A custom command listed there (marked "command") is run instead, as if the user had typed /name followed by `arguments`: its text comes back as the result.',
      deferred: true,
      brief: "load a skill's or rule's instructions by name",
      schema: z.object({
        name: z.string().min(1).describe("The skill's, rule's or command's name, as listed (without a /)"),
        arguments: z.string().optional().describe("For a command only: what the user would type after /name ($ARGUMENTS, $1, $2…)"),
      }),
      // A skill with `context: fork` runs a sub-agent: the task tool's time limit then, not a load's.
      // So does one whose `!` lines may ask the user first.
      get timeoutMs() {
        return entries().some((e) => e.fork || shellLines(e)) || commands().some((c) => c.cmd.fork || hasShellLines(c.cmd.body)) ? TASK_TIMEOUT_MS : 10_000;
      },
      summarize: (i) => String(i.name ?? ""),
      hookInput: (a) => ({ skill: a.name, ...(a.arguments ? { args: a.arguments } : {}) }),
      run: async ({ name, arguments: args }, ctx) => {
        const wanted = name.trim().toLowerCase();
        const ok = (x: GuidanceEntry) => loadable(x, this.withheld);
        const dash = (t: string) => t.replace(/[\s_]+/g, "-");
        // Listed ones first (a skill and a rule may share a name), then any other.
        const candidates = [...this.entries.filter((x) => ok(x) && (this.listedSkills.has(x.id) || this.withheld.has(x.id))), ...this.entries.filter(ok)];
        // A plugin's skill is `PLUGIN:NAME` (Claude Code's namespace); a bare NAME no other skill has and one plugin's skill has finds it too.
        const bare = (x: GuidanceEntry) => x.kind === "skill" && x.name.includes(":") && dash(x.name.toLowerCase().slice(x.name.indexOf(":") + 1)) === dash(wanted);
        const plugin = [...new Set(candidates.filter(bare))];
        const e = candidates.find((x) => x.name.toLowerCase() === wanted) ?? candidates.find((x) => dash(x.name.toLowerCase()) === dash(wanted)) ?? (plugin.length === 1 ? plugin[0] : undefined);
        if (!e) {
          // A custom command: its exact name only (the name the permission rules `Skill(name)` match).
          const c = this.commands.find((x) => x.cmd.name === name);
          if (c) return this.runCommand(c, args ?? "", ctx);
          const refused = this.userOnly.find((x) => x.name === name || x.aliases.includes(name));
          if (refused) throw new ToolError(userOnlyReason(refused));
          const all = names();
          throw new ToolError(all.length ? `No skill named "${name}". Available: ${all.join(", ")}.` : `No skill named "${name}": this workspace has no skills.`);
        }
        if (this.muted(e)) throw new ToolError(`The ${e.kind} "${e.name}" is muted by the user in this workspace.`);
        // "Already loaded" only when its text really was sent (listing it is not loading it).
        // A sub-agent's load (load_skill is shared with sub-agents, this state is the main
        // conversation's): the text comes back as the result, since what this session appends
        // reaches only its own requests (before, the sub-agent was told "follows" and never got it,
        // and the main conversation got it instead).
        if (ctx.sessionId !== this.api.session.id && !e.fork) {
          const loaded = await this.preprocessed(e, ctx.callId, ctx.sessionId);
          const held = [e.hooks?.length ? "hooks" : "", e.effort ? "effort" : "", e.model ? "model" : ""].filter(Boolean);
          if (held.length)
            this.note(
              `the skill "${e.name}" (${e.source}): not applied: its ${held.join(" and ")} (a sub-agent loaded it; ${held.length > 1 ? "they apply" : "it applies"} when the main conversation loads it)`,
            );
          return { text: `Loaded the ${e.kind} "${e.name}" (${e.source}):\n\n${render(loaded, ["loaded with load_skill"])}` };
        }
        // A forked skill is run, not sent: it runs again each time it is loaded.
        // Loaded again (in a later turn): its text is not sent twice (it is in the conversation, and
        // the cached prefix stays), but it is invoked again: its effort and model for this turn.
        if (!e.fork && (this.injected.has(e.id) || this.pendingSkills.some((x) => x.id === e.id) || this.alreadySent(e))) {
          const now = await this.activate(e);
          return { text: `The ${e.kind} "${e.name}" is already loaded: its instructions are in the conversation above, and they are in force now${inForce(now)}.` };
        }
        if (e.fork) {
          // A sub-agent's load: this state's task tool is the main conversation's, whose sub-agent
          // would get the main session's tools, not the sub-agent's own (red team L 24: a read-only
          // reviewer's fork wrote files and ran commands). Refused; the sub-agent says so instead.
          if (ctx.sessionId !== this.api.session.id)
            throw new ToolError(
              `The skill "${e.name}" (${e.source}) runs in a sub-agent of its own (context: fork), and a sub-agent cannot run it: it would get tools you do not have. Say in your answer that it should be run, and why.`,
            );
          return this.forkSkill(e, ctx);
        }
        this.pendingSkills.push(await this.preprocessed(e, ctx.callId, ctx.sessionId));
        // Its hooks from now on, for the rest of the session; its effort and model from the next request to the end of the turn.
        await this.activate(e);
        const files = e.files?.length ? ` It comes with ${e.files.length} file(s), listed with it.` : "";
        return { text: `Loaded the ${e.kind} "${e.name}" (${e.source}). Its full instructions follow in the next guidance message.${files}` };
      },
    }) as ToolDefinition;
  }

  /** The model runs a custom command: expanded by the custom commands as `/name args` typed by the person, in the session that asked. */
  private async runCommand(c: CommandEntry, args: string, ctx: ToolContext): Promise<ToolOutput> {
    const { cmd, e } = c;
    if (this.muted(e)) throw new ToolError(`The command /${cmd.name} is muted by the user in this workspace.`);
    // A sub-agent's call (load_skill is shared with sub-agents) runs in the sub-agent's own session:
    // its tools, its permission mode and its questions (its name, its dontAsk), the same rules.
    const out = await this.opts.commands!.run(cmd, args, { callId: ctx.callId, signal: ctx.signal, sessionId: ctx.sessionId });
    if ("error" in out) throw new ToolError(out.error);
    const typed = `/${cmd.name}${args ? ` ${args}` : ""}`;
    return { text: `Ran the command ${typed} (${e.source}). Its text, as if the user had typed ${typed} — follow it now:\n\n${out.text}` };
  }

  /**
   * A skill with `context: fork`: its text is the task of a sub-agent started through the task
   * tool's own run (the agent `agent:` names, else general-purpose); the model gets only the answer.
   * Its allowed-tools grant nothing here, as for any skill the model loads.
   */
  private async forkSkill(e: GuidanceEntry, ctx: ToolContext): Promise<ToolOutput> {
    const runner = forkRunner(this.api.session.tools());
    if (!runner) throw new ToolError(`The skill "${e.name}" runs in a sub-agent (context: fork in ${e.source}), and this session cannot start sub-agents; it was not run.`);
    const agent = e.fork?.agent;
    const who = agent && !/^general[-_ ]?purpose$/i.test(agent) ? `the "${agent}" agent` : "a general-purpose sub-agent";
    const files = e.files?.length && e.dir ? `\n\n[Files that come with it, in ${e.dir}: ${e.files.join(", ")}]` : "";
    const body = (await this.preprocessed(e, ctx.callId, ctx.sessionId)).body;
    const hooks = this.forkHooks(e);
    const out = await runner.fork(
      {
        description: `skill ${e.name}`,
        prompt: `${body}${files}`,
        ...(agent ? { agent } : {}),
        ...(e.fork?.effort ? { effort: e.fork.effort } : {}),
        ...(e.fork?.model ? { model: e.fork.model } : {}),
        ...(hooks ? { hooks } : {}),
      },
      ctx,
    );
    return { ...out, text: `The skill "${e.name}" (${e.source}) ran in ${who} (context: fork), which did not see this conversation. Its ${out.isError ? "outcome" : "answer"}:\n${out.text}` };
  }

  /** Says something about a skill in the log (an extension event the panel and the CLI show). */
  private note(detail: string): void {
    this.api.record({ type: "extension", name: GUIDANCE_SOURCE, point: "load_skill", outcome: "decided", detail });
  }

  /** Whether a skill's hooks may run: a repository's only in a trusted workspace (as its other hooks), and only with a hook engine. */
  private hooksAllowed(e: GuidanceEntry, events: string): boolean {
    if (e.origin === "workspace" && !this.api.session.trusted) {
      this.note(`the skill "${e.name}" (${e.source}): not applied: its hooks (${events}) do not run, because the workspace is not trusted (Restricted Mode), as the repository's other hooks do not`);
      return false;
    }
    return true;
  }

  /**
   * An inline skill in force (loaded with load_skill, or named @name — the first time or again in a
   * later turn): its `hooks` run with the session's for the rest of the session (Claude Code registers
   * them at the skill's invocation and keeps them; registered once), its `effort` and `model` hold from
   * the next request to the end of the turn. Returns what holds now because of it ("effort low").
   */
  private async activate(e: GuidanceEntry): Promise<string[]> {
    if (e.hooks?.length) await this.skillHooks(e, false);
    // Invoked again in the same turn: what it set holds already.
    if (this.activeInTurn.has(e.id)) return [e.effort && this.effortSet ? `effort ${e.effort}` : "", e.model && this.modelSet ? `model ${e.model}` : ""].filter(Boolean);
    this.activeInTurn.add(e.id);
    const now: string[] = [];
    if (e.effort) {
      if (this.api.session.provider === "vscode-lm") this.note(`the skill "${e.name}": not applied: effort ${e.effort} (the VS Code language model API has no reasoning setting)`);
      else if (!this.api.session.useEffort) this.note(`the skill "${e.name}": not applied: effort ${e.effort} (this session cannot set it)`);
      else {
        this.api.session.useEffort(e.effort);
        this.effortSet = true;
        now.push(`effort ${e.effort}`);
        this.note(`the skill "${e.name}": effort ${e.effort} until this turn ends`);
      }
    }
    if (e.model) {
      // As a custom command's `model`: the session's provider makes it, for this turn.
      const why = this.opts.useModel
        ? await this.opts.useModel(e.model, `the skill "${e.name}"'s model`).catch((err: unknown) => (err instanceof Error ? err.message : String(err)))
        : "this session cannot switch models";
      if (why) this.note(`the skill "${e.name}": not applied: model ${e.model} (${why}); the session's model answers`);
      else {
        this.modelSet = true;
        now.push(`model ${e.model}`);
        this.note(`the skill "${e.name}": model ${e.model} until this turn ends`);
      }
    }
    return now;
  }

  /** The turn ended: a loaded skill's effort and model end with it. */
  endTurn(): void {
    this.activeInTurn.clear();
    if (this.effortSet) {
      this.effortSet = false;
      this.api.session.useEffort?.(undefined);
    }
    if (this.modelSet) {
      this.modelSet = false;
      void this.opts.useModel?.(undefined).catch(() => undefined);
    }
  }

  /** Registers a skill's hooks (once per file for the session), recording what they run so a resume registers them again only unchanged. */
  private async skillHooks(e: GuidanceEntry, resumed: boolean): Promise<void> {
    const events = [...new Set(e.hooks!.map((g) => g.event))].join(", ");
    if (!this.hooksAllowed(e, events)) return;
    if (!this.api.session.addHooks) return this.note(`the skill "${e.name}" (${e.source}): not applied: its hooks (${events}) — this session has no hook engine`);
    // Keyed by file, as custom commands key theirs: a skill run as /name and then loaded registers its hooks once.
    const key = `file:${e.path}`;
    const fingerprint = resumed ? "" : await hooksFingerprint(e.hooks!);
    if (!this.api.session.addHooks(key, e.hooks!) || resumed) return;
    this.api.record({
      type: "extension",
      name: GUIDANCE_SOURCE,
      point: "load_skill",
      outcome: "decided",
      detail: `the skill "${e.name}" (${e.source}): its hooks (${events}) run from now on, for the rest of the session`,
      hooks: { key, fingerprint },
    });
  }

  /** A forked skill's hooks for its sub-agent (a `Stop` hook is the sub-agent's SubagentStop), when they may run. */
  private forkHooks(e: GuidanceEntry): GuidanceEntry["hooks"] {
    if (!e.hooks?.length) return undefined;
    const groups = e.hooks.map((g) => (g.event === "Stop" ? { ...g, event: "SubagentStop" as const } : g));
    const events = [...new Set(groups.map((g) => g.event))].join(", ");
    if (!this.hooksAllowed(e, events)) return undefined;
    this.note(`the skill "${e.name}" (${e.source}): its hooks (${events}) run in its sub-agent`);
    return groups;
  }

  /** The skill with its `!` lines run (through the options' preprocessor: the permission gate, the user, the sandbox). */
  private async preprocessed(e: GuidanceEntry, callId: string, sessionId = this.api.session.id): Promise<GuidanceEntry> {
    if (e.kind !== "skill" || !this.opts.preprocess || !hasShellLines(e.body)) return e;
    // load_skill is shared with sub-agents, whose mode, tools and approvals are their own: a skill one
    // of them loads keeps its lines unrun (this session's gate would judge them in the wrong mode).
    if (sessionId !== this.api.session.id)
      return {
        ...e,
        body: bounded(await runShellLines(e.body, async (c) => `[The command \`${c}\` was not run: a sub-agent loaded this skill, and a skill's ! lines run only in the main conversation.]`)),
      };
    const body = await this.opts.preprocess(
      this.api,
      {
        name: e.name,
        path: e.path,
        body: e.body,
        fromRepository: e.origin === "workspace",
        ...(e.allowedTools ? { allowedTools: e.allowedTools } : {}),
        ...(e.pluginRoot ? { pluginRoot: e.pluginRoot } : {}),
      },
      callId,
    );
    return { ...e, body: bounded(body) };
  }

  /**
   * A skill with `context: fork` the user named with `@name`: it runs as `/name` would (Claude
   * Code's user invocation of a forked skill), in a sub-agent, and the model is given its answer —
   * never its text, which is the sub-agent's task, not instructions for this conversation.
   */
  private async forkNamed(e: GuidanceEntry, signal: AbortSignal): Promise<string> {
    const callId = `skill-${e.name}-${this.api.session.events().length}`;
    const ctx: ToolContext = {
      ...this.api.session.services,
      signal,
      sessionId: this.api.session.id,
      callId,
      readState: new Map(),
      reviewMode: "auto",
      record: (event) => this.api.record(event),
    };
    const out = await this.forkSkill(e, ctx).catch((err: unknown) => ({
      text: `The skill "${e.name}" (context: fork in ${e.source}) was not run: ${err instanceof Error ? err.message : String(err)}`,
      isError: true,
    }));
    return `## Skill: ${e.name} (${e.source} — named @${e.name} in the message)\n${out.text}`;
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
  async prepare(signal: AbortSignal = new AbortController().signal): Promise<ContextMessage[]> {
    const prefs = this.prefs();
    const muted = new Set(prefs.muted);
    const spoke = this.userSpoke();
    const signals = this.takeSignals();
    const cands: Candidate[] = [];
    const lessons: ScoredEntry[] = [];
    const newListed: Array<{ e: GuidanceEntry; reason: string }> = [];
    /** Forked skills named with @name: run, not sent. */
    const forks: GuidanceEntry[] = [];
    /** Skills and rules named with @name whose text the conversation has already: invoked again, not sent again. */
    const again: GuidanceEntry[] = [];
    const first = !this.started;
    this.started = true;
    // Commands added since the session started (Claude Code picks them up live): looked for at each
    // new message of the person, and listed in this request's appended guidance message — the
    // earlier messages, the cached prefix, stay as they were. Skills added are found from the next
    // session: reading the whole guidance again here kept the panel's run from ending after its turn
    // (the compaction e2e test's third message was refused as "still working"; cause not found).
    if (!first && spoke) newListed.push(...(await this.added()));
    const fresh = (e: GuidanceEntry) => !this.injected.has(e.id) && !muted.has(e.id);
    const has = (e: GuidanceEntry) => cands.some((x) => x.e === e);
    const fs = this.api.session.services.fs;

    for (const e of this.entries) if (prefs.pinned.includes(e.id) && fresh(e)) cands.push({ e, reasons: ["pinned"], explicit: true });
    if (first) {
      for (const e of this.entries) {
        if ((e.kind === "memory" || e.kind === "rule") && e.activation === "always" && (e.kind === "memory" || !scopedBelow(e)) && fresh(e) && !has(e)) cands.push({ e, reasons: ["always"] });
      }
    }
    // Nested project memory and a sub-project's .cursor/rules and .windsurf/rules: folders of files touched for the first time, nearest first.
    for (const file of signals.files ?? []) {
      for (const dir of foldersDownTo(fs, file)) {
        if (this.seenDirs.has(dir)) continue;
        this.seenDirs.add(dir);
        const found = [...(await loadFolderMemory(fs, dir, this.opts.files, this.api.session.services.access)), ...(await loadFolderRules(fs, dir, this.api.session.services.access))];
        for (const p of found) if (p.problems.length) this.api.session.services.log.warn(`guidance: ${p.problems.map((x) => `${x.path}${x.line ? `:${x.line}` : ""}: ${x.message}`).join("; ")}`);
        // A sub-folder's Windsurf rules take what is left of Windsurf's total after the rules already found.
        const cut: ExcludedFile[] = [];
        const newEntries = found.flatMap((p) => (p.entry && !this.entries.some((x) => x.id === p.entry!.id) ? [p.entry] : []));
        const kept = applyWindsurfLimits(newEntries, cut, windsurfCharsUsed(this.entries));
        for (const x of cut) this.api.session.services.log.warn(`guidance: ${x.source}: ${x.why}`);
        for (const e of kept) {
          if (this.entries.some((x) => x.id === e.id)) continue;
          this.entries.push(e);
          if (!fresh(e)) continue;
          const why = `file ${displayRel(this.score, file)} in its folder`;
          if (e.kind === "memory" || e.activation === "always") cands.push({ e, reasons: [why] });
          else if (e.activation === "requested") newListed.push({ e, reason: why });
        }
      }
    }
    for (const s of rank(this.entries, signals, this.score)) {
      const e = s.entry;
      const named = s.reasons.filter((r) => r.startsWith("named @"));
      const already = cands.find((x) => x.e === e);
      // Named by the user: sent even when the budget would leave it out.
      if (already && named.length && !already.explicit) {
        already.explicit = true;
        already.reasons.push(`${named[0]} in the message`);
      }
      if (muted.has(e.id) || already) continue;
      // A forked skill runs each time a message names it (as /name does), not once per session.
      if (named.length && e.kind === "skill" && e.fork) forks.push(e);
      else if (named.length && e.kind !== "memory" && fresh(e)) cands.push({ e, reasons: [`${named[0]} in the message`], explicit: true });
      else if (named.length && (e.kind === "skill" || e.kind === "rule") && this.injected.has(e.id)) again.push(e);
      else if (e.kind === "rule" && e.activation === "glob" && fresh(e)) cands.push({ e, reasons: s.reasons });
      else if (e.kind === "lesson" && fresh(e)) lessons.push(s);
      else if (e.kind === "skill" && e.activation !== "manual" && e.match.globs.length && !this.listedSkills.has(e.id) && s.reasons.some((r) => r.startsWith("glob ")))
        newListed.push({ e, reason: s.reasons[0] ?? "listed" });
    }
    for (const e of this.pendingSkills.splice(0)) if (!this.injected.has(e.id)) cands.push({ e, reasons: ["loaded with load_skill"], explicit: true });
    // A skill named with @name: its `!` lines run first, as when it is loaded.
    for (const c of cands)
      if (c.explicit && c.e.kind === "skill" && !c.reasons.includes("loaded with load_skill")) c.e = await this.preprocessed(c.e, `skill-${c.e.name}-${this.api.session.events().length}`);

    // The budget: what Yoke adds on its own, within the first request's and the session's limits.
    let room = Math.max(0, this.budget.totalTokens - this.used);
    if (first) room = Math.min(room, this.budget.firstTokens);
    const records: InjectedRecord[] = [];
    const persisted: string[] = [];
    // The skill list first (it is how everything else is reached), within its own limit.
    const catalog = first
      ? [
          ...this.entries.filter((e) => listable(e) && !scopedBelow(e) && !muted.has(e.id) && !this.listedSkills.has(e.id) && (e.kind !== "skill" || !e.match.globs.length)),
          // The custom commands the model may run: beside the skills, under the same budget and ranking.
          ...this.commands.map((c) => c.e).filter((e) => !muted.has(e.id) && !this.listedSkills.has(e.id)),
        ]
      : [];
    // What is sent in full now (named with @name, pinned) is not listed besides.
    const listed = [...catalog.map((e) => ({ e, reason: "listed" })), ...newListed.filter((x) => !muted.has(x.e.id) && !this.listedSkills.has(x.e.id))].filter((x) => !has(x.e));
    let catalogText: string | undefined;
    if (listed.length) {
      const { text, shown } = renderCatalog(
        listed.map((x) => x.e),
        Math.min(this.budget.catalogTokens, room),
        signals,
      );
      if (shown.length) {
        catalogText = text;
        room -= estimateTokens(text);
        this.used += estimateTokens(text);
        for (const e of shown) {
          this.listedSkills.add(e.id);
          records.push({ ...record(e, [listed.find((x) => x.e === e)!.reason], ""), listed: true });
        }
      }
    }
    const left: Candidate[] = [];
    for (const c of [
      ...cands.filter((c) => c.explicit),
      ...keepOrder(
        cands.filter((c) => !c.explicit),
        this.entries,
      ),
    ]) {
      const { e, reasons } = c;
      // One file once per session: a file sent already (imported by a CLAUDE.md, or under another name) is not sent again.
      if (this.alreadySent(e)) {
        this.injected.add(e.id);
        continue;
      }
      const text = render(e, reasons, this.sentPaths);
      const tokens = estimateTokens(text);
      if (!c.explicit) {
        if (tokens > room) {
          if (!this.withheld.has(e.id)) left.push(c);
          this.withheld.add(e.id);
          continue;
        }
        room -= tokens;
        this.used += tokens;
      }
      this.withheld.delete(e.id);
      persisted.push(text);
      records.push(record(e, reasons, text));
      // A skill named @name (a load_skill one was activated when it was loaded): its hooks and effort from now on.
      if (e.kind === "skill" && c.explicit && !reasons.includes("loaded with load_skill") && reasons.some((r) => r.startsWith("named @"))) await this.activate(e);
      this.injected.add(e.id);
      this.markSent(e);
    }
    // Named again in a later message: its text is above (the cached prefix stays); it is in force
    // again — a skill's effort and model for this turn — and the model is told so in a line.
    for (const e of again) {
      const now = e.kind === "skill" ? await this.activate(e) : [];
      const text = `[The ${e.kind} "${e.name}" (${e.source}), named @${e.name} in the message, is already loaded: its instructions are in the conversation above, and they apply to this request${inForce(now)}.]`;
      persisted.push(text);
      records.push(record(e, [`named @${e.name} in the message again: already loaded`], text));
    }
    for (const e of forks) {
      const text = await this.forkNamed(e, signal);
      persisted.push(text);
      records.push(record(e, [`named @${e.name} in the message: ran in a sub-agent (context: fork)`], text));
    }
    if (catalogText) persisted.push(catalogText);
    if (left.length) persisted.push(withheldNote(left, this.budget, first));
    const lessonTexts: string[] = [];
    let tokens = 0;
    for (const s of lessons) {
      if (lessonTexts.length >= this.budget.maxLessons) break;
      const t = render(s.entry, s.reasons);
      if (tokens + estimateTokens(t) > Math.min(this.budget.lessonTokens, room)) continue;
      tokens += estimateTokens(t);
      lessonTexts.push(t);
      records.push(record(s.entry, s.reasons, t));
    }
    this.used += tokens;
    for (const r of records) this.markInjected({ ...r, tokens: 0 });
    if (!records.length && !left.length) return [];
    if (records.length || left.length)
      this.api.record({
        type: "guidance",
        injected: records,
        ...(first && this.set.problems.length ? { problems: this.set.problems } : {}),
        ...(left.length ? { withheld: left.map((c) => c.e.id) } : {}),
      });
    const out: ContextMessage[] = [];
    if (persisted.length) out.push({ source: GUIDANCE_SOURCE, text: persisted.join("\n\n"), persist: true });
    if (lessonTexts.length) out.push({ source: GUIDANCE_SOURCE, text: ["Lessons that apply to what you are doing now:", ...lessonTexts].join("\n\n") });
    return out;
  }

  /** Whether the person sent a message since the last request (takeSignals then takes it). */
  private userSpoke(): boolean {
    return this.api.session.events().some((e) => e.type === "user_message" && e.seq > this.lastUserSeq && e.from !== "hook" && e.from !== "extension");
  }

  /**
   * The commands the model may run that were added since the session started: each is listed once.
   * A command file changed or removed is found as it is now (commands are read when they run).
   */
  private async added(): Promise<Array<{ e: GuidanceEntry; reason: string }>> {
    const out: Array<{ e: GuidanceEntry; reason: string }> = [];
    if (this.opts.commands) {
      const before = new Set(this.commands.map((c) => c.e.id));
      this.setCommands(await this.opts.commands.list().catch(() => []));
      for (const c of this.commands) if (!before.has(c.e.id) && !this.listedSkills.has(c.e.id)) out.push({ e: c.e, reason: "added during the session" });
    }
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

/**
 * What is kept first when the budget is short: the user's own memory, then the project's memory
 * (root, then nested), then rules of small collections before large ones (a lone
 * copilot-instructions.md before a folder of 80 .mdc files), smaller files first within one; the
 * order they were loaded in otherwise.
 */
function keepOrder(cands: Candidate[], entries: readonly GuidanceEntry[]): Candidate[] {
  const size = new Map<string, number>();
  for (const e of entries) if (e.kind === "rule") size.set(e.collection ?? e.source, (size.get(e.collection ?? e.source) ?? 0) + 1);
  const tier = (e: GuidanceEntry) => (e.kind === "memory" ? (e.origin === "workspace" ? (e.activation === "always" ? 1 : 2) : 0) : 3);
  return cands
    .map((c, i) => ({ c, i }))
    .sort(
      (a, b) =>
        tier(a.c.e) - tier(b.c.e) ||
        (a.c.e.kind === "rule" && b.c.e.kind === "rule"
          ? (size.get(a.c.e.collection ?? a.c.e.source) ?? 1) - (size.get(b.c.e.collection ?? b.c.e.source) ?? 1) || a.c.e.body.length - b.c.e.body.length
          : 0) ||
        a.i - b.i,
    )
    .map((x) => x.c);
}

/** The model is told what the budget left out, and how to get it. */
function withheldNote(left: Candidate[], budget: GuidanceBudget, first: boolean): string {
  const lines = left.slice(0, MAX_WITHHELD_NAMED).map(({ e, reasons }) => `- ${e.name} (${e.kind}, ${e.source}, ~${estimateTokens(e.body)} tokens; ${reasons.join("; ")})`);
  if (left.length > MAX_WITHHELD_NAMED) lines.push(`- … and ${left.length - MAX_WITHHELD_NAMED} more (the user can see them all with \`yoke lessons list\`)`);
  const limit = first ? `${budget.firstTokens} tokens in the first request, ${budget.totalTokens} in the session` : `${budget.totalTokens} tokens in the session`;
  return [
    `Guidance left out to stay within the guidance budget (${limit}): ${left.length} file(s) that apply were not sent. Load one with the ${LOAD_SKILL} tool and its name when the task needs it:`,
    ...lines,
  ].join("\n");
}

/** A guidance record of a skill whose text was sent because it was loaded or named (not listed, pinned or matched). */
/** What a skill invoked again sets for this turn, for the model's answer: ` (effort low, model m until this turn ends)`. */
function inForce(now: readonly string[]): string {
  return now.length ? ` (${now.join(", ")} until this turn ends)` : "";
}

/** A custom command as the listing shows it (a skill-like entry whose text is never sent by itself). */
function commandEntry(cmd: CustomCommand, root: string): GuidanceEntry {
  const rel = relativePath(root, cmd.path);
  const hint = cmd.argumentHint?.trim();
  return {
    id: `command:${cmd.path}`,
    name: cmd.name,
    kind: "skill",
    source: cmd.origin === "project" && !rel.startsWith("..") ? rel : cmd.origin,
    origin: cmd.origin === "project" ? "workspace" : "user",
    path: cmd.path,
    body: "",
    description: `(command${hint ? `, arguments: ${hint}` : ""}) ${cmd.description ?? ""}`.trim(),
    activation: "requested",
    status: "active",
    priority: 1,
    match: { keywords: [], patterns: [], tools: [], globs: [] },
  };
}

/** Why load_skill does not run a command the person may run. */
function userOnlyReason(c: CustomCommand): string {
  const who = `/${c.name} (${c.origin})`;
  if (c.format !== "claude") return `${who} is a ${c.format} prompt file or workflow: only the user runs it, by typing /${c.name}; ask them to if it is needed.`;
  if (c.disableModelInvocation) return `${who} says disable-model-invocation: true: only the user may run it, by typing /${c.name}. Ask them to if it is needed.`;
  return `${who} has no description, so it is not offered to the model (as in Claude Code): only the user runs it, by typing /${c.name}.`;
}

function loadedSkill(reasons: readonly string[]): boolean {
  return reasons.includes("loaded with load_skill") || reasons.some((r) => r.startsWith("named @"));
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
export function render(e: GuidanceEntry, reasons: string[], sent?: ReadonlySet<string>): string {
  const why = reasons.length ? ` — ${reasons.join("; ")}` : "";
  const title = e.kind === "lesson" && e.title ? `${e.title} ` : e.kind === "skill" ? `${e.name} ` : "";
  const head = `## ${KIND_LABEL[e.kind]}: ${title}(${e.source}${why})`;
  const files =
    e.kind === "skill" && e.files?.length
      ? `\n\nFiles of this skill (in ${e.source.replace(/\/SKILL\.md$/, "")}/; read them with read_file when the instructions refer to them):\n${e.files.map((f) => `- ${f}`).join("\n")}`
      : "";
  return `${head}\n${bodyOf(e, sent)}${files}`;
}

/** The entry's text; an imported file already sent in the session is named, not repeated. */
function bodyOf(e: GuidanceEntry, sent?: ReadonlySet<string>): string {
  if (!sent || !e.parts?.length || !e.parts.slice(1).some((p) => sent.has(p.path))) return e.body;
  const [own, ...blocks] = e.parts;
  const out = [own!.text];
  for (const b of blocks) {
    if (!sent.has(b.path)) out.push(b.text);
    else out.push(`\n${(b.text.trim().split("\n")[0] ?? "").replace(/ ---$/, "")}: already given earlier in this conversation, not repeated ---`);
  }
  return bounded(out.join("\n").trim());
}

const MAX_DESCRIPTION = 240;

/** The list of loadable skills and rules, best match first, within the token budget. */
export function renderCatalog(entries: GuidanceEntry[], budgetTokens: number, signals: MatchSignals = {}): { text: string; shown: GuidanceEntry[] } {
  const ordered = entries
    .map((e, i) => ({ e, i, s: scoreEntry(e, signals).score }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((x) => x.e);
  const head = `Skills you can load with the ${LOAD_SKILL} tool when a task needs them (name: when to use it):`;
  const all = ordered.map((e) => {
    const desc = (e.description ?? "").replace(/\s+/g, " ").trim();
    return { e, line: `- ${e.name}${desc ? `: ${desc.length > MAX_DESCRIPTION ? `${desc.slice(0, MAX_DESCRIPTION - 1)}…` : desc}` : ""}` };
  });
  const more = (n: number) => `(${n} more not listed for space; ${LOAD_SKILL} loads any skill by its exact name.)`;
  // The note of what was left out is within the budget too (room kept for it when not everything fits).
  // (Each line counted with its line break, so the whole text is within it.)
  const cost = (line: string) => estimateTokens(`${line}\n`);
  const fits = all.reduce((t, x) => t + cost(x.line), estimateTokens(head)) <= budgetTokens;
  const limit = fits ? budgetTokens : budgetTokens - cost(more(entries.length));
  const lines: string[] = [];
  const shown: GuidanceEntry[] = [];
  let tokens = estimateTokens(head);
  for (const { e, line } of all) {
    if (tokens + cost(line) > limit) continue;
    tokens += cost(line);
    lines.push(line);
    shown.push(e);
  }
  const left = entries.length - shown.length;
  if (left > 0) lines.push(more(left));
  return { text: [head, ...lines].join("\n"), shown };
}

/**
 * A rule of a sub-folder's own rules folder (a sub-project's `.cursor/rules`, `.windsurf/rules`): it
 * applies under that folder, from the first file touched there. A rule of a folder above the
 * workspace folder (`above`) holds the whole folder: in force as a root rule is.
 */
function scopedBelow(e: GuidanceEntry): boolean {
  return e.kind === "rule" && !!e.dir && !e.above;
}

/** How an entry comes into force, for people (`yoke lessons list`): a state and why. */
export function entryState(e: GuidanceEntry): { state: "always" | "folder" | "glob" | "listed" | "manual" | "match" | "inactive"; why: string } {
  const s = activationState(e);
  return e.cut ? { state: s.state, why: `${s.why}; ${e.cut}` } : s;
}

function activationState(e: GuidanceEntry): { state: "always" | "folder" | "glob" | "listed" | "manual" | "match" | "inactive"; why: string } {
  // The folder as people read it: the source up to its rules folder (nested rules) or file name (nested memory).
  const shown = e.kind === "rule" ? e.source.split(/\/\.(?:cursor|windsurf)\/rules\//)[0]! : e.source.includes("/") ? e.source.replace(/\/[^/]*$/, "") : (e.dir ?? ".");
  const under = scopedBelow(e) ? ` under ${shown}/` : "";
  const globs = e.match.globs.join(", ");
  if (e.kind === "lesson") {
    if (e.status !== "active") return { state: "inactive", why: `its status is ${e.status}: never sent` };
    if (e.activation === "manual") return { state: "manual", why: "it has no match: only when pinned or named with @name" };
    return { state: "match", why: "when its keywords, patterns, tools or globs match (best lessons first, within the lesson budget)" };
  }
  if (e.kind === "skill" && e.activation === "manual")
    return { state: "manual", why: `disable-model-invocation: the model is not told of it; only when the user names it with @${e.name} in a message` };
  if (e.kind === "skill")
    return e.match.globs.length
      ? { state: "listed", why: `listed by description once a file matching ${globs} is touched; the model loads it with ${LOAD_SKILL}` }
      : { state: "listed", why: `listed by description from the first request; the model loads it with ${LOAD_SKILL}, the user with @${e.name}` };
  switch (e.activation) {
    case "always":
      return scopedBelow(e)
        ? { state: "always", why: `sent when a file${under} is first read or edited` }
        : { state: "always", why: "sent with the first request (within the guidance budget; left out ones are named to the model)" };
    case "folder":
      return { state: "folder", why: `sent when a file under ${shown}/ is first read or edited` };
    case "glob":
      return { state: "glob", why: `sent when a file matching ${globs}${under} is read or edited` };
    case "requested":
      return { state: "listed", why: `listed by its description; the model loads it with ${LOAD_SKILL}, the user with @${e.name}` };
    default:
      return { state: "manual", why: `only when the user names it with @${e.name} in a message (or pins it)` };
  }
}
