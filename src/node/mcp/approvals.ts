/**
 * Which workspace-defined MCP servers may start: Yoke's remembered approvals (keyed on the
 * workspace and the server's full definition, so a changed command or URL asks again) and
 * Claude Code's `enableAllProjectMcpServers` / `enabledMcpjsonServers` / `disabledMcpjsonServers`
 * for `.mcp.json` servers, read where Claude Code keeps them.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, realpathSync as jsRealpathSync, renameSync, statSync, writeFileSync, constants } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { definitionKey, parseJsonc, sameProject, type McpServerConfig } from "../../core/mcp/config";
import { localFileOrigin, localSettingsFiles } from "../settings/files";

export type Approval = "allow" | "deny";

interface StoredApproval {
  server: string;
  workspace: string;
  decision: Approval;
  at: string;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = parseJsonc(readFileSync(path, "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function names(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** What Claude Code's settings say about one `.mcp.json` server. */
export interface ClaudeMcpChoice {
  decision: Approval;
  /** Where it was said, for the user. */
  where: string;
}

export interface ClaudeMcpChoices {
  choice(server: string): ClaudeMcpChoice | undefined;
  /**
   * Where a server of any scope is turned off for this project in Claude Code: its `/mcp` list's
   * "Disable" writes the name into `disabledMcpServers` of the project's entry in ~/.claude.json.
   * Undefined: not turned off.
   */
  turnedOff(server: string): string | undefined;
  /** Approvals that were not used because the repository wrote them (shown to the user). */
  ignored: string[];
}

const APPROVING_KEYS = ["enableAllProjectMcpServers", "enabledMcpjsonServers"] as const;

/**
 * Claude Code's choices for project (`.mcp.json`) servers. Approvals (`enableAllProjectMcpServers`,
 * `enabledMcpjsonServers`) count from ~/.claude/settings.json, the project's entry in ~/.claude.json
 * and the workspace's .claude/settings.local.json only when that file is the user's own (git does
 * not track it; it is not inside a submodule or nested repository): a repository may turn its own
 * servers off (`disabledMcpjsonServers`, also from the committed .claude/settings.json), never
 * approve them.
 */
export async function claudeMcpChoices(cwd: string, home: string, opts: { git?: string } = {}): Promise<ClaudeMcpChoices> {
  const root = resolve(cwd);
  const full: { where: string; value: Record<string, unknown> | undefined }[] = [{ where: join(home, ".claude", "settings.json"), value: readJson(join(home, ".claude", "settings.json")) }];
  const shared: { where: string; value: Record<string, unknown> | undefined }[] = [{ where: join(root, ".claude", "settings.json"), value: readJson(join(root, ".claude", "settings.json")) }];
  const ignored: string[] = [];
  // The folder's own .claude/settings.local.json and — in an agent's worktree — the person's workspace's (the one list of
  // local files every settings reader takes, files.ts localSettingsFiles), each judged by its own checkout's git.
  const workspace = localSettingsFiles({ cwd: root, home });
  const theirs = workspace?.files.find((f) => f.kind === "claude-local")?.path;
  const locals = [{ checkout: root, path: join(root, ".claude", "settings.local.json") }, ...(workspace && theirs ? [{ checkout: workspace.from, path: theirs }] : [])];
  for (const { checkout, path: localPath } of locals) {
    const local = { where: localPath, value: readJson(localPath) };
    if (!local.value) continue;
    const origin = await localFileOrigin(checkout, localPath, opts.git);
    if (origin.origin === "project-local") full.push(local);
    else {
      shared.push(local);
      const keys = APPROVING_KEYS.filter((k) => local.value?.[k] !== undefined && local.value?.[k] !== false);
      if (keys.length)
        ignored.push(
          `${localPath}: ${keys.join(" and ")} ${keys.length === 1 ? "is" : "are"} ignored because the file comes with the repository (${origin.why}); a repository may not approve its own MCP servers — approve them with \`yoke mcp approve NAME\`, or in an untracked .claude/settings.local.json`,
        );
    }
  }
  const claudeJson = readJson(join(home, ".claude.json"));
  const projects = claudeJson?.projects;
  let off: string[] = [];
  let offWhere = "";
  if (projects && typeof projects === "object" && !Array.isArray(projects)) {
    // This folder's entry, and in an agent's worktree the person's workspace's (Claude Code's local scope is the person's too).
    // The same project key as the local scope's servers (config.ts): a trailing slash or `\` separators do not matter.
    // Every entry naming the folder (`/ws` and `/ws/` may both be there): a server one of them turns off is off (red team P).
    for (const project of [root, ...(workspace ? [workspace.from] : [])]) {
      for (const found of Object.entries(projects as Record<string, unknown>).filter(([k]) => sameProject(k, project))) {
        const entry = found[1];
        if (entry && typeof entry === "object" && !Array.isArray(entry)) {
          const where = `${join(home, ".claude.json")} (project ${found[0]})`;
          full.push({ where, value: entry as Record<string, unknown> });
          const disabled = names((entry as Record<string, unknown>).disabledMcpServers);
          if (disabled.length) {
            off = [...off, ...disabled];
            offWhere ||= where;
          }
        }
      }
    }
  }
  return {
    ignored,
    turnedOff: (server) => (off.includes(server) ? offWhere : undefined),
    choice: (server) => {
      // A "disabled" anywhere wins over an "enabled" (as in Claude Code).
      for (const s of [...full, ...shared]) if (names(s.value?.disabledMcpjsonServers).includes(server)) return { decision: "deny", where: s.where };
      for (const s of full) if (names(s.value?.enabledMcpjsonServers).includes(server)) return { decision: "allow", where: s.where };
      for (const s of full) if (s.value?.enableAllProjectMcpServers === true) return { decision: "allow", where: s.where };
      return undefined;
    },
  };
}

/**
 * The C library's realpath: one walk in the kernel instead of an lstat per component from
 * JavaScript. A workspace's `.mcp.json` of 40,000 servers made ~500,000 probes here (each server's
 * words, with every script extension), 22 s of the 30 s `yoke mcp list` took (session 24).
 */
const realpathSync = (path: string): string => jsRealpathSync.native(path);
/** Whether a name leads anywhere, without the cost of an exception for each name that does not (most words are no file). */
const leadsSomewhere = (path: string): boolean => {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
};

/** At most this many of a server's workspace files are hashed into its approval, each read up to MAX_HASHED bytes. */
const MAX_NAMED_FILES = 32;
const MAX_HASHED = 64 * 1024 * 1024;
/** What a program given a name without its extension runs (`node server` runs server.js). */
const SCRIPT_EXTENSIONS = [".js", ".cjs", ".mjs", ".json", ".ts", ".mts", ".cts", ".py", ".sh"];
/**
 * Files a server keeps its data in (`--db=./data.sqlite`, `MEMORY_FILE_PATH=./memory.json`): named
 * by its arguments or env, written by the server itself at every use. Not hashed: hashing them asked
 * again at every start. A program reading code paths from such a file (a JSON configuration naming
 * a plugin) is a limit (docs/mcp.md). package.json is not data: it names a folder's entry files.
 */
const DATA_FILE = /\.(json|jsonl|ndjson|db|sqlite|sqlite3|duckdb|csv|tsv|txt|log|md|lock)$/i;
/** What a program given a folder runs (`node .`, `npx .`, `python pkg`, `python -m pkg`): these, and its package.json's main and bin. */
const ENTRY_FILES = ["package.json", "index.js", "index.cjs", "index.mjs", "index.ts", "__main__.py", "__init__.py", "main.py"];

/**
 * The workspace files a server's command line names — its script (`node server.js`,
 * `python tools/mcp.py`, `--config=conf.json`), a headersHelper's script (`sh ./helper.sh`) — with
 * a hash of their content, relative to the workspace. An approval is given to them as they are: the
 * command line alone stayed the same while the agent rewrote the script, and the next start ran the
 * new code on the host, outside any sandbox (red team Y, session 21). A changed file asks again.
 * Words are taken as written (no shell expansion), and also split at blanks (`sh -c "node x.js"`)
 * and after `--option=`; the definition's `env` values count as words (`NODE_OPTIONS=--require
 * ./x.cjs`, `LD_PRELOAD=./x.so`), and a command without a `/` is also looked for in the `PATH`
 * folders its `env` names. A word is a file relative to the server's folder or to a workspace folder
 * an earlier word names (`uv run --directory sub server.py`); a name without its extension is tried
 * with the usual script extensions (`node server`); a folder stands for its entry files (`node .`,
 * `npx ./tools`, `python -m pkg`: package.json with its main and bin, index.*, __main__.py).
 * Over-counting is harmless (a change asks once more); a file outside the workspace is not hashed
 * (red team Z, session 21; docs/mcp.md, "Trust and approval").
 */
export function namedWorkspaceFiles(workspace: string, server: McpServerConfig): Record<string, string> {
  let root: string;
  try {
    root = realpathSync(resolve(workspace));
  } catch {
    return {};
  }
  const stdio = server.transport === "stdio";
  const given = stdio ? [server.command, ...server.args, ...Object.values(server.env)] : server.headersHelper ? [server.headersHelper] : [];
  const words = given.flatMap((w) => [w, ...w.split(/\s+/)]).map((w) => w.replace(/^["']+|["']+$/g, ""));
  const base = stdio && server.cwd ? resolve(resolve(workspace), server.cwd) : resolve(workspace);
  const bases = [base];
  const found: Record<string, string> = {};
  const inside = (real: string): string | undefined => {
    const rel = relative(root, real);
    return rel.startsWith("..") || isAbsolute(rel) ? undefined : rel;
  };
  // Words a program runs as code whatever their extension (`python x.txt`, `sh run.md`, `node -r ./hook.log`,
  // `NODE_OPTIONS=--require ./h.log`, `sh -c "python3 c.txt"`): the command, the first operand after it, the word after
  // a code-loading option, a command found through the env PATH. A data file named there is hashed (red team F, session 21).
  const code = new Set<string>();
  const INTERPRETER = /^(node|nodejs|python[\d.]*|pypy3?|sh|bash|zsh|dash|ksh|fish|ruby|perl|php|tsx|ts-node|lua|Rscript|pwsh|powershell|osascript|env|exec|nice|nohup|timeout)$/;
  const CODE_OPTION = /^(-r|--require|--import|--loader|--experimental-loader|-c|--preload)$/;
  const mark = (seq: string[], command: boolean): void => {
    const ws = seq.map((w) => w.replace(/^["']+|["']+$/g, "")).filter(Boolean);
    if (command && ws[0]) code.add(ws[0]);
    // An interpreter's script comes after its options (`python3 -u x.txt`); another program's first word only
    // (`mcp-server-sqlite --db-path ./test.db` keeps its database unhashed).
    const program = basename(ws[0] ?? "").replace(/\.exe$/i, "");
    const interpreter = command && (INTERPRETER.test(program) || (/^(uv|deno|bun|poetry|pipenv|pdm|hatch|rye)$/.test(program) && ws[1] === "run"));
    let operand = command;
    for (let i = command ? 1 : 0; i < ws.length; i++) {
      if (CODE_OPTION.test(ws[i]!) && ws[i + 1]) code.add(ws[i + 1]!);
      if (operand && !interpreter && i > 1) operand = false;
      if (operand && !ws[i]!.startsWith("-") && !(i === 1 && ws[i] === "run" && interpreter && !INTERPRETER.test(program))) {
        code.add(ws[i]!);
        // An option's value (`uv run --with mcp s.txt`) is not the script: an interpreter's operand is the first word naming a file.
        if (!interpreter || existsSync(resolve(base, ws[i]!))) operand = false;
      }
    }
  };
  if (stdio) mark([server.command, ...server.args], true);
  else if (server.headersHelper) mark(server.headersHelper.split(/\s+/), true);
  for (const w of stdio ? [...server.args, ...Object.values(server.env)] : []) if (/\s/.test(w.trim())) mark(w.trim().split(/\s+/), !w.trim().startsWith("-"));
  if (stdio && server.env.PATH && !/[\\/]/.test(server.command)) for (const dir of server.env.PATH.split(delimiter)) if (dir) code.add(join(dir, server.command));
  const isCode = (real: string): boolean => [...code].some((w) => bases.some((b) => [resolve(b, w), ...SCRIPT_EXTENSIONS.map((e) => resolve(b, w) + e)].some((p) => realOrGiven(p) === real)));
  const hashed = (path: string): boolean => {
    if (!leadsSomewhere(path)) return false;
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      return false;
    }
    const rel = inside(real);
    if (DATA_FILE.test(real) && basename(real) !== "package.json" && !isCode(real)) return false;
    if (!rel || rel in found || Object.keys(found).length >= MAX_NAMED_FILES) return rel !== undefined && rel in found;
    const digest = hashFile(real);
    if (digest) found[rel] = digest;
    return !!digest;
  };
  // One word: a file, else the file with a script extension, else a workspace folder's entry files.
  const take = (path: string): void => {
    if (hashed(path) || SCRIPT_EXTENSIONS.some((ext) => hashed(path + ext)) || !leadsSomewhere(path)) return;
    let real: string;
    try {
      real = realpathSync(path);
      if (!statSync(real).isDirectory() || inside(real) === undefined) return;
    } catch {
      return;
    }
    if (!bases.includes(real)) bases.push(real);
    for (const f of ENTRY_FILES) hashed(join(real, f));
    const pkg = readJson(join(real, "package.json"));
    const bin = pkg?.bin;
    for (const entry of [pkg?.main, ...(typeof bin === "string" ? [bin] : bin && typeof bin === "object" ? Object.values(bin) : [])])
      if (typeof entry === "string" && entry) {
        const p = resolve(real, entry);
        if (!hashed(p) && !SCRIPT_EXTENSIONS.some((ext) => hashed(p + ext))) hashed(join(p, "index.js"));
      }
  };
  // `npm start`, `npm run X`, `pnpm X`, `yarn X`, `bun run X`: the package.json that holds the script
  // (hashed: a rewritten script asks again), and what the script's lines (with its pre and post
  // scripts) name, as if they were the command line.
  const run = stdio ? packageScript(server.command, server.args, base) : undefined;
  if (run) {
    // The script's lines only (the rest of package.json — a version, a dependency — changes what runs through the files they name).
    const rel = inside(realOrGiven(join(run.dir, "package.json")));
    if (rel !== undefined) found[`${rel} (scripts: ${run.name})`] = createHash("sha256").update(JSON.stringify(run.lines)).digest("hex");
    if (!bases.includes(run.dir)) bases.push(run.dir);
    for (const line of run.lines) {
      mark(line.split(/\s+/), true);
      words.push(...line.split(/\s+/).map((w) => w.replace(/^["']+|["']+$/g, "")));
    }
  }
  for (const word of words.flatMap((w) => (/^--?[\w-]+=/.test(w) ? [w, w.slice(w.indexOf("=") + 1)] : [w]))) {
    if (Object.keys(found).length >= MAX_NAMED_FILES) break;
    if (!word || word.startsWith("-")) continue;
    for (const b of [...bases]) take(resolve(b, word));
  }
  // A package a runner takes from the workspace's install before the registry (`npx -y pkg`,
  // `npm exec`, `pnpm exec`, `bunx`: node_modules/.bin of the folder or one above it): an install
  // planted after the approval asks again (red team Z).
  for (const word of words) {
    const pkg = /^(@[\w.-]+\/)?[\w.-]+/.exec(word)?.[0];
    if (!pkg || pkg.startsWith(".") || Object.keys(found).length >= MAX_NAMED_FILES) continue;
    for (let dir = realOrGiven(base); inside(dir) !== undefined; dir = dirname(dir)) {
      hashed(join(dir, "node_modules", ".bin", pkg.replace(/^@[^/]+\//, "")));
      if (existsSync(join(dir, "node_modules", pkg))) take(join(dir, "node_modules", pkg));
      if (dir === root || dirname(dir) === dir) break;
    }
  }
  // A command found through a PATH its definition sets (`"env": {"PATH": "./bin:…"}`).
  if (stdio && server.env.PATH && !/[\\/]/.test(server.command)) for (const dir of server.env.PATH.split(delimiter)) if (dir) hashed(resolve(base, dir, server.command));
  return found;
}

/** Package managers whose `run` (or bare script name) runs a package.json script. */
const PACKAGE_MANAGER = /^(npm|pnpm|yarn|bun)$/;
/** npm's own commands that run a script of the same name. */
const NPM_SCRIPT_COMMANDS = new Set(["start", "test", "t", "tst", "stop", "restart"]);
const NPM_RUN = new Set(["run", "run-script", "rum", "urn"]);
/** Options that name the package's folder (npm --prefix, yarn --cwd, pnpm -C/--dir). */
const FOLDER_OPTION = /^(--prefix|--cwd|-C|--dir)$/;

/**
 * The package.json script a package manager's command line runs (`npm start`, `npm run serve`,
 * `pnpm serve`, `yarn run serve`, `bun run serve`), with npm's pre and post scripts: the folder of
 * its package.json, the script's name and lines. Undefined: no such script (another command).
 */
export function packageScript(command: string, args: readonly string[], base: string): { dir: string; name: string; lines: string[] } | undefined {
  const pm = basename(command).replace(/\.(cmd|exe)$/i, "");
  if (!PACKAGE_MANAGER.test(pm)) return undefined;
  let dir = base;
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^(--prefix|--cwd|--dir)=(.+)$/.exec(a);
    if (eq) dir = resolve(base, eq[2]!);
    else if (FOLDER_OPTION.test(a) && args[i + 1]) dir = resolve(base, args[++i]!);
    else if (a === "--") break;
    else if (!a.startsWith("-")) rest.push(a);
  }
  const [first, second] = rest;
  if (!first) return undefined;
  const name = pm === "npm" ? (NPM_SCRIPT_COMMANDS.has(first) ? ({ t: "test", tst: "test" }[first] ?? first) : NPM_RUN.has(first) ? second : undefined) : first === "run" ? second : first;
  if (!name) return undefined;
  const scripts = readJson(join(dir, "package.json"))?.scripts;
  if (!scripts || typeof scripts !== "object") return undefined;
  const s = scripts as Record<string, unknown>;
  const lines = [s[`pre${name}`], s[name], s[`post${name}`]].filter((l): l is string => typeof l === "string" && l.trim() !== "");
  // npm start without a "start" script runs `node server.js`.
  if (pm === "npm" && name === "start" && typeof s.start !== "string") lines.push("node server.js");
  return typeof s[name] === "string" || (pm === "npm" && name === "start") ? { dir, name, lines } : undefined;
}

function realOrGiven(path: string): string {
  if (!leadsSomewhere(path)) return path;
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** sha256 of a regular file's first MAX_HASHED bytes and its size; undefined for anything else. */
function hashFile(path: string): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO under the name does not hang the approval.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const h = createHash("sha256").update(`${st.size}\n`);
    const buf = Buffer.alloc(1024 * 1024);
    for (let done = 0; done < Math.min(st.size, MAX_HASHED);) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, MAX_HASHED - done), null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
      done += n;
    }
    return h.digest("hex");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Remembered approvals in Yoke's storage (~/.yoke/mcp-approvals.json). */
export class ApprovalStore {
  constructor(private readonly file: string) {}

  /** `files`: namedWorkspaceFiles's answer when the caller has it already (each file is read once). */
  static key(workspace: string, server: McpServerConfig, files: Record<string, string> = server.workspace ? namedWorkspaceFiles(workspace, server) : {}): string {
    // The workspace files the command line names, as they are now, only when there are some: an
    // approval of `npx -y some-server` given before stays valid.
    const named = Object.keys(files).length ? `\n${JSON.stringify(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)))}` : "";
    return createHash("sha256")
      .update(`${resolve(workspace)}\n${definitionKey(server)}${named}`)
      .digest("hex");
  }

  private read(): Record<string, StoredApproval> {
    const v = readJson(this.file)?.approvals;
    return v && typeof v === "object" ? (v as Record<string, StoredApproval>) : {};
  }

  /** `key`: ApprovalStore.key(workspace, server) when the caller computed it already (the files as they were asked about). */
  get(workspace: string, server: McpServerConfig, key = ApprovalStore.key(workspace, server)): Approval | undefined {
    const e = this.read()[key];
    return e?.decision === "allow" || e?.decision === "deny" ? e.decision : undefined;
  }

  set(workspace: string, server: McpServerConfig, decision: Approval, key = ApprovalStore.key(workspace, server)): void {
    const approvals = this.read();
    approvals[key] = { server: server.name, workspace: resolve(workspace), decision, at: new Date().toISOString() };
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ approvals }, null, 1), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
