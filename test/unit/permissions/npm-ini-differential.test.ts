/**
 * The npm configuration reader (core/permissions/npm-config.ts, `ini.parse` since session 19) against the
 * REAL npm 11: for generated `.npmrc` texts full of ini's quirks (quoted and escaped keys, `\u` escapes,
 * `;`/`#` comments, sections, `key[]` arrays, duplicate keys, CRLF and CR, a BOM, `${VAR}` and `${VAR?}` in
 * keys and values, keys in other cases or spellings), `npm config get editor shell script-shell
 * --userconfig F` with a controlled environment must report exactly what Yoke reads from F: the file's
 * value when it sets one, npm's default otherwise. The one place Yoke is stricter on purpose: a value naming
 * an unset `${VAR}` (npm hands it on as written) is "not known" to Yoke, and the command asks.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { npmSettingValues } from "../../../src/core/permissions/npm-config";
import { readSmallText } from "../../../src/node/npm-config";

const SETTINGS = ["editor", "shell", "script-shell"] as const;
/** npm's defaults in the test's environment (no EDITOR, VISUAL, SHELL): what Yoke adds as defaults too. */
const NPM_DEFAULT: Record<string, string> = { editor: "vi", shell: "sh", "script-shell": "null" };
const YOKE_DEFAULTS: Record<string, string[]> = { editor: ["vi"], shell: ["sh"], "script-shell": [] };

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Spellings of a key as ini may read it (some are the setting, some are not — npm compares keys exactly). */
const keySpellings = (k: string): string[] => [
  k,
  ` ${k} `,
  `"${k}"`,
  `'${k}'`,
  `"\\u00${k.charCodeAt(0).toString(16)}${k.slice(1)}"`,
  `${k} ;c`,
  `${k}#c`,
  `${k}[]`,
  k.toUpperCase(),
  k.replace(/-/g, "_"),
  `${k}s`,
  "${K_" + k.replace(/-/g, "_").toUpperCase() + "}",
  "${K_" + k.replace(/-/g, "_").toUpperCase() + "?}",
  `"${k}`,
];
const VALUES = [
  "cat .env",
  "  cat   .env  ",
  '"cat .env"',
  "'cat .env'",
  "'\"cat .env\"'",
  '"\\u0063at .env"',
  '"cat\\q .env"',
  "cat .env ; tail",
  "cat .env # tail",
  "cat .e\\;nv",
  "cat .e\\#nv",
  "cat \\\\.env",
  "cat ${EV}",
  "cat ${EV?}",
  "cat ${NOPE?}.env",
  "cat ${NOPE}",
  "cat \\${EV}",
  "cat \\\\${EV}",
  "true",
  "null",
  "a=b",
  "",
  '"a;b"',
  "'a#b'",
  "rm -rf src",
];
const FILLERS = ["; comment", "# comment", "[sect]", "[a.b]", "", "   ", "other=1", "editors=x", "[editor]", "x[]=1", "__proto__=x", "[__proto__]"];
const EOLS = ["\n", "\r\n", "\r", "\n\n"];

function generate(seed: number, count: number): string[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const eol = pick(EOLS);
    const lines: string[] = [];
    const n = 1 + Math.floor(r() * 5);
    for (let j = 0; j < n; j++) {
      if (r() < 0.3) lines.push(pick(FILLERS));
      else {
        const key = pick(keySpellings(pick(SETTINGS)));
        lines.push(r() < 0.05 ? key : `${key}${pick(["=", " = ", "  =", "= "])}${pick(VALUES)}`);
      }
    }
    texts.push(`${r() < 0.15 ? "\ufeff" : ""}${lines.join(eol)}${r() < 0.8 ? eol : ""}`);
  }
  return texts;
}

const FIXED = [
  "editor[]=a\neditor[]=b\n",
  "editor=a\neditor=b\n",
  "editor=a\r\neditor=b\r\n",
  "\ufeffeditor=bom\n",
  "${K_EDITOR}=kk\n",
  "[x]\neditor=in-section\n",
  "editor\n",
  "[editor.x]\ny=1\n",
  "script_shell=z\nEDITOR=zz\n",
  'editor = "cat .env" ; x\n',
  "editor=${NOPE}\n",
];

const haveNpm = spawnSync("npm", ["--version"], { encoding: "utf8" }).status === 0;

describe("npm's configuration read as the real npm 11 reads it", () => {
  it.skipIf(!haveNpm)(
    "reports for every generated .npmrc the editor, shell and script-shell npm config get reports",
    async () => {
      const seed = Number(process.env.YOKE_NPMRC_DIFF_SEED ?? 20261906);
      const texts = [...FIXED, ...generate(seed, Number(process.env.YOKE_NPMRC_DIFF_N ?? 80))];
      const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-npmrc-diff-")));
      const home = join(root, "home");
      mkdirSync(home);
      writeFileSync(join(root, "package.json"), "{}\n");
      const env = { PATH: "/usr/bin:/bin", HOME: home, EV: ".env", K_EDITOR: "editor", K_SHELL: "shell", K_SCRIPT_SHELL: "script-shell" };
      let compared = 0;
      let stricter = 0;
      let refused = 0;
      const read = (file: string) => npmSettingValues(SETTINGS, root, { readText: readSmallText, env, home, globalFiles: ["/etc/npmrc", "/usr/etc/npmrc"] }, { lineUserconfig: file });
      const oursUnknown = (v: Awaited<ReturnType<typeof read>>) => v.unknown.some((u) => /value is not a string/.test(u));
      for (const [i, text] of texts.entries()) {
        const file = join(root, `u${i}.rc`);
        writeFileSync(file, text);
        const real = spawnSync("npm", ["config", "get", ...SETTINGS, "--userconfig", file], { cwd: root, env, encoding: "utf8" });
        if (real.status !== 0) {
          // npm refuses the file (a section named like a setting makes it an object: npm exits 1 before any
          // command, `npm edit` too). Yoke must not read a program from it either: it asks.
          expect(oursUnknown(await read(file)), JSON.stringify(text)).toBe(true);
          refused++;
          continue;
        }
        const reported = Object.fromEntries(
          real.stdout
            .split("\n")
            .filter((l) => l.includes("="))
            .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
        );
        const ours = await read(file);
        for (const s of SETTINGS) {
          const npmValue = reported[s]?.trim();
          const what = `${JSON.stringify(text)} ${s}: npm ${JSON.stringify(npmValue)}, Yoke ${JSON.stringify(ours.values[s])} ${JSON.stringify(ours.unknown)}`;
          expect(npmValue, what).toBeDefined();
          if (ours.unknown.some((u) => u.includes(`its ${s} value names a variable`))) {
            // An unset ${VAR} npm keeps as written: Yoke does not guess it, the command asks.
            expect(npmValue, what).toMatch(/\$\{NOPE\}/);
            stricter++;
            continue;
          }
          // ini's `true`/`false`/`null`/empty: no program for npm to run (its default is not used either).
          const fromFile = npmValue === NPM_DEFAULT[s] || ["true", "false", "null", ""].includes(npmValue!) ? [] : [npmValue!];
          const expected = [...fromFile, ...YOKE_DEFAULTS[s]!];
          // An array setting (`editor[]=`): npm prints its items joined with `,`; Yoke reads the items too.
          const extra = ours.values[s]!.filter((v) => !expected.includes(v));
          const arrayItems = /(^|[\r\n])[^=\r\n]*\[\]/.test(text) ? npmValue!.split(",").map((v) => v.trim()) : [];
          expect(
            extra.filter((v) => !arrayItems.includes(v)),
            what,
          ).toEqual([]);
          for (const v of expected) expect(ours.values[s], what).toContain(v);
          compared++;
        }
      }
      // The run compared real values (not only defaults) and the generator reached the stricter case.
      expect(compared).toBeGreaterThan(texts.length * 2);
      expect(stricter).toBeGreaterThan(0);
      console.log(`npm ini differential: ${texts.length} texts, ${compared} settings equal, ${stricter} unset-variable asks, ${refused} files npm refuses`);
    },
    600_000,
  );
});
