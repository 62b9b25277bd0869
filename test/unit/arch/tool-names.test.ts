// Tools describe themselves: the loop, the panel and the CLI read a tool's properties
// (capabilities, summary, card, permission name) and never switch on its name.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../../src/core/tools/builtin";

const root = join(__dirname, "../../..");

function sources(path: string): string[] {
  const p = join(root, path);
  if (!statSync(p).isDirectory()) return [p];
  return readdirSync(p).flatMap((name) => (statSync(join(p, name)).isDirectory() ? sources(join(path, name)) : /\.(ts|mts|js)$/.test(name) ? [join(p, name)] : []));
}

/** Files that must know no tool by name. */
const NAME_FREE = ["src/core/loop", "src/core/extensions", "src/core/hooks", "src/core/session", "src/host", "src/cli", "src/protocol", "webview"];

describe("tool names", () => {
  const names = createBuiltinTools().map((t) => t.name);

  it("finds the built-in tools", () => {
    expect(names).toContain("run_command");
  });

  it("appear nowhere in the loop, the extension registry, the hooks, the host, the panel or the CLI", () => {
    const quoted = new RegExp(`["'\`](${names.join("|")})["'\`]`);
    const offenders = NAME_FREE.flatMap(sources).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, i) => ({ line, i }))
        // `"glob"` and `"grep"` are also argument names of the search port and shell commands.
        .filter(({ line }) => quoted.test(line) && !/\b(glob|grep)\??:|["'](glob|grep)["'],?\s*(\]|,)/.test(line))
        .map(({ line, i }) => `${relative(root, file)}:${i + 1}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });
});
