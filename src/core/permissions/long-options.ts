/**
 * GNU long options may be abbreviated (getopt_long, and git, curl, npm, argparse alike): any
 * unambiguous prefix works — `sort --compress-prog=sh`, `sed --in`, `date --fi=F`. An option
 * table that lists `--output` must therefore also catch `--out` and `--outp=F`. A prefix of a
 * dangerous option is read as that option (an ambiguous one makes the program fail, so erring
 * that way only asks more); a word that is exactly another option the tool has is that option.
 */

/** The option name of a word (`--out=F` → `--out`), or undefined when it is not a long option. */
function nameOf(word: string): string | undefined {
  if (!word.startsWith("--") || word.length < 3) return undefined;
  const eq = word.indexOf("=");
  return eq < 0 ? word : word.slice(0, eq);
}

/**
 * Is `word` the long option `full` (with or without `=value`) or an abbreviation of it? `exact`
 * lists other options of the tool the abbreviation could also be (`--text` is git's own option,
 * not `--textconv` abbreviated).
 */
export function isLongOption(word: string, full: string, exact: readonly string[] = []): boolean {
  const name = nameOf(word);
  if (!name) return false;
  if (name === full) return true;
  if (exact.includes(name)) return false;
  return full.startsWith(name);
}

/** Is `word` any of the long options `fulls` or an abbreviation of one? The full name, or undefined. */
export function longOptionOf(word: string, fulls: readonly string[], exact: readonly string[] = []): string | undefined {
  return fulls.find((f) => isLongOption(word, f, exact));
}

/**
 * The values of an option in `args` (`--file F`, `--file=F`, abbreviated; `short` as `-f F` or
 * `-fF`), before `--`.
 */
export function optionValues<W extends { value: string }>(args: readonly W[], full: string | undefined, short?: string, exact: readonly string[] = []): W[] {
  const out: W[] = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") break;
    if (full && isLongOption(v, full, exact)) {
      const eq = v.indexOf("=");
      if (eq >= 0) out.push({ ...args[i]!, value: v.slice(eq + 1) });
      else if (args[i + 1]) out.push(args[++i]!);
    } else if (short && v === short && args[i + 1]) out.push(args[++i]!);
    else if (short && v.startsWith(short) && v.length > short.length && !v.startsWith("--")) out.push({ ...args[i]!, value: v.slice(short.length) });
  }
  return out;
}

/**
 * Short options as getopt reads a cluster (`-sLo F`, `-qO-`, `-sLO`): letters in `takesValue`
 * end the cluster and take the rest of it, or the next word, as their value. Returns each use of
 * `letter` with its value (undefined for a letter that takes none), before `--`.
 */
export function shortOptionUses<W extends { value: string }>(args: readonly W[], letter: string, takesValue: string): Array<{ value?: W }> {
  const out: Array<{ value?: W }> = [];
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === "--") break;
    if (!v.startsWith("-") || v.startsWith("--") || v.length < 2) continue;
    for (let k = 1; k < v.length; k++) {
      const c = v[k]!;
      if (!takesValue.includes(c)) {
        if (c === letter) out.push({});
        continue;
      }
      const glued = v.slice(k + 1);
      const value = glued ? { ...args[i]!, value: glued } : args[i + 1];
      if (!glued) i++;
      if (c === letter) out.push({ value });
      break;
    }
  }
  return out;
}
