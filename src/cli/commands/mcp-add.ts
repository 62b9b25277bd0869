/**
 * `yoke mcp add [options] NAME COMMAND|URL [ARGS...]`: Claude Code's `claude mcp add`, with its
 * flags and scopes, writing where Yoke reads:
 * - `--scope local` (default): this project's entry of ~/.claude.json
 *   (`projects["<folder>"].mcpServers`, where `claude mcp add` writes it: both see it; Yoke has no
 *   private per-project file of its own), the person's own;
 * - `--scope user`: ~/.yoke/settings.json `mcpServers`, the person's own, in every folder;
 * - `--scope project`: the folder's .mcp.json (shared with the repository). Yoke starts a workspace
 *   server only once approved: the definition written here is approved for this folder, since the
 *   person typed it (a later change of it asks again).
 * `--transport stdio|http|sse` (`-t`), `--env KEY=VALUE` (`-e`, stdio), `--header "Name: value"`
 * (`-H`, remote). A pre-registered OAuth client: `--client-id ID` and `--callback-port PORT` go to
 * the definition's `oauth` block; `--client-secret` takes no value — the secret comes from
 * MCP_CLIENT_SECRET or a hidden prompt (never an argument: every user of the machine reads a
 * process's arguments), is read before anything is written (a cancelled prompt writes nothing),
 * and is kept in the credential store with the tokens, as `yoke mcp login --client-secret` keeps
 * it — never in the settings file.
 * Files are edited with jsonc-parser (their other keys and comments kept) and replaced atomically
 * with their mode kept (~/.claude.json holds Claude Code's own state).
 */
import { chmodSync, mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { applyEdits, modify } from "jsonc-parser/lib/esm/main.js";
import { parseJsonc } from "../../core/settings/jsonc";
import { ApprovalStore } from "../../node/mcp/approvals";
import { createNodeMcp } from "../../node/mcp/setup";
import { parse, UsageError } from "../args";
import { printable, warn } from "../printable";

const options = {
  cwd: { type: "string" },
  scope: { type: "string", short: "s" },
  transport: { type: "string", short: "t" },
  env: { type: "string", short: "e", multiple: true },
  header: { type: "string", short: "H", multiple: true },
  "client-id": { type: "string" },
  "client-secret": { type: "boolean" },
  "callback-port": { type: "string" },
} as const;

type Scope = "local" | "user" | "project";
const SCOPES: readonly Scope[] = ["local", "user", "project"];

/** Where a scope's servers are written: the file and the JSON path of its server map. */
function target(scope: Scope, cwd: string, home: string): { path: string; at: string[]; label: string } {
  if (scope === "user") return { path: join(home, ".yoke", "settings.json"), at: ["mcpServers"], label: "~/.yoke/settings.json (user scope: every folder)" };
  if (scope === "project") return { path: join(cwd, ".mcp.json"), at: ["mcpServers"], label: `${join(cwd, ".mcp.json")} (project scope: shared with the repository)` };
  return { path: join(home, ".claude.json"), at: ["projects", cwd, "mcpServers"], label: `~/.claude.json (local scope: only ${cwd})` };
}

/** The server definition the flags describe (Claude Code's shape), or a usage error saying what is wrong. */
function definitionOf(values: ReturnType<typeof parseAdd>["values"], positionals: string[]): { name: string; def: Record<string, unknown> } {
  const [name, first, ...rest] = positionals;
  if (!name || !first) throw new UsageError("usage: yoke mcp add [--scope local|user|project] [--transport stdio|http|sse] NAME COMMAND [ARGS...] | NAME URL");
  const transport = values.transport ?? "stdio";
  if (transport !== "stdio" && transport !== "http" && transport !== "sse") throw new UsageError(`--transport ${JSON.stringify(transport)}: use stdio, http or sse`);
  const oauthFlags = [values["client-id"] !== undefined && "--client-id", values["client-secret"] && "--client-secret", values["callback-port"] !== undefined && "--callback-port"].filter(Boolean);
  // `--client-secret VALUE` (a secret given as an argument) is refused before any argument is repeated in a message.
  if (oauthFlags.length && transport === "stdio") throw new UsageError(`${oauthFlags.join(", ")}: OAuth is for a remote server (--transport http or sse)`);
  if (transport !== "stdio" && rest.length)
    throw new UsageError(
      `too many arguments: a remote server takes NAME URL${values["client-secret"] ? " (--client-secret takes no value: the secret is read from MCP_CLIENT_SECRET or a hidden prompt, never from an argument)" : ""}`,
    );
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new UsageError(`the server name ${JSON.stringify(name)} may hold only letters, digits, ".", "_" and "-" (at most 64)`);
  if (name === "__proto__" || name === "constructor" || name === "prototype") throw new UsageError(`the server name "${name}" is not one a settings file can hold: pick another`);
  if (transport === "stdio") {
    if (/^https?:\/\//i.test(first) && values.transport === undefined)
      throw new UsageError(`${first} is a URL: add --transport http (or sse) to connect to it; without it, it would be run as a command`);
    if (values.header?.length) throw new UsageError("--header is for a remote server (--transport http or sse)");
    const env: Record<string, string> = {};
    for (const [i, e] of (values.env ?? []).entries()) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(e);
      // Not repeated: a value is often a key.
      if (!m) throw new UsageError(`--env number ${i + 1} is not KEY=VALUE`);
      env[m[1]!] = m[2]!;
    }
    return { name, def: { type: "stdio", command: first, args: rest, ...(Object.keys(env).length ? { env } : {}) } };
  }
  if (values.env?.length) throw new UsageError("--env is for a server Yoke runs (--transport stdio); a remote server takes --header");
  let url: URL;
  try {
    url = new URL(first);
  } catch {
    throw new UsageError(`${JSON.stringify(first)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${first}: the URL of a remote server is http:// or https://`);
  const headers: Record<string, string> = {};
  for (const [i, h] of (values.header ?? []).entries()) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/s.exec(h);
    // Not repeated: a header usually carries a token.
    if (!m) throw new UsageError(`--header number ${i + 1} is not "Name: value"`);
    headers[m[1]!] = m[2]!;
  }
  let callbackPort: number | undefined;
  if (values["callback-port"] !== undefined) {
    callbackPort = Number(values["callback-port"]);
    if (!/^[0-9]{1,5}$/.test(values["callback-port"]) || callbackPort < 1 || callbackPort > 65535)
      throw new UsageError(`--callback-port ${JSON.stringify(values["callback-port"])}: a port number (1–65535)`);
  }
  const clientId = values["client-id"];
  if (clientId !== undefined && !clientId.trim()) throw new UsageError("--client-id is empty");
  if (values["client-secret"] && clientId === undefined) throw new UsageError("--client-secret goes with --client-id (the pre-registered client whose secret it is)");
  const oauth = { ...(clientId !== undefined ? { clientId } : {}), ...(callbackPort !== undefined ? { callbackPort } : {}) };
  return { name, def: { type: transport, url: first, ...(Object.keys(headers).length ? { headers } : {}), ...(Object.keys(oauth).length ? { oauth } : {}) } };
}

function parseAdd(argv: string[]) {
  return parse(argv, options);
}

/** Adds `name` under `at` in the JSON(C) file `path`, its other content and comments kept; an existing name is refused. */
function writeServer(given: string, at: string[], name: string, def: Record<string, unknown>): void {
  // A symlinked file (a dotfiles folder) is edited where it is, the link kept.
  let path = given;
  try {
    path = realpathSync(given);
  } catch {
    // not there yet
  }
  let text = "";
  let mode: number | undefined;
  try {
    text = readFileSync(path, "utf8");
    mode = statSync(path).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  let value: unknown = {};
  if (text.trim()) {
    const parsed = parseJsonc(text);
    if (!parsed.ok) throw new Error(`${path}:${parsed.line}:${parsed.column}: invalid JSON (${parsed.message}); nothing was written: fix it first`);
    value = parsed.value;
  } else text = "{}\n";
  let map: unknown = value;
  for (const k of at) map = map && typeof map === "object" ? (map as Record<string, unknown>)[k] : undefined;
  if (map && typeof map === "object" && Object.prototype.hasOwnProperty.call(map, name))
    throw new Error(`an MCP server "${name}" is already defined in ${path}: nothing was written (remove it there first, or pick another name)`);
  const next = applyEdits(text, modify(text, [...at, name], def, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, next, { mode: mode ?? 0o600 });
  if (mode !== undefined) chmodSync(tmp, mode);
  renameSync(tmp, path);
}

export async function mcpAdd(argv: string[], readSecret: (name: string, url: string) => Promise<string>): Promise<number> {
  const { values, positionals } = parseAdd(argv);
  const cwd = resolve(values.cwd ?? ".");
  const scope = (values.scope ?? "local") as Scope;
  if (!SCOPES.includes(scope)) throw new UsageError(`--scope ${JSON.stringify(values.scope)}: use local, user or project`);
  const { name, def } = definitionOf(values, positionals);
  // The secret first: a cancelled prompt or a missing MCP_CLIENT_SECRET leaves every file as it was.
  if (values["client-secret"] && !process.env.MCP_CLIENT_SECRET && !process.stdin.isTTY)
    throw new UsageError("--client-secret: set MCP_CLIENT_SECRET, or run `yoke mcp add` in a terminal to type the secret (not shown); nothing was written");
  const secret = values["client-secret"] ? await readSecret(name, def.url as string) : undefined;
  // Read once: nothing Yoke starts later (a server, a helper) inherits it.
  delete process.env.MCP_CLIENT_SECRET;
  const home = homedir();
  const where = target(scope, cwd, home);
  try {
    writeServer(where.path, where.at, name, def);
  } catch (err) {
    warn(`yoke: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const what = def.type === "stdio" ? `${def.command as string}${(def.args as string[]).length ? ` ${(def.args as string[]).join(" ")}` : ""}` : (def.url as string);
  process.stdout.write(printable(`Added the ${def.type as string} MCP server "${name}" (${what}) to ${where.label}.\n`));
  if (scope !== "project" && !secret) return 0;
  const mcp = createNodeMcp({ cwd, trusted: true });
  try {
    const server = mcp.servers.find((s) => s.name === name);
    // The definition in force must be the one just written (a server of that name in a file read later wins).
    if (!server || resolve(server.sourcePath) !== resolve(where.path) || (server.transport !== "stdio" && server.url !== def.url)) {
      warn(
        `yoke: another definition of "${name}"${server ? ` (${server.sourcePath})` : ""} is the one in force here: ${secret ? "the client secret was not kept; " : ""}remove it or pick another name\n`,
      );
      return 1;
    }
    if (scope === "project") {
      new ApprovalStore(join(home, ".yoke", "mcp-approvals.json")).set(cwd, server, "allow");
      process.stdout.write(printable(`Approved it for ${cwd} (you wrote it); a changed definition asks again.\n`));
    }
    if (secret !== undefined) {
      await mcp.hub.setClientSecret(name, () => Promise.resolve(secret));
      process.stdout.write(`The client secret is kept in ${mcp.credentials.where}, not in the settings file. Sign in with \`yoke mcp login ${name}\` (or at the first use on a terminal).\n`);
    }
    return 0;
  } catch (err) {
    warn(`yoke: ${err instanceof Error ? err.message : String(err)}; run \`yoke mcp login ${name} --client-secret\` to keep it\n`);
    return 1;
  } finally {
    await mcp.dispose();
  }
}
