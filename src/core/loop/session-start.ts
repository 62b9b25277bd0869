/** What a new session starts with: its services, its system prompt and its session_start event. */
import type { NewEvent } from "../events";
import type { SessionServices } from "../ports";
import type { SessionLog } from "../session/session-log";
import type { AgentSessionOptions } from "./options";
import { buildSystemPrompt } from "./system-prompt";
import type { PermissionMode } from "./types";

export function servicesFor(opts: AgentSessionOptions, id: string): SessionServices {
  return typeof opts.services === "function" ? opts.services({ id }) : opts.services;
}

/** The system prompt of a new session that was given none. */
export function newSystemPrompt(opts: AgentSessionOptions, services: SessionServices, trusted: boolean): string {
  return buildSystemPrompt({
    workspaceRoot: services.fs.root,
    folders: services.fs.folders,
    platform: opts.platform ?? "unknown",
    trusted,
    ...(opts.restrictedHint ? { restrictedHint: opts.restrictedHint } : {}),
    permissionMode: opts.permissionMode ?? "default",
    instructions: opts.instructions,
    ...(opts.outputStyle ? { outputStyle: opts.outputStyle } : {}),
    tools: opts.onlyTools ?? opts.tools.map((t) => t.name),
  });
}

/** The first event of a session's log: what it runs with, and the session it is a sub-agent of. */
export function sessionStartEvent(p: { id: string; opts: AgentSessionOptions; services: SessionServices; mode: PermissionMode; system: string; trusted: boolean }): NewEvent {
  const { opts, services } = p;
  const commands = services.commands;
  return {
    type: "session_start",
    sessionId: p.id,
    cwd: services.fs.root,
    provider: opts.provider.id,
    model: opts.provider.model,
    baseUrl: opts.baseUrl,
    permissionMode: p.mode,
    label: opts.providerLabel,
    systemPrompt: p.system,
    trusted: p.trusted,
    ...(commands
      ? { sandbox: commands.info.sandbox, sandboxWarning: commands.info.warning }
      : services.commandsUnavailable
        ? { sandbox: "unavailable", sandboxWarning: services.commandsUnavailable }
        : {}),
    ...(opts.parent ? { parentId: opts.parent.id, ...(opts.parent.callId ? { parentCallId: opts.parent.callId } : {}) } : {}),
    version: 1,
  };
}

/** The session whose sub-agent this is: given when it is created, recorded in session_start for a resume. */
export function parentOf(opts: AgentSessionOptions, log: SessionLog): string | undefined {
  if (opts.parent) return opts.parent.id;
  const start = log.events.find((e) => e.type === "session_start");
  return start?.type === "session_start" ? start.parentId : undefined;
}
