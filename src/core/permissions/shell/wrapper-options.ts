/**
 * The options of the wrappers Yoke sees through, as each program reads them (getopt_long: clusters,
 * glued values, unambiguous prefixes of long options). shell/unwrap.ts reads nice, stdbuf, timeout
 * and sudo with these tables; the differential checker's generator (src/bench/diffcheck) draws its
 * option spellings for every wrapper from them, so a new entry here is exercised against real bash.
 */
export interface WrapperOptions {
  /** Short options without a value. */
  flags: string;
  /** Short options with a value (`-s9`, `-s 9`). */
  valued: string;
  /** Long options without a value. */
  long: readonly string[];
  /** Long options with a value (`--signal=9`, `--signal 9`, `--sig=9`). */
  longValued: readonly string[];
  /** Long options whose value is optional: only `--opt=VALUE` gives one (`--block-signal`, `--block-signal=INT`). */
  longOptional?: readonly string[];
  /** `-N` is a number (nice's old form). */
  number?: boolean;
  /** A value the option takes in an ordinary command (for the generator). */
  sample?: Readonly<Record<string, string>>;
}

export const WRAPPER_OPTIONS: Readonly<Record<string, WrapperOptions>> = {
  nice: { flags: "", valued: "n", long: ["--help", "--version"], longValued: ["--adjustment"], number: true, sample: { n: "5", "--adjustment": "5" } },
  stdbuf: {
    flags: "",
    valued: "ioe",
    long: ["--help", "--version"],
    longValued: ["--input", "--output", "--error"],
    sample: { i: "0", o: "L", e: "0", "--input": "0", "--output": "L", "--error": "0" },
  },
  timeout: {
    flags: "v",
    valued: "sk",
    long: ["--preserve-status", "--foreground", "--verbose", "--help", "--version"],
    longValued: ["--signal", "--kill-after"],
    sample: { s: "TERM", k: "1", "--signal": "KILL", "--kill-after": "1" },
  },
  // sudo 1.9's getopt_long string `+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv` (`-h` read as taking a value:
  // `-hHOST` is one, a lone `-h` prints help and runs nothing).
  sudo: {
    flags: "ABbEeHiKklNnPSsVv",
    valued: "acugpCDrtUThR",
    long: [
      "--askpass",
      "--background",
      "--bell",
      "--edit",
      "--set-home",
      "--login",
      "--remove-timestamp",
      "--reset-timestamp",
      "--list",
      "--non-interactive",
      "--preserve-groups",
      "--stdin",
      "--shell",
      "--validate",
      "--help",
      "--version",
    ],
    longValued: ["--auth-type", "--login-class", "--user", "--group", "--chdir", "--chroot", "--prompt", "--role", "--type", "--other-user", "--host", "--close-from", "--command-timeout"],
    longOptional: ["--preserve-env"],
    sample: { u: "root", g: "root", p: "x", C: "3", D: ".", "--user": "root", "--group": "root", "--chdir": ".", "--prompt": "x" },
  },
  exec: { flags: "cl", valued: "a", long: [], longValued: [], sample: { a: "x" } },
  // GNU env (coreutils 9.1; `-a`/`--argv0` from 9.5 read too): `-S`/`-C` are read by the env step itself.
  env: {
    flags: "i0v",
    valued: "uCSa",
    long: ["--ignore-environment", "--null", "--debug", "--list-signal-handling", "--help", "--version"],
    longValued: ["--unset", "--chdir", "--split-string", "--argv0"],
    longOptional: ["--block-signal", "--default-signal", "--ignore-signal"],
    sample: { u: "X", C: ".", S: "true", a: "x", "--unset": "X", "--chdir": ".", "--argv0": "x" },
  },
  // GNU time (and bash's `time -p`); `-o FILE` is written.
  time: {
    flags: "pavqV",
    valued: "of",
    long: ["--append", "--verbose", "--quiet", "--portability", "--help", "--version"],
    longValued: ["--output", "--format"],
    sample: { o: "/dev/null", f: "%e", "--output": "/dev/null", "--format": "%e" },
  },
  xargs: {
    flags: "0rtpx",
    valued: "ILnPsdEa",
    long: ["--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit"],
    longValued: ["--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
    // findutils' optional_argument: `--replace rm` is -I {} then the program rm.
    longOptional: ["--max-lines", "--eof", "--replace"],
    sample: { I: "{}", L: "1", n: "1", P: "1", s: "4096", d: "x", E: "END", a: "/dev/null", "--max-args": "1", "--max-procs": "1", "--delimiter": "x", "--arg-file": "/dev/null" },
  },
  watch: {
    flags: "bcegtx",
    valued: "nq",
    long: ["--beep", "--color", "--errexit", "--no-title", "--exec", "--chgexit"],
    longValued: ["--interval", "--equexit"],
    sample: { n: "1", q: "1", "--interval": "1", "--equexit": "1" },
  },
  bash: {
    flags: "eilrsuvxnfhBCEHPT",
    valued: "oO",
    long: ["--norc", "--noprofile", "--posix", "--login", "--noediting"],
    longValued: ["--rcfile", "--init-file"],
    sample: { o: "errexit", O: "extglob" },
  },
};
