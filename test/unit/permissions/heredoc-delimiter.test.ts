/**
 * Red team H (session 24): where a here-document ends. bash ends the body at the first line equal to the
 * delimiter word after quote removal (`E''OF`, `E"O"F`, `$'EOF'`, `$"EOF"`, `E$'OF'`, `$'E\x4fF'` all end
 * at a line `EOF`; `<<-` strips leading tabs first). tree-sitter's grammar ended such a body at a line
 * equal to the word as written, so the lines between were data to the analysis and commands to bash:
 * `cat <<E''OF`, `EOF`, `cat .env`, `E''OF` was read-only to the gate (allowed in plan mode under
 * `Read(./.env)`), and the differential checker's trace showed cat reading .env. Each form runs in real
 * bash first (the hidden line runs: a marker appears); then the gate must ask for it (plan: deny).
 * Ordinary here-documents stay allowed, and heredocDelimiter agrees with bash on every word.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createPermissionGate } from "../../../src/core/permissions/gate";
import { heredocDelimiter } from "../../../src/core/permissions/shell/words";
import { nodeListDir, nodeRealPath } from "../../../src/node/settings-files";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

const root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-heredoc-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const ws = join(root, "ws");
mkdirSync(join(ws, "src"), { recursive: true });
writeFileSync(join(ws, "README.md"), "hello\n");
writeFileSync(join(ws, ".env"), "SECRET=1\n");

const gate = createPermissionGate({
  cwd: ws,
  home: join(root, "home"),
  realPath: nodeRealPath,
  listDir: nodeListDir,
  loadSources: async () => [{ info: { kind: "extra", label: "test", baseDir: ws }, value: { permissions: { deny: ["Bash(rm:*)", "Read(./.env)"] } } }],
  shellWasm: () => loadShellWasm(),
});
const check = (command: string, mode: "default" | "plan" | "bypassPermissions") => gate.check({ tool: "run_command", permission: "Bash", input: { command }, mutates: true }, mode);

/** Runs the script in real bash in a fresh folder; true when `touch hit` ran. */
function bashRunsIt(script: string): boolean {
  const dir = mkdtempSync(join(root, "bash-"));
  try {
    execFileSync("bash", ["-c", script], { cwd: dir, stdio: "ignore", timeout: 10_000 });
  } catch {
    // The closing word left over may be "command not found": the marker is what counts.
  }
  return existsSync(join(dir, "hit"));
}

/** The delimiter bash takes from a word: the body line that ends the document, echoed by bash itself. */
function bashDelimiter(word: string, candidate: string): boolean {
  return bashRunsIt(`cat <<${word} >/dev/null\n${candidate}\ntouch hit\n${word}\n`);
}

/** A body whose line `EOF` ends the document for bash but not for tree-sitter. */
const HIDING: Array<[string, string]> = [
  ["E''OF", "cat <<E''OF\nEOF\nPAYLOAD\nE''OF"],
  ['E""OF', 'cat <<E""OF\nEOF\nPAYLOAD\nE""OF'],
  ["E'O'F", "cat <<E'O'F\nEOF\nPAYLOAD\nE'O'F"],
  ['E"O"F', 'cat <<E"O"F\nEOF\nPAYLOAD\nE"O"F'],
  ["$'EOF'", "cat <<$'EOF'\nEOF\nPAYLOAD\n$'EOF'"],
  ['$"EOF"', 'cat <<$"EOF"\nEOF\nPAYLOAD\n$"EOF"'],
  ["E$'OF'", "cat <<E$'OF'\nEOF\nPAYLOAD\nE$'OF'"],
  ["$''EOF", "cat <<$''EOF\nEOF\nPAYLOAD\n$''EOF"],
  ["<<-E''OF", "cat <<-E''OF\n\tEOF\nPAYLOAD\nE''OF"],
  ["wc <<E''OF", "wc -l <<E''OF\nEOF\nPAYLOAD\nE''OF"],
  // tree-sitter ended a document at a line that only starts with the word; bash reads on to `EOF`.
  ["EOF;cat <<'Y'", "cat <<EOF\nEOF;cat <<'Y'\nEOF\nPAYLOAD\nY"],
  ["EOF|cat <<'Y'", "cat <<EOF\nEOF|cat <<'Y'\nEOF\nPAYLOAD\nY"],
];

describe("a here-document's delimiter as bash reads it (red team H, session 24)", () => {
  it.each(HIDING)("%s: bash runs the line after the first EOF; the gate asks (plan: denies)", async (_name, form) => {
    expect(bashRunsIt(form.replace("PAYLOAD", "touch hit").replace(/^(cat|wc -l)/, "$1 >/dev/null"))).toBe(true);
    const attack = form.replace("PAYLOAD", "cat .env");
    expect((await check(attack, "default")).decision).toBe("ask");
    expect((await check(attack, "bypassPermissions")).decision).toBe("ask");
    expect((await check(attack, "plan")).decision).toBe("deny");
  });

  it.each([
    "cat <<EOF\nhello\nEOF",
    "cat <<'EOF'\nhello $x\nEOF",
    'cat <<"EOF"\nhello\nEOF',
    "cat <<\\EOF\nhello\nEOF",
    "cat <<-EOF\n\thello\n\tEOF",
    "cat <<EOF | wc -l\na\\\nb\nEOF",
    "cat <<END_OF_TEXT\nEOF\nEND_OF_TEXT",
  ])("an ordinary here-document stays allowed: %j", async (command) => {
    expect((await check(command, "default")).decision).toBe("allow");
  });

  it("heredocDelimiter agrees with bash", () => {
    const words: Array<[string, string]> = [
      ["EOF", "EOF"],
      ["'EOF'", "EOF"],
      ['"EOF"', "EOF"],
      ["\\EOF", "EOF"],
      ["E\\OF", "EOF"],
      ["E''OF", "EOF"],
      ['E"O"F', "EOF"],
      ["$'EOF'", "EOF"],
      ["$'E\\x4fF'", "EOF"],
      ['$"EOF"', "EOF"],
      ['"E\\OF"', "E\\OF"],
      ['"E\\$F"', "E$F"],
      ["$EOF", "$EOF"],
    ];
    for (const [word, expected] of words) {
      expect(heredocDelimiter(word), word).toBe(expected);
      expect(bashDelimiter(word, expected), `bash ends <<${word} at ${expected}`).toBe(true);
    }
    expect(readFileSync(join(ws, ".env"), "utf8")).toBe("SECRET=1\n");
  });
});
