/**
 * Background agents (issue 24): the time to start one on a repository of 10 k and 100 k files,
 * against `git worktree add` alone on the same repository — the floor any worktree-based agent
 * pays. Three measures per size, best of `YOKE_BENCH_AGENTS_ROUNDS` (default 3):
 * - `git worktree add -b BRANCH PATH HEAD` alone;
 * - Yoke's worktree creation (src/node/background/worktree.ts: the repository check, the
 *   worktree, the record), without and with carrying the user's uncommitted changes
 *   (`--carry all`: 10 modified files and 5 untracked ones);
 * - `yoke run --background` as the user runs it, until it has printed the agent's id (Node's
 *   start, settings, trust, the worktree, the agent's process spawned), with its own HOME.
 * Each worktree is removed again with `git worktree remove` and `git branch -D` between rounds.
 * Repository sizes come from `YOKE_BENCH_AGENTS_SIZES` (default `10000,100000`).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { createAgentWorktree, removeAgentWorktree } from "../node/background/worktree";
import { generateScaleRepo, SCALE_GIT_ENV } from "./scale-repo";
import type { BenchMetric, BenchSection } from "./types";

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const round1 = (n: number) => Math.round(n * 10) / 10;

function cliPath(): string | undefined {
  const name = "cli.js";
  return [path.join(path.dirname(process.argv[1] ?? ""), name), path.join(__dirname, name)].find((p) => existsSync(p));
}

export async function bench(): Promise<BenchSection> {
  const sizes = (process.env.YOKE_BENCH_AGENTS_SIZES ?? "10000,100000").split(",").map(Number);
  const rounds = Number(process.env.YOKE_BENCH_AGENTS_ROUNDS ?? 3);
  const cli = cliPath();
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "yoke-bench-agents-")));
  const home = path.join(root, "home");
  mkdirSync(home);
  const prevHome = process.env.HOME;
  const prevData = process.env.XDG_DATA_HOME;
  const metrics: BenchMetric[] = [];
  const rows: string[] = [];
  try {
    // Yoke's own worktrees go under this HOME (~/.local/share/yoke/worktrees), as the CLI's do.
    process.env.HOME = home;
    delete process.env.XDG_DATA_HOME;
    for (const size of sizes) {
      const label = size >= 1000 ? `${Math.round(size / 1000)}k` : String(size);
      const repo = await generateScaleRepo(path.join(root, `repo-${label}`), size);
      const env = { ...process.env, ...SCALE_GIT_ENV };
      const files = repo.files;
      let n = 0;
      // Uncommitted work to carry: 10 modified tracked files, 5 new ones (the other measures ignore it).
      const tracked = execFileSync("git", ["ls-files"], { cwd: repo.root, encoding: "utf8", maxBuffer: 1 << 28 })
        .split("\n")
        .filter((f) => f.endsWith(".ts"))
        .slice(0, 10);
      for (const f of tracked) writeFileSync(path.join(repo.root, f), `// changed\n`);
      for (let i = 0; i < 5; i++) writeFileSync(path.join(repo.root, `untracked-${i}.ts`), `export const u${i} = ${i};\n`);
      const gitAlone = async () => {
        const wt = path.join(root, `plain-${label}-${n}`);
        const branch = `bench/plain-${n++}`;
        const t0 = process.hrtime.bigint();
        execFileSync("git", ["worktree", "add", "--quiet", "-b", branch, wt, "HEAD"], { cwd: repo.root, env, stdio: "ignore" });
        const t = ms(t0);
        execFileSync("git", ["worktree", "remove", "--force", wt], { cwd: repo.root, env, stdio: "ignore" });
        execFileSync("git", ["branch", "-D", branch], { cwd: repo.root, env, stdio: "ignore" });
        return t;
      };
      const yokeCreate = async (carry: "none" | "all") => {
        const id = `b${(n++).toString(16).padStart(7, "0")}`;
        const t0 = process.hrtime.bigint();
        const wt = await createAgentWorktree({ workspace: repo.root, id, task: "bench task", carry, home });
        const t = ms(t0);
        await removeAgentWorktree(wt.top, wt.worktree, wt.branch);
        return t;
      };
      const cliStart = async () => {
        const t0 = process.hrtime.bigint();
        // A closed port: the agent's process fails at its first request; only the start is timed.
        const r = spawnSync(
          process.execPath,
          [cli!, "run", "--background", "--trust", "--provider", "openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--cwd", repo.root, "bench task"],
          {
            env: { ...process.env, HOME: home },
            encoding: "utf8",
          },
        );
        const t = ms(t0);
        const id = r.stdout.trim();
        if (r.status !== 0 || !/^[a-f0-9]{8}$/.test(id)) throw new Error(`yoke run --background failed: ${r.stderr}`);
        // Wait for it to end, then discard it (worktree and branch) before the next round.
        for (let i = 0; i < 300; i++) {
          const list = spawnSync(process.execPath, [cli!, "agents", "--json", "--cwd", repo.root], { env: { ...process.env, HOME: home }, encoding: "utf8" });
          const state = (JSON.parse(list.stdout) as { agents: Array<{ id: string; state: string }> }).agents.find((a) => a.id === id)?.state;
          if (state && state !== "running" && state !== "queued") break;
          await new Promise((res) => setTimeout(res, 100));
        }
        spawnSync(process.execPath, [cli!, "agents", "discard", id, "--cwd", repo.root], { env: { ...process.env, HOME: home } });
        return t;
      };
      // Interleaved rounds, so that the machine's load at a moment weighs on every measure alike.
      const times = { git: [] as number[], none: [] as number[], all: [] as number[], cli: [] as number[] };
      for (let r = 0; r < rounds; r++) {
        times.git.push(await gitAlone());
        times.none.push(await yokeCreate("none"));
        times.all.push(await yokeCreate("all"));
        if (cli) times.cli.push(await cliStart());
      }
      const min = (xs: number[]) => round1(Math.min(...xs));
      // The ratio of each round (same moment, same load), median over the rounds.
      const ratio = (xs: number[]) => {
        const r = xs.map((x, i) => x / times.git[i]!).sort((a, b) => a - b);
        return round1(r[Math.floor(r.length / 2)]!);
      };
      const git = min(times.git);
      const yokeNone = min(times.none);
      const yokeAll = min(times.all);
      const cliMs = cli ? min(times.cli) : null;
      const cliNote = cli ? "until the agent's id is printed: Node's start, settings, trust, the worktree, the agent's process spawned" : "dist/cli.js not found (run npm run build)";
      metrics.push(
        { name: `${label}: git worktree add alone`, value: git, unit: "ms", note: `${files} tracked files` },
        { name: `${label}: Yoke worktree creation`, value: yokeNone, unit: "ms", baseline: git, ratio: ratio(times.none) },
        { name: `${label}: Yoke worktree creation, --carry all`, value: yokeAll, unit: "ms", baseline: git, ratio: ratio(times.all), note: "10 modified + 5 untracked files carried" },
        {
          name: `${label}: yoke run --background until it returns`,
          value: cliMs,
          unit: "ms",
          ...(cliMs === null ? {} : { baseline: git, ratio: ratio(times.cli) }),
          note: cliNote,
        },
      );
      rows.push(`| ${label} (${files} files) | ${git} | ${yokeNone} (×${ratio(times.none)}) | ${yokeAll} (×${ratio(times.all)}) | ${cliMs ?? "–"}${cliMs === null ? "" : ` (×${ratio(times.cli)})`} |`);
      rmSync(repo.root, { recursive: true, force: true });
    }
  } finally {
    process.env.HOME = prevHome;
    if (prevData !== undefined) process.env.XDG_DATA_HOME = prevData;
    rmSync(root, { recursive: true, force: true });
  }
  return {
    section: "agents",
    method: `best of ${rounds} interleaved rounds per measure, ratios the median of the rounds' own ratios; repositories generated by src/bench/scale-repo.ts; ratios against git worktree add alone on the same repository`,
    metrics,
    details: ["| repository | git worktree add (ms) | Yoke worktree (ms) | Yoke, --carry all (ms) | yoke run --background (ms) |", "|---|---|---|---|---|", ...rows].join("\n"),
  };
}
