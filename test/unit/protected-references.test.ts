/**
 * protectedReferences (src/core/protected-references.ts): what a protected configuration sources or
 * runs, read from the configurations' text — the rule the gate and the command sandbox share (their
 * outcomes are in test/integration/protect21-session.test.ts and the R37 corpus lines). Here the
 * reading itself: which words are files, which are left out, and the bounds; and the Node reader on a
 * FIFO and a long file.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CUT_WHY, protectedReferences, protectedReferencesAsync, REFERENCE_LIMITS } from "../../src/core/protected-references";
import { nodeReadTextSync } from "../../src/node/read-text";
import { createPermissionGate } from "../../src/core/permissions/gate";
import { nodeListDir, nodeReadText, nodeRealPath } from "../../src/node/settings/files";
import { loadShellWasm } from "../../src/node/tree-sitter-wasm";

const refsOf = (files: Record<string, string>, opts: { roots?: string[]; homes?: string[]; links?: Record<string, string> } = {}) =>
  protectedReferences(opts.roots ?? ["/ws"], opts.homes ?? [], { read: (a) => files[a], real: (a) => opts.links?.[a] ?? a })
    .map((r) => `${r.kind} ${r.path}`)
    .sort();

describe("protectedReferences", () => {
  it("reads direnv's sourcing commands, use nix/flake, PATH_add, scripts run by path, and what sourced files source", () => {
    const got = refsOf({
      "/ws/.envrc": [
        "source_env ./env/dev.sh",
        "dotenv",
        "dotenv_if_exists .env.local",
        "use flake",
        'X="$PWD/lib"; source "$X/y.sh"',
        "./scripts/setup.sh --quiet",
        "bash tools/gen.sh",
        "PATH_add bin",
        "",
      ].join("\n"),
      "/ws/env/dev.sh": ". ./more.sh\n",
    });
    expect(got).toEqual(
      [
        "file /ws/env/dev.sh",
        "file /ws/env/more.sh",
        "file /ws/.env",
        "file /ws/.env.local",
        "file /ws/flake.nix",
        "file /ws/flake.lock",
        "file /ws/lib/y.sh",
        "file /ws/scripts/setup.sh",
        "file /ws/tools/gen.sh",
        "dir /ws/bin",
      ].sort(),
    );
  });

  it("leaves out what it cannot resolve or what is ordinary work: unknown variables, single-quoted $, globs, process substitutions, watch_file, node_modules/.bin and the whole folder on PATH, bash -c", () => {
    expect(
      refsOf({
        "/ws/.envrc": [
          "source $UNKNOWN/x.sh",
          "source '$HOME/lit.sh'",
          'for f in rc.d/*.sh; do . "$f"; done',
          "source <(kubectl completion bash)",
          "watch_file package.json",
          "PATH_add node_modules/.bin",
          "PATH_add .",
          "PATH_add $PWD",
          "bash -c 'echo hi'",
          "# source commented.sh",
          "",
        ].join("\n"),
      }),
    ).toEqual([]);
  });

  it("takes any word shaped like a file (red team X): continued lines, command substitutions, env/pipes, functions, loops, other interpreters; not folders, watch_file or node_modules", () => {
    const files: Record<string, string> = {
      "/ws/.envrc": [
        "source \\",
        "  b.sh",
        "export X=$(python3 tools/c.py)",
        "env bash d.sh",
        "cat s.sh | bash",
        'load() { source "$1"; }',
        "load o.sh",
        'for f in q.sh; do . "$f"; done',
        "node u.js",
        'export NODE_OPTIONS="--require ./v.cjs"',
        "export PYTHONPATH=lib",
        "export VIRTUAL_ENV=.venv",
        "cd lib",
        "watch_file package.json",
        "PATH_add node_modules/.bin",
        "",
      ].join("\n"),
    };
    // v.cjs exists (an assignment's value is taken only then); .venv does not (a venv is made there).
    files["/ws/v.cjs"] = "";
    const got = protectedReferences(["/ws"], [], { read: (a) => files[a], real: (a) => a, list: (a) => (a === "/ws/lib" ? ["x.py"] : undefined) })
      .map((r) => r.path)
      .sort();
    expect(got).toEqual(["/ws/b.sh", "/ws/d.sh", "/ws/o.sh", "/ws/q.sh", "/ws/s.sh", "/ws/tools/c.py", "/ws/u.js", "/ws/v.cjs"]);
  });

  it("reads the files .vscode/settings.json names (red team X): string values shaped like files, not keys, URLs or node_modules", () => {
    expect(
      refsOf({
        "/ws/.vscode/settings.json": [
          "{",
          "  // the team's lint set-up",
          '  "eslint.options": { "overrideConfigFile": "tools/lint.config.js" },',
          '  "prettier.configPath": "${workspaceFolder}/tools/p.cjs",',
          '  "jest.jestCommandLine": "node scripts/run-jest.js --ci",',
          '  "typescript.tsdk": "node_modules/typescript/lib",',
          '  "json.schemas": [{ "url": "https://example.com/s.json" }],',
          '  "files.exclude": { "**/.git": true }',
          "}",
        ].join("\n"),
      }),
    ).toEqual(["file /ws/scripts/run-jest.js", "file /ws/tools/lint.config.js", "file /ws/tools/p.cjs"]);
  });

  it("leaves out values no editor loads or runs: Yoke's own settings (its verification command runs in the sandbox), files/search/editor keys; language blocks read as the top level; a text that does not parse is read whole", () => {
    const settings = [
      "{",
      '  "yoke.verification": { "command": "test -f src/count.ts && echo ok" },',
      '  "files.associations": { "*.tpl": "html" },',
      '  "search.exclude": { "dist/out.js": true },',
      '  "[typescript]": { "editor.defaultFormatter": "x.y", "prettier.configPath": "tools/ts.prettierrc.js" },',
      '  "python.defaultInterpreterPath": ".venv/bin/python3.12",',
      "}",
    ].join("\n");
    expect(refsOf({ "/ws/.vscode/settings.json": settings })).toEqual(["file /ws/.venv/bin/python3.12", "file /ws/tools/ts.prettierrc.js"]);
    // Not JSON(C) at all: every string value counts, as before.
    expect(refsOf({ "/ws/.vscode/settings.json": '{ "yoke.verification": { "command": "node src/v.js" } ' })).toEqual(["file /ws/src/v.js"]);
  });

  it("reads workbench.externalBrowser: VS Code runs the program it names (an absolute path) to open a link, in a trusted workspace (red team C)", () => {
    expect(refsOf({ "/ws/.vscode/settings.json": '{ "workbench.externalBrowser": "/ws/tools/browser.sh", "workbench.colorTheme": "Dark+ x.json" }' })).toEqual(["file /ws/tools/browser.sh"]);
  });

  it("reads mise's _.source/_.file (arrays over lines, inline tables), _.path, path: versions with {{config_root}}, and hooks", () => {
    const got = refsOf({
      "/ws/.config/mise/config.toml": [
        "[env]",
        "_.source = [",
        '  "scripts/a.sh",',
        "  { path = 'scripts/b.sh', redact = true },",
        "]",
        '_.file = ".env.mise"',
        '_.path = ["./mbin"]',
        "FOO = 'scripts/not-a-source.sh'",
        "[tools]",
        'node = "path:{{config_root}}/mynode"',
        "[hooks]",
        'enter = "source ./hooks/enter.sh"',
        "[tasks.build]",
        'run = "./scripts/build.sh"',
        "",
      ].join("\n"),
    });
    // A relative path is taken from the project folder and the file's own folder (mise's config_root).
    for (const p of ["file /ws/scripts/a.sh", "file /ws/scripts/b.sh", "file /ws/.env.mise", "dir /ws/mbin", "dir /ws/mynode", "file /ws/hooks/enter.sh"]) expect(got).toContain(p);
    expect(got.join("\n")).not.toMatch(/not-a-source|build\.sh/);
  });

  it("reads mise's other configuration names found by listing the folder (mise.<env>.toml, conf.d)", () => {
    const files: Record<string, string> = {
      "/ws/.mise.dev.toml": '[env]\n_.source = "dev-env.sh"\n',
      "/ws/.config/mise/conf.d/10-x.toml": '[env]\n_.file = "x.env"\n',
    };
    const dirs: Record<string, string[]> = { "/ws": [".mise.dev.toml", "src", "notmise.toml"], "/ws/.config/mise/conf.d": ["10-x.toml"] };
    const got = protectedReferences(["/ws"], [], { read: (a) => files[a], real: (a) => a, list: (a) => dirs[a] }).map((r) => r.path);
    expect(got).toContain("/ws/dev-env.sh");
    expect(got).toContain("/ws/x.env");
  });

  it("reads what package managers' configuration runs (red team A, session 23): yarnPath and plugins, yarn-path, npm's script-shell and node-options, pnpm's pnpmfile and scriptShell; not URLs, options, globs, other keys", () => {
    expect(
      refsOf({
        "/ws/.yarnrc.yml":
          'yarnPath: .yarn/releases/yarn-4.9.9.cjs\nplugins:\n  - path: .yarn/plugins/p.cjs\n    spec: "@yarnpkg/plugin-x"\nnodeLinker: node-modules\ncacheFolder: ./.yarn/cache\nnpmRegistryServer: "https://r.example/"\n',
        "/ws/.yarnrc": 'yarn-path "./tools/yarn.js"\n--install.frozen-lockfile true\n',
        "/ws/.npmrc":
          "registry=https://registry.npmjs.org/\nscript-shell=./tools/sh.sh\nnode-options=--require ./tools/pre.js --import=./tools/esm.mjs --max-old-space-size=4096\ncache=./.npm-cache/x.db\n",
        "/ws/pnpm-workspace.yaml": 'packages:\n  - "packages/*"\npnpmfile: tools/hook.cjs\nscriptShell: ./tools/s2.sh\ncatalog:\n  react: 18.2.0\n',
      }),
    ).toEqual(
      [
        "file /ws/.yarn/releases/yarn-4.9.9.cjs",
        "file /ws/.yarn/plugins/p.cjs",
        // The plugin's spec is a package name, read as a path: a file nobody makes (only protects more).
        "file /ws/@yarnpkg/plugin-x",
        "file /ws/tools/yarn.js",
        "file /ws/tools/sh.sh",
        "file /ws/tools/pre.js",
        "file /ws/tools/esm.mjs",
        "file /ws/tools/hook.cjs",
        "file /ws/tools/s2.sh",
      ].sort(),
    );
    // A configuration another names (npm's userconfig/globalconfig) is read in turn.
    expect(refsOf({ "/ws/.npmrc": "userconfig=./cfg/u.npmrc\n", "/ws/cfg/u.npmrc": "node-options=--require ./p.js\n" })).toEqual(["file /ws/cfg/u.npmrc", "file /ws/p.js"]);
    // A YAML text the parser refuses is read line by line.
    expect(refsOf({ "/ws/.yarnrc.yml": "yarnPath: .yarn/releases/y.cjs\n  bad: [\n" })).toEqual(["file /ws/.yarn/releases/y.cjs"]);
  });

  it("reads .tool-versions path: versions only", () => {
    expect(refsOf({ "/ws/.tool-versions": "nodejs path:./tools/node 20.1.0 # pinned\npython 3.12 path:~/py\nruby ref:v3.3\n" }, { homes: [] })).toEqual(["dir /ws/tools/node"]);
  });

  it("in a home: what the shell's startup files source, with their own variables, and a startup file's link target", () => {
    const got = refsOf(
      {
        "/h/.bashrc": [
          'export NVM_DIR="$HOME/tools/nvm"',
          '[ -s "$NVM_DIR/nvm.sh" ] && \\. "$NVM_DIR/nvm.sh"',
          "if [ -f ~/dotfiles/aliases.sh ]; then . ~/dotfiles/aliases.sh; fi",
          '. "${HOME}/.cargo/env"',
          "",
        ].join("\n"),
        "/h/dotfiles/zshrc": "source ~/dotfiles/zsh/plugins.zsh\n",
        "/h/.zshrc": "",
      },
      { roots: ["/h"], homes: ["/h"], links: { "/h/.zshrc": "/h/dotfiles/zshrc" } },
    );
    for (const p of ["file /h/tools/nvm/nvm.sh", "file /h/dotfiles/aliases.sh", "file /h/.cargo/env", "file /h/dotfiles/zshrc"]) expect(got).toContain(p);
  });

  it("is bounded: files read, depth, references", async () => {
    // A chain of sources longer than the depth: the reader stops.
    const files: Record<string, string> = { "/ws/.envrc": "source_env s0.sh\n" };
    for (let i = 0; i < 50; i++) files[`/ws/s${i}.sh`] = `. ./s${i + 1}.sh\n`;
    const reads: string[] = [];
    protectedReferences(["/ws"], [], {
      read: (a) => {
        reads.push(a);
        return files[a];
      },
      real: (a) => a,
    });
    expect(reads.filter((r) => files[r] !== undefined).length).toBeLessThanOrEqual(REFERENCE_LIMITS.depth + 1);
    // Many operands: at most REFERENCE_LIMITS.references kept.
    const many = { "/ws/.envrc": `source_env ${Array.from({ length: 1000 }, (_, i) => `f${i}.sh`).join(" ")}\n` };
    // Past it the .envrc counts as cut (gitcfg22): its folder, the workspace, is protected whole.
    expect(refsOf(many).filter((r) => r !== "dir /ws").length).toBeLessThanOrEqual(REFERENCE_LIMITS.references);
    expect(refsOf(many)).toContain("dir /ws");
    // The asynchronous reader gives the same answer.
    const sync = refsOf({ "/ws/.envrc": "source_env a.sh\n", "/ws/a.sh": ". b.sh\n" });
    const asyncGot = (
      await protectedReferencesAsync(
        ["/ws"],
        [],
        async (a) => ({ "/ws/.envrc": "source_env a.sh\n", "/ws/a.sh": ". b.sh\n" })[a],
        async (a) => a,
      )
    )
      .map((r) => `${r.kind} ${r.path}`)
      .sort();
    expect(asyncGot).toEqual(sync);
  });
});

// Session 22 (gitcfg22): a configuration read only so far left what its unread part names writable
// (`source_env e.sh` after 64 KB of comments). Now the bound is 1 MiB, and a file cut there (or a chain
// deeper than the bound, more files or references than the bound) protects its whole folder.
describe("protectedReferences past its bounds", () => {
  const withCut = (files: Record<string, string>, roots = ["/ws"]) =>
    protectedReferences(roots, [], { read: (a, max) => files[a]?.slice(0, max), real: (a) => a })
      .map((r) => `${r.kind} ${r.path}${r.why === CUT_WHY ? " (cut)" : ""}`)
      .sort();

  it("reads a 70 KB .envrc to its end: the file sourced after the comments is protected, nothing is cut", () => {
    const got = withCut({ "/ws/.envrc": `${"# comment\n".repeat(7000)}source_env e.sh\n` });
    expect(got).toEqual(["file /ws/e.sh"]);
  });

  it("protects the whole folder of a configuration longer than the bound, the workspace itself for one at its top", () => {
    const long = `${"#".repeat(REFERENCE_LIMITS.bytes)}\nsource_env e.sh\n`;
    expect(withCut({ "/ws/.envrc": long })).toEqual(["dir /ws (cut)"]);
    // A sourced file in a folder: that folder, and what the .envrc names itself.
    expect(withCut({ "/ws/.envrc": "source_env big/b.sh\n", "/ws/big/b.sh": long })).toEqual(["dir /ws/big (cut)", "file /ws/big/b.sh"]);
    // Multi-byte text: the bound is in bytes (UTF-8), not characters.
    const wide = "é".repeat(REFERENCE_LIMITS.bytes / 2 + 1);
    expect(withCut({ "/ws/.envrc": "source_env w.sh\n", "/ws/w.sh": wide })).toContain("dir /ws (cut)");
    // Exactly at the bound: read whole.
    expect(withCut({ "/ws/.envrc": "source_env w.sh\n", "/ws/w.sh": "#".repeat(REFERENCE_LIMITS.bytes - 20) + "\n. ./x.sh\n" })).toEqual(["file /ws/w.sh", "file /ws/x.sh"]);
  });

  it("protects the folder of a file sourced deeper than the bound, and of the operands past the references bound", () => {
    const files: Record<string, string> = { "/ws/.envrc": "source_env d1/s.sh\n" };
    for (let i = 1; i <= 6; i++) files[`/ws/d${i}/s.sh`] = `. ../d${i + 1}/s.sh\n`;
    const got = withCut(files);
    expect(got).toContain(`dir /ws/d${REFERENCE_LIMITS.depth} (cut)`);
    expect(got).not.toContain(`dir /ws/d${REFERENCE_LIMITS.depth - 1} (cut)`);
    // More mentions than one file's bound (words shaped like files anywhere), and more references than the bound.
    const mentions = { "/ws/.envrc": "source_env lib/m.sh\n", "/ws/lib/m.sh": `echo ${Array.from({ length: 400 }, (_, i) => `f${i}.sh`).join(" ")}\n` };
    expect(withCut(mentions)).toContain("dir /ws/lib (cut)");
    const refs: Record<string, string> = { "/ws/.envrc": Array.from({ length: 4 }, (_, k) => `source_env l${k}/m.sh\n`).join("") };
    for (let k = 0; k < 4; k++) refs[`/ws/l${k}/m.sh`] = Array.from({ length: 100 }, (_, i) => `. ./f${i}.sh\n`).join("");
    const got2 = withCut(refs);
    expect(got2).toContain("dir /ws/l2 (cut)");
    expect(got2).not.toContain("dir /ws/l0 (cut)");
    // A configuration read at a workspace folder names files from its top: cut, the whole folder (not .vscode/).
    const settings = { "/ws/.vscode/settings.json": JSON.stringify({ "x.paths": Array.from({ length: 300 }, (_, i) => `tools/t${i}.js`) }) };
    expect(withCut(settings)).toContain("dir /ws (cut)");
    expect(withCut(settings)).not.toContain("dir /ws/.vscode (cut)");
    // A sourced file outside the workspace, cut: its folder, and every workspace folder below that folder.
    const big = "#".repeat(REFERENCE_LIMITS.bytes + 1);
    expect(withCut({ "/ws/.envrc": "source_env ../shared/b.sh\n", "/shared/b.sh": big })).toEqual(["dir /shared (cut)", "file /shared/b.sh"]);
    expect(withCut({ "/top/ws/.envrc": "source_env ../b.sh\n", "/top/b.sh": big }, ["/top/ws"])).toEqual(["dir /top (cut)", "dir /top/ws (cut)", "file /top/b.sh"]);
    // Within every bound nothing is cut.
    expect(withCut({ "/ws/.envrc": "source_env lib/m.sh\n", "/ws/lib/m.sh": "echo a.sh b/c.sh\n. ./d.sh\n" }).some((r) => r.endsWith("(cut)"))).toBe(false);
  });

  it("the asynchronous reader (the gate's) gives the same answer", async () => {
    const files: Record<string, string> = { "/ws/.envrc": "source_env d1/s.sh\nsource_env big/b.sh\n", "/ws/big/b.sh": "#".repeat(REFERENCE_LIMITS.bytes + 5) };
    for (let i = 1; i <= 6; i++) files[`/ws/d${i}/s.sh`] = `. ../d${i + 1}/s.sh\n`;
    const got = (
      await protectedReferencesAsync(
        ["/ws"],
        [],
        async (a, max) => files[a]?.slice(0, max),
        async (a) => a,
      )
    )
      .map((r) => `${r.kind} ${r.path}${r.why === CUT_WHY ? " (cut)" : ""}`)
      .sort();
    expect(got).toEqual(withCut(files));
    expect(got).toContain("dir /ws/big (cut)");
  });
});

describe("nodeReadTextSync", () => {
  it("does not block on a FIFO, reads only the start of a long file, and gives nothing for a folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-p21-read-"));
    try {
      execFileSync("mkfifo", [join(dir, "fifo")]);
      expect(nodeReadTextSync(join(dir, "fifo"), 1024)).toBeUndefined();
      writeFileSync(join(dir, "long"), "a".repeat(200_000));
      expect(nodeReadTextSync(join(dir, "long"), 1024)).toHaveLength(1024);
      expect(nodeReadTextSync(dir, 1024)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the gate", () => {
  it("reads the references again before each check of a change: a file an approved .envrc change sources asks from the next call on", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-p21-gate-")));
    try {
      const ws = join(dir, "ws");
      mkdirSync(join(ws, "env"), { recursive: true });
      writeFileSync(join(ws, ".envrc"), "export A=1\n");
      const gate = createPermissionGate({
        cwd: ws,
        home: join(dir, "home"),
        realPath: nodeRealPath,
        listDir: nodeListDir,
        readText: nodeReadText,
        loadSources: async () => [],
        shellWasm: () => loadShellWasm(),
      });
      const write = { tool: "write_file", permission: "Write", input: { file_path: "env/x.sh", content: "echo x\n" }, mutates: true };
      expect((await gate.check(write, "acceptEdits")).decision).toBe("allow");
      // The person approved this change of .envrc (a protected path) in the same session.
      writeFileSync(join(ws, ".envrc"), "export A=1\nsource_env env/x.sh\n");
      const d = await gate.check(write, "acceptEdits");
      expect(d.decision).toBe("ask");
      expect(d.reason).toContain("a file the folder's .envrc sources or loads");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
