// Builds the bundles: extension (Node, vscode external), CLI (Node), webview (browser), the demo
// model. A "core guard" fails the build on any import of vscode from the core.
// Flags: --production (minified, no source maps: what the .vsix ships), --watch,
// --outdir=DIR (default dist; test/unit/arch/production-bundle.test.ts builds into a temp dir).
import * as esbuild from "esbuild";
import { isAscii } from "node:buffer";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";

const watch = process.argv.includes("--watch");
const production = process.argv.includes("--production");
const outdir = process.argv.find((a) => a.startsWith("--outdir="))?.slice("--outdir=".length) || "dist";

// The built-in tools' JSON Schemas, converted from their zod schemas now, by the same code a
// session runs (src/core/tools/schema-table-build.ts): a session then reads them from this table
// (src/core/tools/schema-table.ts) instead of building zod schemas and converting them at start-up.
// Defined as one string: esbuild inlines a string where it is used (an object define becomes a
// module every lazily initialised module of the bundle would initialise first).
async function builtinToolSchemas() {
  const built = await esbuild.build({
    entryPoints: ["src/core/tools/schema-table-build.ts"],
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "warning",
  });
  const mod = { exports: {} };
  new Function("module", "exports", "require", built.outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
  return mod.exports.builtinSchemaTable();
}

/** @type {import('esbuild').BuildOptions} */
const version = JSON.parse(readFileSync("package.json", "utf8")).version;
const common = {
  define: { YOKE_VERSION: JSON.stringify(version), YOKE_TOOL_SCHEMAS: JSON.stringify(JSON.stringify(await builtinToolSchemas())) },
  bundle: true,
  sourcemap: production ? false : "linked",
  minify: production,
  logLevel: "warning",
  target: "es2022",
};

// The Node bundles are CommonJS: `import("http")` becomes `require` in a promise. A real `import()`
// fails in the CLI's second and later runs on Node 20 — code V8 loads from a code cache
// (src/cli/compile-cache.ts) has lost its dynamic-import callback ("A dynamic import callback was
// not specified"): OpenTelemetry's exporter (otel.js) and the bench's lazy loads broke so.
const nodeCjs = { platform: "node", format: "cjs", supported: { "dynamic-import": false } };

const coreGuardPlugin = {
  name: "core-guard",
  setup(build) {
    build.onResolve({ filter: /^vscode$/ }, (args) => {
      if (/[\\/]src[\\/]core[\\/]/.test(args.importer)) {
        return { errors: [{ text: `src/core must not import "vscode" (imported by ${args.importer})` }] };
      }
      return { path: "vscode", external: true };
    });
  },
};

// The provider SDKs are bundles of their own (dist/anthropic-sdk.js, dist/openai-sdk.js), shared by
// the CLI and the extension's session bundle. src/core/providers imports them with import() on the
// first request, which this plugin points at the file next to the importing bundle: a command or a
// session compiles only the SDK it talks to, and only when it first calls the model.
const LAZY_SDKS = { "@anthropic-ai/sdk": "./anthropic-sdk.js", openai: "./openai-sdk.js" };
/** An import of `path` becomes a tiny module that require()s `file` next to the bundle (a require, not Node's ESM loader). */
const separateBundle = (path, file) => ({ path: file, namespace: "separate-bundle" });
const separateBundleLoader = (build) => {
  build.onLoad({ filter: /.*/, namespace: "separate-bundle" }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: "js" }));
  build.onResolve({ filter: /^\.\/[a-z-]+\.js$/, namespace: "separate-bundle" }, (args) => ({ path: args.path, external: true }));
};
const lazySdkPlugin = {
  name: "lazy-sdks",
  setup(build) {
    build.onResolve({ filter: /^(@anthropic-ai\/sdk|openai)$/ }, (args) => separateBundle(args.path, LAZY_SDKS[args.path]));
    separateBundleLoader(build);
  },
};

// Each `yoke` command is a bundle of its own (dist/cli-NAME.js for src/cli/commands/NAME.ts), which
// src/cli/main.ts (dist/cli.js, small) requires when the command runs: `yoke --version` or `yoke
// sessions` never compiles the agent, and `yoke run` compiles only what a session needs.
const COMMANDS = readdirSync("src/cli/commands")
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3));
const commandBundlesPlugin = {
  name: "command-bundles",
  setup(build) {
    build.onResolve({ filter: /^\.\/commands\/[a-z-]+$/ }, (args) =>
      /[\\/]src[\\/]cli[\\/]main\.ts$/.test(args.importer) ? separateBundle(args.path, `./cli-${args.path.slice("./commands/".length)}.js`) : undefined,
    );
    separateBundleLoader(build);
  },
};
const resolveFromHere = createRequire(import.meta.url).resolve;

// esbuild escapes every non-ASCII character of the code, but keeps a few comments as written (an
// em dash, an ellipsis). One such character makes Node decode the whole bundle as UTF-8 into a
// two-byte string, and V8 scan two-byte source: for cli-run.js, 30–50 ms of CPU on every start
// instead of a few. This rewrites those characters (comments only, by the rule above) as ASCII,
// one UTF-16 unit for one, so the source maps' columns still hold.
const ASCII_FOR = { "\u2014": "-", "\u2013": "-", "\u2026": ".", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2192": ">", "\u00d7": "x" };
const asciiOutputPlugin = {
  name: "ascii-output",
  setup(build) {
    build.onEnd((result) => {
      for (const file of Object.keys(result.metafile?.outputs ?? {})) {
        if (!file.endsWith(".js")) continue;
        const bytes = readFileSync(file);
        if (isAscii(bytes)) continue;
        writeFileSync(
          file,
          bytes.toString("utf8").replace(/[\u0080-\u{10ffff}]/gu, (c) => (ASCII_FOR[c] ?? "?").padEnd(c.length, "?")),
        );
      }
    });
  },
};

// zod's namespace (`z`, and `z.core`) re-exports `locales`, the error messages of every language
// (400 KB, half of zod): a namespace object keeps them all in a bundle. Yoke speaks English only
// (src/core/settings/keys.ts configures `en`, full zod's default), so the bundles' locales module
// is English alone: `z.locales.en` is there, no other language is.
const zodEnglishOnlyPlugin = {
  name: "zod-english-only",
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: `export { default as en } from "./en.js";\n`, loader: "js" }));
  },
};

// Modules whose loading costs milliseconds when a bundle loads, for what a session rarely needs
// before its first request: marked's lexer builds its regular expressions at load (4-6 ms of CPU),
// and only a CLAUDE.md or Claude rule with an HTML comment needs it (src/core/guidance/html-comments.ts);
// node:fs/promises brings eight of Node's internal modules, readline's among them (2-6 ms), for
// writes and a few commands (a session's first reads use node:fs's callbacks: src/node/node-fs.ts);
// node:readline/promises is for questions on a terminal. An import of one resolves to a facade
// whose exports are getters: the module loads on the first use of an export (esbuild initialises a
// module reached by require() when it is required; Node's built-ins load when required). The
// sources keep a plain static import; tests run them as they are.
const builtinExports = (name) => Object.keys(createRequire(import.meta.url)(name));
const LAZY_PACKAGES = {
  marked: Object.keys(await import("marked")),
  "node:fs/promises": builtinExports("node:fs/promises"),
  "node:readline/promises": builtinExports("node:readline/promises"),
};
const lazyPackagesPlugin = {
  name: "lazy-packages",
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(LAZY_PACKAGES).join("|").replace(/[/]/g, "\\/")})$`);
    // The facade's own require() resolves as usual.
    build.onResolve({ filter }, (args) => (args.namespace === "lazy-package" ? undefined : { path: args.path, namespace: "lazy-package" }));
    build.onLoad({ filter: /.*/, namespace: "lazy-package" }, (args) => ({
      contents: [
        "let loaded;",
        `const load = () => (loaded ??= require(${JSON.stringify(args.path)}));`,
        `module.exports = { ${LAZY_PACKAGES[args.path].map((name) => `get ${name}() { return load().${name}; }`).join(", ")} };`,
      ].join("\n"),
      loader: "js",
      resolveDir: process.cwd(),
    }));
  },
};

// web-tree-sitter's ESM build needs import.meta.url, which a CJS bundle lacks: use its CJS build.
const nodeAliases = { "web-tree-sitter": "./node_modules/web-tree-sitter/tree-sitter.cjs" };

const targets = [
  {
    ...common,
    // session.js (the agent core, SDKs) is required on first use so activation stays light;
    // otel.js (the OpenTelemetry SDK, also the CLI's) only when the telemetry setting is on.
    // mcp-sdk.js (below, shared with the CLI) when the first MCP server starts.
    entryPoints: { extension: "src/host/extension.ts", session: "src/host/session-controller.ts", otel: "src/node/telemetry/otlp.ts" },
    outdir,
    ...nodeCjs,
    external: ["vscode", "@lydell/node-pty"],
    plugins: [coreGuardPlugin, lazySdkPlugin, lazyPackagesPlugin, zodEnglishOnlyPlugin],
    alias: nodeAliases,
  },
  {
    ...common,
    // mcp-sdk.js (the MCP SDK) is required when the first MCP server starts (src/node/mcp/load-sdk.ts).
    entryPoints: { cli: "src/cli/main.ts", "mcp-sdk": "src/node/mcp/sdk.ts", ...Object.fromEntries(COMMANDS.map((c) => [`cli-${c}`, `src/cli/commands/${c}.ts`])) },
    outdir,
    ...nodeCjs,
    banner: { js: "#!/usr/bin/env node" },
    // Native module with prebuilt binaries: loaded from node_modules at run time (commands fall back to pipes without it).
    external: ["@lydell/node-pty"],
    plugins: [coreGuardPlugin, lazySdkPlugin, commandBundlesPlugin, lazyPackagesPlugin, zodEnglishOnlyPlugin],
    alias: nodeAliases,
  },
  {
    ...common,
    // The provider SDKs, each loaded by src/core/providers on its first request (lazySdkPlugin above).
    // Anthropic's is its client with the Messages resource only (src/core/providers/anthropic-sdk-entry.ts).
    entryPoints: { "anthropic-sdk": "src/core/providers/anthropic-sdk-entry.ts", "openai-sdk": resolveFromHere("openai") },
    outdir,
    ...nodeCjs,
    // Their `Headers` and `FormData` without Node's undici, and `globalThis.ReadableStream` asked of
    // a request's body without making Node's web streams (src/node/http-client/sdk-globals.ts).
    inject: ["src/node/http-client/sdk-globals.ts"],
    define: { ...common.define, "globalThis.ReadableStream": "__yokeReadableStream" },
  },
  {
    ...common,
    // The differential checker's own entry (scripts/diffcheck.mjs).
    entryPoints: { diffcheck: "src/bench/diffcheck/cli.ts" },
    outdir,
    ...nodeCjs,
    plugins: [lazySdkPlugin, zodEnglishOnlyPlugin],
    alias: nodeAliases,
  },
  {
    ...common,
    entryPoints: { "scripted-llm": "src/demo/main.ts" },
    outdir,
    ...nodeCjs,
  },
  {
    ...common,
    entryPoints: { webview: "webview/main.ts" },
    outdir,
    platform: "browser",
    format: "iife",
    loader: { ".css": "css" },
  },
];

mkdirSync(outdir, { recursive: true });
// The webview's icon font is served from dist so localResourceRoots can stay {dist, media}.
cpSync("node_modules/@vscode/codicons/dist/codicon.css", `${outdir}/codicon.css`);
cpSync("node_modules/@vscode/codicons/dist/codicon.ttf", `${outdir}/codicon.ttf`);
// The shell parser of the permission engine (src/node/tree-sitter-wasm.ts looks next to the bundle).
cpSync("node_modules/web-tree-sitter/tree-sitter.wasm", `${outdir}/tree-sitter.wasm`);
cpSync("node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm", `${outdir}/tree-sitter-bash.wasm`);
// The parse check of tolerant edits (src/core/edit/syntax-check.ts): each grammar read on first use.
for (const g of ["typescript", "tsx", "javascript", "python", "go", "rust", "java", "css", "ruby", "php", "c-sharp", "cpp", "powershell"]) {
  cpSync(`node_modules/@vscode/tree-sitter-wasm/wasm/tree-sitter-${g}.wasm`, `${outdir}/tree-sitter-${g}.wasm`);
}

// The built-in lessons' front matter, parsed now by the same code a session runs
// (src/core/guidance/frontmatter.ts), keyed by its YAML text: sessions then skip the YAML parser
// for them (src/node/guidance-files.ts reads this file). Only what survives JSON as it is.
async function writeLessonsFrontmatter() {
  const built = await esbuild.build({ entryPoints: ["src/core/guidance/frontmatter.ts"], bundle: true, platform: "node", format: "cjs", write: false, logLevel: "warning" });
  const mod = { exports: {} };
  new Function("module", "exports", "require", built.outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
  const { parseFrontmatter, frontmatterYaml } = mod.exports;
  const table = {};
  for (const file of readdirSync("lessons", { recursive: true })) {
    if (!/\.md$/i.test(file) || /(^|\/)readme\.md$/i.test(file)) continue;
    const raw = readFileSync(`lessons/${file}`, "utf8");
    const yaml = frontmatterYaml(raw);
    const fm = parseFrontmatter(raw);
    if (yaml !== undefined && !fm.problem && isDeepStrictEqual(fm.data, JSON.parse(JSON.stringify(fm.data)))) table[yaml] = fm.data;
  }
  writeFileSync(`${outdir}/lessons-frontmatter.json`, `${JSON.stringify(table)}\n`);
}
await writeLessonsFrontmatter();

// Every bundle ASCII-only (asciiOutputPlugin above; it reads the metafile for the output's names).
for (const t of targets) Object.assign(t, { metafile: true, plugins: [...(t.plugins ?? []), asciiOutputPlugin] });

if (watch) {
  const contexts = await Promise.all(targets.map((t) => esbuild.context(t)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log("[esbuild] watching");
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
