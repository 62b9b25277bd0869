/**
 * The door for git submodule / git worktree (sbx18 item 1): which command lines open it
 * (isGitLinkedWork), and what the config check lets through (git-config-guard.ts, with real git).
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isGitLinkedWork } from "../../../src/core/protected-paths";
import { gitConfigProblems, restoreGitConfig, snapshotGitConfig } from "../../../src/node/commands/git-config-guard";

describe("isGitLinkedWork", () => {
  it.each([
    "git submodule add https://example.com/x.git libs/x",
    "git submodule update --init --recursive",
    "git -c protocol.file.allow=always submodule add ../x x",
    "git -c protocol.https.allow=always -c protocol.ext.allow=never submodule update --init",
    "git submodule --quiet sync",
    "git submodule deinit -f libs/x",
    "git worktree add -b feature ../wt",
    "git worktree remove wt1",
    "git worktree prune",
  ])("opens for %s", (c) => expect(isGitLinkedWork(c)).toBe(true));
  it.each([
    "git submodule foreach 'rm -rf .'",
    "git submodule status",
    "git submodule update --init; touch x",
    "git submodule update --init && git config core.fsmonitor x",
    "git submodule add $URL x",
    "git submodule add `cat u` x",
    "git submodule add 'u' x",
    "git submodule add u {a,b}",
    "git submodule add u x*",
    "git -c core.fsmonitor=x submodule update",
    // Red team 22-gate: ext:: runs the URL as a command (no quote or space needed) while the door is open.
    "git -c protocol.ext.allow=always submodule add ext::/ws/evil.sh sub",
    "git -c protocol.ext.allow=user submodule update --init",
    "git -c protocol.fd.allow=always submodule update --init",
    "git -c protocol.foo.allow=always submodule add foo::x sub",
    "git -C other submodule update --init",
    "GIT_CONFIG_COUNT=1 git submodule update",
    "git submodule update --init\ntouch x",
    "git submodule update > out",
    "sudo git submodule update",
    "git worktree list",
    "git config submodule.x.url y",
    "git constructor",
  ])("stays shut for %s", (c) => expect(isGitLinkedWork(c)).toBe(false));
});

describe("gitConfigProblems / restoreGitConfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-gitcfg-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const base = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it("lets the submodule entries git writes through", () => {
    const p = file("ok", base);
    const snap = snapshotGitConfig(p)!;
    writeFileSync(p, `${base}[submodule "libs/x"]\n\turl = https://example.com/x.git\n\tactive = true\n\tupdate = rebase\n`);
    expect(gitConfigProblems(p, "config", snap)).toEqual([]);
    // A removed section (git submodule deinit) too.
    const snap2 = snapshotGitConfig(p)!;
    writeFileSync(p, base);
    expect(gitConfigProblems(p, "config", snap2)).toEqual([]);
  });

  it.each([
    ["core.fsmonitor", "[core]\n\tfsmonitor = touch x\n"],
    ["alias.st", "[alias]\n\tst = !touch x\n"],
    ["include.path", "[include]\n\tpath = ../evil\n"],
    ["includeif.gitdir:/.path", '[includeIf "gitdir:/"]\n\tpath = ../evil\n'],
    ["submodule.x.update", '[submodule "x"]\n\tupdate = !touch x\n'],
    ["submodule.x.url", '[submodule "x"]\n\turl = ext::sh -c touch% x\n'],
    ["submodule.x.url", '[submodule "x"]\n\turl = --upload-pack=touch x\n'],
    ["submodule.../../hooks.url", '[submodule "../../hooks"]\n\turl = https://e/x\n'],
    ["core.hookspath", "[Core]\n\tHooksPath = h\n"],
  ])("refuses %s and puts the file back", (key, extra) => {
    const p = file(`bad-${Math.random()}`, base);
    const snap = snapshotGitConfig(p)!;
    writeFileSync(p, base + extra);
    const problems = gitConfigProblems(p, "config", snap);
    expect(problems.join(" ")).toContain(key);
    const kept = restoreGitConfig(p, snap, join(dir, "q"));
    expect(readFileSync(p, "utf8")).toBe(base);
    expect(readFileSync(kept, "utf8")).toContain(extra.split("\n")[1]!.trim().split(" ")[0]!);
  });

  it("refuses a link in place of the file and a file git cannot read", () => {
    const p = file("link", base);
    const snap = snapshotGitConfig(p)!;
    rmSync(p);
    symlinkSync(file("target", base + "[core]\n\tfsmonitor = x\n"), p);
    expect(gitConfigProblems(p, "config", snap)).not.toEqual([]);
    restoreGitConfig(p, snap, join(dir, "q2"));
    expect(readFileSync(p, "utf8")).toBe(base);
    const q = file("garbage", base);
    const s2 = snapshotGitConfig(q)!;
    writeFileSync(q, "[core\n\tfsmonitor");
    expect(gitConfigProblems(q, "config", s2)).not.toEqual([]);
  });

  it("a new .gitmodules: path and url pass, anything else removes it", () => {
    const p = join(dir, "gm");
    expect(snapshotGitConfig(p)).toBeNull();
    writeFileSync(p, '[submodule "a"]\n\tpath = a\n\turl = https://e/a\n');
    expect(gitConfigProblems(p, "gitmodules", null)).toEqual([]);
    writeFileSync(p, '[submodule "a"]\n\tpath = a\n[core]\n\thooksPath = h\n');
    expect(gitConfigProblems(p, "gitmodules", null)).toEqual(["core.hookspath"]);
    restoreGitConfig(p, null, join(dir, "q3"));
    expect(() => readFileSync(p)).toThrow();
  });
});
