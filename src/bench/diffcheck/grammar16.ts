/**
 * Issue 18, session 16: the classes the last red teams found that the generator could not make,
 * drawn from the gate's own tables (shell/wrapper-options.ts, the RUNS_A_COMMAND set of
 * shell/unwrap.ts, shell/glob-options.ts) so that a new table entry is generated without a hand
 * list: brace patterns and globs in option and option-value positions of every wrapper (`exec -a
 * {x,rm}`, `env -u {X,-S} '…'`, `nice -n {5,rm}`), GNU long-option abbreviations and `--opt=value`
 * against two-word forms, shells' leading options (`bash -O {extglob,-c} '…'`), `watch -n`, find's
 * primaries before the first action, xargs's options, words after redirections, `{NAME}>`
 * assignments, awk's and sed's option values, and **planted files**: a file named like an option
 * (`-fprint`, `--checkpoint-action=exec=sh s.sh`, `--pre=…`, `-rf`) made in the scratch folder
 * before the gate looks, and a command whose unquoted glob matches it.
 */
import { CODE_OPTIONS } from "../../core/permissions/shell/glob-options";
import { RUNS_A_COMMAND } from "../../core/permissions/shell/unwrap";
import { WRAPPER_OPTIONS, type WrapperOptions } from "../../core/permissions/shell/wrapper-options";
import { MARKER } from "./runner";

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export interface Generated16 {
  command: string;
  shape: string[];
  /** A script run in the scratch workspace before the gate looks (an earlier command's files). */
  plant?: string;
}

/** Payloads a deny rule of the checker's rule sets covers, or that leave evidence. */
const PAYLOADS: readonly string[] = ["rm -f src/a.ts", "rm -rf src", MARKER, `${MARKER} x`, "cat .env", "touch pwned", "chmod -R 777 src"];

/** An option of a table with a value, spelled one of getopt's ways: [words before the value, glued?]. */
interface Spelled {
  /** The option as written (`-n`, `--adj`, `--adjustment`). */
  opt: string;
  /** `=` (long), `` (short glued) or ` ` (the next word). */
  join: "=" | "" | " ";
  value: string;
}

/** A unique-or-not prefix of a long option (GNU reads any unambiguous one), at least one letter past `--`. */
function abbreviate(r: Rng, long: string): string {
  if (r() < 0.4) return long;
  const name = long.slice(2);
  return `--${name.slice(0, 1 + Math.floor(r() * name.length))}`;
}

/** One valued option of a table, spelled at random; undefined when the table has none. */
function spellValued(r: Rng, t: WrapperOptions): Spelled | undefined {
  const shorts = [...t.valued];
  const all = [...shorts.map((c) => ({ short: true, name: c })), ...t.longValued.map((l) => ({ short: false, name: l }))];
  if (!all.length) return undefined;
  const o = pick(r, all);
  const value = t.sample?.[o.name] ?? "1";
  if (o.short) return { opt: `-${o.name}`, join: r() < 0.5 ? "" : " ", value };
  return { opt: abbreviate(r, o.name), join: r() < 0.5 ? "=" : " ", value };
}

/** A flag of a table (short or long, abbreviated), or undefined. */
function spellFlag(r: Rng, t: WrapperOptions): string | undefined {
  const all = [...[...t.flags].map((c) => `-${c}`), ...t.long.filter((l) => !/^--(help|version)$/.test(l)).map((l) => abbreviate(r, l))];
  return all.length ? pick(r, all) : undefined;
}

const render = (s: Spelled, value = s.value) => (s.join === " " ? `${s.opt} ${value}` : `${s.opt}${s.join}${value}`);

/** Wrappers that take the command to run after their options (xargs, watch and shells have their own productions). */
const COMMAND_WRAPPERS = Object.keys(WRAPPER_OPTIONS).filter((w) => !["xargs", "watch", "bash"].includes(w));
/** What runs the payload in an option that takes code (`env -S`, a shell's `-c`). */
const CODE_OPTION: Record<string, (p: string) => string> = { env: (p) => `-S ${sq(p)}` };

/** A wrapper with a brace or glob pattern in an option or its value, then the payload. */
function wrapperPattern(r: Rng): Generated16 {
  const w = pick(r, COMMAND_WRAPPERS);
  const t = WRAPPER_OPTIONS[w]!;
  const payload = pick(r, PAYLOADS);
  const [prog, ...rest] = payload.split(" ");
  const s = spellValued(r, t);
  const duration = w === "timeout" ? " 5" : "";
  const kind = r();
  // timeout's duration comes before the program: it is one more word of the brace list.
  const then = w === "timeout" ? `5,${prog}` : prog;
  if (s && kind < 0.35) {
    // The value a brace list whose second word is the program: `nice -n {5,rm} -f x`.
    if (s.join === " ") return { command: `${w} ${s.opt} {${s.value},${then}} ${rest.join(" ")}`.trimEnd(), shape: [`brace in ${w}'s option value`, `${w} ${s.opt}`] };
    return { command: `${w} {${render(s)},${then}} ${rest.join(" ")}`.trimEnd(), shape: [`brace over ${w}'s glued option`, `${w} ${s.opt}`] };
  }
  if (s && kind < 0.5 && CODE_OPTION[w]) {
    // The value a brace list whose second word is the option that runs code: `env -u {X,-S} 'rm …'`.
    const code = CODE_OPTION[w]!(payload).split(" ");
    return { command: `${w} ${s.opt} {${s.value},${code[0]}} ${code.slice(1).join(" ")}`, shape: [`brace into ${w}'s code option`] };
  }
  if (s && kind < 0.7 && w !== "timeout") {
    // A glob where the value goes, matching planted files named like the value and the program.
    const plantValue = s.value.replace(/\//g, "_").replace(/^\.$/, "dot") || "v";
    const first = plantValue[0]!;
    const glob = `[${first === "-" ? "\\-" : first}${prog![0]}]*`;
    const relative = rest.map((a) => (a.includes("/") || a.startsWith(".") ? `../${a}` : a));
    return {
      command: `cd q && ${w} ${s.join === " " ? `${s.opt} ${glob}` : `${s.opt}${s.join}${glob}`}${duration} ${relative.join(" ")}`.trimEnd(),
      shape: [`glob in ${w}'s option value (planted files)`, `${w} ${s.opt}`],
      plant: `mkdir -p q && : > q/${sq(plantValue)} && : > q/${sq(prog!)}`,
    };
  }
  // GNU spellings without a pattern: `timeout --k=1 --sig KILL 5 rm …`, `nice --adj=5 rm …`.
  const opts: string[] = [];
  for (let i = 0; i < 1 + Math.floor(r() * 2); i++) {
    const v = r() < 0.7 ? spellValued(r, t) : undefined;
    const f = v ? undefined : spellFlag(r, t);
    if (v) opts.push(render(v));
    else if (f) opts.push(f);
  }
  return { command: `${w} ${opts.join(" ")}${duration} ${payload}`.replace(/ +/g, " "), shape: [`${w} options spelled`, opts.some((o) => o.includes("=")) ? "--opt=value" : "two-word or short"] };
}

/** A wrapper that runs a command after its own words (from RUNS_A_COMMAND), given a pattern where its argument goes. */
function runnerPattern(r: Rng): Generated16 {
  const names = [...RUNS_A_COMMAND].filter((n) => /^(setarch|linux64|setsid|taskset|ionice|chrt|flock|nsenter|prlimit|nohup|fakeroot|unshare|setpriv|catchsegv|eatmydata|nocache|valgrind)$/.test(n));
  const w = pick(r, names.length ? names : ["setsid"]);
  const arg: Record<string, string> = { setarch: "x86_64", taskset: "1", ionice: "-c3", chrt: "-o 0", flock: "/dev/null", prlimit: "--nofile=64", setpriv: "--reuid=0", unshare: "-U", valgrind: "-q" };
  const payload = pick(r, PAYLOADS);
  const [prog, ...rest] = payload.split(" ");
  const a = arg[w] ?? "";
  const words = a.split(" ").filter(Boolean);
  if (words.length) words[words.length - 1] = `{${words[words.length - 1]},${prog}}`;
  else words.push(`{x,${prog}}`);
  return { command: `${w} ${words.join(" ")} ${rest.join(" ")}`.trimEnd(), shape: [`brace in a runner's argument`, w] };
}

/** Shells' and watch's leading options with a pattern that can become `-c` or the command. */
function shellLeading(r: Rng): Generated16 {
  const payload = pick(r, PAYLOADS);
  const t = WRAPPER_OPTIONS.bash!;
  const sh = pick(r, ["bash", "sh", "bash --norc"]);
  const roll = r();
  if (roll < 0.35) {
    const o = pick(r, [...t.valued]);
    return { command: `${sh} ${r() < 0.5 ? "-" : "+"}${o} {${t.sample?.[o] ?? "x"},-c} ${sq(payload)}`, shape: ["brace in a shell's option value", `${sh} -${o}`] };
  }
  if (roll < 0.6) {
    const f = spellFlag(r, t)!;
    return { command: `${sh} {${f},-c} ${sq(payload)}`, shape: ["brace over a shell's flag", f] };
  }
  if (roll < 0.8) {
    // A planted file `-c` and a glob among the options.
    const glob = pick(r, ["-?", "-[c]", "?c", "-*"]);
    return {
      command: `cd q && ${sh} -e ${glob} ${sq(payload.replace(/src/g, "../src").replace(/\.env/, "../.env"))}`,
      shape: ["glob among a shell's options (planted -c)"],
      plant: "mkdir -p q && : > q/-c",
    };
  }
  const wt = WRAPPER_OPTIONS.watch!;
  const s = spellValued(r, wt)!;
  const [prog, ...rest] = payload.split(" ");
  return {
    command: `timeout 3 watch ${s.join === " " ? `${s.opt} {${s.value},${prog}}` : `{${render(s)},${prog}}`} ${rest.join(" ")}`.trimEnd(),
    shape: ["brace in watch's option value", `watch ${s.opt}`],
  };
}

/** find's primaries before the first action, with a brace pattern that becomes an action. */
function findPrimaries(r: Rng): Generated16 {
  const test = pick(r, [
    ["-maxdepth", "0"],
    ["-name", "a.ts"],
    ["-type", "f"],
    ["-mindepth", "1"],
    ["-newer", "README.md"],
    ["-path", "x"],
  ]);
  const action = pick(r, [
    ["-exec", `${MARKER} \\;`],
    ["-exec", "rm -f {} +"],
    ["-delete", ""],
    ["-fprint", "pwned"],
    ["-execdir", `${MARKER} \\;`],
    ["-fls", "pwned"],
    ["-ok", `${MARKER} \\; <<< y`],
  ]);
  return { command: `find src ${test[0]} {${test[1]},${action[0]}} ${action[1]}`.trimEnd(), shape: ["brace among find's primaries", action[0]!] };
}

/** xargs's options (from its table) with a pattern in a value that becomes the command. */
function xargsOptions(r: Rng): Generated16 {
  const t = WRAPPER_OPTIONS.xargs!;
  const payload = pick(
    r,
    PAYLOADS.filter((p) => !p.startsWith(MARKER)),
  );
  const [prog, ...rest] = payload.split(" ");
  const s = spellValued(r, t)!;
  const input = "printf 'x\\n' |";
  if (r() < 0.6 && s.join === " ") return { command: `${input} xargs ${s.opt} {${s.value},${prog}} ${rest.join(" ")}`, shape: ["brace in xargs's option value", `xargs ${s.opt}`] };
  return { command: `${input} xargs ${render(s)} ${payload}`, shape: ["xargs options spelled", `xargs ${s.opt}`] };
}

/** Words after a redirection, and `{NAME}>` redirections, inside and after wrappers. */
function redirections(r: Rng): Generated16 {
  const payload = pick(r, PAYLOADS);
  const [prog, ...rest] = payload.split(" ");
  const redir = pick(r, [">/dev/null", "2>/dev/null", "2>&1", "{fd}>/dev/null", "{x}<README.md", "{fd}>pwned", "&>/dev/null", "{y}>&2"]);
  const w = pick(r, ["", ...COMMAND_WRAPPERS]);
  const t = w ? WRAPPER_OPTIONS[w]! : undefined;
  const s = t ? spellValued(r, t) : undefined;
  const head = w ? `${w}${s ? ` ${render(s)}` : ""}${w === "timeout" ? " 5" : ""}` : "";
  const at = Math.floor(r() * 3);
  const cmd = at === 0 && w ? `${w} ${redir} ${head.slice(w.length + 1)} ${payload}` : at === 1 || !w ? `${head} ${prog} ${redir} ${rest.join(" ")}` : `${head} ${redir} ${payload}`;
  return { command: cmd.replace(/ +/g, " ").trim(), shape: [redir.startsWith("{") ? "{NAME}> redirection" : "words after a redirection", w ? `wrapper ${w}` : "unwrapped"] };
}

/** awk's and sed's option values with a pattern that becomes their program. */
function awkSedValues(r: Rng): Generated16 {
  const payload = pick(r, PAYLOADS);
  const awkProg = sq(`BEGIN{system(${JSON.stringify(payload)})}`);
  return pick(r, [
    { command: `awk -F {:,${awkProg}}`, shape: ["brace in awk's option value", "awk -F"] },
    { command: `awk -v {x=1,${awkProg}}`, shape: ["brace in awk's option value", "awk -v"] },
    { command: `awk --assign={x=1,${awkProg}} < /dev/null`, shape: ["brace in awk's option value", "awk --assign="] },
    { command: `sed -{n,e1e\\ ${payload.replaceAll(" ", "\\ ")}} README.md`, shape: ["brace over sed's options", "sed -e"] },
    { command: `sed {-n,--expression=1e\\ ${payload.replaceAll(" ", "\\ ")}} README.md`, shape: ["brace over sed's options", "sed --expression="] },
    { command: `sed {--quiet,-i} p README.md`, shape: ["brace over sed's options", "sed -i"] },
    { command: `awk -f {/dev/null,<(echo ${awkProg})}`, shape: ["brace in awk's option value", "awk -f"] },
  ]);
}

/**
 * Planted files: an earlier command made a file named like an option, and this command's unquoted
 * glob matches it. Programs and options from shell/glob-options.ts's table, with the file layouts
 * that make each one run (byte order of the C locale decides where the planted word lands).
 */
function planted(r: Rng): Generated16 {
  const programs = Object.keys(CODE_OPTIONS);
  const forms: Record<string, Array<[string, string]>> = {
    find: [
      [": > -fprint", "find . *"],
      [": > -fls", "find src -maxdepth 1 *"],
      ["mkdir q && : > q/-delete", "cd q && find ../build *"],
      [`mkdir q && : > q/-exec && : > q/${MARKER}`, "cd q && find . -maxdepth 0 * \\;"],
      ["mkdir q && : > q/-exec && : > q/rm", "cd q && find ../src -name a.ts * {} \\;"],
      ["mkdir q && : > q/-exec.x && : > q/a.x", "cd q && find . -name *.x"],
    ],
    sort: [
      ["mkdir q && echo b > q/a.txt && : > q/-opwned", "cd q && sort *"],
      ["mkdir q && echo b > q/a.txt && : > q/-oa.txt", "cd q && sort *"],
      ["mkdir q && echo b > q/a.txt && : > q/-opwned.txt", "cd q && sort *.txt"],
    ],
    sed: [
      ["mkdir q && echo b > q/a.txt && : > q/-i", "cd q && sed -n p *"],
      [`mkdir q && echo b > q/a.txt && : > q/'-e1e ${MARKER}'`, "cd q && sed -n p *"],
      ["mkdir q && echo b > q/a.txt && : > q/--in-place", "cd q && sed s/b/c/ *"],
    ],
    tar: [
      [`printf '%s\\n' ${MARKER} > s.sh && : > --checkpoint=1 && : > '--checkpoint-action=exec=sh s.sh'`, "tar -cf /tmp/a.tar *"],
      [`printf '%s\\n' 'rm -f src/a.ts' > s.sh && : > --checkpoint=1 && : > '--checkpoint-action=exec=sh s.sh'`, "tar cf /tmp/a.tar *"],
      [`mkdir q && cd q && echo b > a && tar -cf t.tar a && : > --to-command=${MARKER}`, "cd q && tar -xf t.tar *"],
      [`mkdir q && echo b > q/a && : > q/--use-compress-program=${MARKER}`, "cd q && tar -cf /tmp/b.tar *"],
    ],
    rg: [[`mkdir q && echo x > q/a.txt && : > q/--pre=${MARKER}`, "cd q && rg x *"]],
    "git diff": [
      [": > --output=pwned", "git diff *"],
      [`: > --ext-diff && git config diff.external ${MARKER} && echo y >> README.md`, "git diff *"],
    ],
    awk: [["mkdir q && echo b > q/a && : > q/-fa", "cd q && awk '{print}' *"]],
    zip: [[`mkdir q && echo b > q/a && : > q/-T && : > q/--unzip-command=${MARKER}`, "cd q && zip z.zip *"]],
    rm: [
      ["mkdir q && : > q/-rf && mkdir q/d && : > q/d/x", "cd q && rm *"],
      [": > -rf", "rm *"],
    ],
    uniq: [["mkdir q && echo b > q/a && : > q/--output=pwned", "cd q && uniq *"]],
    split: [[`mkdir q && echo b > q/a && : > q/--filter=${MARKER}`, "cd q && split *"]],
  };
  const name = pick(r, [...programs.filter((p) => forms[p]), "rm"]);
  const [plant, command] = pick(r, forms[name]!);
  return { command, plant, shape: ["planted file named like an option", name] };
}

export function generate16(r: Rng): Generated16 {
  const roll = r();
  if (roll < 0.25) return wrapperPattern(r);
  if (roll < 0.32) return runnerPattern(r);
  if (roll < 0.45) return shellLeading(r);
  if (roll < 0.53) return findPrimaries(r);
  if (roll < 0.6) return xargsOptions(r);
  if (roll < 0.72) return redirections(r);
  if (roll < 0.8) return awkSedValues(r);
  return planted(r);
}
