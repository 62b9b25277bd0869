// What the CLI's bundles are made of, for start-up (issue 19, item 4; docs/benchmarks.md, "Start-up"):
// built as `npm run build` builds them, into a private folder.
import { spawnSync } from "node:child_process";
import { isAscii } from "node:buffer";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addKnownFrontmatter, frontmatterYaml, parseFrontmatter } from "../../../src/core/guidance/frontmatter";

const root = join(__dirname, "../../..");

describe("the CLI's bundles", () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "yoke-cli-bundles-"));
    const r = spawnSync(process.execPath, ["esbuild.mjs", `--outdir=${out}`], { cwd: root, encoding: "utf8" });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  }, 180_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("are ASCII only, comments too (Node then reads them as one-byte strings)", () => {
    const files = readdirSync(out).filter((f) => f.endsWith(".js"));
    expect(files).toContain("cli-run.js");
    expect(files.filter((f) => !isAscii(readFileSync(join(out, f))))).toEqual([]);
    // The comment that had an em dash is still there, with a hyphen.
    expect(readFileSync(join(out, "cli-run.js"), "utf8")).toContain("nothing is a multiple of zero - the number branch");
  });

  it("carry neither the panel protocol's schemas (the CLI prints its question labels from src/protocol/choices.ts) nor a tool's zod-to-JSON conversion at start-up", () => {
    for (const f of ["cli-run.js", "cli-acp.js"]) {
      const text = readFileSync(join(out, f), "utf8");
      expect(text, f).not.toContain("// src/protocol/messages.ts");
      expect(text, f).toContain("// src/protocol/choices.ts");
    }
    // The built-in tools' JSON Schemas are in the bundle as the build's table (src/core/tools/schema-table.ts).
    expect(readFileSync(join(out, "cli-run.js"), "utf8")).toContain(String.raw`JSON.parse('{"read_file":"{\\"type\\":\\"object\\"`);
  });

  it("run marked's module body only when its lexer is first used (esbuild.mjs lazyPackagesPlugin)", () => {
    // marked builds its regular expressions when it loads: 4-6 ms of every start, for a CLAUDE.md
    // with an HTML comment. The one call of its initialiser is in the facade's load(); the
    // comments reach the model stripped (test/integration/redr-claude-md-comments.test.ts).
    for (const f of ["cli-run.js", "session.js"]) {
      const lines = readFileSync(join(out, f), "utf8").split("\n");
      const inits = lines.filter((l) => /\binit_marked\w*\(\)/.test(l));
      expect(inits, f).toHaveLength(1);
      expect(inits[0], f).toMatch(/^\s*var load\w* = \(\) => loaded\w* \?\?= \(init_marked\w*\(\)/);
    }
  });

  it("carry zod's English messages only", () => {
    const text = readFileSync(join(out, "cli-run.js"), "utf8");
    expect(text).toContain("zod/v4/locales/en.js");
    expect(text).not.toMatch(/zod\/v4\/locales\/(?!en\.js|index\.js)[a-zA-Z-]+\.js/);
  });

  it("load an Anthropic SDK of the client and its Messages resource, with the SDK's error classes", () => {
    const file = join(out, "anthropic-sdk.js");
    expect(readFileSync(file).length).toBeLessThan(600_000);
    const r = spawnSync(
      process.execPath,
      [
        "-e",
        `const Sdk = require(process.argv[1]).default;
         const c = new Sdk({ apiKey: "k", baseURL: "http://127.0.0.1:9", maxRetries: 0 });
         const names = ["APIError", "APIConnectionError", "APIConnectionTimeoutError", "APIUserAbortError", "RateLimitError"];
         console.log(JSON.stringify({ create: typeof c.messages.create, errors: names.filter((n) => typeof Sdk[n] === "function"), sub: new Sdk.RateLimitError(429, {}, "m", new Headers()) instanceof Sdk.APIError, beta: "beta" in c }));`,
        file,
      ],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      create: "function",
      errors: ["APIError", "APIConnectionError", "APIConnectionTimeoutError", "APIUserAbortError", "RateLimitError"],
      sub: true,
      beta: false,
    });
  });

  it("ship the built-in lessons' front matter parsed, which gives what the YAML parser gives", () => {
    const table = JSON.parse(readFileSync(join(out, "lessons-frontmatter.json"), "utf8")) as Record<string, unknown>;
    const lessons = readdirSync(join(root, "lessons"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md") && !/(^|\/)README\.md$/.test(f));
    expect(lessons.length).toBeGreaterThan(5);
    const parsed = lessons.map((f) => {
      const raw = readFileSync(join(root, "lessons", f), "utf8");
      const yaml = frontmatterYaml(raw)!;
      expect(Object.keys(table), f).toContain(yaml);
      const fm = parseFrontmatter(raw); // by the YAML parser: nothing is known yet in this process
      expect(table[yaml], f).toEqual(fm.data);
      return { raw, fm };
    });
    addKnownFrontmatter(table);
    for (const { raw, fm } of parsed) {
      const known = parseFrontmatter(raw);
      expect(known).toEqual(fm);
      (known.data as { match?: unknown }).match = "changed by a caller";
      expect(parseFrontmatter(raw)).toEqual(fm); // each use gets its own copy
    }
    // Another text is parsed, problems included.
    expect(parseFrontmatter("---\nmatch:\n  - [\n---\nbody").problem?.message).toMatch(/invalid YAML frontmatter/);
  });
});
