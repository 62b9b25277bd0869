// ESLint (flat config): typescript-eslint's recommended rules plus the architecture's import
// boundaries as rules. `npm run lint` runs it together with the per-layer type checks.
//
// The layers (docs/architecture.md):
//   src/core      harness-neutral: imports only src/core and npm packages; no vscode, no Node built-ins
//   src/protocol  the panel's wire format: nothing from host/node/cli/webview; no vscode, no Node built-ins
//   src/node      the core's ports with Node: nothing from host/cli/webview; no vscode
//   src/cli       the command line: nothing from host/webview; no vscode (it runs outside VS Code)
//   src/host      the VS Code extension: core, node, protocol and demo (the panel's demo model);
//                 nothing from cli/bench/webview (the webview is its own bundle)
//   src/bench     the benchmarks (`yoke bench`): core, node, protocol, demo; nothing from host/cli/webview; no vscode
//   src/demo      the scripted model server: nothing from host/cli/bench/webview; no vscode
//   webview/      the panel (a browser): only src/protocol, its own files and npm packages
// No layer imports test/ or scripts/. Import circles (type-only ones too) are found by dpdm
// (`npm run lint:cycles`, dpdm.config.json), which `npm run lint` runs.
// Paths are resolved (import-x/no-restricted-paths), so `../../host/x` and `../../../src/host/x`
// are caught alike; module names (vscode, Node built-ins) are matched in every form: static and
// type-only imports, re-exports, import() and require().
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import importX, { createNodeResolver } from "eslint-plugin-import-x";
import globals from "globals";
import tseslint from "typescript-eslint";

const TS_FILES = ["**/*.ts", "**/*.mts", "**/*.cts"];
const JS_FILES = ["**/*.js", "**/*.mjs", "**/*.cjs"];

/** Zones: files under `target` may not import anything under `from`. */
const zone = (target, from, message) => ({ target, from, message });

/** Rules that forbid the module `name` in every import form. */
function forbidModule(name, why) {
  const message = `"${name}" ${why}`;
  const literal = `[value=${JSON.stringify(name)}]`;
  return {
    "no-restricted-imports": ["error", { paths: [{ name, message }] }],
    "no-restricted-syntax": [
      "error",
      { selector: `ImportExpression > Literal.source${literal}`, message },
      { selector: `CallExpression[callee.name="require"] > Literal.arguments${literal}`, message },
      { selector: `TSExternalModuleReference > Literal.expression${literal}`, message },
    ],
  };
}

const noVscode = (layer) => forbidModule("vscode", `is the VS Code API: ${layer} must not depend on it`);
const noNodeBuiltins = {
  // Covers `node:fs`, bare `fs`, `fs/promises`, in imports, import() and require().
  "import-x/no-nodejs-modules": "error",
};

export default defineConfig(
  {
    ignores: [
      "dist/**",
      "node_modules/**",
      ".cache/**",
      "coverage/**",
      "test-results/**",
      // Inputs of tests (sample projects, edit corpora): data, not our code.
      "test/fixtures/**",
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { "import-x": importX },
    settings: {
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".mts", ".cts", ".d.ts", ".d.mts", ".js", ".mjs", ".cjs", ".json"] })],
    },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: c.files ?? TS_FILES })),
  {
    files: TS_FILES,
    rules: {
      // TypeScript checks these itself (and knows the globals of each tsconfig).
      "no-undef": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
    },
  },
  {
    // Ambient declarations of globals are written `declare var`, as the TypeScript libs do.
    files: ["**/*.d.ts", "**/*.d.mts"],
    rules: { "no-var": "off" },
  },
  {
    files: JS_FILES,
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },

  // ---- Architecture boundaries ------------------------------------------------------------
  {
    files: ["src/core/**"],
    rules: {
      ...noVscode("src/core (harness-neutral)"),
      ...noNodeBuiltins,
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone(
              "./src/core",
              ["./src/node", "./src/host", "./src/cli", "./src/protocol", "./src/bench", "./src/demo"],
              "src/core is harness-neutral: the hosts implement its ports (src/core/ports.ts), never the reverse.",
            ),
            zone("./src/core", ["./webview", "./test", "./scripts"], "src/core imports only src/core and npm packages."),
          ],
        },
      ],
    },
  },
  {
    files: ["src/protocol/**"],
    rules: {
      ...noVscode("src/protocol (shared with the webview)"),
      ...noNodeBuiltins,
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone(
              "./src/protocol",
              ["./src/node", "./src/host", "./src/cli", "./src/bench", "./src/demo", "./webview"],
              "src/protocol is shared by the host and the webview: it may not depend on either side.",
            ),
            zone("./src/protocol", ["./test", "./scripts"], "src/protocol imports only src/core, itself and npm packages."),
          ],
        },
      ],
    },
  },
  {
    files: ["src/node/**"],
    rules: {
      ...noVscode("src/node (also used by the CLI, outside VS Code)"),
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone("./src/node", ["./src/host", "./src/cli", "./src/bench", "./src/demo", "./webview"], "src/node implements the core's ports with Node: it may use src/core, not the hosts."),
            zone("./src/node", ["./test", "./scripts"], "src/node imports only src/core, src/node and npm packages."),
          ],
        },
      ],
    },
  },
  {
    files: ["src/cli/**"],
    rules: {
      ...noVscode("src/cli (it runs outside VS Code)"),
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone("./src/cli", ["./src/host", "./webview"], "the CLI runs outside VS Code: it may not use src/host."),
            zone("./src/cli", ["./test", "./scripts"], "the CLI is shipped: it may not import tests or scripts."),
          ],
        },
      ],
    },
  },
  {
    files: ["src/host/**"],
    rules: {
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone(
              "./src/host",
              ["./src/cli", "./src/bench", "./webview"],
              "src/host is the VS Code extension: it builds on src/core, src/node, src/protocol (and src/demo's scripted model), never on the CLI, the benchmarks or the webview's code.",
            ),
            zone("./src/host", ["./test", "./scripts"], "the extension is shipped: it may not import tests or scripts."),
          ],
        },
      ],
      // Notifications and the output channel quote repository, model and MCP text: shown only
      // through src/host/shown.ts (escapes; link syntax as text; one entry per message).
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name=/^show(Information|Warning|Error)Message$/]",
          message: "Show notifications with notify() from src/host/shown.ts: it shows the text honestly (escapes, link syntax as text).",
        },
        {
          selector: "MemberExpression[property.name='createOutputChannel']",
          message: "Yoke has one output channel, made in extension.ts and wrapped by shownLog (src/host/shown.ts).",
        },
      ],
    },
  },
  { files: ["src/host/shown.ts"], rules: { "no-restricted-syntax": "off" } },
  {
    files: ["src/host/extension.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[property.name=/^show(Information|Warning|Error)Message$/]",
          message: "Show notifications with notify() from src/host/shown.ts: it shows the text honestly (escapes, link syntax as text).",
        },
      ],
    },
  },
  {
    files: ["src/bench/**"],
    rules: {
      ...noVscode("src/bench (the benchmarks run in `yoke bench`, outside VS Code)"),
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone(
              "./src/bench",
              ["./src/host", "./src/cli", "./webview"],
              "src/bench measures the core and src/node (the CLI loads it: `yoke bench`): it may not import src/host, src/cli or the webview.",
            ),
            zone("./src/bench", ["./test", "./scripts"], "src/bench is shipped in the CLI: it may not import tests or scripts."),
          ],
        },
      ],
    },
  },
  {
    files: ["src/demo/**"],
    rules: {
      ...noVscode("src/demo (the scripted model server also runs outside VS Code)"),
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            zone(
              "./src/demo",
              ["./src/host", "./src/cli", "./src/bench", "./webview"],
              "src/demo is the scripted model server the extension, the benchmarks and the tests start: it may not import them.",
            ),
            zone("./src/demo", ["./test", "./scripts"], "src/demo is shipped: it may not import tests or scripts."),
          ],
        },
      ],
    },
  },
  {
    files: ["webview/**"],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...noVscode("the webview (a browser page; it talks to the host through messages)"),
      ...noNodeBuiltins,
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            { ...zone("./webview", "./src", "the webview talks to the extension through src/protocol only."), except: ["./protocol"] },
            zone("./webview", ["./test", "./scripts"], "the webview imports only its own files, src/protocol and npm packages."),
          ],
        },
      ],
    },
  },
);
