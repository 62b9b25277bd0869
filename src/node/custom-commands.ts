/**
 * Custom slash commands and output styles on Node: where their files are (the project's and the
 * user's folders, each tool's own), how they are read, and the session's extensions built from
 * them. Plugins add their folders through `extraSources` (loaded after the project's and the user's,
 * so those win a name).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { customCommandsExtension, loadCustomCommands, switchableProvider, type CommandFiles, type CommandSource, type CustomCommandsOptions, type LoadedCommands } from "../core/custom-commands";
import type { Extension } from "../core/extensions/types";
import type { Approver, PermissionCheck, PermissionDecision, PermissionMode } from "../core/loop/types";
import { findStyle, loadOutputStyles, outputStylesExtension, type LoadedOutputStyles, type OutputStyle, type OutputStyleSource } from "../core/output-styles";
import type { LoadedSource } from "../core/permissions/types";
import { readOwnedFile } from "./owned-file";
import { pluginsDir } from "./plugins/store";
import type { Provider } from "../core/providers/types";

const MAX_DEPTH = 6;
const MAX_FILES = 2000;
const posix = (p: string) => p.replace(/\\/g, "/");

/** Command and style folders read with Node's file system (the extension host runs where the workspace is, also in Remote-SSH). */
export const nodeCommandFiles: CommandFiles = {
  async list(dir) {
    const out: string[] = [];
    const walk = (abs: string, rel: string, depth: number) => {
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(abs, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (out.length >= MAX_FILES) return;
        const r = rel ? `${rel}/${e.name}` : e.name;
        let isDir = e.isDirectory();
        let isFile = e.isFile();
        if (e.isSymbolicLink()) {
          try {
            const st = statSync(join(abs, e.name));
            isDir = st.isDirectory();
            isFile = st.isFile();
          } catch {
            continue;
          }
        }
        if (isDir && depth < MAX_DEPTH) walk(join(abs, e.name), r, depth + 1);
        else if (isFile) out.push(r);
      }
    };
    walk(dir, "", 0);
    return out;
  },
  async read(path) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  },
};

/**
 * The command and style files of these places, read only where they are what they claim to be:
 * a regular file whose real path (the opened descriptor's, so a link swapped in meanwhile does not
 * count) stays inside the folder that owns it — the workspace folder for the project's files, the
 * home folder for the user's and the plugins' — and is not a secret (src/core/permissions/sensitive.ts).
 * Nobody is asked about these reads, and a style's or command's text goes to the model: a committed
 * `.claude/output-styles/s.md -> /proc/self/environ` (the CLI's environment, provider keys included)
 * or `-> ../../.env` is refused with a reason, never read.
 */
export function commandFilesFor(p: CommandPlaces): CommandFiles {
  const home = posix(p.home);
  // The plugin store owns the installed plugins' files: a plugin's command may not lead elsewhere in the home (red team 21-host: `commands/sync.md -> ~/.config/gh/hosts.yml`).
  const owners = [p.cwd, ...(p.folders ?? []), p.home, pluginsDir(p.home)].map(posix);
  return {
    list: nodeCommandFiles.list,
    async read(path) {
      const at = posix(path);
      const owner = owners.filter((o) => within(at, o)).sort((a, b) => b.length - a.length)[0];
      if (!owner) throw new Error("not read: it is outside the workspace and the home folder");
      return readOwnedFile(path, owner, home);
    },
  };
}

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);

export interface CommandPlaces {
  cwd: string;
  home: string;
  /** More workspace folders (their project commands too, after the first folder's). */
  folders?: readonly string[];
}

/** Every folder of commands, highest priority first: each workspace folder's, then the user's. */
export function commandSources(p: CommandPlaces, extra: readonly CommandSource[] = []): CommandSource[] {
  const out: CommandSource[] = [];
  for (const root of [p.cwd, ...(p.folders ?? [])].map(posix)) {
    out.push(
      // Claude Code: a skill and a command of one name — the skill runs.
      { dir: `${root}/.claude/skills`, format: "claude", origin: "project", layout: "skills" },
      { dir: `${root}/.claude/commands`, format: "claude", origin: "project" },
      { dir: `${root}/.github/prompts`, format: "copilot", origin: "project" },
      { dir: `${root}/.clinerules/workflows`, format: "cline", origin: "project" },
      { dir: `${root}/.roo/commands`, format: "roo", origin: "project" },
      { dir: `${root}/.cursor/commands`, format: "cursor", origin: "project" },
      { dir: `${root}/.windsurf/workflows`, format: "windsurf", origin: "project" },
      // Google Antigravity's workflows (Windsurf's format, /name): `.agents/workflows`, else the older `.agent/workflows`.
      { dir: existsSync(`${root}/.agents/workflows`) ? `${root}/.agents/workflows` : `${root}/.agent/workflows`, format: "windsurf", origin: "project" },
    );
  }
  const home = posix(p.home);
  out.push(
    { dir: `${home}/.claude/skills`, format: "claude", origin: "user", layout: "skills" },
    { dir: `${home}/.claude/commands`, format: "claude", origin: "user" },
    { dir: `${home}/.roo/commands`, format: "roo", origin: "user" },
    { dir: `${home}/Documents/Cline/Workflows`, format: "cline", origin: "user" },
    { dir: `${home}/.cursor/commands`, format: "cursor", origin: "user" },
    { dir: `${home}/.codeium/windsurf/global_workflows`, format: "windsurf", origin: "user" },
    // Codex's custom prompts ($CODEX_HOME/prompts, default ~/.codex/prompts): /prompts:NAME.
    { dir: `${posix(process.env.CODEX_HOME?.trim() || `${p.home}/.codex`)}/prompts`, format: "codex", origin: "user" },
  );
  return [...out, ...extra];
}

export function outputStyleSources(p: CommandPlaces, extra: readonly OutputStyleSource[] = []): OutputStyleSource[] {
  return [
    ...[p.cwd, ...(p.folders ?? [])].map((root) => ({ dir: `${posix(root)}/.claude/output-styles`, origin: "project" })),
    { dir: `${posix(p.home)}/.claude/output-styles`, origin: "user" },
    ...extra,
  ];
}

export function loadNodeCommands(p: CommandPlaces, extra: readonly CommandSource[] = []): Promise<LoadedCommands> {
  return loadCustomCommands(commandFilesFor(p), commandSources(p, extra));
}

export function loadNodeOutputStyles(p: CommandPlaces, extra: readonly OutputStyleSource[] = []): Promise<LoadedOutputStyles> {
  return loadOutputStyles(commandFilesFor(p), outputStyleSources(p, extra));
}

/** The model of the session, switchable for a command's turn; `make` is the host's model factory. */
export function commandModels(primary: Provider, make: (provider: string | undefined, model: string) => Promise<Provider>) {
  const sw = switchableProvider(primary);
  return {
    provider: sw.provider,
    /** `whose`: what asked for it, in the log's fallback reason ("the command's model", "the skill's model"). */
    async useModel(model: string | undefined, whose?: string): Promise<string | undefined> {
      if (model === undefined || model === "inherit") {
        sw.use(undefined);
        return undefined;
      }
      // Claude Code's aliases and Claude model names mean nothing to another provider.
      if (primary.id !== "anthropic" && (/^claude-/.test(model) || /^(sonnet|opus|haiku)$/.test(model))) return `the session's provider (${primary.id}) does not offer ${model}`;
      try {
        sw.use(await make(undefined, model), whose);
        return undefined;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    },
  };
}

export function nodeCustomCommandsExtension(
  p: CommandPlaces & { extraSources?: readonly CommandSource[] },
  deps: {
    approver: Approver;
    check(req: PermissionCheck, mode: PermissionMode): Promise<PermissionDecision>;
    useModel?(model: string | undefined): Promise<string | undefined>;
    warn(message: string): void;
  } & Pick<CustomCommandsOptions, "editor" | "askInput" | "agents" | "bridge">,
): Extension {
  let reported = new Set<string>();
  return customCommandsExtension({
    approver: deps.approver,
    check: deps.check,
    ...(deps.useModel ? { useModel: deps.useModel } : {}),
    ...(deps.editor ? { editor: deps.editor } : {}),
    ...(deps.askInput ? { askInput: deps.askInput } : {}),
    ...(deps.agents ? { agents: deps.agents } : {}),
    ...(deps.bridge ? { bridge: deps.bridge } : {}),
    load: async () => {
      const loaded = await loadNodeCommands(p, p.extraSources);
      // Each problem once per session.
      const now = new Set<string>();
      for (const pr of loaded.problems) {
        const line = `commands: ${pr.path}${pr.line ? `:${pr.line}` : ""}: ${pr.message}`;
        now.add(line);
        if (!reported.has(line)) deps.warn(line);
      }
      reported = now;
      return loaded;
    },
  });
}

/** The `outputStyle` key of the settings files (the last file that sets it wins: they come lowest priority first). */
export function outputStyleSetting(files: readonly LoadedSource[]): string | undefined {
  let found: string | undefined;
  for (const f of files) {
    let v = f.value;
    if (v === undefined && f.text) {
      try {
        v = JSON.parse(f.text);
      } catch {
        v = undefined;
      }
    }
    if (v && typeof v === "object" && typeof (v as { outputStyle?: unknown }).outputStyle === "string") found = (v as { outputStyle: string }).outputStyle;
  }
  return found;
}

/** The style a session starts with: the flag, else the `outputStyle` setting; an unknown name is reported and the default used. */
export async function initialOutputStyle(p: CommandPlaces, wanted: string | undefined, warn: (m: string) => void, extra: readonly OutputStyleSource[] = []): Promise<OutputStyle | undefined> {
  if (!wanted || wanted.toLowerCase() === "default") return undefined;
  const { styles, problems } = await loadNodeOutputStyles(p, extra);
  for (const pr of problems) warn(`output styles: ${pr.path}${pr.line ? `:${pr.line}` : ""}: ${pr.message}`);
  const style = findStyle(styles, wanted);
  if (!style) warn(`output style "${wanted}" not found (looked in .claude/output-styles, ~/.claude/output-styles and the enabled plugins' output-styles); the default is used`);
  return style;
}

export function nodeOutputStylesExtension(p: CommandPlaces, initial: OutputStyle | undefined, extra: readonly OutputStyleSource[] = []): Extension {
  return outputStylesExtension({ load: () => loadNodeOutputStyles(p, extra), ...(initial ? { initial: initial.name } : {}) });
}
