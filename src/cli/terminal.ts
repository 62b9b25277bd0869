/** The terminal the CLI asks its questions in. */
import { isatty } from "node:tty";

/**
 * `process.stdin` when fd 0 is a terminal, else undefined. Asking fd 0 first leaves
 * `process.stdin` unmade when it is a pipe, a file or /dev/null (scripts, CI, background agents):
 * making it (a stream over the pipe or file) cost about a millisecond of a session's start, and
 * only a terminal is asked anything.
 */
export function terminalStdin(): NodeJS.ReadStream | undefined {
  return isatty(0) ? process.stdin : undefined;
}
