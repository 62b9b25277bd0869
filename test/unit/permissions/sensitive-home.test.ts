/**
 * sensitivity()'s home entries (~/.ssh, ~/.bashrc, ~/.yoke…) are compared in place below
 * `${home}/` (it runs for every path a tool or guidance touches). The answers must be those of the
 * plain form, `isWithin(abs, `${home}/NAME`)` for each entry, on every path: near misses
 * (`.sshx`, `.ssh2/`, `.bashrc.bak`), the entry itself, below it, other homes, "/" and "" as home.
 */
import { describe, expect, it } from "vitest";
import { isWithin } from "../../../src/core/permissions/posix-path";
import { HOME_STARTUP, SECRET_HOME_DIRS, sensitivity } from "../../../src/core/permissions/sensitive";

// The lists themselves (sensitive.ts): every entry, including those added later, is checked both ways.
const SECRET_DIRS = SECRET_HOME_DIRS;
const STARTUP = HOME_STARTUP;

/** The home part of the answer, written as the checks read before (one string per entry). */
function homeReference(abs: string, home: string): { kind: string; why: string } | undefined {
  for (const dir of SECRET_DIRS) if (isWithin(abs, `${home}/${dir}`)) return { kind: "secret", why: `inside ~/${dir}` };
  if (isWithin(abs, `${home}/.yoke`) || isWithin(abs, `${home}/.claude`)) return { kind: "config", why: "user agent settings" };
  for (const f of STARTUP) if (isWithin(abs, `${home}/${f}`)) return { kind: "config", why: `~/${f}` };
  return undefined;
}

describe("sensitivity: home entries", () => {
  const homes = ["/home/u", "/root", "/h", "/", "", "/home/u/.ssh"];
  const entries = [...SECRET_DIRS, ".yoke", ".claude", ...STARTUP];
  const tails = ["", "/x", "/a/b.txt", "x", "2/k", ".bak", "_other/y"];
  const paths = new Set<string>(["/", "/etc/passwd", "/work/project/src/a.ts", "/home/u", "/home/uu/.ssh/id", "/home/u2/.bashrc"]);
  for (const home of homes) {
    for (const e of entries) for (const t of tails) paths.add(`${home}/${e}${t}`);
    paths.add(`${home}/project/.ssh/config`);
    paths.add(`${home}x/.ssh/id`);
  }

  it("answers as one isWithin per entry on every path and home", () => {
    let sensitiveHome = 0;
    for (const home of homes) {
      for (const abs of paths) {
        const want = homeReference(abs, home);
        const got = sensitivity(abs, home);
        if (want) {
          sensitiveHome++;
          expect({ abs, home, got: got && { kind: got.kind, why: got.why } }).toEqual({ abs, home, got: want });
        } else {
          // Not a home entry: whatever else it is (git internals, a secret name), not a home answer.
          expect({ abs, home, why: got?.why }).not.toMatchObject({ why: expect.stringMatching(/^(inside ~\/|~\/|user agent settings)/) });
        }
      }
    }
    // The corpus does reach the home entries (not only misses).
    expect(sensitiveHome).toBeGreaterThan(500);
  });

  it("near misses are not home entries", () => {
    expect(sensitivity("/h/.sshx/k", "/h")).toBeUndefined();
    expect(sensitivity("/h/.bashrc.bak", "/h")).toBeUndefined();
    expect(sensitivity("/hx/.ssh/k", "/h")).toBeUndefined();
    expect(sensitivity("/h/.ssh", "/h")).toMatchObject({ kind: "secret", why: "inside ~/.ssh" });
    expect(sensitivity("/h/.config/git/config", "/h")).toMatchObject({ kind: "config", why: "~/.config/git" });
  });
});
