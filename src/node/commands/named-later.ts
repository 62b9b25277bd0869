/**
 * What a protected configuration comes to name while a command runs (session 24, bgprot24). The sandbox
 * mounts what the configurations name (protected-references.ts: `.npmrc` `node-options=--require
 * ./tools/pre.js`, `.yarnrc.yml` `yarnPath`, `.envrc`'s `source_env`, …) read-only when a command
 * starts; a command that is still running when the person approves a configuration edit naming a new
 * file could go on writing that file, and the person's next `npm run t` ran what it wrote.
 *
 * A mount cannot be added to a running sandbox, so the time is what tells: the configuration's change
 * time (which the command cannot touch: the configuration is read-only to it, or quarantined if it made
 * one) is the moment the file became protected. A newly named file (or a folder on the way to it) whose
 * change time is at or after that moment, and after the command started, may have been written by the
 * command after the file became protected: it is moved to the quarantine. No process can set a change
 * time back, so this holds whenever the check runs — on the running command's schedule (about every
 * second), and when it ends. A file the person wrote after approving the configuration, while such a
 * command ran, is moved too (said so to the model).
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { protectedReferences } from "../../core/protected-references";
import { nodeReadTextSync } from "../read-text";

/** The state of one writable folder's check (NamedLaterGuard in sandbox/types.ts). */
export interface NamedLaterState {
  kind: "references";
  /** Every writable folder and the homes among them, as the sandbox read the references when the command started. */
  roots: readonly string[];
  homes: readonly string[];
  /** Sub-project folders holding a package manager's configuration, read with the roots' (nested24). */
  nested?: readonly string[];
  /** The references read then (protected by the command's mounts and guards). */
  known: ReadonlySet<string>;
  /** When the command's plan was made, ns since the epoch, less a margin for the file system clock's granularity. */
  sinceNs: bigint;
  /** Per newly named path, the earliest moment it was seen protected (the configuration may change again later). */
  named: Map<string, bigint>;
  /** The folders and links on the way to newly named paths, as first seen (device:inode; "-": absent). */
  ways: Map<string, string>;
}

export interface NamedLaterFinding {
  /** What to move to the quarantine (the named file, or a link or entry on the way). */
  path: string;
  why: string;
}

/** Entries looked at under a newly named folder, at most. */
const WALK_MAX = 2000;

function ctimeNs(p: string): bigint | undefined {
  return lstatOf(p)?.ctimeNs;
}

function isWithin(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

const reader = {
  read: nodeReadTextSync,
  real: (x: string) => {
    try {
      lstatSync(x);
    } catch {
      return undefined;
    }
    try {
      return realpathSync(x);
    } catch {
      return x;
    }
  },
  list: (x: string) => {
    try {
      return readdirSync(x);
    } catch {
      return undefined;
    }
  },
};

/** The references read when the command started (the sandbox's own reading), for NamedLaterState.known. */
export function knownReferences(refs: ReadonlyArray<{ path: string }>): ReadonlySet<string> {
  return new Set(refs.map((r) => r.path));
}

/**
 * The newly named paths in `root` (one of `state.roots`) changed at or after they became protected. `rel`
 * gives a path as the model should read it.
 */
export function namedLaterFindings(state: NamedLaterState, root: string): NamedLaterFinding[] {
  const out: NamedLaterFinding[] = [];
  let refs;
  try {
    refs = protectedReferences(state.roots, state.homes, reader, state.nested ?? []);
  } catch {
    return out;
  }
  for (const ref of refs) {
    if (state.known.has(ref.path) || ref.path === root || !isWithin(ref.path, root)) continue;
    // Only a folder more specific than this one takes it (a listed path inside the workspace).
    if (state.roots.some((r) => r !== root && r.length > root.length && isWithin(ref.path, r))) continue;
    const sourceTime = ref.source ? ctimeNs(ref.source) : undefined;
    const seen = state.named.get(ref.path);
    const times = [sourceTime, seen].filter((t): t is bigint => t !== undefined);
    const named = times.length ? times.reduce((a, b) => (b < a ? b : a)) : state.sinceNs;
    state.named.set(ref.path, named);
    const since = named > state.sinceNs ? named : state.sinceNs;
    const by = ref.source ? ` by ${isWithin(ref.source, root) ? ref.source.slice(root.length + 1) : ref.source}` : "";
    const why = `${ref.why}; it was named${by} after this command started and changed after that (the command could write it then), so it was moved out`;
    // From the folder's top down: a folder (or link) on the way that is not the one first seen (one moved in
    // place), or, at the first sight, changed since; then the file itself, changed since.
    const parts = ref.path.slice(root.length + 1).split("/");
    let at = root;
    let hit = false;
    let link: string | undefined;
    for (let i = 0; i < parts.length; i++) {
      at = join(at, parts[i]!);
      const st = lstatOf(at);
      const last = i === parts.length - 1;
      if (st && st.isSymbolicLink()) link ??= at;
      if (last && ref.kind === "file") {
        if (st && st.ctimeNs >= since) hit = true;
      } else if (wayChanged(state, at, st, since)) hit = true;
      if (!st || st.isSymbolicLink()) break;
    }
    // The named path itself is moved, or the first link on the way (never what it leads to).
    if (hit) {
      if (link || lstatOf(ref.path)) out.push({ path: link ?? ref.path, why });
      continue;
    }
    if (ref.kind === "dir" && !link) walk(state, ref.path, since, why, out);
  }
  return out;
}

function lstatOf(p: string) {
  try {
    return lstatSync(p, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * Is the folder `p` on the way to a newly named path not the one it was? The first time it is seen, its change
 * time tells (a folder moved in place gets a new one; so does one whose entries changed, which is moved to be
 * safe); from then on, its identity (device and inode: the quarantine's own moves change its times, not that).
 */
function wayChanged(state: NamedLaterState, p: string, st: ReturnType<typeof lstatOf>, since: bigint): boolean {
  const id = st ? `${st.dev}:${st.ino}` : "-";
  const memo = state.ways.get(p);
  if (memo === undefined) {
    state.ways.set(p, id);
    return !!st && st.ctimeNs >= since;
  }
  return memo !== id;
}

/** The entries under a newly named folder changed since `since` (a folder moved in place moved whole). */
function walk(state: NamedLaterState, dir: string, since: bigint, why: string, out: NamedLaterFinding[]): void {
  let seen = 0;
  const visit = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      if (++seen > WALK_MAX) return;
      const p = join(d, n);
      const st = lstatOf(p);
      if (!st) continue;
      if (st.isDirectory()) {
        if (wayChanged(state, p, st, since)) out.push({ path: p, why });
        else visit(p);
      } else if (st.ctimeNs >= since) out.push({ path: p, why });
    }
  };
  visit(dir);
}
