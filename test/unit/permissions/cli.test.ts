import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { permissionsCommand } from "../../../src/cli/commands/permissions";
import { UsageError } from "../../../src/cli/args";

const ws = realpathSync(mkdtempSync(join(tmpdir(), "yoke-perm-cli-")));
writeFileSync(join(ws, "settings.json"), JSON.stringify({ permissions: { deny: ["Bash(git push:*)"] } }));

async function run(argv: string[]) {
  let out = "";
  let err = "";
  const code = await permissionsCommand(argv, { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

describe("yoke permissions check", () => {
  it("prints the decision as JSON with exit 0, also for deny", async () => {
    const r = await run(["check", "--tool", "Bash", "--input", '{"command":"git push"}', "--cwd", ws, "--settings", join(ws, "settings.json"), "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      decision: "deny",
      rule: "Bash(git push:*)",
      reason: `Denied by the rule Bash(git push:*) (--settings ${join(ws, "settings.json")}): the command runs \`git push\`.`,
      by: "rule",
      mode: "default",
    });
  });

  it("prints one line of text without --json", async () => {
    const r = await run(["check", "--tool", "Read", "--input", '{"file_path":"a.txt"}', "--cwd", ws]);
    expect(r.out).toBe("allow: Reading inside the workspace is allowed in default mode.\n");
  });

  it("accepts tool names for permission names", async () => {
    const r = await run(["check", "--tool", "edit_file", "--input", '{"file_path":"a.txt"}', "--cwd", ws, "--mode", "acceptEdits"]);
    expect(r.out).toBe("allow: acceptEdits mode allows edits inside the workspace.\n");
  });

  it("rejects bad usage with a UsageError (exit 2 in main)", async () => {
    await expect(run(["check", "--input", "{}"])).rejects.toThrow(new UsageError("--tool is required (a permission name such as Bash, Read, Edit)"));
    await expect(run(["check", "--tool", "Bash", "--input", "{nope"])).rejects.toThrow(/^--input is not valid JSON: /);
    await expect(run(["check", "--tool", "Bash", "--input", "[]"])).rejects.toThrow("--input must be a JSON object");
    await expect(run(["check", "--tool", "Bash", "--input", "{}", "--mode", "yolo"])).rejects.toThrow('--mode must be one of default, acceptEdits, plan, bypassPermissions (got "yolo")');
    await expect(run(["check", "--tool", "Bash", "--input", "{}", "--cwd", ws, "--settings", "missing.json"])).rejects.toThrow("--settings missing.json: no such file");
    await expect(run(["list"])).rejects.toThrow(/^expected "check"/);
  });

  it("works bundled by esbuild, loading the wasm files next to the bundle", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-perm-bundle-")));
    const entry = join(dir, "entry.ts");
    writeFileSync(
      entry,
      `import { permissionsCommand } from ${JSON.stringify(join(process.cwd(), "src/cli/commands/permissions"))};\npermissionsCommand(process.argv.slice(2)).then((c) => (process.exitCode = c));\n`,
    );
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      outfile: join(dir, "dist", "cli.js"),
      logLevel: "silent",
      alias: { "web-tree-sitter": "./node_modules/web-tree-sitter/tree-sitter.cjs" },
      define: { YOKE_VERSION: '"test"' },
    });
    mkdirSync(join(dir, "dist"), { recursive: true });
    copyFileSync("node_modules/web-tree-sitter/tree-sitter.wasm", join(dir, "dist", "tree-sitter.wasm"));
    copyFileSync("node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm", join(dir, "dist", "tree-sitter-bash.wasm"));
    const out = execFileSync(
      process.execPath,
      [join(dir, "dist", "cli.js"), "check", "--tool", "Bash", "--input", '{"command":"bash -c \\"git push\\""}', "--cwd", ws, "--settings", join(ws, "settings.json"), "--json"],
      { cwd: dir, encoding: "utf8" },
    );
    expect(JSON.parse(out)).toMatchObject({ decision: "deny", rule: "Bash(git push:*)" });
    const bad = spawnSync(process.execPath, [join(dir, "dist", "cli.js"), "check"], { cwd: dir, encoding: "utf8" });
    expect(bad.stderr).toMatch(/--tool is required/);
  }, 120_000);
});
