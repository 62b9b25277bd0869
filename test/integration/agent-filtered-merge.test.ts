/**
 * An agent's change to files under the person's git filters (session 23, after red team B): Yoke's own
 * git takes the agent's files as they are (no filter runs in the worktree the agent wrote), so a
 * commit of them would hold a large binary instead of an LFS pointer, an unstripped notebook, a
 * plaintext git-crypt file. With real git, real Git LFS (`git lfs install --local`) and an
 * nbstripout-like clean filter in python (`python3 -m nbstrip`, which puts the folder git runs it in
 * first on its module path):
 *
 * - `--strategy merge` refuses, naming each filtered file and its filter; nothing is changed;
 * - `--strategy apply` writes the agent's files whole into the person's tree, and the person's own
 *   `git add` then stores the filter's output: the LFS pointer of the new content, the stripped notebook;
 * - a file the person changed too is a conflict, not an overwrite;
 * - dropping `filter=lfs` from the worktree's .gitattributes does not make the agent's binary an
 *   ordinary file (the base's attributes count too);
 * - the agent's own `nbstrip.py` in its worktree never runs (its marker is absent).
 *
 * In-process (the plan, both strategies, the conflict), and through the built CLI as root and as the
 * unprivileged user: a real `yoke run --worktree` session (scripted model over HTTP) rewrites an LFS
 * file; `yoke agents merge --strategy merge` refuses it, `yoke agents merge` writes it and says it is
 * not yet filtered, the person's `git add` stores the pointer. The merge runs on the host and no
 * filter runs for the agent's files, so the sandbox backend plays no part (bwrap, the default).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer } from "../../src/demo/scripted-llm-server";
import { applyAgentChange, mergeAgentBranch, planAgentChange } from "../../src/node/background/merge";
import { cliPath, ensureBuilt } from "../support/cli";
import { chownTree, identities, runCliAs, spawnAs, type Identity } from "../support/identities";

const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

const has = (program: string) => {
  try {
    execFileSync(program, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};
const git = (cwd: string, ...a: string[]) => execFileSync("git", ["-c", "safe.directory=*", "-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd, encoding: "utf8" });
const gitBytes = (cwd: string, ...a: string[]) => execFileSync("git", a, { cwd });

// The person's stripper: drops every cell's "outputs".
const STRIP = `import json, sys\nnb = json.load(sys.stdin)\nfor c in nb.get("cells", []):\n    c.pop("outputs", None)\njson.dump(nb, sys.stdout, sort_keys=True)\nsys.stdout.write("\\n")\n`;
const NOTEBOOK = (outputs: boolean, src: string) => JSON.stringify({ cells: [{ source: src, ...(outputs ? { outputs: ["big output"] } : {}) }] }, null, 1) + "\n";

it.skipIf(!has("git-lfs") || !existsSync("/usr/bin/python3"))(
  "files under Git LFS and a python clean filter: merge refuses them, apply writes them whole and the person's git add stores the filter's output",
  async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "yoke-agent-filtered-")));
    temps.push(base);
    const top = join(base, "repo");
    const lib = join(base, "pylib");
    const wt = join(base, "wt");
    const marker = join(base, "agent-module-ran");
    mkdirSync(top);
    mkdirSync(lib);
    writeFileSync(join(lib, "nbstrip.py"), STRIP);
    git(top, "init", "-q", "-b", "main");
    git(top, "lfs", "install", "--local");
    git(top, "config", "filter.nbstrip.clean", `env PYTHONPATH=${lib} /usr/bin/python3 -m nbstrip`);
    git(top, "config", "filter.nbstrip.smudge", "cat");
    writeFileSync(join(top, ".gitattributes"), "*.bin filter=lfs diff=lfs merge=lfs -text\n*.ipynb filter=nbstrip\n");
    const oldBin = Buffer.concat([Buffer.from([0, 1, 2, 0xff]), Buffer.alloc(4096, 7)]);
    writeFileSync(join(top, "big.bin"), oldBin);
    writeFileSync(join(top, "a.ipynb"), NOTEBOOK(true, "one"));
    writeFileSync(join(top, "README.md"), "readme\n");
    git(top, "add", "-A");
    git(top, "commit", "-qm", "init");
    expect(git(top, "cat-file", "blob", "HEAD:big.bin")).toMatch(/^version https:\/\/git-lfs/);
    expect(git(top, "cat-file", "blob", "HEAD:a.ipynb")).not.toContain("big output");
    const head = git(top, "rev-parse", "HEAD").trim();
    git(top, "worktree", "add", "-q", "-b", "yoke/filtered-1", wt, head);
    expect(readFileSync(join(wt, "big.bin"))).toEqual(oldBin);

    // The agent's work: a new binary, a notebook with outputs, its own `nbstrip.py`.
    const newBin = Buffer.concat([Buffer.from([0, 9, 9, 0xfe]), Buffer.alloc(8192, 3)]);
    writeFileSync(join(wt, "big.bin"), newBin);
    writeFileSync(join(wt, "a.ipynb"), NOTEBOOK(true, "two"));
    writeFileSync(join(wt, "nbstrip.py"), `open(${JSON.stringify(marker)}, "w").write("ran")\nimport sys\nsys.stdout.write(sys.stdin.read())\n`);
    writeFileSync(join(wt, "README.md"), "readme two\n");
    const t = { top, worktree: wt, branch: "yoke/filtered-1", baseCommit: head, task: "update", id: "filtered-1" };

    // --strategy merge: refused, each filtered file named with its filter; nothing changed.
    const merged = await mergeAgentBranch(t);
    expect(merged.ok).toBe(false);
    if (!merged.ok) {
      expect(merged.reason).toMatch(/--strategy apply/);
      expect(Object.fromEntries(merged.conflicts.map((c) => [c.path, /git filter "(\w+)"/.exec(c.detail)?.[1]]))).toEqual({ "a.ipynb": "nbstrip", "big.bin": "lfs" });
    }
    expect(git(top, "rev-parse", "HEAD").trim()).toBe(head);
    expect(readFileSync(join(top, "big.bin"))).toEqual(oldBin);

    // .gitattributes without the LFS line (a protected path: merge would refuse it for that alone).
    writeFileSync(join(wt, ".gitattributes"), "*.ipynb filter=nbstrip\n");

    // What a person reviewing takes (the agent's module and attributes left out).
    const select = new Map<string, "all">([
      ["big.bin", "all"],
      ["a.ipynb", "all"],
      ["README.md", "all"],
    ]);
    // The person changed the notebook too: a conflict, nothing written.
    writeFileSync(join(top, "a.ipynb"), NOTEBOOK(true, "mine"));
    const clash = await planAgentChange(t, select);
    expect(clash.ok).toBe(false);
    if (!clash.ok) expect(clash.conflicts.map((c) => [c.path, /git filter "nbstrip", and you changed it too/.test(c.detail)])).toEqual([["a.ipynb", true]]);
    git(top, "checkout", "--", "a.ipynb");

    // --strategy apply: the files written whole, as the agent left them.
    const applied = await applyAgentChange(t, select);
    expect(applied).toMatchObject({ ok: true, strategy: "apply", filtered: { "big.bin": "lfs", "a.ipynb": "nbstrip" } });
    expect(readFileSync(join(top, "big.bin"))).toEqual(newBin);
    expect(readFileSync(join(top, "a.ipynb"), "utf8")).toBe(NOTEBOOK(true, "two"));
    expect(readFileSync(join(top, "README.md"), "utf8")).toBe("readme two\n");

    // The person's own git add stores the filters' output: the LFS pointer of the new content, the stripped notebook.
    git(top, "add", "-A");
    git(top, "commit", "-qm", "agent's change");
    const pointer = gitBytes(top, "cat-file", "blob", "HEAD:big.bin").toString("utf8");
    expect(pointer).toContain(`oid sha256:${createHash("sha256").update(newBin).digest("hex")}`);
    expect(pointer).toContain(`size ${newBin.length}`);
    const notebook = git(top, "cat-file", "blob", "HEAD:a.ipynb");
    expect(notebook).toContain("two");
    expect(notebook).not.toContain("big output");
    // The agent's module never ran: Yoke ran no filter in its worktree.
    expect(existsSync(marker)).toBe(false);
    git(top, "worktree", "remove", "--force", wt);
  },
  60_000,
);

const { list: who } = identities();
beforeAll(() => ensureBuilt(), 180_000);

describe.each(who.map((w) => [w.label, w] as const))("through the CLI as %s", (_label, id: Identity) => {
  it.skipIf(!has("git-lfs"))("an agent's change to an LFS file: --strategy merge refuses it, apply writes it and says so, the person's git add stores the pointer", async () => {
    const base = mkdtempSync(join(process.env.YOKE_RED8_BASE ?? "/var/lib", "yoke-agent-lfs-"));
    temps.push(base);
    chmodSync(base, 0o755);
    const ws = join(base, "home");
    mkdirSync(join(ws, ".yoke"), { recursive: true });
    writeFileSync(join(ws, ".yoke", "settings.json"), JSON.stringify({ sandbox: { backend: "bwrap" } }));
    writeFileSync(join(ws, ".gitignore"), ".yoke/\n.cache/\n");
    writeFileSync(join(ws, ".gitattributes"), "*.bin filter=lfs diff=lfs merge=lfs -text\n");
    writeFileSync(join(ws, "big.bin"), Buffer.from([0, 1, 2, 3]));
    git(ws, "init", "-q", "-b", "main");
    git(ws, "lfs", "install", "--local");
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "init");
    chownTree(base, id);
    const env = { HOME: ws };
    const server = await startScriptedLlmServer({ script: [{ toolCalls: [{ name: "run_command", input: { command: "printf '\\000new\\377' > big.bin" } }] }, { text: "done" }] });
    try {
      const args = [
        cliPath,
        "run",
        "--trust",
        "--provider",
        "openai-compatible",
        "--base-url",
        server.openaiBaseUrl,
        "--model",
        "m",
        "--cwd",
        ws,
        "--permission-mode",
        "bypassPermissions",
        "--worktree",
        "go",
      ];
      const child = spawn(process.execPath, args, { cwd: ws, stdio: ["pipe", "pipe", "pipe"], ...spawnAs(id, env) });
      let stderr = "";
      child.stdout!.on("data", () => undefined);
      child.stderr!.on("data", (d) => (stderr += d));
      child.stdin!.end();
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      expect(code, stderr).toBe(0);
    } finally {
      await server.close();
    }
    const list = await runCliAs(id, ["agents", "list", "--json", "--cwd", ws], { env });
    const agentId = (JSON.parse(list.stdout) as { agents: Array<{ id: string }> }).agents[0]!.id;
    const head = git(ws, "rev-parse", "HEAD");
    const refused = await runCliAs(id, ["agents", "merge", agentId, "--strategy", "merge", "--cwd", ws], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/big\.bin: under your git filter "lfs"/);
    expect(git(ws, "rev-parse", "HEAD")).toBe(head);
    expect(readFileSync(join(ws, "big.bin"))).toEqual(Buffer.from([0, 1, 2, 3]));
    const applied = await runCliAs(id, ["agents", "merge", agentId, "--cwd", ws], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/not yet filtered.*big\.bin \(lfs\)/);
    const newBin = Buffer.from([0, 0x6e, 0x65, 0x77, 0xff]);
    expect(readFileSync(join(ws, "big.bin"))).toEqual(newBin);
    // The person's own git add (as them) stores the LFS pointer of the agent's content.
    const add = spawnSync("git", ["add", "big.bin"], { cwd: ws, ...spawnAs(id, env), encoding: "utf8" });
    expect(add.status, add.stderr).toBe(0);
    const stored = spawnSync("git", ["cat-file", "blob", ":big.bin"], { cwd: ws, ...spawnAs(id, env), encoding: "utf8" }).stdout;
    expect(stored).toContain(`oid sha256:${createHash("sha256").update(newBin).digest("hex")}`);
  });
});
