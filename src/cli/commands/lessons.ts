/**
 * `yoke lessons list [--cwd DIR] [--json]`: every lesson, skill, rule and memory file loaded, with its
 * state (always, folder, glob, listed, manual, match, inactive, overridden) and why; the files left
 * out on purpose (`excluded`, with why); and problems.
 * `yoke lessons match --message TEXT [--tool NAME]... [--file PATH]... [--cwd DIR] [--json]`:
 * what would apply, best first, as `{"matches":[{"name","kind","source","score","reasons"}]}`.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { effectiveEntries, entryState, loadGuidance, rank, toolAliases } from "../../core/guidance";
import type { GuidanceProblem, GuidanceSet } from "../../core/guidance/types";
import { createBuiltinTools } from "../../core/tools/builtin";
import { createNodeGuidanceFiles } from "../../node/guidance-files";
import { createNodeWorkspaceFs } from "../../node/node-fs";
import { createRipgrepSearcher } from "../../node/ripgrep-searcher";
import { parse, printJson, UsageError } from "../args";
import { folderGate } from "../../node/permission-check";
import { listCustomizations } from "../../node/customizations";
import { TrustedFolders, trustedFoldersFile } from "../../node/settings/trusted-folders";
import { say, warn } from "../printable";

/** What a session in `cwd` would load: the same Read deny rules apply (a denied file is not read). */
async function load(cwd: string): Promise<GuidanceSet> {
  if (!existsSync(cwd)) throw new UsageError(`--cwd ${cwd}: no such folder`);
  const gate = folderGate({ cwd });
  return loadGuidance({
    fs: createNodeWorkspaceFs(cwd, { syncReads: true }), // a command of its own process: no event loop to keep free
    files: createNodeGuidanceFiles(),
    nestedMemory: true,
    search: createRipgrepSearcher(),
    access: { deniedBy: (permission, abs) => gate.deniedBy(permission, abs) },
  });
}

const at = (p: GuidanceProblem) => `${p.path}${p.line ? `:${p.line}` : ""}`;

export async function lessonsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return list(rest);
  if (sub === "match") return match(rest);
  throw new UsageError(sub ? `unknown subcommand "${sub}" (list or match)` : "give a subcommand: list or match");
}

async function list(argv: string[]): Promise<number> {
  const { values } = parse(argv, { cwd: { type: "string" }, json: { type: "boolean" } }, false);
  const cwd = resolve(values.cwd ?? ".");
  if (!existsSync(cwd)) throw new UsageError(`--cwd ${cwd}: no such folder`);
  // The one listing the panel's Customizations view shows too (src/node/customizations.ts).
  // Synchronous reads: this process has nothing else to do meanwhile (each asynchronous call costs a trip through libuv's threads).
  const listing = await listCustomizations({ cwd, home: process.env.HOME || homedir(), trusted: await isTrusted(cwd), syncReads: true });
  const set = listing.guidance;
  const effective = new Set(effectiveEntries(set.entries));
  const entries = set.entries.map((e) => ({
    name: e.name,
    kind: e.kind,
    source: e.source,
    origin: e.origin,
    activation: e.activation,
    status: e.status,
    ...(effective.has(e) ? entryState(e) : { state: "overridden", why: "another entry of the same kind and name (the workspace's over the user's over the built-in one) is used instead" }),
    ...(e.description ? { description: e.description } : {}),
    ...(e.kind === "lesson" || e.match.globs.length ? { match: e.match } : {}),
    ...(e.kind === "lesson" ? { priority: e.priority } : {}),
    ...(e.files?.length ? { files: e.files } : {}),
    ...(effective.has(e) ? {} : { overridden: true }),
  }));
  const problems = listing.problems;
  const excluded = (set.excluded ?? []).map((x) => ({ source: x.source, path: x.path, state: "excluded", why: x.why }));
  if (values.json) {
    printJson({ entries, excluded, problems, items: listing.items, plugins: listing.plugins, marketplaces: listing.marketplaces });
    return 0;
  }
  for (const kind of ["memory", "rule", "skill", "lesson"] as const) {
    const of = entries.filter((e) => e.kind === kind);
    if (!of.length) continue;
    say(`${kind === "memory" ? "project memory" : `${kind}s`} (${of.length}):\n`);
    for (const e of of) say(`  ${e.name.padEnd(28)} ${e.state.padEnd(10)} ${e.source} — ${e.why}\n`);
  }
  if (excluded.length) {
    say(`excluded (${excluded.length}):\n`);
    for (const x of excluded) say(`  ${x.source} — ${x.why}\n`);
  }
  if (!entries.length) say("no guidance found\n");
  // Beyond guidance: commands, agents, output styles, hooks, plugins, MCP servers.
  for (const [kind, title] of [
    ["command", "commands"],
    ["agent", "agents"],
    ["output-style", "output styles"],
    ["hook", "hooks"],
    ["plugin", "plugins"],
    ["mcp-server", "MCP servers"],
    ["ignore-file", "ignore files"],
  ] as const) {
    const of = listing.items.filter((i) => i.kind === kind);
    if (!of.length) continue;
    say(`${title} (${of.length}):\n`);
    for (const i of of) say(`  ${i.name.padEnd(28)} ${i.state.padEnd(10)} ${i.origin}${i.plugin && i.origin === "plugin" && kind !== "plugin" ? ` ${i.plugin}` : ""}  ${i.source} — ${i.why}\n`);
  }
  if (problems.length) {
    say(`problems (${problems.length}):\n`);
    for (const p of problems) say(`  ${p.at}: ${p.message}\n`);
  }
  return 0;
}

/** The folder's settings count (its hooks run, it may enable plugins) only when the user trusts it (yoke trust). */
async function isTrusted(cwd: string): Promise<boolean> {
  try {
    return new TrustedFolders(trustedFoldersFile(process.env.HOME || homedir())).isTrusted(cwd);
  } catch {
    return false;
  }
}

async function match(argv: string[]): Promise<number> {
  const { values } = parse(
    argv,
    { message: { type: "string" }, tool: { type: "string", multiple: true }, file: { type: "string", multiple: true }, cwd: { type: "string" }, json: { type: "boolean" } },
    false,
  );
  if (values.message === undefined) throw new UsageError("--message TEXT is required");
  const cwd = resolve(values.cwd ?? ".");
  const set = await load(cwd);
  const files = (values.file ?? []).map((f) => resolve(cwd, f).split("\\").join("/"));
  const fs = createNodeWorkspaceFs(cwd);
  const matches = rank(effectiveEntries(set.entries), { message: values.message, tools: values.tool ?? [], outputs: [], files }, { fs, toolAliases: toolAliases(createBuiltinTools()) }).map((s) => ({
    name: s.entry.name,
    kind: s.entry.kind,
    source: s.entry.source,
    score: s.score,
    reasons: s.reasons,
  }));
  for (const p of set.problems) warn(`yoke lessons: ${at(p)}: ${p.message}\n`);
  if (values.json) {
    printJson({ matches });
    return 0;
  }
  if (!matches.length) say("nothing matches\n");
  for (const m of matches) say(`${m.score.toFixed(2).padStart(6)}  ${m.kind.padEnd(6)}  ${m.name}  (${m.source}) — ${m.reasons.join("; ")}\n`);
  return 0;
}
