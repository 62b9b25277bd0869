/**
 * The commands psql's meta-commands hand to a shell, read from text Yoke has (`-c`'s values, a
 * here-document, a here-string, what a literal echo/printf pipes in), as ed's escapes are (ed-escapes.ts;
 * the results go the same way: scripts of the line, judged by every rule, and run in the sandbox):
 * `\! CMD` (the rest of the line, no interpolation), `\o |CMD` and `\g |CMD` (the rest of the line after
 * `|`), `\copy … program 'CMD'`, and backquotes in a meta-command's arguments (`` \set x `CMD` ``).
 *
 * Meta-commands that read commands or settings from files (`\i`, `\ir`, `\include…`), write files (`\o F`,
 * `\g F`, `\w`, `\s`, `\copy … to F`, `\lo_export`), start an editor (`\e`, `\ef`, `\ev`), change the
 * environment later commands run with (`\setenv`), or interpolate variables into a backquoted command
 * (`` `…:x…` ``) are returned as reasons instead (the command asks where a deny rule exists, as before).
 * Every backslash is read as a possible meta-command, also inside SQL strings: more commands than run,
 * never fewer. psql runs none of them before it has connected to a server.
 */
import type { EdEscapes } from "./ed-escapes";

const FILES = /^(i|ir|include|include_relative|w|write|s|lo_export|lo_import|e|edit|ef|ev)$/;

export function psqlEscapes(text: string): EdEscapes {
  const commands: string[] = [];
  const unknown: string[] = [];
  const note = (why: string) => {
    if (!unknown.includes(why)) unknown.push(why);
  };
  for (const line of text.split(/\r\n|[\r\n]/)) {
    for (let at = line.indexOf("\\"); at >= 0; at = line.indexOf("\\", at + 1)) {
      const rest = line.slice(at + 1);
      if (rest.startsWith("!")) {
        const cmd = rest.slice(1).trim();
        if (cmd) commands.push(cmd);
        else note("psql's \\! with no command starts an interactive shell, which reads commands Yoke cannot see");
        // The whole rest of the line is the command (no later meta-command on it).
        break;
      }
      const m = /^([a-zA-Z_?+]+)([\s\S]*)$/.exec(rest);
      if (!m) continue;
      const name = m[1]!.replace(/\+$/, "");
      const args = m[2]!;
      if ((name === "o" || name === "out" || /^g(x)?$/.test(name)) && args.includes("|")) {
        const cmd = args.slice(args.indexOf("|") + 1).trim();
        if (cmd) commands.push(cmd);
        break;
      }
      if ((name === "o" || name === "out" || /^g(x)?$/.test(name)) && /^\s*(\([^)]*\)\s*)?[^\s\\(]/.test(args)) note(`psql's \\${name} writes a file Yoke does not check`);
      else if (name === "copy") {
        const p = /\bprogram\s+'((?:[^']|'')*)'/i.exec(args);
        if (p) commands.push(p[1]!.replace(/''/g, "'"));
        else if (/\bprogram\b/i.test(args)) note("psql's \\copy runs a program Yoke cannot read");
        else if (/\b(from|to)\s+(?!(stdin|stdout|pstdin|pstdout)\b)\S/i.test(args)) note("psql's \\copy reads or writes a file Yoke does not check");
        break;
      } else if (name === "setenv") note("psql's \\setenv changes the environment its later commands run with");
      else if (FILES.test(name)) note(`psql's \\${name} reads, writes or edits a file as its commands or data, which Yoke does not follow`);
      // Backquotes in a meta-command's arguments run their text with the shell (up to the next meta-command).
      const own = args.split("\\")[0]!;
      for (const b of own.matchAll(/`([^`]*)`/g)) {
        if (/:['"]?[A-Za-z_]/.test(b[1]!)) note("a backquoted command in psql interpolates a variable Yoke does not follow");
        if (b[1]!.trim()) commands.push(b[1]!.trim());
      }
      if ((own.match(/`/g) ?? []).length % 2) note("a backquoted command in psql does not end on its line");
    }
  }
  return { commands: [...new Set(commands)], unknown };
}
