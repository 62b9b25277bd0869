/**
 * The hook sandbox reads a hook's command line with the gate's parser (src/node/hook-words.ts) and
 * computes each word's value as bash expands it: compared here with real bash (`printf '%s\0'`)
 * on randomized words mixing quotes, escapes, `~`, `$VAR`, `${VAR}`, `$'…'` — and on the hook
 * lines users write (`python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/x.py"`, `cd ~/.claude/hooks && ./run.sh`…).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it, vi } from "vitest";

vi.setConfig({ testTimeout: 180_000 });
import { commandWords, expandWord, hookLinePaths, hookShellParser } from "../../../src/node/hook-words";

const ENV = { HOME: "/h/me", V1: "a b", V2: "/x/y", EMPTY: "", CLAUDE_PROJECT_DIR: "/w/proj dir", PATH: process.env.PATH ?? "/usr/bin:/bin" };

/** What real bash gives the words of `printf '%s\0' WORDS` (between two sentinels). */
function bashWords(words: string): string[] | undefined {
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", `printf '%s\\0' START ${words} END`], { env: ENV, encoding: "utf8", cwd: "/" });
  if (r.status !== 0) return undefined;
  const out = r.stdout.split("\0");
  return out.slice(1, out.lastIndexOf("END"));
}

/** A small seeded generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLAIN = "abcxyz019/._-:=,@%+";
const QUOTED = `abc /$"\\'*?[]{}~;&|<>()#\``;

function randomWord(r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const text = (chars: string, n: number) => Array.from({ length: 1 + Math.floor(r() * n) }, () => pick([...chars])).join("");
  const fragments: Array<() => string> = [
    () => text(PLAIN, 6),
    () => `'${text(QUOTED.replace("'", ""), 6)}'`,
    () => `"${Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick([text("abc /'*?~;&|", 4), "\\$", '\\"', "\\\\", "\\x", "$HOME", "${V1}", "$V2", "$UNSET", "$EMPTY"])).join("")}"`,
    () => pick(["\\ ", "\\*", "\\$", "\\'", '\\"', "\\\\", "\\a", "\\~"]),
    () => pick(["$V2", "${V2}", "$V1", "$UNSET", "$EMPTY", "${HOME}", "$HOME/.claude/hooks/x.py", "$CLAUDE_PROJECT_DIR"]),
    () => `$'${Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(["a", " ", "\\n", "\\t", "\\\\", "\\'", '"', "$"])).join("")}'`,
  ];
  const glob = () => pick(["*", "?", "{a,b}", "[ab]"]);
  let w = r() < 0.25 ? pick(["~", "~/", "~/.claude/hooks/", "~x", "~+"]) : "";
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) w += r() < 0.03 ? glob() : pick(fragments)();
  return w;
}

describe("a hook line's words, as bash expands them", () => {
  it("agree with real bash on randomized words (quotes, escapes, ~, $VAR, ${VAR}, $'…'); what cannot be known is said so", async () => {
    const parser = await hookShellParser();
    const r = rng(1814);
    let compared = 0;
    let unknown = 0;
    const failures: string[] = [];
    for (let n = 0; n < 200; n++) {
      const words = Array.from({ length: 1 + Math.floor(r() * 4) }, () => randomWord(r)).join(" ");
      const line = `printf '%s\\0' START ${words} END`;
      const ours = commandWords(parser, line, ENV);
      const theirs = bashWords(words);
      if (theirs === undefined || ours.length !== 1) continue;
      const values = ours[0]!.slice(3, -1);
      if (ours[0]!.some((v) => "unknown" in v)) {
        unknown++;
        continue;
      }
      compared++;
      const got = values.filter((v): v is { value: string } => "value" in v).map((v) => v.value);
      if (JSON.stringify(got) !== JSON.stringify(theirs)) failures.push(`${words}\n  ours: ${JSON.stringify(got)}\n  bash: ${JSON.stringify(theirs)}`);
    }
    expect(failures.slice(0, 5).join("\n")).toBe("");
    // Most inputs are decided (globs, ~user, split variables are the unknown ones).
    expect(compared, `compared ${compared}, unknown ${unknown}`).toBeGreaterThanOrEqual(80);
    expect(unknown, `compared ${compared}, unknown ${unknown}`).toBeGreaterThan(10);
  });

  it("says unknown for what bash decides at run time", () => {
    const env = { env: ENV };
    const unknown = (w: string) => "unknown" in expandWord(w, env);
    for (const w of ["$(echo x)", "`pwd`", '"$(pwd)"', "$1", "$@", "${V2:-x}", "~root/x", "$V1", "*.py", "{a,b}", "$PWD/x"]) expect(unknown(w), w).toBe(true);
    expect(expandWord('"$V1"', env)).toEqual({ value: "a b" });
    expect(expandWord("$UNSET", env)).toEqual({ none: true });
    expect(expandWord('"$UNSET"', env)).toEqual({ value: "" });
    // A variable the line assigns has its value from the line, not the environment.
    expect(expandWord("$V2/x", { env: ENV, assigned: new Set(["V2"]) })).toMatchObject({ unknown: expect.any(String) as unknown });
  });

  it("reads the hook lines users write", async () => {
    const parser = await hookShellParser();
    const paths = (line: string, cwd = "/w/proj dir") =>
      hookLinePaths(parser, line, { env: ENV, cwd, home: ENV.HOME })
        .paths.map((p) => `${p.written ? "W " : ""}${p.path}`)
        .filter((p) => p.includes("/h/me") || p.includes("/tmp"));
    expect(paths(`python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/x.py"`)).toEqual([]);
    expect(paths(`node ~/.claude/hooks/a.mjs`)).toEqual(["/h/me/.claude/hooks/a.mjs"]);
    expect(paths(`cd ~/.claude/hooks && ./run.sh --fast`)).toEqual(["/h/me/.claude/hooks", "/h/me/.claude/hooks/run.sh"]);
    expect(paths(`bash -c 'python3 ~/.claude/hooks/v.py "$HOME/.claude/hooks/cfg.json"'`)).toEqual(["/h/me/.claude/hooks/v.py", "/h/me/.claude/hooks/cfg.json"]);
    expect(paths(`LOG_DIR=~/.claude/logs FOO="$HOME/a b" uvx ruff format 2>>/tmp/ruff.err`)).toEqual(["/h/me/.claude/logs", "/h/me/a b", "W /tmp/ruff.err"]);
    expect(paths(`jq -r '.tool_input.command' | tee -a ~/.claude/bash.log >/dev/null`)).toEqual(["W /h/me/.claude/bash.log"]);
    expect(paths(`d=~/.claude/hooks; python3 $d/x.py`)).toEqual(["/h/me/.claude/hooks"]);
    expect(paths(`echo '~/.ssh/id_rsa' "\\$HOME/x"`)).toEqual([]);
  });
});
