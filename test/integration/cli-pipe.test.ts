/**
 * `yoke … | head`: when the reader stops reading, the CLI stops as a program killed by SIGPIPE
 * would (status 141, no stack trace), and what the command was running is stopped with it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cliPath, ensureBuilt } from "../support/cli";

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "yoke-pipe-"));
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function running(needle: string): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, "utf8").split("\0").join(" ").includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

it("exits 141 quietly when stdout is closed, and leaves nothing running", () => {
  const mark = `sleep 97${Math.floor(Math.random() * 9)}`;
  const script = `'${process.execPath}' '${cliPath}' sandbox exec --backend none --cwd '${dir}' -- 'seq 1 300000; ${mark} & ${mark}' 2>'${dir}/err' | head -1; echo "status=\${PIPESTATUS[0]}"`;
  const r = spawnSync("bash", ["-c", script], { encoding: "utf8", timeout: 60_000 });
  expect(r.stdout).toBe("1\nstatus=141\n");
  const err = readFileSync(join(dir, "err"), "utf8");
  expect(err).not.toContain("EPIPE");
  expect(err).not.toContain("Error");
  expect(running(mark)).toEqual([]);
}, 90_000);
