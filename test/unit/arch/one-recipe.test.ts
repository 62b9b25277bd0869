// One session recipe (issue 20): src/node/session-recipe.ts is the only place that lists a session's
// mechanisms. The panel (src/host), the CLI (src/cli), the benchmarks (src/bench) and the demo
// (src/demo) get their sessions' options from it; none of them hands AgentSession.create/resume an
// `extensions` list of its own, or adds to the recipe's. Read with the TypeScript parser, so a
// comment or a string that mentions `extensions:` does not count and a multi-line call does.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../../..");
const FOLDERS = ["src/bench", "src/demo", "src/cli", "src/host"];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : /\.(ts|tsx)$/.test(name) ? [p] : [];
  });
}

const propName = (n: ts.ObjectLiteralElementLike): string | undefined => (n.name && (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name)) ? n.name.text : undefined);

/** Where a text hands a session a mechanism list of its own: one line per finding. */
export function handMadeExtensions(text: string, file = "file.ts"): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (n: ts.Node, what: string) => found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}: ${what}`);
  const isSessionCall = (n: ts.CallExpression) =>
    ts.isPropertyAccessExpression(n.expression) &&
    ts.isIdentifier(n.expression.expression) &&
    n.expression.expression.text === "AgentSession" &&
    (n.expression.name.text === "create" || n.expression.name.text === "resume");
  const visit = (n: ts.Node): void => {
    // AgentSession.create({... extensions ...}) / AgentSession.resume(id, {... extensions ...})
    if (ts.isCallExpression(n) && isSessionCall(n)) {
      for (const arg of n.arguments) {
        if (ts.isObjectLiteralExpression(arg) && arg.properties.some((p) => propName(p) === "extensions")) at(n, "AgentSession options with their own `extensions`");
      }
    }
    // { extensions: [...] } anywhere (options built first, passed later), also [...recipe.options.extensions, mine]
    if (ts.isPropertyAssignment(n) && propName(n) === "extensions" && ts.isArrayLiteralExpression(n.initializer)) at(n, "an `extensions` list");
    // options.extensions.push(x) / options.extensions = [...]
    if (ts.isPropertyAccessExpression(n) && n.name.text === "extensions") {
      const parent = n.parent;
      if (ts.isPropertyAccessExpression(parent) && ["push", "unshift", "splice"].includes(parent.name.text)) at(n, `extensions.${parent.name.text}(…)`);
      if (ts.isBinaryExpression(parent) && parent.left === n && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) at(n, "an assignment to `extensions`");
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

describe("one session recipe", () => {
  const files = FOLDERS.flatMap((f) => sources(join(root, f)));

  it("finds the sources of the hosts, the benchmarks and the demo", () => {
    const names = files.map((f) => relative(root, f));
    for (const f of ["src/bench/watchdog.ts", "src/bench/compaction.ts", "src/bench/guidance.ts", "src/cli/session-setup.ts", "src/host/session-controller.ts", "src/demo/main.ts"])
      expect(names).toContain(f);
  });

  it("no file of src/bench, src/demo, src/cli or src/host lists a session's mechanisms (the recipe does)", () => {
    const offenders = files.flatMap((f) => handMadeExtensions(readFileSync(f, "utf8"), relative(root, f)));
    expect(offenders).toEqual([]);
  });

  it("the benchmarks that run sessions build them with the recipe", () => {
    for (const f of ["src/bench/watchdog.ts", "src/bench/compaction.ts", "src/bench/guidance.ts"]) {
      expect(readFileSync(join(root, f), "utf8"), f).toMatch(/\bbench(Session|Recipe)\(/);
    }
    expect(readFileSync(join(root, "src/bench/recipe-session.ts"), "utf8")).toMatch(/\bsessionRecipe\(/);
  });

  it("the check itself sees a hand-made list, however it is written, and not the recipe's options", () => {
    const planted = [
      "await AgentSession.create({ store, provider, extensions: [guidance] });",
      "const s = await AgentSession.resume(id, {\n  ...opts,\n  extensions: mine,\n});",
      "const opts = { store, provider, extensions: [a, b] };\nawait AgentSession.create(opts);",
      "await AgentSession.create({ ...recipe.options, extensions: [...recipe.options.extensions, mine] });",
      "recipe.options.extensions.push(mine);",
      "recipe.options.extensions = [];",
    ];
    for (const p of planted) expect(handMadeExtensions(p), p).not.toEqual([]);
    const fine = [
      "await AgentSession.create(recipe.options);",
      "await AgentSession.create({ ...recipe.options, compaction: { ...recipe.options.compaction, contextWindow: 2_000_000 } });",
      "// AgentSession.create({ extensions: [x] }) in a comment\nconst doc = 'extensions: [a]';",
      "new SessionOptionsBuilder({ extensions: () => this.mcp.extensions() });",
    ];
    for (const f of fine) expect(handMadeExtensions(f), f).toEqual([]);
  });
});
