/**
 * What `git clone`, `git init`, `git worktree add` and `git submodule add` write: a whole new repository (session 23,
 * gitnew23; gate22's differential checker saw `git clone -q . DIR` write DIR's `.git/config`, hooks and a checked-out
 * `.yoke/settings.json` the gate did not name). The folder they make is a written region, so Edit/Write deny and ask
 * rules and protected paths meet everything below it; the folder's default name is derived from the URL as git derives
 * it (`git_url_basename`, dir.c; checked against git 2.39 in test/unit/permissions/gitnew23-new-repository.test.ts).
 * Options are read as git's parse-options reads them: a long option by any unambiguous prefix (`--sep=D`,
 * `--templ=T`, `--upl=CMD`), short options in clusters (`-qbmain`). A word Yoke cannot place (an unknown or
 * ambiguous option, a word only known when it runs, `--git-dir`/`--work-tree`) makes the folder one only known at
 * run time. Read rules do not apply: what is below a folder the command makes is what the command brings.
 */
import { literalWord } from "./shell/words";
import type { Word } from "./shell/words";

export interface NewRepository {
  /** Folders written with everything below them (`fresh`: only new files are added there). */
  regions: Array<Word & { fresh?: boolean; door?: boolean }>;
  /** Single paths written (the new repository's marker: `DIR/.git`, a bare repository's `DIR/HEAD`, `.gitmodules`). */
  writes: Array<Word & { door?: boolean }>;
  /** Code that runs which Yoke cannot see (a transport that runs a program, a template folder's hooks, configuration). */
  hidden: string[];
}

interface Grammar {
  /** Long options (without `--`) that take a value in the next word when not glued with `=`. */
  valued: string[];
  /** Long options whose value is optional (only glued with `=`). */
  optional: string[];
  flags: string[];
  /** Short options that take a value (the rest of the cluster, or the next word). */
  shortValued: string;
  shortFlags: string;
}

/** git 2.39's options (`git clone -h` …), with later ones (2.40–2.49: --ref-format, --revision, --orphan) added. */
const GRAMMARS: Record<"clone" | "init" | "worktree add" | "submodule add", Grammar> = {
  clone: {
    valued: [
      "jobs",
      "template",
      "reference",
      "reference-if-able",
      "origin",
      "branch",
      "upload-pack",
      "depth",
      "shallow-since",
      "shallow-exclude",
      "separate-git-dir",
      "config",
      "server-option",
      "filter",
      "bundle-uri",
      "ref-format",
      "revision",
    ],
    optional: ["recurse-submodules", "recursive"],
    flags: [
      "verbose",
      "quiet",
      "progress",
      "reject-shallow",
      "no-checkout",
      "checkout",
      "bare",
      "mirror",
      "local",
      "no-hardlinks",
      "hardlinks",
      "shared",
      "dissociate",
      "single-branch",
      "no-tags",
      "tags",
      "shallow-submodules",
      "ipv4",
      "ipv6",
      "also-filter-submodules",
      "remote-submodules",
      "sparse",
    ],
    shortValued: "jobuc",
    shortFlags: "vqnls46",
  },
  init: {
    valued: ["template", "separate-git-dir", "object-format", "initial-branch", "ref-format"],
    optional: ["shared"],
    flags: ["bare", "quiet"],
    shortValued: "b",
    shortFlags: "q",
  },
  "worktree add": {
    valued: ["reason"],
    optional: [],
    flags: ["force", "detach", "checkout", "lock", "quiet", "track", "guess-remote", "orphan", "relative-paths"],
    shortValued: "bB",
    shortFlags: "fdq",
  },
  "submodule add": {
    valued: ["branch", "name", "reference", "depth"],
    optional: [],
    flags: ["force", "quiet", "progress", "dissociate"],
    shortValued: "b",
    shortFlags: "fq",
  },
};

/** A long option's full name as parse-options takes it (exact, `no-` negation, or unique prefix), or undefined. */
function resolveLong(name: string, g: Grammar): string | undefined {
  const all = [...g.valued, ...g.optional, ...g.flags];
  if (all.includes(name)) return name;
  if (name.startsWith("no-") && all.includes(name.slice(3))) return name.slice(3);
  const hits = all.filter((o) => o.startsWith(name));
  if (hits.length === 1) return hits[0];
  const negated = name.startsWith("no-") ? all.filter((o) => o.startsWith(name.slice(3))) : [];
  return negated.length === 1 ? negated[0] : undefined;
}

interface Parsed {
  /** Option full name → its values (flags: an empty string). */
  options: Map<string, Word[]>;
  operands: Word[];
  /** A word Yoke could not place. */
  unknown?: string;
}

function parse(args: Word[], g: Grammar): Parsed {
  const out: Parsed = { options: new Map(), operands: [] };
  const put = (o: string, v: Word) => out.options.set(o, [...(out.options.get(o) ?? []), v]);
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic) {
      out.unknown ??= `${w.raw} (only known when it runs)`;
      out.operands.push(w);
      continue;
    }
    if (v === "--") {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const full = resolveLong(eq < 0 ? v.slice(2) : v.slice(2, eq), g);
      if (!full) {
        out.unknown ??= `${v} (an option Yoke does not know)`;
        continue;
      }
      if (eq >= 0) put(full, { ...w, value: v.slice(eq + 1) });
      else if (g.valued.includes(full) && !v.startsWith("--no-")) {
        if (args[i + 1]) put(full, args[++i]!);
      } else put(full, literalWord(""));
      continue;
    }
    if (v.startsWith("-") && v.length > 1) {
      for (let k = 1; k < v.length; k++) {
        const c = v[k]!;
        if (g.shortValued.includes(c)) {
          const rest = v.slice(k + 1);
          if (rest) put(`-${c}`, { ...w, value: rest });
          else if (args[i + 1]) put(`-${c}`, args[++i]!);
          break;
        }
        if (!g.shortFlags.includes(c)) {
          out.unknown ??= `${v} (an option Yoke does not know)`;
          break;
        }
        put(`-${c}`, literalWord(""));
      }
      continue;
    }
    out.operands.push(w);
  }
  return out;
}

const SPACE = /[ \t\n\v\f\r]/;

/**
 * git's `git_url_basename(repo, is_bundle, is_bare)` (dir.c, git 2.39): the folder `git clone URL` and
 * `git submodule add URL` make when none is given; undefined where git dies ("No directory name could be guessed").
 */
export function gitUrlBasename(repo: string, isBundle: boolean, isBare: boolean): string | undefined {
  let start = repo.indexOf("://");
  start = start < 0 ? 0 : start + 3;
  let end = repo.length;
  for (let p = start; p < end && repo[p] !== "/"; p++) if (repo[p] === "@") start = p + 1;
  while (start < end && (repo[end - 1] === "/" || SPACE.test(repo[end - 1]!))) end--;
  if (end - start > 5 && repo[end - 5] === "/" && repo.slice(end - 4, end) === ".git") {
    end -= 5;
    while (start < end && repo[end - 1] === "/") end--;
  }
  const part = repo.slice(start, end);
  if (!part.includes("/") && part.includes(":")) {
    let p = end;
    while (start < p && /[0-9]/.test(repo[p - 1]!)) p--;
    if (start < p && repo[p - 1] === ":") end = p - 1;
  }
  let p = end;
  while (start < p && repo[p - 1] !== "/" && repo[p - 1] !== ":") p--;
  let name = repo.slice(p, end);
  const suffix = isBundle ? ".bundle" : ".git";
  if (name.endsWith(suffix)) name = name.slice(0, -suffix.length);
  if (!name || name === "/") return undefined;
  if (isBare) name = `${name}.git`;
  // Control characters and blanks: runs of them become one space; none at either end.
  let out = "";
  let prevSpace = true;
  for (const ch0 of name) {
    const ch = ch0 < "\x20" ? " " : ch0;
    if (SPACE.test(ch)) {
      if (prevSpace) continue;
      prevSpace = true;
    } else prevSpace = false;
    out += ch;
  }
  if (out && prevSpace) out = out.slice(0, -1);
  return out;
}

/** A transport that runs a program: `ext::CMD` runs CMD; `NAME::ADDR` runs `git-remote-NAME` from the PATH. */
function transportRuns(url: Word): string | undefined {
  if (url.dynamic) return undefined;
  const m = /^([A-Za-z0-9][A-Za-z0-9+.-]*)::/.exec(url.value);
  if (!m) return undefined;
  const t = m[1]!.toLowerCase();
  if (t === "ext") return `git's ext:: transport runs the command ${url.raw} names`;
  if (/^(https?|ftps?)$/.test(t)) return undefined;
  return `git runs git-remote-${m[1]} (found on the PATH) for ${url.raw}`;
}

/** Configuration keys `git clone -c` may set without making anything run (the rest may: asks where a rule could apply). */
const INERT_CLONE_CONFIG =
  /^(color\..*|user\.(name|email)|core\.autocrlf|core\.eol|init\.defaultbranch|remote\.[^.]+\.(fetch|tagopt|mirror)|branch\.[^.]+\.(remote|merge|rebase)|pull\.(rebase|ff)|fetch\.prune)$/i;

/** A local path git may find a bundle file at (get_repo_path): `x.bundle`, not a URL. */
const LOCAL_BUNDLE = /^(?![A-Za-z][A-Za-z0-9+.-]*:\/\/)[^:]*\.bundle\/*$|^\.{0,2}\/.*\.bundle\/*$/;

const join = (dir: string, rel: string): string => (rel.startsWith("/") || !dir ? rel : `${dir.replace(/\/+$/, "")}/${rel}`);

/**
 * What the command writes as a new repository, or undefined when it is none of these four. `args`: the words after
 * `git`.
 */
export function gitNewRepository(args: Word[]): NewRepository | undefined {
  let i = 0;
  let cwd = "";
  let moved: string | undefined;
  // git's own `--bare` (before the subcommand) makes `git init DIR` a bare repository at DIR, as `git init --bare DIR`
  // does (real git 2.39: DIR/HEAD, DIR/config, DIR/hooks; red team F, session 23: it was read as DIR/.git). git clone
  // ignores it (it still makes DIR/.git).
  let globalBare = false;
  for (; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamic) return undefined;
    if (!v.startsWith("-")) break;
    if (v === "-C") {
      const d = args[++i];
      if (!d || d.dynamic) moved ??= "git -C with a folder only known when it runs";
      else if (d.value) cwd = join(cwd, d.value);
    } else if (v === "-c" || v === "--config-env" || v === "--namespace" || v === "--super-prefix" || v === "--exec-path") i++;
    else if (v === "--git-dir" || v === "--work-tree") {
      moved ??= `git ${v}`;
      i++;
    } else if (/^--(git-dir|work-tree)=/.test(v)) moved ??= `git ${v.split("=")[0]}`;
    else if (v === "--bare") globalBare = true;
  }
  const sub = args[i];
  if (!sub || sub.dynamic) return undefined;
  let kind: keyof typeof GRAMMARS;
  let rest: Word[];
  if (sub.value === "clone" || sub.value === "init") {
    kind = sub.value;
    rest = args.slice(i + 1);
  } else if (sub.value === "worktree" && args[i + 1]?.value === "add" && !args[i + 1]!.dynamic) {
    kind = "worktree add";
    rest = args.slice(i + 2);
  } else if (sub.value === "submodule") {
    let k = i + 1;
    while (args[k] && !args[k]!.dynamic && /^(-q|--quiet|--cached)$/.test(args[k]!.value)) k++;
    if (args[k]?.value !== "add" || args[k]!.dynamic) return undefined;
    kind = "submodule add";
    rest = args.slice(k + 1);
  } else return undefined;
  const g = GRAMMARS[kind];
  const p = parse(rest, g);
  const out: NewRepository = { regions: [], writes: [], hidden: [] };
  const at = (w: Word, rel: string): Word => ({ ...w, value: join(cwd, rel), glob: false, pattern: undefined });
  // git clone, worktree add and submodule add refuse a folder that is not empty, and init's template files are copied
  // only where none is: only new files are written below these folders.
  const fresh = (w: Word, rel: string): Word & { fresh: boolean } => ({ ...at(w, rel), fresh: true });
  const unknownFolder = (why: string): Word => ({ value: `$(the new repository's folder: ${why})`, raw: `git ${kind}`, dynamic: true, glob: false });
  const has = (o: string, short?: string) => p.options.has(o) || (!!short && p.options.has(short));
  for (const d of p.options.get("separate-git-dir") ?? []) {
    if (d.dynamic) out.regions.push(unknownFolder(`--separate-git-dir ${d.raw}`));
    else out.regions.push(fresh(d, d.value));
  }
  if (has("template")) out.hidden.push(`git ${kind} --template copies hooks from a folder`);
  for (const kv of [...(p.options.get("config") ?? []), ...(p.options.get("-c") ?? [])]) {
    const key = kv.value.split("=")[0]!;
    if (kv.dynamic || !INERT_CLONE_CONFIG.test(key)) out.hidden.push(`git clone --config ${kv.raw} may make git run programs`);
  }
  // `--upload-pack`/`-u` in every spelling is read as a script by shell/unwrap.ts (gitSubcommandCommands).
  const operands = p.operands;
  const why = moved ?? p.unknown;
  if (kind === "init") {
    const bare = has("bare") || globalBare;
    const dir = operands[0];
    if (why || dir?.dynamic) out.regions.push(unknownFolder(why ?? dir!.raw));
    else {
      const base = dir ? dir.value.replace(/\/+$/, "") || "/" : ".";
      out.writes.push(at(dir ?? literalWord("."), bare ? `${base}/HEAD` : `${base}/.git`));
      // A new repository's git folder, hooks and all. Not where git only reinitialises the folder it runs in (`git init`
      // in the workspace: its `.git` is the workspace's, already protected by name).
      if (!bare && join(cwd, base).replace(/^(\.\/)+|\/\.$/g, "") !== ".") out.regions.push(fresh(dir ?? literalWord("."), `${base}/.git`));
      // A bare repository made in an existing folder is written into it: its files (not the folder's other ones).
      if (bare) {
        for (const f of ["config", "description", "packed-refs"]) out.writes.push(at(dir ?? literalWord("."), `${base}/${f}`));
        for (const f of ["hooks", "info", "objects", "refs", "branches"]) out.regions.push(fresh(dir ?? literalWord("."), `${base}/${f}`));
      }
    }
    return out;
  }
  if (kind === "worktree add") {
    const dir = operands[0];
    if (!dir) return out;
    if (why || dir.dynamic) out.regions.push(unknownFolder(why ?? dir.raw));
    else out.regions.push(fresh(dir, dir.value));
    return out;
  }
  const url = operands[0];
  if (!url) return out;
  const runs = transportRuns(url);
  if (runs) out.hidden.push(runs);
  const bare = kind === "clone" && (has("bare") || has("mirror"));
  const given = operands[1];
  if (why || given?.dynamic || (!given && url.dynamic)) {
    out.regions.push(unknownFolder(why ?? (given ?? url).raw));
    return out;
  }
  // A local bundle file gives its name less `.bundle` (git looks at the file when it runs): both are named.
  const names = given
    ? [given.value]
    : [gitUrlBasename(url.value, false, bare), kind === "clone" && LOCAL_BUNDLE.test(url.value) ? gitUrlBasename(url.value, true, bare) : undefined].filter(
        (n, k, a): n is string => !!n && a.indexOf(n) === k,
      );
  for (const n of names) {
    out.regions.push(fresh(given ?? url, n));
    out.writes.push(at(given ?? url, `${n.replace(/\/+$/, "") || "/"}/${bare ? "HEAD" : ".git"}`));
  }
  // `git submodule add` also writes its entry into `.gitmodules` and the submodule's git folder `.git/modules/<name>`
  // (strace of real git 2.39: `.gitmodules.lock` renamed over `.gitmodules`, `.git/modules/<name>/…`, `.git/config`).
  // Named so that deny and ask rules on them apply (session 24, nested24: `git submodule add` was allowed under
  // `Edit(./.gitmodules)` and `Edit(./.git/modules/**)`); marked `door`: the sandbox lets exactly such a line write
  // them and checks what it wrote (protected-paths.ts, GIT_LINKED_WORK), so being protected paths does not make
  // them ask. `<name>` is `--name`'s value, else the path (git's default, from the working tree's top).
  if (kind === "submodule add") {
    const name = p.options.get("name")?.at(-1);
    const top = (rel: string): Word & { door: true } => ({ ...at(given ?? url, rel), door: true });
    out.writes.push(top(".gitmodules"));
    if (name?.dynamic) out.regions.push({ ...top(".git/modules"), fresh: true });
    else for (const n of name ? [name.value] : names) out.regions.push({ ...top(`.git/modules/${n.replace(/^\/+|\/+$/g, "")}`), fresh: true });
  }
  return out;
}
