/**
 * Realistic Claude Code settings files (test/fixtures/claude-settings/*.json, written in the style of
 * what public repositories commit) read the way Claude Code documents each rule. For every rule a
 * probe call is made from the rule itself (a path its pattern covers, the command its prefix names,
 * the MCP tool or subagent it names) and checked against the rule's list:
 *
 * - deny: the probe is denied (in bypassPermissions mode); a Read deny also denies editing and
 *   writing the path (Claude Code 2.1.208 blocks Edit; Yoke also Write);
 * - ask: the probe is never allowed;
 * - allow: the probe is allowed, unless a deny or ask rule of the same file decides it, or it is a
 *   protected path (asks in every mode), or Claude Code documents that such a rule cannot allow it.
 *
 * Placed as the user's own untracked local file, all of that holds; placed as the committed
 * `.claude/settings.json`, no allow rule takes effect and every deny rule still holds.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PermissionCheck, PermissionDecision } from "../../../src/core/loop/types";
import type { YokePermissionGate } from "../../../src/core/permissions/gate";
import { parseRule } from "../../../src/core/permissions/rule-syntax";
import { createPermissionWorkspace, type PermissionWorkspace } from "../../support/permission-workspace";

const DIR = join(__dirname, "../../fixtures/claude-settings");
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort();
type List = "allow" | "ask" | "deny";
interface Settings {
  permissions?: Partial<Record<List, string[]>> & Record<string, unknown>;
}

/** Problems a fixture is expected to produce (everything else in these files is read without one). */
const EXPECTED_PROBLEMS: Record<string, RegExp[]> = {
  "mixed-real-world.json": [
    /permissions\.deny: "\/\/ secrets: never read these" looks like a comment/,
    /permissions\.allow: rule "Bash\(docker compose exec app bundle list:\*" has no closing parenthesis; this rule is skipped/,
  ],
};
const CLAUDE_ONLY = /^(WebFetch|WebSearch|NotebookRead|BashOutput|KillShell|SlashCommand|ExitPlanMode)\b/;

/** A concrete path a gitignore-style pattern covers (first alternative of every wildcard). */
function instantiate(rest: string): string {
  const segs = rest.replace(/\/+$/, "/**").split("/");
  const out = segs.map((s) => {
    if (s === "**") return "a";
    return s
      .replace(/\{([^,}]*)[^}]*\}/g, "$1")
      .replace(/\[(!|\^)[^\]]*\]/g, "z")
      .replace(/\[([^\]])[^\]]*\]/g, "$1")
      .replace(/\*/g, "x")
      .replace(/\?/g, "q");
  });
  return out.filter((s) => s !== "").join("/");
}

/** Probe paths for a path specifier, as Claude Code anchors it (the file sits at the workspace root's .yoke or .claude). */
function pathProbes(spec: string, w: PermissionWorkspace, list: List): string[] {
  if (spec.startsWith("//")) return [`/${instantiate(spec.slice(2))}`];
  if (spec.startsWith("~/")) return [join(w.home, instantiate(spec.slice(2)))];
  if (spec.startsWith("/")) return [join(w.ws, instantiate(spec.slice(1)))];
  if (spec.startsWith("./")) return [join(w.ws, instantiate(spec.slice(2)))];
  const path = instantiate(spec);
  const bare = !spec.replace(/\/+$/, "").includes("/");
  // A bare name matches at any depth (gitignore); for deny and ask rules Yoke reads every relative pattern that way.
  if (bare || (list !== "allow" && !spec.startsWith("**/") && !spec.startsWith("../"))) return [join(w.ws, path), join(w.ws, "deep/er", path)];
  return [join(w.ws, path)];
}

/** The command a Bash specifier names, or undefined for rules the shell analysis owns (operators, inner wildcards). */
function bashProbe(spec: string): string | undefined {
  if (/[|&;<>$`"'()\\{}]/.test(spec)) return undefined;
  let s = spec.trim();
  if (s.endsWith(":*")) s = s.slice(0, -2).trim();
  else if (s.endsWith(" *")) s = s.slice(0, -2).trim();
  else if (s.endsWith("*")) s = s.slice(0, -1);
  return s === "" || s.includes("*") ? undefined : s;
}

const TOOL_OF: Record<string, string> = { Read: "read_file", Edit: "edit_file", Write: "write_file", Glob: "glob", Grep: "grep", Bash: "run_command" };
const req = (permission: string, input: Record<string, unknown>): PermissionCheck => ({
  tool: TOOL_OF[permission] ?? permission,
  permission,
  input,
  mutates: !["Read", "Glob", "Grep", "TodoWrite", "Task", "Skill"].includes(permission),
});
const fileInput = (permission: string, path: string) =>
  permission === "Glob" || permission === "Grep" ? { pattern: "x", path } : permission === "Write" ? { file_path: path, content: "x" } : { file_path: path };

interface Probe {
  rule: string;
  list: List;
  checks: Array<{ req: PermissionCheck; mode: "default" | "bypassPermissions"; expect: "deny" | "not-allow" | "allow" }>;
}

/** The probes of one rule; undefined when Claude Code's documented meaning is not checked here (and why). */
function probesOf(raw: string, list: List, w: PermissionWorkspace): Probe | { skip: string } {
  if (CLAUDE_ONLY.test(raw)) return { skip: "a Claude Code tool Yoke does not have" };
  const parsed = parseRule(raw);
  if ("error" in parsed) return { skip: `malformed: ${parsed.error}` };
  const { tool, specifier } = parsed;
  const mode: Probe["checks"][number]["mode"] = list === "deny" ? "bypassPermissions" : "default";
  const want: Probe["checks"][number]["expect"] = list === "deny" ? "deny" : list === "ask" ? "not-allow" : "allow";
  const checks: Probe["checks"] = [];
  const add = (r: PermissionCheck, m = mode, e: Probe["checks"][number]["expect"] = want) => checks.push({ req: r, mode: m, expect: e });
  const fileTool = ({ Read: "Read", Edit: "Edit", Write: "Write", Glob: "Glob", Grep: "Grep", MultiEdit: "Edit", NotebookEdit: "Edit" } as Record<string, string>)[tool];
  if (fileTool) {
    if (list === "allow" && (tool === "MultiEdit" || tool === "NotebookEdit")) return { skip: "a Claude Code tool Yoke does not have" };
    const paths = specifier === undefined ? [join(w.ws, "src/a.ts")] : pathProbes(specifier, w, list);
    for (const p of paths) {
      add(req(fileTool, fileInput(fileTool, p)));
      // What may not be read may not be edited or overwritten either.
      if (list !== "allow" && fileTool === "Read") for (const t of ["Edit", "Write"]) add(req(t, fileInput(t, p)));
      if (list !== "allow" && fileTool === "Edit") add(req("Write", fileInput("Write", p)));
    }
  } else if (tool === "Bash") {
    const command = specifier === undefined ? "make build" : bashProbe(specifier);
    if (!command) return { skip: "a Bash pattern with shell syntax or an inner wildcard (the shell analysis' part)" };
    add(req("Bash", { command }));
  } else if (tool.startsWith("mcp__")) {
    const name = tool.includes("*") ? tool.replace(/\*/g, "x") : tool.split("__").length === 2 ? `${tool}__some_tool` : tool;
    add({ tool: name, permission: name, input: {}, mutates: true });
  } else if (tool === "Task" || tool === "Agent") {
    add(req("Task", { subagent_type: specifier?.replace(/\*/g, "x") ?? "general-purpose" }));
  } else if (tool === "Skill") {
    add(req("Skill", { name: specifier?.replace(/\*/g, "x") ?? "commit" }));
  } else if (tool === "TodoWrite") {
    add(req("TodoWrite", { todos: [] }));
  } else return { skip: `no probe for ${tool}` };
  return { rule: raw, list, checks };
}

/** Why an allow probe may legitimately not be allowed (Claude Code documents the same, or Yoke protects the path). */
function excused(d: PermissionDecision, s: Settings): boolean {
  const restricting = [...(s.permissions?.deny ?? []), ...(s.permissions?.ask ?? [])];
  if (d.rule && restricting.includes(d.rule)) return true;
  if (/needs approval in every mode/.test(d.reason)) return true;
  return false;
}

async function run(gate: YokePermissionGate, probe: Probe, s: Settings): Promise<string[]> {
  const failures: string[] = [];
  for (const c of probe.checks) {
    const d = await gate.check(c.req, c.mode);
    const ok = c.expect === "deny" ? d.decision === "deny" : c.expect === "not-allow" ? d.decision !== "allow" : d.decision === "allow" || excused(d, s);
    if (!ok) failures.push(`${probe.list} ${probe.rule}: ${c.req.tool} ${JSON.stringify(c.req.input)} in ${c.mode}: expected ${c.expect}, got ${d.decision} (${d.reason})`);
  }
  return failures;
}

describe("realistic Claude Code settings files", () => {
  it("has a corpus of at least 30 files and 600 rules", () => {
    const rules = FILES.flatMap((f) => {
      const p = (JSON.parse(readFileSync(join(DIR, f), "utf8")) as Settings).permissions ?? {};
      return [...(p.allow ?? []), ...(p.ask ?? []), ...(p.deny ?? [])];
    });
    expect(FILES.length).toBeGreaterThanOrEqual(30);
    expect(rules.length).toBeGreaterThanOrEqual(600);
  });

  it("reads every rule of every file as Claude Code documents it (the user's own untracked file)", async () => {
    const failures: string[] = [];
    const skipped = new Map<string, number>();
    let checked = 0;
    let rules = 0;
    for (const file of FILES) {
      const settings = JSON.parse(readFileSync(join(DIR, file), "utf8")) as Settings;
      const w = createPermissionWorkspace(settings as Record<string, unknown>);
      const gate = w.gate();
      const problems = (await gate.problems()).map((p) => p.message);
      const expected = EXPECTED_PROBLEMS[file] ?? [];
      expect(problems.length, `${file}: ${problems.join("\n")}`).toBe(expected.length);
      expected.forEach((re, i) => expect(problems[i]).toMatch(re));
      for (const list of ["deny", "ask", "allow"] as const) {
        for (const raw of settings.permissions?.[list] ?? []) {
          rules++;
          const probe = probesOf(raw, list, w);
          if ("skip" in probe) {
            skipped.set(probe.skip.replace(/:.*/, ""), (skipped.get(probe.skip.replace(/:.*/, "")) ?? 0) + 1);
            continue;
          }
          checked++;
          failures.push(...(await run(gate, probe, settings)).map((f) => `${file}: ${f}`));
        }
      }
    }
    expect(failures).toEqual([]);
    console.log(`claude-settings corpus: ${FILES.length} files, ${rules} rules, ${checked} checked, skipped: ${JSON.stringify(Object.fromEntries(skipped))}`);
    // Most rules are checked; the rest are Claude Code tools Yoke does not have, or Bash patterns the shell analysis owns.
    expect(checked / rules, JSON.stringify(Object.fromEntries(skipped))).toBeGreaterThan(0.85);
  }, 120_000);

  it("takes no allow rule, no looser defaultMode and no additional folder from the same files committed as .claude/settings.json", async () => {
    const failures: string[] = [];
    for (const file of FILES) {
      const settings = JSON.parse(readFileSync(join(DIR, file), "utf8")) as Settings;
      const w = createPermissionWorkspace();
      w.write(".claude/settings.json", JSON.stringify(settings));
      const gate = w.gate();
      const merged = await gate.settings();
      if (merged.rules.some((r) => r.list === "allow")) failures.push(`${file}: an allow rule was taken`);
      if (merged.additionalDirectories.length) failures.push(`${file}: additionalDirectories were taken`);
      if (merged.defaultMode && ["acceptEdits", "bypassPermissions"].includes(merged.defaultMode.mode)) failures.push(`${file}: defaultMode ${merged.defaultMode.mode} was taken`);
      for (const list of ["deny", "allow"] as const) {
        for (const raw of settings.permissions?.[list] ?? []) {
          const probe = probesOf(raw, list, w);
          if ("skip" in probe) continue;
          for (const c of probe.checks) {
            const d = await gate.check(c.req, c.mode);
            if (list === "deny" && d.decision !== "deny") failures.push(`${file}: deny ${raw} no longer denies ${JSON.stringify(c.req.input)}`);
            if (list === "allow" && d.decision === "allow" && d.by === "rule") failures.push(`${file}: allow ${raw} allowed ${JSON.stringify(c.req.input)} from a checked-in file`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
