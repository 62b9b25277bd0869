/**
 * Session 24, red team H: where a here-document ends, and the pattern of `${x#…}` (one leaf to tree-sitter,
 * expanded by bash with its substitutions). bash ends the body at the first line equal to the
 * delimiter word after quote removal (`E''OF`, `E"O"F`, `$'EOF'`, `$"EOF"`, `E$'OF'` end at `EOF`; `<<-`
 * strips leading tabs; an unquoted word's body joins backslash-newline pairs first), tree-sitter at a line
 * equal to the word as written. The lines between are data to one and commands to the other: each input
 * puts a payload there (a read of the denied .env, a write of a fresh file) and closes with the word as
 * written, so the checker reports any payload that ran while the gate took it for data.
 */
type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Delimiter words and the line bash ends them at. */
const WORDS: ReadonlyArray<readonly [string, string]> = [
  ["E''OF", "EOF"],
  ['E""OF', "EOF"],
  ["E'O'F", "EOF"],
  ['E"O"F', "EOF"],
  ["$'EOF'", "EOF"],
  ['$"EOF"', "EOF"],
  ["E$'OF'", "EOF"],
  ["$'E\\x4fF'", "EOF"],
  ["$'\\105OF'", "EOF"],
  ["$''EOF", "EOF"],
  ["EOF''", "EOF"],
  ["''EOF", "EOF"],
  ['"E"OF', "EOF"],
  ["E\\OF", "EOF"],
  ["\\EOF", "EOF"],
  ["EOF", "E\\\nOF"],
];
const PAYLOADS = ["cat .env", "touch w24h", "head -c9 .env > w24h", "sh -c 'cat .env'"];
const READERS = ["cat", "wc -l", "cat >/dev/null", "grep -c x", ": "];

/** One input of the production. */
export function generate24h(r: Rng): { command: string; shape: string[] } {
  if (r() < 0.3) {
    // The pattern of `${x#…}` and its kin: one leaf to tree-sitter, expanded by bash when x is set.
    const op = pick(r, ["#", "##", "%", "%%", "^", "^^", ",", ",,"]);
    const sub = pick(r, ["$(PAYLOAD)", "`PAYLOAD`", "<(PAYLOAD)", "x$(PAYLOAD)*"]).replace("PAYLOAD", pick(r, PAYLOADS));
    const quote = r() < 0.5 ? '"' : "";
    return { command: `echo ${quote}\${${pick(r, ["PWD", "HOME", "PATH"])}${op}${sub}}${quote}`, shape: ["expansion pattern", `expansion pattern: ${op}`] };
  }
  const [word, line] = pick(r, WORDS);
  const tabs = r() < 0.2;
  const pad = tabs ? "\t" : "";
  const payload = pick(r, PAYLOADS);
  if (r() < 0.2) {
    // A line that only starts with the word: tree-sitter ended the document there, bash reads on.
    const glue = pick(r, [";", "|", "&&", " ;", "&"]);
    const command = `cat <<EOF\nEOF${glue}cat <<'Y'\nEOF\n${payload}\nY`;
    return { command, shape: ["heredoc delimiter", `heredoc delimiter: line starting with the word (${glue.trim()})`] };
  }
  const command = `${pick(r, READERS)} <<${tabs ? "-" : ""}${word}\n${pad}${line}\n${payload}\n${pad}${word}`;
  return { command, shape: ["heredoc delimiter", `heredoc delimiter: ${word}${tabs ? " <<-" : ""}`] };
}
