/**
 * Workspace paths that are code or configuration something runs later, outside any sandbox
 * (git hooks and config, editor tasks, agent settings and hooks, direnv...). Writing them asks
 * in every mode, whoever writes (a file tool or a command), and the command sandbox keeps them
 * read-only unless the user approved that write. One list for the permission gate and the sandbox.
 */

export interface ProtectedPath {
  /** Relative to a workspace folder, POSIX separators. */
  path: string;
  /** A folder protects everything under it. */
  kind: "dir" | "file";
  why: string;
}

export const PROTECTED_WORKSPACE_PATHS: readonly ProtectedPath[] = [
  { path: ".git/config", kind: "file", why: "git configuration can run programs (core.fsmonitor, core.hooksPath, diff.external, aliases)" },
  { path: ".git/hooks", kind: "dir", why: "git hooks run on later git commands" },
  { path: ".git/modules", kind: "dir", why: "submodule repositories carry their own git configuration and hooks" },
  { path: ".git/info", kind: "dir", why: "git attributes and excludes of the repository" },
  { path: ".gitattributes", kind: "file", why: "git attributes select filter and diff drivers" },
  { path: ".gitmodules", kind: "file", why: "submodule definitions" },
  { path: ".husky", kind: "dir", why: "git hooks managed by husky" },
  { path: ".githooks", kind: "dir", why: "git hooks (a common core.hooksPath)" },
  { path: ".yoke", kind: "dir", why: "Yoke settings, hooks, lessons and skills" },
  { path: ".claude", kind: "dir", why: "Claude Code settings, hooks and skills" },
  { path: ".vscode", kind: "dir", why: "VS Code settings, tasks and launch configurations run programs" },
  { path: ".devcontainer", kind: "dir", why: "dev container definitions run commands when the container is built" },
  { path: ".mcp.json", kind: "file", why: "MCP server definitions start programs" },
  { path: ".cursor", kind: "dir", why: "Cursor settings and MCP server definitions" },
  { path: ".envrc", kind: "file", why: "direnv runs it when a shell enters the folder" },
  { path: ".npmrc", kind: "file", why: "npm configuration can choose the shell and Node options later npm commands run with" },
  { path: ".yarnrc", kind: "file", why: "yarn configuration can run programs" },
  { path: ".yarnrc.yml", kind: "file", why: "yarn configuration can name the program yarn runs (yarnPath) and its plugins" },
  { path: ".pnpmfile.cjs", kind: "file", why: "pnpm runs its hooks on install" },
];

/** The protected entry covering `rel` (a path relative to a workspace folder), or undefined. */
export function protectedEntry(rel: string): ProtectedPath | undefined {
  const p = rel.replace(/^\.\/+/, "").replace(/\/+$/, "");
  return PROTECTED_WORKSPACE_PATHS.find((e) => p === e.path || (e.kind === "dir" && p.startsWith(`${e.path}/`)));
}
