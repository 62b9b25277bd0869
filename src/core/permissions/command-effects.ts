/**
 * What a command's options make it do beyond its name: run code given on the command line or read
 * from its input (`python -c`, `node -e`, `perl -e`, an awk program that calls `system`), run
 * other programs (`npm --script-shell`, `git --ext-diff`, `rsync -e`, `find -exec`…), or write
 * files (`git diff --output`, `curl -o`, `find -fprint`, `sort -o`). One table per tool family,
 * consulted for every command — also under allow rules: an allow rule covers such an option only
 * when its literal text names it.
 */
import { isLongOption, longOptionOf, optionValues, shortOptionUses } from "./long-options";
import { commandInputHidden, commandInputName } from "./command-input";
import { gitNewRepository } from "./git-new-repository";
import { namesDescriptor } from "./posix-path";
import { awkProgramProblem, JQ_READS_OUTSIDE, sedScriptEffects } from "./script-scanners";
import type { Word } from "./shell/words";

export interface CommandEffects {
  /** Code that runs and that Yoke cannot see. */
  hidden: string[];
  /**
   * Options that make the command run other programs: the option word and why. `runs`: the
   * option's value is a program or commands (not a setting): code Yoke cannot see, so it asks
   * wherever a deny rule exists, in every mode.
   */
  execOptions: Array<{ option: string; why: string; runs?: boolean }>;
  /** Files the options write. */
  writes: Word[];
  /**
   * Folders written below (recursively), e.g. `find DIR -delete`. A word marked `fresh` is a folder the command only
   * adds new files to (`git clone URL DIR`: git refuses a folder that is not empty).
   */
  writeRegions: Array<Word & { fresh?: boolean }>;
  /** Files the options read that are not ordinary arguments (sed `r`). */
  reads: Word[];
}

const INTERPRETERS: Array<{ name: RegExp; inline: RegExp; label: string; stdinWhenBare: boolean; valued?: RegExp }> = [
  { name: /^(python|pypy)(\d+(\.\d+)*)?$/, inline: /^-[a-zA-Z]*c/, label: "python", stdinWhenBare: true, valued: /^-[a-zA-Z]*[mWXQ]$/ },
  {
    name: /^(node|nodejs)(\d+)?$/,
    inline: /^(-e|-p|-pe|--eval|--print)(=|$)/,
    label: "node",
    stdinWhenBare: true,
    valued: /^(-r|--require|--import|--loader|--experimental-loader|--input-type|--conditions|-C)$/,
  },
  { name: /^bun$/, inline: /^(-e|-p|--eval|--print)(=|$)/, label: "bun", stdinWhenBare: false },
  { name: /^deno$/, inline: /^eval$/, label: "deno", stdinWhenBare: false },
  // `-e`/`-E` alone or after flag letters (`-ne`, `-wle`, `-0777ne`); not inside a value (`-MData::Dumper`, `-Ilib/e`, `-F:e`: red team 21 found `perl -MData::Dumper x.pl` read as `-e`).
  { name: /^perl(\d+(\.\d+)*)?$/, inline: /^-(?:C[0-9IOESioDALa]*|[abcfhilnpsStTuUvwWX0-9])*[eE]/, label: "perl", stdinWhenBare: true, valued: /^-[IMm]$/ },
  { name: /^ruby(\d+(\.\d+)*)?$/, inline: /^-[a-zA-Z]*e/, label: "ruby", stdinWhenBare: true, valued: /^-[Ir]$/ },
  { name: /^php(\d+(\.\d+)*)?$/, inline: /^-[a-zA-Z]*[rRBE]/, label: "php", stdinWhenBare: true, valued: /^-[cdz]$/ },
  { name: /^(lua|luajit)(\d+(\.\d+)*)?$/, inline: /^-[a-zA-Z]*e/, label: "lua", stdinWhenBare: true, valued: /^-l$/ },
  { name: /^(Rscript|R)$/, inline: /^(-e|--expr)/, label: "R", stdinWhenBare: false },
  { name: /^julia$/, inline: /^(-e|-E|--eval|--print)/, label: "julia", stdinWhenBare: false },
  { name: /^(irb|pry|ghci|ocaml|swift|scala|clojure|racket|guile|sbcl|node-repl|tsx|ts-node)$/, inline: /^(-e|--eval|-c)/, label: "an interpreter", stdinWhenBare: false },
];

/** Is this program an interpreter that runs code (python, node, perl, ruby…)? */
export function isInterpreter(name: string): boolean {
  return INTERPRETERS.some((it) => it.name.test(name)) || AWKS.has(name) || name === "sed" || name === "source" || name === ".";
}

/** Tools with options that run programs or write files: an argument only known at run time could be one. */
export const OPTION_SENSITIVE = new Set([
  "git",
  "npm",
  "npx",
  "pnpm",
  "pnpx",
  "yarn",
  "bun",
  "bunx",
  "find",
  "sort",
  "tar",
  "bsdtar",
  "rsync",
  "ssh",
  "scp",
  "sftp",
  "curl",
  "wget",
  "make",
  "gmake",
  "cargo",
  "go",
  "pytest",
  "py.test",
  "rg",
  "zip",
  "vim",
  "nvim",
  "vi",
  "ex",
  "emacs",
  "sed",
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "xargs",
  "env",
  "docker",
  "kubectl",
  "python",
  "python3",
  "node",
  "perl",
  "ruby",
  "php",
  "apt",
  "apt-get",
  "apt-cache",
  "apt-mark",
  "aptitude",
  "pdflatex",
  "xelatex",
  "lualatex",
  "latex",
  "tex",
  "pdftex",
  "luatex",
  "xetex",
  "etex",
  "latexmk",
  "more",
  "less",
  "man",
  "dc",
  "sqlite3",
]);

const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);

const NPM_FAMILY = new Set(["npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx", "corepack"]);
/** npm-style configuration options that make the tool run another program or use another project. */
const NPM_EXEC =
  /^--(script-shell|node-options|prefix|userconfig|globalconfig|shell|call|init-module|editor|git|browser|viewer|onload-script|node-gyp|cwd|dir|registry|cache|preload|require|workspace-root|config\.[a-z-]+|before|npm-path|use-yarnrc|rc-filename|global-folder|modules-folder|bun)(=|$)/;
/** npm options known to change nothing about what runs. */
const NPM_SAFE =
  /^--(silent|quiet|loglevel|verbose|color|no-color|if-present|ignore-scripts|json|parseable|long|yes|no-audit|no-fund|audit|fund|progress|no-progress|save|save-dev|save-exact|save-optional|save-peer|save-prod|no-save|dry-run|production|omit|include|legacy-peer-deps|strict-peer-deps|force|offline|prefer-offline|prefer-online|foreground-scripts|no-optional|package-lock-only|no-package-lock|workspace|workspaces|include-workspace-root|watch|coverage|ci|fix|frozen-lockfile|immutable|filter|recursive|parallel|stream|reporter|testNamePattern|runInBand|updateSnapshot|no-bail|bail|depth|all|global-style|install-links|no-install-links|engine-strict|timing|no-update-notifier|update-notifier|no-package-json|package|prod|dev|optional|peer|exact|tilde|caret|lockfile-only|reporter=.*|ignore-engines|pure-lockfile|check-files|network-timeout|mutex)(=.*)?$|^-(s|q|d|dd|ddd|y|D|E|O|P|S|B|w|g|f|r)$/;

/**
 * `npmSettingsRead`: npm's settings that name programs were read and evaluated (CommandPart.npmSettingsRead).
 * `escapesReadFor`: the programs whose escapes in the input were read (CommandPart.escapesReadFor).
 */
export function commandEffects(words: Word[], extraArgs: boolean, stdinLiteral: boolean, inputUnseen = false, npmSettingsRead = false, escapesReadFor: readonly string[] = []): CommandEffects {
  const fx: CommandEffects = { hidden: [], execOptions: [], writes: [], writeRegions: [], reads: [] };
  const first = words[0];
  if (!first || first.dynamic) return fx;
  // Commands read from a script file or an input Yoke cannot see (`ed -s f < cmds`, `sed -f script`): parse or ask.
  // (Not when the program's escapes were read: its script files included, shell/unwrap.ts m4Step and psqlStep.)
  const unread = escapesReadFor.includes(commandInputName(first.value.slice(first.value.lastIndexOf("/") + 1))) ? undefined : commandInputHidden(words, inputUnseen);
  if (unread) fx.hidden.push(unread);
  const name = commandInputName(first.value);
  const args = words.slice(1);
  const values = args.map((a) => a.value);
  const has = (re: RegExp) => args.find((a) => re.test(a.value));
  const valueAfter = (re: RegExp, glued?: RegExp): Word[] => {
    const out: Word[] = [];
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === "--") break;
      if (re.test(v) && args[i + 1]) out.push(args[i + 1]!);
      else if (glued) {
        const m = glued.exec(v);
        if (m) out.push({ ...args[i]!, value: m[1]! });
      }
    }
    return out;
  };
  const exec = (re: RegExp, why: string, long: readonly string[] = [], exact: readonly string[] = []) => {
    for (const a of args) {
      const full = longOptionOf(a.value, long, exact);
      if (re.test(a.value) || full) fx.execOptions.push({ option: full ?? a.value.split("=")[0]!, why, runs: true });
    }
  };
  /** Files named by other files (`--files0-from=F`, `tar -T F`): any file. */
  const readsListed = (why: string) => fx.reads.push({ value: `$(${why})`, raw: why, dynamic: true, glob: false });

  for (const it of INTERPRETERS) {
    if (!it.name.test(name)) continue;
    if (args.some((a) => /^(--version|-V|-v|--help|-h|-\?|--v8-options)$/.test(a.value)) && !args.some((a) => it.inline.test(a.value))) return fx;
    const inline = has(it.inline);
    if (inline) fx.hidden.push(`${name} ${inline.value.split("=")[0]} runs code given on the command line`);
    // Code carried by an option or a module rather than `-c`/`-e` (red team 21): `python -m timeit CODE`,
    // `python -i FILE <<< CODE`, `node --import=data:…`, `perl '-MPOSIX;system(…)'`.
    const carried = interpreterOptionCode(it.label, name, args);
    if (carried && !inline) fx.hidden.push(carried);
    else if (extraArgs) fx.hidden.push(`${name} is given arguments at run time (xargs)`);
    else {
      const operand = firstOperand(args, it.valued);
      // `python -m MODULE` runs a module (code from files, like a script), not its input.
      const module = it.label === "python" && operand === undefined && args.some((a) => /^-[a-zA-Z]*m/.test(a.value) && !a.value.startsWith("--"));
      if (module) return fx;
      // `node --test` runs the test files it finds (code from files, like a script), not its input.
      if (it.label === "node" && operand === undefined && args.some((a) => a.value === "--test")) return fx;
      if ((operand === undefined && it.stdinWhenBare) || (operand && !operand.dynamic && namesDescriptor(operand.value)) || operand?.dynamic)
        fx.hidden.push(`${name} runs code read from ${operand?.dynamic ? operand.raw : "its input"}${stdinLiteral ? " (a here-document Yoke does not parse)" : ""}`);
    }
    return fx;
  }

  if (name === "source" || name === ".") {
    const file = args[0]?.value === "--" ? args[1] : args[0];
    // With no file bash runs nothing ("filename argument required"): `.` is then a wrapper's
    // operand (`npx eslint .`), not code Yoke cannot see.
    if (file && (file.dynamic || namesDescriptor(file.value))) fx.hidden.push(`${name} runs a script from ${file.raw}, which Yoke cannot read`);
    return fx;
  }

  if (AWKS.has(name)) {
    const { texts, files } = awkPrograms(args);
    if (files.some((f) => f.dynamic || namesDescriptor(f.value))) fx.hidden.push(`${name} runs a program read from its input`);
    for (const t of texts) {
      if (t.dynamic) {
        fx.hidden.push(`${name} runs a program only known when it runs`);
        break;
      }
      const problem = awkProgramProblem(t.value);
      if (problem) {
        fx.hidden.push(`the ${name} program ${problem}`);
        break;
      }
    }
    return fx;
  }

  if (name === "sed") {
    const scripts = [...optionValues(args, "--expression", "-e")];
    for (const a of args) if (/^-[a-zA-Z]+e$/.test(a.value) && a.value !== "-e") scripts.push(...optionValues(args.slice(args.indexOf(a)), undefined, a.value));
    const fromFile = args.some((a) => /^-[a-zA-Z]*f/.test(a.value) || isLongOption(a.value, "--file", ["--follow-symlinks"]) || a.value === "--f");
    // `sed -f <(echo '1e rm …')`, `sed -f /dev/stdin <<< …`, `sed --file=-`: the script is data of the
    // line that Yoke does not read as sed (differential checker, session 14).
    const scriptFiles = [...optionValues(args, "--file", undefined, ["--follow-symlinks"]), ...shortOptionUses(args, "f", "efl").flatMap((u) => (u.value ? [u.value] : []))];
    const fromInput = scriptFiles.find((f) => f.dynamic || namesDescriptor(f.value));
    if (fromInput) fx.hidden.push(`sed runs a script read from ${fromInput.dynamic ? fromInput.raw : "its input"}, which Yoke cannot read`);
    if (!scripts.length) {
      const op = firstOperand(args, /^(-l|--line-length|-f|--file)$/);
      if (op && !fromFile) scripts.push(op);
    }
    for (const s of scripts) {
      if (s.dynamic) {
        fx.hidden.push(`the sed script ${s.raw} is only known when it runs`);
        continue;
      }
      const e = sedScriptEffects(s.value);
      if (e.unknown) fx.hidden.push(`Yoke cannot read the sed script (${e.unknown})`);
      if (e.runs) fx.hidden.push("the sed script runs commands (e)");
      for (const w of e.writes) fx.writes.push({ ...s, value: w, glob: false, pattern: undefined });
      for (const r of e.reads) fx.reads.push({ ...s, value: r, glob: false, pattern: undefined });
    }
    return fx;
  }

  // jq's program file (`-f`/`--from-file`; jq takes the FIRST operand as that file wherever the flag
  // stands, and in a cluster `-nf`) is code Yoke does not read, and a program's `import "P" as $x` reads
  // P.json, `include` P.jq, `-L` adds a folder of modules, `$ENV`/`env` read the environment: red team Q
  // (session 20) — a planted q.jq imported `.env/k.json` under Read(**/.env), allowed as read-only; an
  // inline import was only a question, so bypassPermissions ran it. Code Yoke cannot see: asks under a deny rule in every mode.
  if (name === "jq") {
    let restAreArgs = false;
    let program: Word | undefined;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (restAreArgs) break;
      if (v === "--args" || v === "--jsonargs") restAreArgs = true;
      else if (v === "--arg" || v === "--argjson" || v === "--slurpfile" || v === "--rawfile") i += 2;
      else if (v === "--indent") i++;
      else if (v === "--from-file" || (/^-[^-]/.test(v) && v.includes("f"))) {
        fx.hidden.push("jq runs a program file Yoke does not read (its import and include read other files)");
        return fx;
      } else if (/^-L/.test(v) || v === "--library-path") {
        fx.hidden.push("jq -L loads modules from a folder Yoke does not read");
        return fx;
      } else if (!v.startsWith("-") || v === "-") program = program ?? args[i];
    }
    if (program?.dynamic) fx.hidden.push(`the jq program ${program.raw} is only known when it runs`);
    else if (program && JQ_READS_OUTSIDE.test(program.value)) fx.hidden.push("the jq program reads other files or the environment (import, include, $ENV)");
    return fx;
  }

  if (NPM_FAMILY.has(name)) {
    const before = values.indexOf("--") < 0 ? args : args.slice(0, values.indexOf("--"));
    for (const a of before) {
      const v = a.value;
      if (NPM_EXEC.test(v) || ((name === "pnpm" || name === "npm") && /^-C$/.test(v)) || (name === "npm" && /^-c$/.test(v)) || (name.startsWith("bun") && /^-r$/.test(v)))
        fx.execOptions.push({ option: v.split("=")[0]!, why: `it makes ${name} run another program or another project's scripts` });
      else if (name === "npm" && v.startsWith("--") && !NPM_SAFE.test(v))
        fx.execOptions.push({ option: v.split("=")[0]!, why: "npm reads unknown options as configuration, which can change what it runs" });
    }
    if (name === "npm" && (values[0] === "exec" || values[0] === "x") && has(/^(-c|--call)(=|$)/)) fx.hidden.push("npm exec --call runs a command string");
    // `npm config set|edit|delete|fix` and `npm set` write the user's ~/.npmrc (or the project's with
    // `--location=project`, the global one with `-g`): configuration that runs programs (`script-shell`…).
    // The differential checker saw `npm config edit --editor=vim` write ~/.npmrc unpredicted (session 17, gate18).
    // `npm edit`, `npm config edit`, `npm explore` and `npm docs|home|bugs|issues|repo` run the program a
    // setting names (editor, shell, browser), which a .npmrc in the project — repository content — or
    // npm_config_* sets: red team A (session 17) — a committed `.npmrc` with `editor=cat .env` made
    // `npm edit x` read .env under Read(**/.env) in bypassPermissions (diffcheck, real npm).
    const verbs = values.filter((v) => !v.startsWith("-"));
    const configured =
      verbs[0] === "edit" || ((verbs[0] === "config" || verbs[0] === "c") && verbs[1] === "edit")
        ? "editor"
        : verbs[0] === "explore"
          ? "shell"
          : /^(docs|home|bugs|issues|repo)$/.test(verbs[0] ?? "")
            ? "browser"
            : undefined;
    // (A value on the command line wins over every .npmrc: npmProgramOptions reads it as a candidate.)
    const onLine = (setting: string) =>
      values.some((v) => {
        const o = /^--([a-z-]+)/.exec(v)?.[1];
        return !!o && o.length >= 2 && setting.startsWith(o);
      });
    if (name === "npm" && configured && !onLine(configured) && !npmSettingsRead)
      fx.hidden.push(`npm ${verbs[0]} runs the program its ${configured} setting names (a .npmrc in the project, npm_config_${configured}), which Yoke cannot see`);
    const sub = values[0] === "config" || values[0] === "c" ? values[1] : values[0] === "set" ? "set" : undefined;
    if (name === "npm" && sub !== undefined && /^(set|edit|delete|rm|fix)$/.test(sub)) {
      const project = args.some((a) => /^--location(=|$)/.test(a.value) && (a.value.endsWith("=project") || args[args.indexOf(a) + 1]?.value === "project"));
      fx.writes.push({ value: project ? ".npmrc" : "~/.npmrc", raw: `npm ${values[0]} ${sub}`, dynamic: false, glob: false });
    }
    return fx;
  }

  switch (name) {
    case "git": {
      exec(/^--(ext-diff|textconv)$/, "git runs the external diff or text conversion programs of the configuration", ["--ext-diff", "--textconv"], ["--text", "--exit-code"]);
      exec(/^--no-index$/, "git diff --no-index reads any two files on the disk, inside the repository or not");
      fx.writes.push(...optionValues(args, "--output", undefined, ["--output-directory", "--ours", "--oneline", "--only"]));
      if (values.includes("format-patch")) fx.writeRegions.push(...valueAfter(/^(-o|--output-directory)$/, /^--output-directory=(.*)$/));
      if (values.includes("archive")) fx.writes.push(...valueAfter(/^(-o|--output)$/, /^--output=(.*)$/));
      if (values.includes("bundle") && values.includes("create")) fx.writes.push(...args.slice(values.indexOf("create") + 1, values.indexOf("create") + 2));
      const cfg = values.indexOf("config");
      if (cfg >= 0 && gitConfigWrites(values.slice(cfg + 1))) {
        const target = values.slice(cfg + 1).some((v) => v === "--global" || v === "--system") ? undefined : values.slice(cfg + 1).find((v, i, a) => a[i - 1] === "--file" || a[i - 1] === "-f");
        fx.writes.push({ value: target ?? ".git/config", raw: target ?? "git config", dynamic: false, glob: false });
      }
      if (values[0] === "hook" && values[1] === "run") fx.execOptions.push({ option: "hook run", why: "git hook run runs the repository's hooks" });
      // `git clone`, `git init`, `git worktree add`, `git submodule add`: a whole new repository (git-new-repository.ts).
      const made = gitNewRepository(args);
      if (made) {
        fx.writeRegions.push(...made.regions);
        fx.writes.push(...made.writes);
        fx.hidden.push(...made.hidden);
      }
      return fx;
    }
    case "find": {
      fx.writes.push(...valueAfter(/^-(fprint|fprint0|fls)$/));
      fx.writes.push(...valueAfter(/^-fprintf$/));
      if (values.includes("-delete")) {
        const roots = findRoots(args);
        fx.writeRegions.push(...(roots.length ? roots : [{ value: ".", raw: ".", dynamic: false, glob: false }]));
      }
      return fx;
    }
    case "sort":
      fx.writes.push(...valueAfter(/^(-o|--output)$/, /^(?:-o|--output=)(.+)$/), ...optionValues(args, "--output").filter((w) => !fx.writes.includes(w)));
      fx.writeRegions.push(...optionValues(args, "--temporary-directory", "-T"));
      exec(/^--compress-program/, "sort runs a compression program", ["--compress-program"]);
      if (args.some((a) => isLongOption(a.value, "--files0-from"))) readsListed("the files listed in --files0-from");
      return fx;
    case "wc":
    case "du":
      if (args.some((a) => isLongOption(a.value, "--files0-from"))) readsListed("the files listed in --files0-from");
      return fx;
    case "date":
      fx.reads.push(...optionValues(args, "--file", "-f"), ...optionValues(args, "--reference", "-r"));
      for (const letter of "fr") for (const u of shortOptionUses(args, letter, "dfrsI")) if (u.value && !fx.reads.some((w) => w.value === u.value!.value)) fx.reads.push(u.value);
      return fx;
    // Checksum checks read the files their list names; zip -@ the files named on its input
    // (differential checker, session 14: `printf 'x  .env\n' > s; md5sum -c s` read .env).
    case "md5sum":
    case "sha1sum":
    case "sha224sum":
    case "sha256sum":
    case "sha384sum":
    case "sha512sum":
    case "b2sum":
    case "cksum":
      if (args.some((a) => isLongOption(a.value, "--check") || (/^-[a-zA-Z]*c/.test(a.value) && !a.value.startsWith("--")))) readsListed(`the files listed in ${name} --check's input`);
      return fx;

    case "tar":
    case "bsdtar":
      exec(/^(--to-command|--use-compress-program|-I|--checkpoint-action|--info-script|-F|--new-volume-script|--rsh-command|--rmt-command)(=|$)/, "tar runs another program", [
        "--to-command",
        "--use-compress-program",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "--rsh-command",
        "--rmt-command",
      ]);
      if (args.some((a) => /^-[a-zA-Z]*T/.test(a.value) || isLongOption(a.value, "--files-from"))) readsListed("the files listed in tar -T");
      return fx;
    case "rsync":
      exec(/^(-e|--rsh|--rsync-path)(=|$)/, "rsync runs a remote shell or program", ["--rsh", "--rsync-path"]);
      return fx;
    case "ssh":
    case "scp":
    case "sftp":
      exec(/^(-o|-F|-S)$|^-o(ProxyCommand|LocalCommand|PermitLocalCommand|KnownHostsCommand|Match)/i, `${name} options can run local commands`);
      return fx;
    case "curl":
      fx.writes.push(
        ...valueAfter(
          /^(-o|--output|-c|--cookie-jar|--dump-header|-D|--trace|--trace-ascii|--stderr|--etag-save|--hsts|--alt-svc)$/,
          /^--(?:output|cookie-jar|dump-header|trace|trace-ascii|stderr|etag-save|hsts|alt-svc)=(.*)$/,
        ),
      );
      exec(/^(-K|--config)(=|$)/, "curl reads options from a file", ["--config"]);
      for (const full of ["--output", "--cookie-jar", "--dump-header", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc"])
        for (const w of optionValues(args, full)) if (!fx.writes.includes(w)) fx.writes.push(w);
      // Short options bundled (`-sLo F`, `-fsSLO`): curl reads them as getopt does.
      for (const u of shortOptionUses(args, "o", CURL_SHORT_VALUED)) if (u.value && !fx.writes.includes(u.value)) fx.writes.push(u.value);
      for (const u of shortOptionUses(args, "c", CURL_SHORT_VALUED)) if (u.value && !fx.writes.includes(u.value)) fx.writes.push(u.value);
      for (const u of shortOptionUses(args, "D", CURL_SHORT_VALUED)) if (u.value && !fx.writes.includes(u.value)) fx.writes.push(u.value);
      if (
        has(/^(-O|--remote-name|--remote-name-all|-J|--remote-header-name)$/) ||
        shortOptionUses(args, "O", CURL_SHORT_VALUED).length ||
        shortOptionUses(args, "J", CURL_SHORT_VALUED).length ||
        args.some((a) => longOptionOf(a.value, ["--remote-name", "--remote-name-all", "--remote-header-name"]))
      ) {
        const own = curlOwnFiles(args);
        if (own) for (const w of own) fx.writes.push(w);
        else fx.writeRegions.push({ value: valueAfter(/^--output-dir$/)[0]?.value ?? ".", raw: "curl -O", dynamic: false, glob: false });
      }
      {
        // `--output-dir D -o F` writes D/F (red team round 13); `-o '#1'` is a template curl fills
        // with the text a URL glob matched (`file:///x?{precious/y}` writes precious/y): a name only
        // known when it runs, unless -g/--globoff keeps `#1` literal.
        const dirs = [...valueAfter(/^--output-dir$/, /^--output-dir=(.*)$/), ...optionValues(args, "--output-dir")];
        const globoff = args.some((a) => a.value === "-g" || longOptionOf(a.value, ["--globoff"]) || /^-[a-zA-Z]*g[a-zA-Z]*$/.test(a.value));
        const out: Word[] = [];
        for (const w of fx.writes) {
          const template = !globoff && /#\d/.test(w.value);
          const named = template ? { ...w, value: `$(${w.raw}: the text a URL glob matched)`, dynamic: true, glob: false } : w;
          out.push(named);
          if (!template && !w.value.startsWith("/")) for (const d of dirs) out.push(d.dynamic ? { ...d } : { ...w, value: `${d.value.replace(/\/+$/, "")}/${w.value}`, dynamic: w.dynamic });
        }
        fx.writes = out;
      }
      return fx;
    case "wget":
      fx.writes.push(...valueAfter(/^(-O|--output-document|-o|--output-file|-a|--append-output)$/, /^--(?:output-document|output-file|append-output)=(.*)$/));
      exec(/^(-e|--execute|--config|-i|--input-file)(=|$)/, "wget reads commands or options from elsewhere", ["--execute", "--config", "--input-file"]);
      for (const full of ["--output-document", "--output-file", "--append-output"]) for (const w of optionValues(args, full)) if (!fx.writes.includes(w)) fx.writes.push(w);
      for (const letter of ["O", "o", "a"]) for (const u of shortOptionUses(args, letter, WGET_SHORT_VALUED)) if (u.value && !fx.writes.includes(u.value)) fx.writes.push(u.value);
      // `-O -` is standard output.
      fx.writes = fx.writes.filter((w) => w.value !== "-");
      for (const w of wgetOwnFiles(args) ?? []) if (!fx.writes.includes(w)) fx.writes.push(w);
      if (!wgetOwnFiles(args))
        fx.writeRegions.push(
          ...(valueAfter(/^(-P|--directory-prefix)$/, /^--directory-prefix=(.*)$/).length
            ? valueAfter(/^(-P|--directory-prefix)$/, /^--directory-prefix=(.*)$/)
            : [{ value: ".", raw: "wget", dynamic: false, glob: false }]),
        );
      return fx;
    case "make":
    case "gmake":
      if (has(/^(--eval|-E)(=|$)/)) fx.hidden.push(`${name} --eval runs make code given on the command line`);
      if (valueAfter(/^(-f|--file|--makefile)$/, /^(?:-f|--file=|--makefile=)(.+)$/).some((f) => f.dynamic || namesDescriptor(f.value))) fx.hidden.push(`${name} reads a makefile from its input`);
      if (args.some((a) => isLongOption(a.value, "--eval"))) fx.hidden.push(`${name} --eval runs make code given on the command line`);
      exec(/^(-f|--file|--makefile|-C|--directory|-I|--include-dir)(=|$)/, `${name} reads another makefile`, ["--file", "--makefile", "--directory", "--include-dir"]);
      // In a cluster too (`-sf -`, `-kf/dev/stdin`): red team A (session 17) — `printf 'all:\n\tcat .env\n' |
      // make -sf -` read .env under Read(**/.env) in bypassPermissions (diffcheck, real make) while `-f -` asked.
      for (const letter of "fCI") {
        const uses = shortOptionUses(args, letter, MAKE_SHORT_VALUED);
        if (letter === "f" && uses.some((u) => !!u.value && (u.value.dynamic || namesDescriptor(u.value.value)))) {
          const why = `${name} reads a makefile from its input`;
          if (!fx.hidden.includes(why)) fx.hidden.push(why);
        }
        if (uses.length && !fx.execOptions.some((o) => o.option === `-${letter}`)) fx.execOptions.push({ option: `-${letter}`, why: `${name} reads another makefile`, runs: true });
      }
      for (const a of args) {
        const def = makeDefinitionCode(a);
        if (def) fx.hidden.push(`${name} ${def}`);
        else if (/^[A-Za-z_][A-Za-z0-9_.]*[:+?]?=/.test(a.value))
          fx.execOptions.push({ option: a.value.split("=")[0]!, why: `${name} variables on the command line can replace the commands it runs` });
      }
      return fx;
    case "cargo":
      exec(/^(--config|-Z)(=|$)/, "cargo configuration on the command line can run programs");
      return fx;
    case "go":
      exec(/^-(toolexec|exec)(=|$)/, "go runs another program");
      return fx;
    case "pytest":
    case "py.test":
      exec(/^(-p|-c|--rootdir|--confcutdir|-o|--override-ini|--pyargs)(=|$)/, "pytest loads plugins or configuration from elsewhere", [
        "--rootdir",
        "--confcutdir",
        "--override-ini",
        "--pyargs",
        "--config-file",
        "--plugins",
      ]);
      return fx;
    case "rg":
      exec(/^--pre(=|$)|^--pre-glob/, "rg runs a preprocessor");
      return fx;
    // `split --filter=CMD` runs CMD with sh -c for each piece (differential checker, session 14).
    case "split":
      exec(/^--filter(=|$)/, "split --filter runs a shell command", ["--filter"]);
      return fx;
    // m4's syscmd/esyscmd run shell commands named in its input or files (read where Yoke has the input:
    // shell/m4-escapes.ts).
    case "m4":
      if (!escapesReadFor.includes("m4")) fx.hidden.push("m4 runs the shell commands its input names (syscmd, esyscmd)");
      return fx;
    case "zip":
      exec(/^(-TT|--unzip-command)(=|$)/, "zip runs another program", ["--unzip-command"]);
      if (args.some((a) => isLongOption(a.value, "--names-stdin") || (/^-[a-zA-Z]*@/.test(a.value) && !a.value.startsWith("--")))) readsListed("the files zip -@ is told on its input");
      return fx;
    case "vim":
    case "nvim":
    case "vi":
    case "ex":
    case "emacs":
      exec(/^(-c|--cmd|-S|--eval|-l|--load|-x|--execute)$|^\+/, `${name} runs editor commands`);
      // Ex mode (`ex`, `-e`, `-es`, `-E`) reads editor commands, `!` included, from its input.
      if (name !== "emacs" && (name === "ex" || args.some((a) => /^-[a-zA-Z]*[eE]/.test(a.value) && !a.value.startsWith("--"))))
        fx.hidden.push(`${name} in Ex mode runs the editor commands on its input (\`!\` runs programs)`);
      return fx;
    case "man":
      exec(/^(-P|--pager|-H|--html)(=|$)|^-[a-zA-Z]*P/, "man runs the pager or browser program it is given", ["--pager", "--html"]);
      return fx;
    case "dc":
      exec(/^(-e|--expression|-f|--file)(=|$)|^-[a-zA-Z]*[ef]/, "dc runs shell commands from its script (`!`)", ["--expression", "--file"]);
      return fx;
    case "nano":
    case "pico":
      exec(/^(-s|--speller)(=|$)/, `${name} runs the spell checker program it is given`, ["--speller"]);
      return fx;
    case "apt":
    case "apt-get":
    case "apt-cache":
    case "apt-mark":
    case "aptitude":
      // Configuration on the command line or from a file: `APT::Update::Pre-Invoke`, `DPkg::Pre-Invoke`… run programs.
      exec(/^(-o|--option|-c|--config-file)(=|$)|^-o./, `${name} configuration can name programs it runs (Pre-Invoke, Post-Invoke)`, ["--option", "--config-file"]);
      return fx;
    case "pdflatex":
    case "xelatex":
    case "lualatex":
    case "latex":
    case "tex":
    case "pdftex":
    case "luatex":
    case "xetex":
    case "etex":
      exec(/^--?(shell-escape|enable-write18|shell-restricted)$/, `${name} -shell-escape lets the document run programs`);
      return fx;
    case "latexmk":
      exec(
        /^-(e|r|pdflatex|latex|xelatex|lualatex|dvipdf|ps2pdf|pdfdvi|pdfps|pdfxe|pdflua|pvc|usepretex|pretex)(=|$)|^-(latexoption|shell-escape)/,
        "latexmk options name commands or Perl code it runs",
      );
      return fx;
    case "more":
      exec(/^\+.*!/, "more runs shell commands (`!`) given on its command line");
      return fx;
    case "less":
      exec(/^\+.*!|^--(lesskey-src|lesskey-file)(=|$)/, "less runs shell commands (`!`) given on its command line", ["--lesskey-src"]);
      return fx;
    case "sqlite3":
    case "sqlite": {
      // The shell's dot-commands run programs (`.shell`, `.system`, `.once |cmd`, `.output |cmd`), from
      // its SQL arguments, its -cmd/-init options, or its input when no SQL is given.
      exec(/^--?(cmd|init)(=|$)/, `${name} runs the dot-commands of its -cmd and -init options (.shell runs programs)`, ["-cmd", "-init", "--cmd", "--init"]);
      const operands: Word[] = [];
      for (let i = 0; i < args.length; i++) {
        const v = args[i]!.value;
        if (/^--?(cmd|init|separator|newline|nullvalue|vfs|maxsize|mmap|pagecache|lookaside|heap)$/.test(v)) i++;
        else if (!v.startsWith("-")) operands.push(args[i]!);
      }
      const sql = operands.slice(1);
      if (sql.some((w) => w.dynamic || /(^|[;\n])\s*\./.test(w.value))) fx.hidden.push(`${name} runs dot-commands given on its command line (.shell and .system run programs)`);
      else if (!sql.length) fx.hidden.push(`${name} reads commands from its input, where a dot-command (.shell) can run programs`);
      return fx;
    }
    case "tee":
      return fx;
    default:
      return fx;
  }
}

/** The first argument that is not an option (or an option's value). */
/**
 * Python standard modules whose `__main__` runs Python code given on the command line or read from
 * the input (`python -m timeit -s CODE`, `python -m code <<< CODE`, the REPLs, the debugger), and
 * the modules that run a module named after them (`python -m cProfile -m code`, `-m trace --module code`).
 */
const PYTHON_CODE_MODULES = /^(timeit|code|asyncio|pdb|_pyrepl|idlelib)(\..*)?$/;
/** A dotted name a module resolves and calls at run time (`python -m unittest code.interact`). */
const PYTHON_CODE_NAME = /^(code|pdb|asyncio|timeit|pty|os|subprocess|_pyrepl|idlelib|builtins|runpy|importlib|webbrowser)\.\w/;
/** A perl module name with an import list, as `-M`/`-m`/`-d:` turn it into `use NAME LIST;` — anything else is code. */
const PERL_MODULE = /^-?[A-Za-z_][\w:]*(=[\w.,:/+-]*)?$/;
/** A module specifier that is its own source (`data:text/javascript,…`) or fetched (`https:`). */
const NODE_CODE_SPECIFIER = /^(data|https?|blob):/i;

/**
 * Code an interpreter runs from an option or module that is not its `-c`/`-e` (red team 21): every
 * one of these ran `git reset --hard` under `Bash(git reset:*)` in bypassPermissions while the gate
 * took the command for a script from a file.
 */
export function interpreterOptionCode(label: string, name: string, args: Word[]): string | undefined {
  if (label === "python") {
    let interactive = false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i]!;
      const v = a.value;
      if (v === "--" || v === "-" || !v.startsWith("-")) break;
      if (v.startsWith("--")) {
        if (v === "--check-hash-based-pycs") i++;
        continue;
      }
      for (let k = 1; k < v.length; k++) {
        const ch = v[k]!;
        if (ch === "i") interactive = true;
        if (!"cmWXQ".includes(ch)) continue;
        const glued = v.slice(k + 1);
        const value = glued ? { ...a, value: glued } : args[i + 1];
        if (!glued) i++;
        if (ch === "c") return undefined;
        if (ch === "m") {
          if (!value) return undefined;
          if (value.dynamic) return `${name} -m runs a module only known when it runs`;
          if (PYTHON_CODE_MODULES.test(value.value)) return `${name} -m ${value.value} runs Python code given on its command line or read from its input`;
          // The module's own words: a module it runs in turn (`-m cProfile -m code`), a name it calls (`unittest code.interact`).
          const later = args.slice(i + 1);
          const inner = later.find((w, j) => w.dynamic || (/^(-m|--module)$/.test(later[j - 1]?.value ?? "") && PYTHON_CODE_MODULES.test(w.value)) || PYTHON_CODE_NAME.test(w.value));
          if (inner && !inner.dynamic) return `${name} -m ${value.value} is given ${inner.value}, which runs Python code read from its input or command line`;
          return interactive ? `${name} -i reads Python code from its input once the module ends` : undefined;
        }
        break;
      }
    }
    return interactive ? `${name} -i reads Python code from its input once the script ends` : undefined;
  }
  if (label === "node") {
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (!v.startsWith("-")) break;
      const m = /^(--import|--loader|--experimental-loader|--require|-r|--test-reporter)(=(.*))?$/.exec(v);
      if (!m) continue;
      const value = m[2] ? { ...args[i]!, value: m[3]! } : args[++i];
      if (value && (value.dynamic || NODE_CODE_SPECIFIER.test(value.value))) return `${name} ${m[1]} loads code given on the command line (${value.dynamic ? value.raw : value.value.slice(0, 40)})`;
    }
    return undefined;
  }
  if (label === "perl") {
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === "--" || !v.startsWith("-") || v === "-") break;
      const m = /^-[a-zA-Z]*?([Mm]|d[t]?:)(.*)$/s.exec(v);
      if (!m || /^-[a-zA-Z]*[eE]/.test(v.slice(0, v.length - m[2]!.length - m[1]!.length))) continue;
      const value = m[2] ? { ...args[i]!, value: m[2] } : m[1]!.startsWith("d") ? undefined : args[++i];
      if (value && (value.dynamic || !PERL_MODULE.test(value.value)))
        return `${name} -${m[1]!.replace(/:$/, "")} turns ${value.dynamic ? value.raw : "its value"} into code (\`use ${value.dynamic ? "…" : value.value.slice(0, 40)}\`)`;
    }
    return undefined;
  }
  return undefined;
}

/**
 * A make variable definition on the command line that runs code as make reads it, before any
 * makefile (red team 21): the name is expanded (`'a$(shell rm -rf src)=1'`), `!=` runs its value in
 * the shell, `:=`/`::=`/`:::=` expand theirs at once; a recursive value calling `$(shell …)` runs
 * wherever the makefile uses it. Each ran `git reset --hard` under `Bash(git reset:*)`, no makefile needed.
 */
function makeDefinitionCode(a: Word): string | undefined {
  if (a.dynamic || a.value.startsWith("-")) return undefined;
  const m = /^([^=]*?)(:::|::|:|!|\+|\?)?=(.*)$/s.exec(a.value);
  if (!m) return undefined;
  const [, varName, op, value] = m;
  if (varName!.includes("$")) return `expands the variable name ${varName} as it reads the command line, which can run commands`;
  if (op === "!") return `runs the value of ${varName}!= in the shell`;
  if (op && op.startsWith(":") && value!.includes("$")) return `expands ${varName}${op}= as it reads the command line, which can run commands`;
  if (/\$[({]\s*(shell|eval|call|file|guile)\b/.test(value!)) return `is given ${varName}, whose value runs commands wherever the makefile uses it`;
  return undefined;
}

/**
 * The words awk may take as its program (`texts`) and the program files (`files`), as mawk and gawk
 * read their options (red team 21): `-W VALUE` takes a value (`mawk -W interactive 'BEGIN{system(…)}'`
 * ran the program while the gate took `interactive` for it), `-W exec FILE` names the program file,
 * `-e`/`--source` give program text; an option Yoke does not know may take the next word as its
 * value, so that word and the next operand are both possible programs.
 */
function awkPrograms(args: Word[]): { texts: Word[]; files: Word[] } {
  const texts: Word[] = [];
  const files: Word[] = [];
  const sources: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (a.dynamic) {
      texts.push(a);
      break;
    }
    if (v === "--") {
      if (args[i + 1]) texts.push(args[i + 1]!);
      break;
    }
    if (!v.startsWith("-") || v === "-") {
      texts.push(a);
      break;
    }
    let m = /^(?:-f|--file|-E|--exec)(?:=(.*))?$/.exec(v) ?? /^-f(.+)$/.exec(v);
    if (m) {
      const f = m[1] !== undefined ? { ...a, value: m[1] } : args[++i];
      if (f) files.push(f);
      continue;
    }
    m = /^(?:-e|--source)(?:=(.*))?$/.exec(v);
    if (m) {
      const t = m[1] !== undefined ? { ...a, value: m[1] } : args[++i];
      if (t) sources.push(t);
      continue;
    }
    m = /^-W(.*)$/.exec(v);
    if (m) {
      const w = m[1] ? { ...a, value: m[1] } : args[++i];
      if (!w) break;
      if (w.dynamic) {
        texts.push(w);
        break;
      }
      // mawk's `-W exec FILE` (any abbreviation): the program file, and the last option.
      const ex = /^e[a-z]*(?:=(.*))?$/.exec(w.value);
      if (ex) {
        const f = ex[1] !== undefined ? { ...w, value: ex[1] } : args[i + 1];
        if (f) files.push(f);
        break;
      }
      continue;
    }
    if (/^(-F|-v|--field-separator|--assign|-i|--include|-l|--load)$/.test(v)) {
      i++;
      continue;
    }
    if (/^(-F|-v).|^--[a-z-]+=/.test(v)) continue;
    // An option Yoke does not know: its value may be the next word, which may also be the program.
    const next = args[i + 1];
    if (next && !next.value.startsWith("-")) texts.push(next);
  }
  // With a program file or `-e` text, the operands are data.
  return { texts: files.length || sources.length ? sources : texts, files };
}

function firstOperand(args: Word[], valued?: RegExp): Word | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.value === "--") return args[i + 1];
    if (a.value.startsWith("-") && a.value !== "-") {
      if (valued?.test(a.value)) i++;
      continue;
    }
    return a;
  }
  return undefined;
}

/** find's start paths: the operands before the first expression word (after -H/-L/-P/-D/-O). */
export function findRoots(args: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (/^-(H|L|P)$/.test(v) || /^-O\d*$/.test(v)) continue;
    if (v === "-D") {
      i++;
      continue;
    }
    if (/^[-(!]/.test(v) || v === ")" || v === ",") break;
    out.push(args[i]!);
  }
  return out;
}

/** Does this `git config` invocation change a configuration file? */
function gitConfigWrites(rest: string[]): boolean {
  const reading =
    /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|--show-origin|--show-scope|--name-only|get|list|--null|-z|--type|--bool|--int|--path|--default|--includes|--no-includes|--blob|--get-color|--get-colorbool)(=.*)?$/;
  const opts = rest.filter((v) => v.startsWith("-") || /^(get|list|set|unset|rename-section|remove-section|edit)$/.test(v));
  if (opts.some((v) => /^(--add|--replace-all|--unset|--unset-all|--rename-section|--remove-section|-e|--edit|set|unset|rename-section|remove-section|edit)$/.test(v))) return true;
  if (opts.some((v) => reading.test(v))) return false;
  const operands = rest.filter((v) => !v.startsWith("-"));
  return operands.length >= 2;
}

/** curl's short options that take a value (curl(1)); the others are flags a cluster may hold. */
const CURL_SHORT_VALUED = "AbcCdDeEFHKmoPQrtTuUwxXyYz";
/** A URL whose file name Yoke can tell: scheme, host, a path without query, fragment or escapes. */
const PLAIN_URL = /^(?:https?|ftp):\/\/[^/?#%\s{}[\]]+(\/[^?#%\s{}[\]]*)?$/;

/**
 * The files `curl -O URL…` writes, when Yoke can tell: the last part of each URL's path, in the
 * folder it runs in (curl takes the name from the URL unless -J or --output-dir say otherwise).
 * Every operand must be such a URL; undefined otherwise.
 */
function curlOwnFiles(args: Word[]): Word[] | undefined {
  const out: Word[] = [];
  let operandsOnly = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (a.dynamic) return undefined;
    if (!operandsOnly && v === "--") {
      operandsOnly = true;
      continue;
    }
    if (!operandsOnly && v.startsWith("--")) {
      if (longOptionOf(v, ["--remote-header-name", "--output-dir", "--create-dirs", "--config"])) return undefined;
      continue;
    }
    if (!operandsOnly && v.startsWith("-") && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (c === "J" || c === "K") return undefined;
        if (CURL_SHORT_VALUED.includes(c)) {
          if (k === v.length - 1) i++;
          break;
        }
      }
      continue;
    }
    const m = PLAIN_URL.exec(v);
    if (!m) return undefined;
    const path = m[1] ?? "";
    const leaf = path.slice(path.lastIndexOf("/") + 1);
    if (leaf) out.push({ ...a, value: leaf, glob: false, pattern: undefined });
  }
  return out;
}

/** wget's short options that take a value (wget(1)). */
const WGET_SHORT_VALUED = "OoaPeitTwUBlARDIXQ";
/** GNU make's short options that take a value (`-j`, `-l`, `-O` take one only glued: read as letters). */
const MAKE_SHORT_VALUED = "CfIoWE";
/** wget options that change nothing about which files it writes. */
const WGET_PLAIN =
  /^(-q|--quiet|-nv|--no-verbose|-v|--verbose|-c|--continue|-N|--timestamping|-nc|--no-clobber|-S|--server-response|--show-progress|--progress=[a-z:]+|--tries=\d+|--timeout=\d+|--wait=\d+|--no-check-certificate|--https-only|-4|-6|--inet4-only|--inet6-only|--retry-connrefused|--no-cache|--compression=[a-z]+|-[qvcNSnc46]+)$/;

/**
 * The files a plain wget writes, when Yoke can tell: `-O FILE` (also `-qO FILE`), or for each URL
 * the last part of its path (`index.html` for a folder) in the folder it runs in — wget takes the
 * name from the URL it was given, not from the server, unless told otherwise. undefined when the
 * options or the URLs leave it open (recursion, -P, -x, --content-disposition, a query string…).
 */
function wgetOwnFiles(args: Word[]): Word[] | undefined {
  const out: Word[] = [];
  let named = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const v = a.value;
    if (a.dynamic) return undefined;
    if (v === "-O" || v === "--output-document") {
      named = true;
      i++;
      continue;
    }
    if (/^-[qvcNSnc46]*O./.test(v) || v.startsWith("--output-document=") || /^-[qvcNSnc46]*O$/.test(v)) {
      named = true;
      if (/O$/.test(v)) i++;
      continue;
    }
    if (v.startsWith("-")) {
      if (!WGET_PLAIN.test(v)) return undefined;
      continue;
    }
    const m = PLAIN_URL.exec(v);
    if (!m) return undefined;
    const leaf = (m[1] ?? "/").slice((m[1] ?? "/").lastIndexOf("/") + 1);
    out.push({ ...a, value: leaf === "" ? "index.html" : leaf, raw: a.raw, glob: false, pattern: undefined });
  }
  return named ? [] : out.length ? out : undefined;
}
