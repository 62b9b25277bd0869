import { describe, expect, it } from "vitest";
import { matchBashSpec } from "../../../src/core/permissions/bash-spec";
import { parseJsonc } from "../../../src/core/settings/jsonc";
import { pathSpecMatches, type PathSpecContext } from "../../../src/core/permissions/path-spec";
import { parseRule, ruleAppliesTo } from "../../../src/core/permissions/rule-syntax";
import type { Word } from "../../../src/core/permissions/shell/words";

const words = (...ws: string[]): Word[] => ws.map((value) => ({ value, raw: value, dynamic: value.startsWith("$"), glob: false }));

describe("parseRule", () => {
  it("reads Tool and Tool(specifier)", () => {
    expect(parseRule("Bash")).toEqual({ tool: "Bash" });
    expect(parseRule(" Bash(npm run test:*) ")).toEqual({ tool: "Bash", specifier: "npm run test:*" });
    expect(parseRule("Bash(*)")).toEqual({ tool: "Bash" });
    expect(parseRule("Read(~/.ssh/**)")).toEqual({ tool: "Read", specifier: "~/.ssh/**" });
    expect(parseRule("mcp__github")).toEqual({ tool: "mcp__github" });
    expect(parseRule("mcp__github__create_issue")).toEqual({ tool: "mcp__github__create_issue" });
    expect(parseRule("Bash(echo (x))")).toEqual({ tool: "Bash", specifier: "echo (x)" });
  });

  it("explains what is wrong with a bad rule", () => {
    expect(parseRule("Bash(npm")).toEqual({ error: 'rule "Bash(npm" has no closing parenthesis' });
    expect(parseRule("Bash()")).toEqual({ error: 'rule "Bash()" has an empty specifier; write Bash alone for the whole tool' });
    expect(parseRule("Shell(ls)")).toEqual({ error: 'rule "Shell(ls)" names an unknown tool "Shell"' });
    expect(parseRule("mcp__x(y)")).toEqual({ error: 'rule "mcp__x(y)": MCP rules take no specifier (write mcp__server or mcp__server__tool)' });
    expect(parseRule("Bash ls")).toEqual({ error: 'rule "Bash ls" is not of the form Tool or Tool(specifier)' });
  });

  it("applies Edit rules to Write, Read rules to Glob and Grep, server rules to the server's tools", () => {
    expect(ruleAppliesTo("Edit", "Write")).toBe(true);
    expect(ruleAppliesTo("Write", "Edit")).toBe(false);
    expect(ruleAppliesTo("Read", "Grep")).toBe(true);
    expect(ruleAppliesTo("mcp__github", "mcp__github__create_issue")).toBe(true);
    expect(ruleAppliesTo("mcp__github", "mcp__githubx__a")).toBe(false);
    expect(ruleAppliesTo("mcp__github__*", "mcp__github__a")).toBe(true);
  });

  it("compares MCP names without case for deny and ask rules only (restrictions err wide)", () => {
    expect(ruleAppliesTo("mcp__evil", "mcp__Evil__x", { foldMcp: true })).toBe(true);
    expect(ruleAppliesTo("mcp__EVIL__run", "mcp__evil__Run", { foldMcp: true })).toBe(true);
    expect(ruleAppliesTo("mcp__evil__*", "mcp__Evil__x", { foldMcp: true })).toBe(true);
    expect(ruleAppliesTo("mcp__evil", "mcp__Evilx__a", { foldMcp: true })).toBe(false);
    expect(ruleAppliesTo("mcp__evil", "mcp__Evil__x")).toBe(false);
  });
});

describe("matchBashSpec", () => {
  it("matches the prefix form on word boundaries", () => {
    expect(matchBashSpec("git push:*", words("git", "push"))).toBe("yes");
    expect(matchBashSpec("git push:*", words("git", "push", "origin"))).toBe("yes");
    expect(matchBashSpec("git push:*", words("git", "pushx"))).toBe("no");
    expect(matchBashSpec("git push:*", words("git"))).toBe("no");
    expect(matchBashSpec("npm run test:*", words("npm", "run", "test:unit"))).toBe("no");
  });

  it("matches the exact form only without extra arguments", () => {
    expect(matchBashSpec("make build", words("make", "build"))).toBe("yes");
    expect(matchBashSpec("make build", words("make", "build", "-j4"))).toBe("no");
    expect(matchBashSpec("git commit -m 'fix it'", words("git", "commit", "-m", "fix it"))).toBe("yes");
  });

  it("matches * wildcards, a trailing ' *' being the prefix form", () => {
    expect(matchBashSpec("docker compose *", words("docker", "compose", "up"))).toBe("yes");
    expect(matchBashSpec("docker compose *", words("docker", "composer"))).toBe("no");
    expect(matchBashSpec("git log * main", words("git", "log", "--oneline", "main"))).toBe("yes");
    expect(matchBashSpec("ls*", words("lsof"))).toBe("yes");
  });

  it("says maybe when a word is only known at run time or arguments are added", () => {
    expect(matchBashSpec("git push:*", words("git", "$SUB"))).toBe("maybe");
    expect(matchBashSpec("git push:*", words("git"), true)).toBe("maybe");
    expect(matchBashSpec("git push:*", words("git", "$SUB", "x"))).toBe("maybe");
    expect(matchBashSpec("git push:*", words("npm", "$X"))).toBe("no");
  });
});

describe("pathSpecMatches", () => {
  const ctx: PathSpecContext = { cwd: "/w", home: "/h", baseDir: "/w", list: "allow" };
  const m = (spec: string, path: string, c = ctx) => pathSpecMatches(spec, [path], c);

  it("anchors ./path and path/with/slash to the workspace", () => {
    expect(m("./.env", "/w/.env")).toBe(true);
    expect(m("./.env", "/w/sub/.env")).toBe(false);
    expect(m("src/**", "/w/src/a/b.ts")).toBe(true);
    expect(m("src/**", "/w/lib/src/a.ts")).toBe(false);
    expect(m("src/*.ts", "/w/src/a/b.ts")).toBe(false);
  });

  it("matches a pattern without a slash at any depth, like .gitignore", () => {
    expect(m(".env", "/w/sub/.env")).toBe(true);
    expect(m("*.pem", "/w/a/b/k.pem")).toBe(true);
    expect(m("*.pem", "/elsewhere/k.pem")).toBe(false);
  });

  it("matches a folder and everything below it", () => {
    expect(m("docs", "/w/docs/a/b.md")).toBe(true);
    expect(m("docs/", "/w/docs/x")).toBe(true);
  });

  it("reads //path as absolute, ~/path from home, /path from the settings folder", () => {
    expect(m("//etc/**", "/etc/passwd")).toBe(true);
    expect(m("~/.ssh/**", "/h/.ssh/id_rsa")).toBe(true);
    expect(m("/src/**", "/w/src/a.ts")).toBe(true);
    expect(m("/etc/**", "/etc/passwd")).toBe(false);
  });

  it("also reads /path as absolute in deny and ask rules", () => {
    expect(m("/etc/**", "/etc/passwd", { ...ctx, list: "deny" })).toBe(true);
    expect(m("/src/**", "/w/src/a.ts", { ...ctx, list: "deny" })).toBe(true);
  });
});

describe("parseJsonc (the one settings parser)", () => {
  it("gives the line and column of the first error", () => {
    expect(parseJsonc('{\n  "a": 1,\n  "b"\n}')).toMatchObject({ ok: false, line: 4, column: 1 });
    expect(parseJsonc('{"a": [1, 2')).toMatchObject({ ok: false, line: 1, column: 12, message: expect.stringMatching(/^unexpected end of file/) });
    expect(parseJsonc('{"a": tru}')).toMatchObject({ ok: false, line: 1, column: 7 });
    expect(parseJsonc('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
  });
});
