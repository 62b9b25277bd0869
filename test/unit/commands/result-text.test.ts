import { describe, expect, it } from "vitest";
import { endedText, formatCommandReport, statusText, timeoutText } from "../../../src/core/commands/result-text";
import type { CommandResult } from "../../../src/core/commands/types";

const ok: CommandResult = { exitCode: 0, signal: null, timedOut: false, cancelled: false, durationMs: 1234 };

describe("statusText", () => {
  it("gives the exit code and duration when the command finished", () => {
    expect(statusText(ok, 120_000, 600_000)).toBe("[Exit code 0 after 1.2 s.]");
    expect(statusText({ ...ok, exitCode: 2 }, 120_000, 600_000)).toBe("[Exit code 2 after 1.2 s.]");
  });

  it("says the command was killed after N s and how to run it in the background when it timed out", () => {
    const text = statusText({ ...ok, exitCode: null, signal: "SIGTERM", timedOut: true, durationMs: 120_050 }, 120_000, 600_000);
    expect(text).toBe(timeoutText(120_000, 600_000));
    expect(text).toBe(
      "[Killed after 120 s: the command did not finish within its timeout (timeout_s: 120), so it and its child processes were stopped. " +
        "If it is a server, a watcher or another long-running job, run it with background: true and read its output with command_output; " +
        "otherwise run it again with a longer timeout_s (at most 600).]",
    );
  });

  it("reports cancel, signal and start failure", () => {
    expect(statusText({ ...ok, cancelled: true }, 1, 1)).toBe("[Cancelled after 1.2 s: the command and its child processes were stopped.]");
    expect(statusText({ ...ok, exitCode: null, signal: "SIGSEGV" }, 1, 1)).toBe("[Terminated by signal SIGSEGV after 1.2 s.]");
    expect(statusText({ ...ok, exitCode: 130, interrupted: true }, 1, 1)).toBe("[Interrupted by the user (Ctrl+C) after 1.2 s; exit code 130.]");
    expect(statusText({ ...ok, exitCode: null, error: "spawn bash ENOENT" }, 1, 1)).toBe("[The command could not be started: spawn bash ENOENT]");
  });
});

describe("endedText", () => {
  it("describes how a command ended in a few words", () => {
    expect(endedText(ok)).toBe("exited with code 0 after 1.2 s");
    expect(endedText({ ...ok, cancelled: true })).toBe("was stopped after 1.2 s");
  });
});

describe("formatCommandReport", () => {
  const base = { id: "c1", network: "off" as const, timeoutMs: 120_000, maxTimeoutMs: 600_000 };

  it("adds the network hint when a command failed for lack of network", () => {
    const text = formatCommandReport({
      ...base,
      command: "npm install left-pad",
      result: { ...ok, exitCode: 1 },
      output: { head: ["npm error code EAI_AGAIN", "npm error request to https://registry.npmjs.org/left-pad failed"], tail: [], totalLines: 2 },
    });
    expect(text.split("\n")[3]).toBe("[Exit code 1 after 1.2 s.]");
    expect(text).toContain("[Network access is off in the sandbox");
  });

  it("gives no network hint when the network was on or the command succeeded", () => {
    const output = { head: ["getaddrinfo ENOTFOUND x"], tail: [], totalLines: 1 };
    expect(formatCommandReport({ ...base, command: "curl x", network: "on", result: { ...ok, exitCode: 6 }, output })).not.toContain("Network access");
    expect(formatCommandReport({ ...base, command: "curl x", result: ok, output })).not.toContain("Network access");
  });

  it("says stray background processes were stopped", () => {
    const text = formatCommandReport({ ...base, command: "srv &", result: { ...ok, strayProcessesStopped: true }, output: { head: [], tail: [], totalLines: 0 } });
    expect(text).toBe(
      "(no output)\n\n[Exit code 0 after 1.2 s.]\n[The command left processes running in the background (started with &); they were stopped when it exited. To keep a server running, start it with background: true.]",
    );
  });
});

describe("limits and quarantine, as the model reads them", () => {
  const base = { id: "c1", command: "x", network: "off" as const, timeoutMs: 120_000, maxTimeoutMs: 600_000, output: { head: [], tail: [], totalLines: 0 } };

  it("says a command was stopped at the process limit and what the user can change", () => {
    const r: CommandResult = { ...ok, exitCode: null, signal: "SIGKILL", cancelled: true, limitExceeded: { limit: "processes", max: 2048 } };
    expect(statusText(r, 1, 1)).toBe(
      '[Stopped after 1.2 s: the command reached 2048 processes and threads, the sandbox\'s limit, so all of it was stopped. If it really needs more (a large parallel build), the user can raise "sandbox.limits.processes" in ~/.yoke/settings.json; otherwise run fewer jobs at once.]',
    );
    expect(endedText(r)).toBe("was stopped after 1.2 s when it reached 2048 processes and threads (sandbox.limits.processes)");
  });

  it("lists the protected paths a command created, where they went, and that only the user can approve them", () => {
    const r: CommandResult = {
      ...ok,
      quarantined: [
        { path: "/w/.vscode", root: "/w", why: "VS Code settings, tasks and launch configurations run programs", movedTo: "/s/q/c1/.vscode" },
        { path: "/w/.git/hooks", root: "/w", why: "git hooks run on later git commands", movedTo: "/s/q/c1/.git/hooks", restored: true },
      ],
    };
    expect(
      formatCommandReport({ ...base, result: r })
        .split("\n")
        .slice(2),
    ).toEqual([
      "[Exit code 0 after 1.2 s.]",
      "[The command created protected paths, which only the user can approve: .vscode (VS Code settings, tasks and launch configurations run programs): moved to /s/q/c1/.vscode; " +
        ".git/hooks (git hooks run on later git commands): what replaced the symbolic link was moved to /s/q/c1/.git/hooks, and the link put back. " +
        "They are not in the workspace. Do not try to write them another way; if they are needed, ask the user to approve writing them.]",
    ]);
    expect(endedText(r)).toBe(
      "exited with code 0 after 1.2 s; protected paths it created were moved out of the workspace (/s/q/c1/.vscode, /s/q/c1/.git/hooks): only the user can approve writing them",
    );
  });

  it("explains the CPU time limit when a process was stopped by it", () => {
    const text = formatCommandReport({ ...base, result: { ...ok, exitCode: 152 }, output: { head: ["bash: line 1: 5 CPU time limit exceeded"], tail: [], totalLines: 1 } });
    expect(text).toContain('the user can raise "sandbox.limits.cpuSeconds"');
  });
});
