/** Machine checks of a task's outcome: the files and the tests, run with the real tools (node, python3, bash). */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Check = (dir: string) => Promise<string | undefined>;

export function sh(dir: string, command: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", command], { cwd: dir, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code as number) : 1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

const tail = (s: string) => s.trim().split("\n").slice(-6).join(" | ").slice(0, 400);

/** Passes when the command exits 0. */
export const passes =
  (command: string): Check =>
  async (dir) => {
    const r = await sh(dir, command);
    return r.code === 0 ? undefined : `\`${command}\` exited ${r.code}: ${tail(r.out)}`;
  };

export const tsTests = (...files: string[]): Check => passes(`bash scripts/test.sh ts ${files.join(" ")}`);
export const pyTests = (...ids: string[]): Check => passes(`bash scripts/test.sh py ${ids.join(" ")}`);

/** Writes a test the policy never saw (into the copy, after the session), then runs it. */
export const hiddenTs =
  (name: string, source: string): Check =>
  async (dir) => {
    writeFileSync(join(dir, "test", name), source);
    return tsTests(`test/${name}`)(dir);
  };

export const hiddenPy =
  (name: string, source: string): Check =>
  async (dir) => {
    writeFileSync(join(dir, "tools", "forecast", name), source);
    return pyTests(`tools.forecast.${name.replace(/\.py$/, "")}`)(dir);
  };

const read = (dir: string, file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : undefined);

export const contains =
  (file: string, ...texts: string[]): Check =>
  async (dir) => {
    const text = read(dir, file);
    if (text === undefined) return `${file} does not exist`;
    const missing = texts.filter((t) => !text.includes(t));
    return missing.length ? `${file} lacks ${missing.map((m) => JSON.stringify(m)).join(", ")}` : undefined;
  };

export const lacks =
  (file: string, ...texts: string[]): Check =>
  async (dir) => {
    const text = read(dir, file);
    if (text === undefined) return `${file} does not exist`;
    const found = texts.filter((t) => text.includes(t));
    return found.length ? `${file} still has ${found.map((m) => JSON.stringify(m)).join(", ")}` : undefined;
  };

function walkFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel))) {
    if (name === "node_modules" || name === "__pycache__" || name === ".git") continue;
    const p = rel ? `${rel}/${name}` : name;
    if (statSync(join(dir, p)).isDirectory()) out.push(...walkFiles(dir, p));
    else out.push(p);
  }
  return out;
}

/** No file of the repository (outside node_modules) has the word any more. */
export const nowhere =
  (word: RegExp): Check =>
  async (dir) => {
    const hits = walkFiles(dir).filter((f) => word.test(readFileSync(join(dir, f), "utf8")));
    return hits.length ? `${word} is still in ${hits.join(", ")}` : undefined;
  };

/** Only these files differ from the original sample repository (nothing else was touched). */
export const onlyChanged =
  (original: string, ...files: string[]): Check =>
  async (dir) => {
    const now = new Set(walkFiles(dir));
    const before = new Set(walkFiles(original));
    const changed = [...new Set([...now, ...before])]
      .filter((f) => !files.includes(f) && !f.startsWith("test/__check") && !f.startsWith("tools/forecast/test__check"))
      .filter((f) => read(dir, f) !== read(original, f));
    return changed.length ? `unexpected changes in ${changed.join(", ")}` : undefined;
  };

/** Every check, in order; the first failure. */
export const all =
  (...checks: Check[]): Check =>
  async (dir) => {
    for (const c of checks) {
      const r = await c(dir);
      if (r) return r;
    }
    return undefined;
  };
