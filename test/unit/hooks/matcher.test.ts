import { describe, expect, it } from "vitest";
import { compileMatcher, defaultIfMatcher, matcherMatches, matcherTarget } from "../../../src/core/hooks/matcher";

describe("hook matchers (Claude Code's rules)", () => {
  it('matches everything with "*", "" or no matcher', () => {
    for (const m of ["*", "", "  ", undefined]) {
      expect(matcherMatches(m, "Bash")).toBe(true);
      expect(matcherMatches(m, "mcp__github__create_issue")).toBe(true);
    }
    expect(compileMatcher("*").invalid).toBeUndefined();
  });

  it("takes letters, digits, _, -, spaces, commas and | as exact names or lists of them", () => {
    expect(matcherMatches("Edit", "Edit")).toBe(true);
    expect(matcherMatches("Edit", "NotebookEdit")).toBe(false);
    expect(matcherMatches("Edit|Write", "Write")).toBe(true);
    expect(matcherMatches("Edit|Write", "TodoWrite")).toBe(false);
    expect(matcherMatches("Edit, Write", "Write")).toBe(true);
    expect(matcherMatches("Edit, Write", "Edit")).toBe(true);
    expect(matcherMatches("Edit,MultiEdit , Write", "MultiEdit")).toBe(true);
    expect(matcherMatches("mcp__memory", "mcp__memory__create")).toBe(false);
    expect(matcherMatches("code-reviewer", "senior-code-reviewer")).toBe(false);
    expect(matcherMatches("bash", "Bash")).toBe(false);
  });

  it("takes anything else as an unanchored regular expression", () => {
    expect(matcherMatches("mcp__serena__*", "mcp__serena__find_symbol")).toBe(true);
    expect(matcherMatches("mcp__serena__.*", "mcp__serena__find_symbol")).toBe(true);
    expect(matcherMatches("Edit.*", "NotebookEdit")).toBe(true);
    expect(matcherMatches("Notebook.*", "NotebookEdit")).toBe(true);
    expect(matcherMatches("^Edit$", "NotebookEdit")).toBe(false);
    expect(matcherMatches("^Edit$", "Edit")).toBe(true);
    expect(matcherMatches("Write|Edit|MultiEdit.*", "TodoWrite")).toBe(true); // unanchored, as in Claude Code
  });

  it("never matches an invalid regular expression, and says it is invalid", () => {
    expect(compileMatcher("Edit(").invalid).toBe(true);
    expect(matcherMatches("Edit(", "Edit")).toBe(false);
  });

  it("tests each event's own field, and ignores the matcher of events without one", () => {
    expect(matcherTarget("PreToolUse", { tool_name: "Bash" })).toBe("Bash");
    expect(matcherTarget("PostToolUseFailure", { tool_name: "Edit" })).toBe("Edit");
    expect(matcherTarget("PermissionRequest", { tool_name: "Write" })).toBe("Write");
    expect(matcherTarget("Notification", { notification_type: "permission_prompt", message: "m" })).toBe("permission_prompt");
    expect(matcherTarget("SessionStart", { source: "resume" })).toBe("resume");
    expect(matcherTarget("SessionEnd", { reason: "other" })).toBe("other");
    expect(matcherTarget("PreCompact", { trigger: "auto" })).toBe("auto");
    expect(matcherTarget("SubagentStop", { agent_type: "Explore" })).toBe("Explore");
    expect(matcherTarget("Setup", { trigger: "init" })).toBe("init");
    expect(matcherTarget("UserPromptSubmit", { prompt: "x" })).toBeUndefined();
    expect(matcherTarget("Stop", {})).toBeUndefined();
    expect(matcherMatches("Bash", matcherTarget("Stop", {}))).toBe(true);
  });
});

describe("defaultIfMatcher (the `if` condition's small default)", () => {
  const bash = (command: string) => ({ command });
  it("matches Bash prefixes in every simple command of the line", () => {
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("git push origin main"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("git"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("npm test"))).toBe(false);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("cd src && git status"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("FOO=1 git status"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("gitk"))).toBe(false);
    expect(defaultIfMatcher("Bash(git commit *)", "Bash", bash("git commit -m x"))).toBe(true);
    expect(defaultIfMatcher("Bash(git commit *)", "Bash", bash("git status"))).toBe(false);
    expect(defaultIfMatcher("Bash(npm run test:*)", "Bash", bash("npm run test:unit"))).toBe(true);
    expect(defaultIfMatcher("Bash(rm -rf *)", "Bash", bash("ls; rm -rf build"))).toBe(true);
    expect(defaultIfMatcher("Bash(* --force*)", "Bash", bash("git push --force"))).toBe(true);
    expect(defaultIfMatcher("Bash(npm test)", "Bash", bash("npm test"))).toBe(true);
    expect(defaultIfMatcher("Bash(npm test)", "Bash", bash("npm test --watch"))).toBe(false);
  });

  it("runs the hook when the command hides what it runs (a guard must not fail open)", () => {
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("$(echo git) push"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("X=git; $X push"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("sh -c 'git push'"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Bash", bash("eval ls"))).toBe(true);
  });

  it("checks the tool name, and Tool or Tool(*) match every call", () => {
    expect(defaultIfMatcher("Bash", "Bash", bash("ls"))).toBe(true);
    expect(defaultIfMatcher("Bash(*)", "Bash", bash("ls"))).toBe(true);
    expect(defaultIfMatcher("Bash(git *)", "Edit", { file_path: "/w/a.ts" })).toBe(false);
    expect(defaultIfMatcher("mcp__github", "mcp__github__create_issue", {})).toBe(true);
    expect(defaultIfMatcher("mcp__github", "mcp__gitlab__x", {})).toBe(false);
  });

  it("matches file tools by a path glob", () => {
    expect(defaultIfMatcher("Edit(*.ts)", "Edit", { file_path: "/w/src/deep/a.ts" })).toBe(true);
    expect(defaultIfMatcher("Edit(*.ts)", "Edit", { file_path: "/w/src/a.md" })).toBe(false);
    expect(defaultIfMatcher("Edit(src/**)", "Edit", { file_path: "/w/src/a/b.ts" })).toBe(true);
    expect(defaultIfMatcher("Edit(src/**)", "Edit", { file_path: "/w/lib/a.ts" })).toBe(false);
    expect(defaultIfMatcher("Write(.env*)", "Write", { file_path: "/w/.env.local" })).toBe(true);
    expect(defaultIfMatcher("Read(//etc/**)", "Read", { file_path: "/etc/passwd" })).toBe(true);
  });
});
