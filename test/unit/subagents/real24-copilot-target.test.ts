// Copilot's `target` (GitHub's custom agents configuration: "vscode or github-copilot; if unset,
// defaults to both environments"; VS Code's custom agent file reference: `github-copilot` names the
// Copilot cloud agent). Yoke runs where VS Code does: a `github-copilot` agent is not one of its
// agents; `vscode` or no target is. Real repositories' agents set it often (6 of 17 collected in
// session 24); before, Yoke offered every one of them. Files written from GitHub's documented fields.
import { describe, expect, it } from "vitest";
import { loadAgents, parseAgentFile } from "../../../src/core/subagents/agents";

const file = (stem: string, target: string | undefined) => ({
  display: `.github/agents/${stem}.agent.md`,
  text: `---\nname: ${stem}\ndescription: Fixes reported bugs with small changes\n${target === undefined ? "" : `target: ${target}\n`}tools: ["read", "search", "edit"]\n---\nFix the bug.\n`,
  origin: "project" as const,
  format: "copilot" as const,
  stem,
});

describe("Copilot's target", () => {
  it("github-copilot: not an agent of Yoke's (reported with why); vscode or unset: used, with no note", () => {
    const cloud = parseAgentFile(file("cloud-fixer", "github-copilot"));
    expect(cloud.agent).toBeUndefined();
    expect(cloud.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^\.github\/agents\/cloud-fixer\.agent\.md:4: "target: github-copilot" makes it an agent of GitHub's Copilot cloud agent/),
    ]);
    for (const t of ["vscode", undefined, "VSCode"]) {
      const r = parseAgentFile(file("local-fixer", t));
      expect(r.agent?.name, String(t)).toBe("local-fixer");
      expect(r.problems, String(t)).toEqual([]);
    }
    const odd = parseAgentFile(file("odd-fixer", "jetbrains"));
    expect(odd.agent?.name).toBe("odd-fixer");
    expect(odd.problems.map((p) => p.message)).toEqual([expect.stringMatching(/not applied: "target: jetbrains" is neither vscode nor github-copilot/)]);
    const { agents } = loadAgents([file("cloud-fixer", "github-copilot"), file("local-fixer", "vscode")]);
    expect(agents.map((a) => a.name)).toEqual(["local-fixer"]);
  });

  it("a Claude Code agent's own fields are unchanged by it", () => {
    const r = parseAgentFile({ display: ".claude/agents/x.md", text: "---\nname: x\ndescription: d\ntarget: github-copilot\n---\nB\n", origin: "project", format: "claude", stem: "x" });
    expect(r.agent?.name).toBe("x");
  });
});
