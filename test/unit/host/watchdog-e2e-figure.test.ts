// The bench figure "the watchdog's longest stall during the e2e suite": read from the report the
// e2e fixture writes; when there is none, the bench says so and gives no number.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { e2eFigures } from "../../../src/bench/watchdog";
import type { Stall, WatchdogReport } from "../../../src/node/watchdog";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "yoke-wd-fig-"));
  dirs.push(d);
  return d;
};
const stall = (ms: number, ran: string[]): Stall => ({ ms, at: "2026-12-01T00:00:00Z", ran, active: [] });
const report = (stalls: number, longest: Stall | null): WatchdogReport => ({
  pid: 1,
  process: "extension-host",
  startedAt: "",
  updatedAt: "",
  thresholdMs: 50,
  intervalMs: 10,
  stalls,
  longest,
  recent: [],
});

describe("the e2e watchdog figure of npm run bench", () => {
  it("says there is no report when the file is absent, unreadable or empty — never a number", () => {
    const d = tmp();
    const absent = e2eFigures(join(d, "watchdog.json"));
    expect(absent).toHaveLength(1);
    expect(absent[0]).toMatchObject({ value: null, note: expect.stringContaining("is absent (run npm run test:e2e first") });
    writeFileSync(join(d, "bad.json"), "{not json");
    expect(e2eFigures(join(d, "bad.json"))[0]).toMatchObject({ value: null, note: expect.stringContaining("unreadable") });
    writeFileSync(join(d, "empty.json"), JSON.stringify({ files: { chat: { collectedAt: "", windows: [] } } }));
    expect(e2eFigures(join(d, "empty.json"))[0]).toMatchObject({ value: null, note: expect.stringContaining("holds no extension-host report") });
  });

  it("reports the longest stall over every window of every test file, with where and what ran", () => {
    const d = tmp();
    const file = join(d, "watchdog.json");
    writeFileSync(
      file,
      JSON.stringify({
        files: {
          chat: { collectedAt: "", windows: [report(3, stall(120, ["webview:ready"])), report(1, stall(60, []))] },
          checkpoints: { collectedAt: "", windows: [report(2, stall(340, ["session:rewind"]))] },
        },
      }),
    );
    const [longest, count] = e2eFigures(file);
    expect(longest).toMatchObject({ name: "e2e suite: longest extension-host stall", value: 340, unit: "ms" });
    expect(longest!.note).toContain("in checkpoints.e2e.test.ts, while session:rewind ran");
    expect(longest!.note).toContain("reports of 2 test file(s): chat, checkpoints");
    expect(count).toMatchObject({ value: 6, unit: "stalls" });
  });
});
