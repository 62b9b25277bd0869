// The benchmarks' sessions come from the session recipe (src/bench/recipe-session.ts): they carry
// the mechanisms a real session has, and the data a bench brings (the compaction bench's lessons)
// reaches the model the way a real session finds it — from the workspace's .yoke/lessons.
import { describe, expect, it } from "vitest";
import { canonicalRequest, scriptedPrefixSession } from "../../src/bench/compaction";
import { bench as guidanceBench } from "../../src/bench/guidance";

describe("a bench session is a session of the recipe", () => {
  it("the prefix session: the workspace's lessons are appended by the session's own guidance; the recipe's mechanisms are there", async () => {
    const { requests, session } = await scriptedPrefixSession({ sends: 6, compactAfter: 4 });
    const events = session.events();
    // Lessons of the bench's .yoke/lessons, each injected once, after the probe report it matches.
    const lessons = events.flatMap((e) => (e.type === "guidance" ? e.injected : [])).filter((i) => i.kind === "lesson");
    expect(lessons.map((l) => l.name).sort()).toEqual(["m1", "m11", "m5"]);
    for (const l of lessons) expect(l.source).toBe(`.yoke/lessons/${l.name}.md`);
    // The model was told: the lesson of module 5 is in the request after the m5 report, not before.
    const firstWith = requests.findIndex((r) => canonicalRequest(r).includes("Rule 5: keep the functions of module 5 under 40 lines."));
    expect(firstWith).toBe(5);
    // Mechanisms the recipe lists and a hand-made session lacked: the permission engine's decisions, turn time.
    expect(events.some((e) => e.type === "permission_decision")).toBe(true);
    expect(events.filter((e) => e.type === "turn_time")).toHaveLength(6);
    // The system prompt is Yoke's own, for the bench's temporary workspace.
    const start = events.find((e) => e.type === "session_start");
    expect(start?.type === "session_start" && start.systemPrompt).toContain("You are Yoke");
    expect(start?.type === "session_start" && start.cwd).toMatch(/yoke-bench-prefix-.*\/ws$/);
  }, 60_000);

  it("the guidance bench: a 10-request session of the recipe with the built-in lessons only (its empty home keeps the user's own out)", async () => {
    const section = await guidanceBench();
    const whole = section.metrics.find((m) => m.name === "guidance tokens, whole 10-request session");
    expect(whole?.value).toBeGreaterThan(0);
    expect(whole?.note).toMatch(/^\d+ lessons injected once each \((traceback|[a-z-]+)(, [a-z-]+)*\); other mechanisms' context messages, not counted: \d+$/);
    expect(whole?.note).toContain("traceback");
    const perRequest = section.metrics.find((m) => m.name === "guidance tokens per request (mean)");
    expect(perRequest?.value).toBe(Math.round((whole!.value as number) / 10));
  }, 60_000);
});
