/**
 * Notes to a background agent while it runs (issue 24: "steer it"). `yoke agents note ID TEXT` —
 * the command line and the panel's note box — leaves each note as a file in the agent's inbox,
 * `~/.yoke/agents/<workspace-key>/<id>.notes/`; the agent's own process takes them at its next step
 * and hands them to its session's composer as steered messages (src/core/composer: the way the
 * panel steers a foreground session), so the model gets the note as the user's message before its
 * next request. A note that finds no next step (the agent was on its last answer) is sent as the
 * next message once the task ends, in the same process and session.
 *
 * Taking a note is a rename, which only one process wins: the agent's process, or the command that
 * left it and found the agent ended meanwhile (it then continues the agent with the note itself).
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import * as nodePath from "node:path";
import { composerExtension, type SessionComposer } from "../../core/composer";
import type { Extension } from "../../core/extensions/types";

const NOTE = /^\d{15}-[a-f0-9]{8}\.note$/;

export class AgentInbox {
  constructor(readonly dir: string) {}

  /** The inbox of agent `id` in a workspace's agents folder. */
  static of(agentsDir: string, id: string): AgentInbox {
    return new AgentInbox(nodePath.join(agentsDir, `${id}.notes`));
  }

  /** Leaves a note (written whole, then renamed in: a reader never sees half of it). Returns its name. */
  post(text: string): string {
    mkdirSync(this.dir, { recursive: true });
    const name = `${String(Date.now()).padStart(15, "0")}-${randomBytes(4).toString("hex")}.note`;
    const tmp = nodePath.join(this.dir, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, nodePath.join(this.dir, name));
    return name;
  }

  /** The notes waiting, oldest first (names). */
  waiting(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => NOTE.test(f))
      .sort();
  }

  /** Takes one note: its text, or undefined when another process took it first. */
  takeOne(name: string): string | undefined {
    const from = nodePath.join(this.dir, name);
    const claimed = `${from}.${process.pid}.taken`;
    try {
      renameSync(from, claimed);
    } catch {
      return undefined;
    }
    try {
      return readFileSync(claimed, "utf8");
    } finally {
      try {
        unlinkSync(claimed);
      } catch {
        // gone
      }
    }
  }

  /** Takes every waiting note, oldest first. */
  take(): string[] {
    return this.waiting().flatMap((n) => {
      const t = this.takeOne(n);
      return t?.trim() ? [t.trim()] : [];
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The agent's process: its session's composer, fed from the inbox before every model request
 * (the notes are delivered there as steered messages), and after the task the next note to send.
 */
export function agentNotes(inbox: AgentInbox): { extension: () => Extension; next: () => string | undefined } {
  let composer: SessionComposer | undefined;
  const pull = () => {
    if (!composer) return;
    for (const text of inbox.take()) composer.add(text, [], "steer");
  };
  return {
    extension: () => {
      const inner = composerExtension({ onReady: (c) => (composer = c) });
      return {
        name: "agent-notes",
        setup(api) {
          // Before the composer's own request.prepare, which delivers what is steered.
          api.on("request.prepare", () => void pull(), { priority: 10 });
          return inner.setup(api);
        },
      };
    },
    next: () => {
      pull();
      return composer?.takeNext()?.text;
    },
  };
}
