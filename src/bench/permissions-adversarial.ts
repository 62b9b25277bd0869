/**
 * Adversarial inputs up to 1 MB through the permission check `yoke permissions check` runs (issue
 * 18: "any input of ≤ 1 MB answered in ≤ 200 ms"). Each shape is grown along a ladder of sizes up
 * to 1 MB (and to the largest input the gate still analyses, just under its bounds), every size
 * checked a few times in each mode; the section reports the worst time per shape and its ratio to
 * the 200 ms target, with the decision given to the worst input.
 *
 *   yoke bench --only permissions-adversarial [--json]
 *   YOKE_BENCH_ADVERSARIAL_SHAPES=words,heredocs  (a subset of shapes, by name prefix)
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PermissionMode } from "../core/loop/types";
import { estimateSize, MAX_COMMAND_LENGTH, MAX_COMMAND_STATEMENTS, MAX_COMMAND_TOKENS } from "../core/permissions/evaluate-bash";
import { YOKE_TOOL_NAMES } from "../core/permissions/rule-syntax";
import type { YokePermissionGate } from "../core/permissions/gate";
import { folderGate } from "../node/permission-check";
import type { BenchMetric, BenchSection } from "./types";

/** The target: any input up to 1 MB answered within this. */
export const TARGET_MS = 200;
const MB = 1_000_000;

export interface Shape {
  name: string;
  /** The tool (Yoke's tool name, as `yoke permissions check --tool` takes it). */
  tool: string;
  /** The input of `k` units. */
  input: (k: number) => Record<string, unknown>;
  /** Largest k tried (the input stays ≤ 1 MB). */
  maxK?: number;
}

const bash = (command: (k: number) => string, name: string, maxK?: number): Shape => ({ name, tool: "run_command", input: (k) => ({ command: command(k) }), maxK });
const rep = (unit: string, k: number, sep = "") => Array.from({ length: k }, (_, i) => unit.replaceAll("#", String(i))).join(sep);

/** The shapes: every construct the analysis walks, grown until the input is 1 MB. */
export function adversarialShapes(): Shape[] {
  return [
    bash((k) => `echo ${"ab ".repeat(k)}`, "many words"),
    bash((k) => `cat ${"src/a.ts ".repeat(k)}`, "many path arguments"),
    bash((k) => `rm ${"-f ".repeat(k)}x`, "many options under a deny rule"),
    bash((k) => `ls ${rep("-l -a -h --color=auto ", k)}`, "many options"),
    bash((k) => `sort ${rep("--comp ", k)}x`, "many abbreviated long options"),
    bash((k) => `grep ${rep("-e x# ", k)}src/a.ts`, "many option values"),
    bash((k) => `cat src/a.ts${" | grep a".repeat(k)}`, "long pipeline"),
    bash((k) => rep("ls src", k, " && "), "long and-chain"),
    bash((k) => rep("cd src || cd tests", k, " && "), "cd branches"),
    bash((k) => rep("ls src", k, "\n"), "many lines"),
    bash((k) => `echo ${"$(echo ".repeat(k)}x${")".repeat(k)}`, "nested $( )"),
    bash((k) => `echo ${rep("$(echo a#) ", k)}`, "many $( )"),
    bash((k) => `echo ${"`echo ".repeat(1)}${"\\`echo ".repeat(Math.min(k, 12))}x${"\\`".repeat(Math.min(k, 12))}\``, "nested backquotes", 12),
    bash((k) => `${"(".repeat(k)}echo a${")".repeat(k)}`, "nested subshells"),
    bash((k) => `${"{ ".repeat(k)}echo a;${" }".repeat(k)}`, "nested groups"),
    bash((k) => `${"if true; then ".repeat(k)}echo a${"; fi".repeat(k)}`, "nested if"),
    bash((k) => `${rep("for x# in a b; do ", k)}echo $x0${"; done".repeat(k)}`, "nested for loops"),
    bash((k) => rep("cat <<EOF#\nx\nEOF#", k, "\n"), "many here-documents"),
    bash((k) => `cat > notes.md <<'EOF'\n${"line of text in a file\n".repeat(k)}EOF`, "long quoted here-document"),
    bash((k) => `cat > notes.md <<EOF\n${rep("line $x $(date) ${y} `id`\n", k)}EOF`, "here-document full of expansions"),
    bash((k) => `cat <<EOF\n${"$(echo ".repeat(k)}x${")".repeat(k)}\nEOF`, "nested $( ) in a here-document"),
    bash((k) => `cat <<EOF\n$((${"a[".repeat(k)}1${"]".repeat(k)}))\nEOF`, "nested subscripts in a here-document"),
    bash((k) => `cat ${"a/".repeat(k)}x`, "long path"),
    bash((k) => `cat ${rep("..", k, "/")}`, "path of .."),
    bash((k) => `cat ${"x/../".repeat(k)}x`, "path of x/.."),
    bash((k) => `cat ${"./".repeat(k)}.env`, "path of ./ to a denied file"),
    bash((k) => `ls ${"*/".repeat(k)}*`, "deep glob"),
    bash((k) => `ls ${"*a".repeat(k)}`, "long glob pattern"),
    bash((k) => `ls ${"src/*.ts ".repeat(k)}`, "many globs"),
    bash((k) => `ls ${"**/".repeat(k)}*.ts`, "globstar chain"),
    bash((k) => `ls ${"[a-z]".repeat(k)}`, "bracket glob"),
    bash((k) => `echo ${"{a,b}".repeat(k)}`, "brace product"),
    bash((k) => `echo ${"{a,".repeat(k)}b${"}".repeat(k)}`, "nested braces"),
    bash((k) => `echo {1..${k}}`, "brace range", 100_000_000),
    bash((k) => `echo ${rep("{1..9}", k)}`, "brace ranges product"),
    bash((k) => `${rep("V#=x ", k)}ls`, "many assignments"),
    bash((k) => `x=${"a".repeat(k)}; cat $x`, "long assignment"),
    bash((k) => `a=x; ${"a=$a$a; ".repeat(k)}cat $a`, "doubling variable"),
    bash((k) => `${rep("v#=$v", k, "; ")}; cat $v${k - 1}`, "chained variables"),
    bash((k) => `echo $((${rep("x#", k, "+")}))`, "long arithmetic"),
    bash((k) => `echo $((${"a[".repeat(k)}1${"]".repeat(k)}))`, "nested subscripts"),
    bash((k) => `echo $((${"(".repeat(k)}1${")".repeat(k)}))`, "nested arithmetic parentheses"),
    bash((k) => `[[ ${rep("-f a#", k, " && ")} ]]`, "long [[ ]]"),
    bash((k) => `test ${rep("-f a#", k, " -a ")}`, "long test"),
    bash((k) => `case x in ${rep("a#) echo a;; ", k)}esac`, "long case"),
    bash((k) => rep("f#() { ls; }", k, "; "), "many functions"),
    bash((k) => `echo a${" > out.txt".repeat(k)}`, "many redirections"),
    bash((k) => `${"timeout 5 ".repeat(k)}ls`, "wrapper chain"),
    bash((k) => `${"nice env ".repeat(k)}ls`, "mixed wrapper chain"),
    // Every later word of a wrapper is a candidate command: 630 × `rm -rf src` after setsid (7 KB) took ~1 s (issue 18).
    bash((k) => `setsid ${"rm -rf src ".repeat(k)}`, "wrapper given a repeated command"),
    bash((k) => `setsid ${"setsid rm -rf src ".repeat(k)}`, "wrapper given repeated wrappers"),
    // A wrapper's candidate is seen through, and each wrapper it nests was one more reading of the whole rest:
    // `setsid` + 1,990 × `nice` took ~0.8 s (session 17's note).
    bash((k) => `setsid ${"nice ".repeat(k)}ls`, "wrapper given a wrapper chain"),
    bash((k) => `flock f ${"nice ".repeat(k)}ls`, "flock given a wrapper chain"),
    bash((k) => `${"nice ".repeat(k)}ls`, "nice chain"),
    bash((k) => `bash -c ${JSON.stringify("ls; ".repeat(k))}`, "long bash -c"),
    bash((k) => `${"bash -c '".repeat(1)}${"eval ".repeat(k)}ls'`, "eval chain"),
    bash((k) => `python3 -c '${"print(1)\n".repeat(k)}'`, "long python -c"),
    bash((k) => `awk '${"{print $1} ".repeat(k)}' src/a.ts`, "long awk program"),
    bash((k) => `sed -e '${"s/a/b/;".repeat(k)}' src/a.ts`, "long sed script"),
    bash((k) => `echo '${"a".repeat(k)}'`, "long quoted string"),
    bash((k) => `echo $'${"\\x41".repeat(k)}'`, "long ANSI-C string"),
    bash((k) => `echo "${rep("${x#:-a}", k)}"`, "many parameter expansions"),
    bash((k) => `echo ${"${x:-".repeat(k)}a${"}".repeat(k)}`, "nested parameter expansions"),
    bash((k) => `git diff HEAD -- ${"src/a.ts ".repeat(k)}`, "allow rule, many paths"),
    bash((k) => `npm run test -- ${rep("--x# ", k)}`, "allow rule, many arguments"),
    bash((k) => `git ${"-c a.b=c ".repeat(k)}status`, "git config options"),
    bash((k) => `find . ${rep("-name x# -o ", k)}-name y`, "long find expression"),
    bash((k) => `xargs ${"xargs ".repeat(k)}ls`, "xargs chain"),
    bash((k) => `echo ${"x".repeat(k)}`, "one long word"),
    bash((k) => `printf -v ${rep("a[$(echo #)]", k)} x`, "code in data: printf -v"),
    {
      name: "write_file payload",
      tool: "write_file",
      input: (k) => ({ file_path: "src/a.ts", content: "const x = 1;\n".repeat(k) }),
    },
    {
      name: "edit_file SEARCH/REPLACE payload",
      tool: "edit_file",
      input: (k) => ({ file_path: "src/a.ts", old_string: "a\n".repeat(k), new_string: "b\n".repeat(k) }),
    },
    {
      name: "edit_file long path",
      tool: "edit_file",
      input: (k) => ({ file_path: `${"a/".repeat(k)}x`, old_string: "a", new_string: "b" }),
    },
    {
      name: "read_file path of ..",
      tool: "read_file",
      input: (k) => ({ file_path: rep("..", k, "/") }),
    },
    {
      name: "read_file path of ./ to a denied file",
      tool: "read_file",
      input: (k) => ({ file_path: `${"./".repeat(k)}.env` }),
    },
    {
      name: "glob long pattern",
      tool: "glob",
      input: (k) => ({ pattern: "*a".repeat(k) }),
    },
    {
      name: "grep long glob",
      tool: "grep",
      input: (k) => ({ pattern: "x".repeat(k), glob: `${"**/".repeat(k)}*.ts` }),
    },
  ];
}

/** The sizes of one shape: doubling k until the input passes 1 MB, plus the largest k under the Bash bounds. */
export function ladder(shape: Shape): Array<{ k: number; size: number; input: Record<string, unknown> }> {
  const out: Array<{ k: number; size: number; input: Record<string, unknown> }> = [];
  const sizeOf = (input: Record<string, unknown>) => JSON.stringify(input).length;
  const seen = new Set<number>();
  const add = (k: number) => {
    if (seen.has(k)) return;
    seen.add(k);
    const input = shape.input(k);
    const size = sizeOf(input);
    if (size <= MB) out.push({ k, size, input });
  };
  let k = 1;
  // At most 60 steps (k = 1.6^60 is far past any input's 1 MB; a shape whose size grows slower stops at maxK).
  for (let step = 0; step < 60 && k <= (shape.maxK ?? Infinity); step++, k = Math.max(k + 1, Math.ceil(k * 1.6))) {
    const input = shape.input(k);
    if (sizeOf(input) > MB) break;
    add(k);
  }
  // The largest k that fits in 1 MB.
  let lo = 1;
  let hi = Math.min(k, shape.maxK ?? k, 2 ** 40);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sizeOf(shape.input(mid)) <= MB) lo = mid;
    else hi = mid - 1;
  }
  add(lo);
  // The largest k the gate still analyses (just under its length, command and word bounds).
  if (shape.tool === "run_command") {
    const analysed = (n: number) => {
      const c = shape.input(n).command as string;
      if (c.length > MAX_COMMAND_LENGTH) return false;
      const s = estimateSize(c);
      return s.statements <= MAX_COMMAND_STATEMENTS && s.tokens <= MAX_COMMAND_TOKENS;
    };
    let a = 1;
    let b = lo;
    if (analysed(a)) {
      while (a < b) {
        const mid = Math.ceil((a + b) / 2);
        if (analysed(mid)) a = mid;
        else b = mid - 1;
      }
      add(a);
    }
  }
  return out.sort((x, y) => x.k - y.k);
}

/** What checkPermission (src/cli/commands/permissions.ts) does with the CLI's gate, for one input. */
const READ_ONLY_PERMISSIONS = new Set(["Read", "Glob", "Grep", "TodoWrite", "Task", "Skill"]);
function checkWith(gate: YokePermissionGate, tool: string, input: Record<string, unknown>, mode: PermissionMode) {
  const permission = Object.hasOwn(YOKE_TOOL_NAMES, tool) ? YOKE_TOOL_NAMES[tool]! : tool;
  return gate.check({ tool, permission, input, mutates: !READ_ONLY_PERMISSIONS.has(permission) }, mode);
}

const MODES: PermissionMode[] = ["default", "acceptEdits", "plan", "bypassPermissions"];

export interface ShapeResult {
  shape: string;
  tool: string;
  /** The worst CPU time of one check (ms): what the check costs, whatever else the machine runs. */
  worstMs: number;
  /** The worst wall-clock time of one check (ms), inflated by other processes on a shared machine. */
  worstWallMs: number;
  /** The slowest single repeat (a garbage collection or a compilation may be in it). */
  worstSingleMs: number;
  /** The median CPU time over every check of the shape. */
  medianMs: number;
  /** The warm-up check of the largest input (first time this shape's paths run). */
  coldMs: number;
  worstSize: number;
  worstK: number;
  worstMode: PermissionMode;
  decision: string;
  reason: string;
  sizes: number;
  /** Every check of the shape, for the report. */
  checks: number;
}

export async function runAdversarial(opts: { only?: string[]; repeats?: number; log?: (s: string) => void } = {}): Promise<{ load: number[]; results: ShapeResult[]; rules: string[] }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-bench-adv-")));
  const cwd = join(root, "ws");
  for (const f of ["src/a.ts", "src/b.ts", "package.json", ".env", "tests/test_a.py", "README.md", "secrets/key.txt"]) {
    mkdirSync(dirname(join(cwd, f)), { recursive: true });
    writeFileSync(join(cwd, f), "x\n");
  }
  const rules = {
    allow: ["Bash(npm run test:*)", "Bash(git diff:*)", "Bash(python3 -m pytest:*)", "Bash(git * --stat *)", "Edit(src/**)", "Read(//usr/share/**)"],
    deny: ["Bash(rm:*)", "Bash(git push:*)", "Bash(curl * --upload-file *)", "Read(./.env)", "Read(**/.env)", "Read(./secrets/**)", "Edit(**/*.lock)", "Read(~/.ssh/**)", "Write(//etc/**)"],
    ask: ["Bash(docker * run *)", "Write(**/*.pem)"],
  };
  const settingsFile = join(root, "settings.json");
  writeFileSync(settingsFile, JSON.stringify({ permissions: rules }));
  const home = join(root, "home");
  mkdirSync(join(home, ".ssh"), { recursive: true });
  const gate = folderGate({ cwd, home, settings: [settingsFile], trusted: true, managedDir: null });
  const repeats = opts.repeats ?? 3;
  const load0 = loadavg()[0]!;
  const results: ShapeResult[] = [];
  try {
    await checkWith(gate, "run_command", { command: "ls" }, "default");
    for (const shape of adversarialShapes()) {
      if (opts.only && !opts.only.some((o) => shape.name.startsWith(o))) continue;
      const r: ShapeResult = {
        shape: shape.name,
        tool: shape.tool,
        worstMs: -1,
        worstWallMs: -1,
        worstSingleMs: -1,
        medianMs: 0,
        coldMs: 0,
        worstSize: 0,
        worstK: 0,
        worstMode: "default",
        decision: "",
        reason: "",
        sizes: 0,
        checks: 0,
      };
      const sizes = ladder(shape);
      // Warm-up (not measured): the largest input once, so the JIT has compiled the paths this
      // shape takes (a session's gate is warm; the first check after start-up is the permissions
      // section's "first check").
      const top = sizes[sizes.length - 1]!;
      {
        const c0 = process.cpuUsage();
        await checkWith(gate, shape.tool, top.input, "default");
        const cpu = process.cpuUsage(c0);
        r.coldMs = (cpu.user + cpu.system) / 1000;
      }
      // And the largest input still analysed (the largest one is usually over the bounds, answered
      // at once, and warms nothing of the analysis).
      const analysed = sizes.filter((x) => x.size <= MAX_COMMAND_LENGTH + 20).at(-1);
      if (analysed && analysed !== top) await checkWith(gate, shape.tool, analysed.input, "default");
      // Every size in default mode; the two largest (1 MB and the largest still analysed) in every mode.
      const heavy = new Set([...sizes].sort((a, b) => b.size - a.size).slice(0, 2));
      const bashBound = sizes.filter((x) => x.size <= MAX_COMMAND_LENGTH + 20);
      if (bashBound.length) heavy.add(bashBound[bashBound.length - 1]!);
      const all: number[] = [];
      for (const { k, size, input } of sizes) {
        r.sizes++;
        for (const mode of heavy.has(sizes.find((x) => x.k === k)!) ? MODES : (["default"] as PermissionMode[])) {
          const here: number[] = [];
          let d: Awaited<ReturnType<typeof checkWith>> | undefined;
          for (let i = 0; i < repeats; i++) {
            const c0 = process.cpuUsage();
            const t = performance.now();
            d = await checkWith(gate, shape.tool, input, mode);
            const wall = performance.now() - t;
            const cpu = process.cpuUsage(c0);
            // The machine is shared: the process's CPU time is the figure other processes inflate least.
            const ms = (cpu.user + cpu.system) / 1000;
            all.push(ms);
            here.push(ms);
            if (wall > r.worstWallMs) r.worstWallMs = wall;
            if (ms > r.worstSingleMs) r.worstSingleMs = ms;
            r.checks++;
          }
          // One input's figure is the median of its repeats: process.cpuUsage counts every thread
          // of the process, so one repeat may carry a garbage collection or V8's background
          // compilation that the check itself did not cost (the worst single repeat is in the note).
          here.sort((a, b) => a - b);
          const ms = here[Math.floor(here.length / 2)]!;
          if (d && ms > r.worstMs) Object.assign(r, { worstMs: ms, worstSize: size, worstK: k, worstMode: mode, decision: d.decision, reason: d.reason });
        }
      }
      all.sort((a, b) => a - b);
      r.medianMs = all[Math.floor(all.length / 2)] ?? 0;
      opts.log?.(`${r.shape}: ${r.worstMs.toFixed(1)} ms CPU (wall ${r.worstWallMs.toFixed(1)} ms) at ${r.worstSize} B (k=${r.worstK}, ${r.worstMode}) → ${r.decision}`);
      results.push(r);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return { load: [load0, loadavg()[0]!], results, rules: [...rules.allow.map((x) => `allow ${x}`), ...rules.deny.map((x) => `deny ${x}`), ...rules.ask.map((x) => `ask ${x}`)] };
}

export async function bench(): Promise<BenchSection> {
  const only = process.env.YOKE_BENCH_ADVERSARIAL_SHAPES?.split(",").filter(Boolean);
  const { load, results, rules } = await runAdversarial({ only, log: (s) => process.stderr.write(`[permissions-adversarial] ${s}\n`) });
  const metrics: BenchMetric[] = results.map((r) => ({
    name: `worst: ${r.shape} (${r.tool})`,
    value: r.worstMs,
    unit: "ms",
    baseline: TARGET_MS,
    ratio: r.worstMs / TARGET_MS,
    note: `CPU time of one check (median of 3 repeats of the worst input; slowest single repeat ${r.worstSingleMs.toFixed(1)} ms); median of all ${r.medianMs.toFixed(1)} ms; wall ${r.worstWallMs.toFixed(1)} ms; warm-up ${r.coldMs.toFixed(1)} ms; ${r.worstSize} B input (k=${r.worstK}) in ${r.worstMode} mode → ${r.decision}${/too large/.test(r.reason) ? " (too large to analyse)" : ""}; ${r.sizes} sizes`,
  }));
  const worst = results.reduce((a, b) => (b.worstMs > a.worstMs ? b : a), results[0]!);
  metrics.unshift({ name: "worst of every shape", value: worst.worstMs, unit: "ms", baseline: TARGET_MS, ratio: worst.worstMs / TARGET_MS, note: `${worst.shape}, ${worst.worstSize} B` });
  metrics.unshift({ name: "checks run", value: results.reduce((a, b) => a + b.checks, 0), unit: "checks" });
  return {
    section: "permissions-adversarial",
    method: `${results.length} adversarial shapes through the check \`yoke permissions check\` runs (the CLI's gate, one settings file with allow, deny and ask rules: ${rules.join("; ")}), each grown along a ladder of sizes (×1.6) up to 1 MB plus the largest input still analysed under the Bash bounds (${MAX_COMMAND_LENGTH} characters, ${MAX_COMMAND_STATEMENTS} commands, ${MAX_COMMAND_TOKENS} words); after unmeasured warm-up checks of the largest input and of the largest still analysed, every size checked 3 times in default mode and the largest ones (1 MB, the largest still analysed) in all 4 modes. Reported: per shape, the worst over its inputs and modes of the median CPU time of an input's 3 checks (the process's CPU time: on the shared 2-core machine wall time mostly measures the other processes; the worst wall time, the median and the warm-up check are in the note) and its ratio to the ${TARGET_MS} ms target (ratio ≤ 1 meets it). Baseline = the target. Load average (1 min) at the start and the end: ${load.map((x) => x.toFixed(1)).join(", ")}.`,
    metrics,
    document: { target: TARGET_MS, load, results },
  };
}
