/**
 * `yoke plugins …`: Claude Code plugins and marketplaces (src/node/plugins).
 *   marketplace add PATH|URL · marketplace remove NAME · list · install NAME@MARKETPLACE ·
 *   enable NAME · disable NAME · remove NAME · approve NAME [--deny]
 * Installed plugins live under ~/.yoke/plugins; which are enabled is `enabledPlugins` in
 * ~/.yoke/settings.json. A plugin's hooks and MCP servers run only after `approve`.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import {
  activePlugins,
  addMarketplace,
  approvePlugin,
  describeSource,
  enabledState,
  installedPlugins,
  installPlugin,
  knownMarketplaces,
  marketplaceSource,
  PluginError,
  readMarketplace,
  readPluginFolder,
  removeMarketplace,
  removePlugin,
  resolveInstalled,
  setUserEnabled,
  settingsMarketplaces,
  type PluginFolder,
} from "../../node/plugins";
import { TrustedFolders, trustedFoldersFile } from "../../node/settings/trusted-folders";
import { parse, printJson, UsageError } from "../args";
import { warn } from "../printable";

const options = {
  cwd: { type: "string" },
  json: { type: "boolean" },
  deny: { type: "boolean" },
} as const;

const USAGE = "use: yoke plugins marketplace add PATH|URL | marketplace remove NAME | list | install NAME@MARKETPLACE | enable NAME | disable NAME | remove NAME | approve NAME [--deny]";

export async function pluginsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, options);
  const cwd = resolve((values.cwd as string | undefined) ?? ".");
  const home = process.env.HOME || homedir();
  const json = Boolean(values.json);
  const arg = (what: string) => {
    const v = positionals[sub === "marketplace" ? 1 : 0];
    if (!v) throw new UsageError(`${what} is required: ${USAGE}`);
    return v;
  };
  const out = (text: string, doc: unknown) => (json ? printJson(doc) : process.stdout.write(text + "\n"));
  try {
    switch (sub) {
      case "marketplace": {
        const verb = positionals[0];
        if (verb === "add") {
          const m = addMarketplace(home, marketplaceSource(arg("a folder or git URL"), cwd));
          out(
            `Added marketplace "${m.name}" with ${m.plugins.length} plugin${m.plugins.length === 1 ? "" : "s"}: ${m.plugins.map((p) => p.name).join(", ")}\nInstall one with: yoke plugins install NAME@${m.name}`,
            {
              name: m.name,
              plugins: m.plugins.map((p) => p.name),
            },
          );
          return 0;
        }
        if (verb === "remove") {
          removeMarketplace(home, arg("a marketplace name"));
          out("Removed.", { removed: positionals[1] });
          return 0;
        }
        if (verb === "list") return list(home, cwd, json);
        throw new UsageError(USAGE);
      }
      case "list":
        return list(home, cwd, json);
      case "install": {
        const { id, folder } = installPlugin(home, arg("NAME@MARKETPLACE"), settingsMarketplaces(home, cwd, await trusted(cwd)));
        out(`Installed and enabled ${id}${folder.manifest.version ? ` (${folder.manifest.version})` : ""}: ${parts(folder)}${waiting(folder, id)}`, {
          id,
          version: folder.manifest.version,
          problems: folder.problems,
        });
        for (const p of folder.problems) warn(`yoke plugins: ${id}: ${p}\n`);
        return 0;
      }
      case "enable":
      case "disable": {
        const id = resolveInstalled(home, arg("a plugin name"));
        setUserEnabled(home, id, sub === "enable");
        out(`${sub === "enable" ? "Enabled" : "Disabled"} ${id} (enabledPlugins in ~/.yoke/settings.json); new sessions ${sub === "enable" ? "get" : "no longer get"} it.`, {
          id,
          enabled: sub === "enable",
        });
        return 0;
      }
      case "remove":
      case "uninstall": {
        const id = resolveInstalled(home, arg("a plugin name"));
        removePlugin(home, id);
        out(`Removed ${id}.`, { id, removed: true });
        return 0;
      }
      case "approve": {
        const id = resolveInstalled(home, arg("a plugin name"));
        approvePlugin(home, id, !values.deny);
        const folder = readPluginFolder(installedPlugins(home)[id]!.installPath);
        out(
          values.deny
            ? `${id}: its hooks and MCP servers will not run.`
            : `${id}: its hooks and MCP servers run in new sessions, as installed now (a changed plugin asks again):\n${programs(folder) || "  (it has none)"}`,
          { id, approved: !values.deny },
        );
        return 0;
      }
      default:
        throw new UsageError(`unknown subcommand ${sub ? `"${sub}"` : "(none)"}: ${USAGE}`);
    }
  } catch (err) {
    if (err instanceof PluginError) {
      warn(`yoke plugins: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** The folder's settings may enable plugins and name marketplaces only when the user trusts it (yoke trust). */
async function trusted(cwd: string): Promise<boolean> {
  try {
    return new TrustedFolders(trustedFoldersFile(process.env.HOME || homedir())).isTrusted(cwd);
  } catch {
    return false;
  }
}

function parts(f: PluginFolder): string {
  const c = f.components;
  const bits = [
    c.commands.length && "commands",
    c.agents.length && "agents",
    c.skills.length && "skills",
    c.outputStyles.length && "output styles",
    c.hooks && "hooks",
    c.mcpServers && `MCP servers (${Object.keys(c.mcpServers).join(", ")})`,
  ].filter(Boolean);
  return bits.length ? bits.join(", ") : "no components";
}

function waiting(f: PluginFolder, id: string): string {
  return f.components.hooks || f.components.mcpServers ? `\nIts hooks and MCP servers run only after you approve them:\n${programs(f)}\n  yoke plugins approve ${id}` : "";
}

/** The programs a plugin would run, for the user to read before approving. */
function programs(f: PluginFolder): string {
  const lines: string[] = [];
  for (const [event, groups] of Object.entries(f.components.hooks ?? {})) {
    for (const g of Array.isArray(groups) ? groups : []) {
      const hooks = (g as { hooks?: Array<{ command?: string }> }).hooks ?? [];
      for (const h of hooks) if (h.command) lines.push(`  hook ${event}: ${h.command}`);
    }
  }
  for (const [name, s] of Object.entries(f.components.mcpServers ?? {})) {
    const d = s as { command?: string; args?: string[]; url?: string };
    lines.push(`  MCP server ${name}: ${d.url ?? [d.command, ...(d.args ?? [])].join(" ")}`);
  }
  return lines.join("\n");
}

async function list(home: string, cwd: string, json: boolean): Promise<number> {
  const trust = await trusted(cwd);
  const known = knownMarketplaces(home);
  const installed = installedPlugins(home);
  const state = enabledState(home, cwd, trust);
  const active = new Map(activePlugins(home, cwd, trust).map((p) => [p.id, p]));
  const suggested = Object.entries(settingsMarketplaces(home, cwd, trust)).filter(([n]) => !known[n]);
  const markets = Object.entries(known).map(([name, m]) => {
    let plugins: Array<{ name: string; description?: string }> = [];
    let problem: string | undefined;
    try {
      plugins = readMarketplace(m.installLocation).plugins;
    } catch (err) {
      problem = (err as Error).message;
    }
    return { name, source: describeSource(m.source), problem, plugins: plugins.map((p) => ({ name: p.name, description: p.description, id: `${p.name}@${name}` })) };
  });
  const rows = Object.entries(installed).map(([id, p]) => ({
    id,
    version: p.version,
    path: p.installPath,
    enabled: state.get(id)?.enabled ?? false,
    enabledBy: state.get(id)?.where,
    hooksAndServers: active.get(id)?.runsPrograms ? (active.get(id)!.approved ? "approved" : "waiting for approval") : undefined,
  }));
  if (json) {
    printJson({ marketplaces: markets, installed: rows, suggested: suggested.map(([name, s]) => ({ name, source: describeSource(s) })) });
    return 0;
  }
  const lines: string[] = [];
  lines.push(markets.length ? "Marketplaces:" : "No marketplaces: add one with yoke plugins marketplace add PATH|URL");
  for (const m of markets) {
    lines.push(`  ${m.name}  (${m.source})${m.problem ? `  problem: ${m.problem}` : ""}`);
    for (const p of m.plugins) lines.push(`    ${p.id}${installed[p.id] ? "  [installed]" : ""}${p.description ? `  ${p.description}` : ""}`);
  }
  for (const [name, s] of suggested) lines.push(`  ${name}  (${describeSource(s)})  named in settings (extraKnownMarketplaces), not added: yoke plugins install NAME@${name} adds it`);
  lines.push(rows.length ? "Installed plugins:" : "No plugins installed.");
  for (const r of rows) lines.push(`  ${r.id}${r.version ? ` ${r.version}` : ""}  ${r.enabled ? "enabled" : "disabled"}${r.hooksAndServers ? `  hooks/MCP servers: ${r.hooksAndServers}` : ""}`);
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}
