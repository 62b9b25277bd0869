import { beforeAll, describe, expect, it } from "vitest";
import type { Parser } from "web-tree-sitter";
import { initShellParser } from "../../../src/core/permissions/shell/parser";
import { analyseCommand } from "../../../src/core/permissions/shell/extract";
import { loadShellWasm } from "../../../src/node/tree-sitter-wasm";

let parser: Parser;
beforeAll(async () => {
  parser = await initShellParser(() => loadShellWasm());
});

/** Every view of every part, as strings. */
function views(command: string): string[][] {
  return analyseCommand(parser, command).parts.map((p) => p.views.map((v) => v.words.map((w) => w.value).join(" ")));
}
const innermost = (command: string) => views(command).map((v) => v[v.length - 1]);

describe("analyseCommand", () => {
  it("splits lists, pipelines, subshells and groups into simple commands", () => {
    expect(innermost("a && b || c; d | e & f; (g; h) && { i; }")).toEqual(["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
  });

  it("lists substitutions before the command that uses them, as the shell runs them", () => {
    expect(innermost('git commit -m "$(date)"')).toEqual(["date", "git commit -m $(date)"]);
  });

  it("finds command substitutions inside double quotes, backticks and process substitutions", () => {
    expect(innermost('echo "x $(rm -rf y) z" `id` <(ls) >(cat)')).toEqual(["rm -rf y", "id", "ls", "cat", "echo x $(rm -rf y) z `id` <(ls) >(cat)"]);
  });

  it("removes quotes and backslashes from command names", () => {
    expect(innermost("g'i't push")).toEqual(["git push"]);
    expect(innermost('"git" push')).toEqual(["git push"]);
    expect(innermost("\\git push")).toEqual(["git push"]);
    expect(innermost("$'\\x67it' push")).toEqual(["git push"]);
  });

  it("reads an absolute command path as the command name", () => {
    expect(views("/usr/bin/git push")).toEqual([["/usr/bin/git push", "git push"]]);
    const part = analyseCommand(parser, "/tmp/evil/git push").parts[0]!;
    expect(part.views[1]).toMatchObject({ allowable: false, denyOnly: true });
  });

  it("unwraps env, nohup, timeout, nice, command, builtin, exec, time and sudo", () => {
    for (const c of [
      "env FOO=1 git push",
      "nohup git push",
      "timeout -s KILL 10 git push",
      "nice -n 5 git push",
      "command git push",
      "builtin git push",
      "exec git push",
      "time git push",
      "sudo -u root git push",
      "stdbuf -oL git push",
    ]) {
      expect(innermost(c), c).toEqual(["git push"]);
    }
    expect(analyseCommand(parser, "sudo rm x").parts[0]!.elevated).toBe(true);
  });

  it("parses the script of bash -c, sh -c, zsh -c and eval recursively", () => {
    expect(innermost("bash -c 'git push && ls'")).toEqual(["bash -c git push && ls", "git push", "ls"]);
    expect(innermost('sh -lc "rm -rf /"')).toEqual(["sh -lc rm -rf /", "rm -rf /"]);
    expect(innermost("eval 'git' 'push'")).toEqual(["eval git push", "git push"]);
    expect(innermost("bash -c \"bash -c 'rm x'\"")).toEqual(["bash -c bash -c 'rm x'", "bash -c rm x", "rm x"]);
  });

  it("finds the commands run by xargs and find -exec", () => {
    expect(innermost("find . -name '*.tmp' -exec rm -f {} \\; | xargs -0 -n 1 git add")).toEqual(["find . -name *.tmp -exec rm -f {} ;", "rm -f {}", "git add"]);
    const x = analyseCommand(parser, "ls | xargs rm").parts[1]!;
    expect(x.extraArgs).toBe(true);
  });

  it("reads git -C and --no-pager as the plain git subcommand for deny rules", () => {
    expect(views("git -C sub --no-pager push")).toEqual([["git -C sub --no-pager push", "git push"]]);
  });

  it("records redirections with their kind and unquoted target", () => {
    const part = analyseCommand(parser, "ls 2>&1 >> 'out file' < in &> /dev/null").parts[0]!;
    expect(part.redirects.map((r) => [r.op, r.kind, r.target.value])).toEqual([
      [">&", "dup", "1"],
      [">>", "write", "out file"],
      ["<", "read", "in"],
      ["&>", "write", "/dev/null"],
    ]);
  });

  it("applies the redirection of a compound command to every command inside", () => {
    const parts = analyseCommand(parser, "{ a; b; } > out").parts;
    expect(parts.map((p) => p.redirects.map((r) => r.target.value))).toEqual([["out"], ["out"]]);
  });

  it("reports what it cannot analyse", () => {
    const problems = (c: string) => {
      const a = analyseCommand(parser, c);
      return [...a.problems, ...a.parts.flatMap((p) => p.problems)];
    };
    expect(problems("$CMD args")).toEqual(["the command name $CMD is only known when it runs"]);
    expect(problems('eval "$x"')).toEqual(['eval runs a string Yoke cannot read ("$x")']);
    expect(problems("f() { rm x; }; f")).toEqual(["it defines a shell function (f), whose calls cannot be checked"]);
    expect(problems('echo "unterminated')).toEqual(["the command has a syntax error, so Yoke cannot tell what it runs"]);
    expect(problems("PATH=/tmp/x git status")).toEqual(["it sets PATH for the command, which changes what runs"]);
    expect(problems("export PATH=/tmp:$PATH; git status")).toEqual(["it sets PATH, which changes what later commands run"]);
  });

  it("marks dynamic and glob words", () => {
    const words = analyseCommand(parser, 'cat $HOME/x *.ts "a*" {a,b}').parts[0]!.views[0]!.words;
    expect(words.map((w) => [w.value, w.dynamic, w.glob])).toEqual([
      ["cat", false, false],
      ["$HOME/x", true, false],
      ["*.ts", false, true],
      ["a*", false, false],
      ["{a,b}", false, true],
    ]);
  });
});
