/** POSIX shell quoting, to run an argument vector through `bash -c`. */

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

export function shellQuote(arg: string): string {
  if (arg !== "" && SAFE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** One argument is taken as a shell command line as it is; several are quoted and joined. */
export function commandLineFromArgv(argv: readonly string[]): string {
  if (argv.length === 1) return argv[0]!;
  return argv.map(shellQuote).join(" ");
}
