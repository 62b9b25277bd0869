/** `yoke run` against the scripted model server (src/demo/scripted-llm-server): its argv, and what the model was told. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionEvent } from "../../src/core/events";
import { parseLog } from "../../src/core/session/session-log";
import { startScriptedLlmServer, type RecordedRequest, type ScriptedTurn } from "../../src/demo/scripted-llm-server";
import { runCli, type CliResult } from "./cli";

/**
 * The argv (after the CLI's path) of a trusted `yoke run` whose model is "m" at `baseUrl` over the
 * openai-compatible provider (the scripted server's openaiBaseUrl, or an address nothing answers
 * at; another model name when given), in `cwd`, logging to `sessionDir`. The caller appends the mode, settings and message.
 */
export function scriptedRunArgs(baseUrl: string, cwd: string, sessionDir: string, model = "m"): string[] {
  return ["run", "--trust", "--provider", "openai-compatible", "--base-url", baseUrl, "--model", model, "--cwd", cwd, "--session-dir", sessionDir];
}

/** The events of the (first) session log in a session folder. */
export function sessionEventsIn(sessions: string): SessionEvent[] {
  const file = readdirSync(sessions).find((f) => f.endsWith(".jsonl"))!;
  return parseLog(readFileSync(join(sessions, file), "utf8").split("\n").filter(Boolean)).events;
}

/**
 * One `yoke run` in `cwd` with HOME `home` (sessions in ~/sessions) against a scripted model
 * server playing `script`, the message "use the tool" after `extra`: the CLI's result, the requests
 * the model got and the session's events.
 */
export async function runScriptedSession(
  cwd: string,
  home: string,
  script: ScriptedTurn[],
  extra: string[] = [],
  model = "m",
): Promise<CliResult & { requests: RecordedRequest[]; events: SessionEvent[] }> {
  const llm = await startScriptedLlmServer({ script });
  const sessions = join(home, "sessions");
  try {
    const r = await runCli([...scriptedRunArgs(llm.openaiBaseUrl, cwd, sessions, model), ...extra, "use the tool"], {
      env: { HOME: home },
    });
    return { ...r, requests: llm.requests, events: sessionEventsIn(sessions) };
  } finally {
    await llm.close();
  }
}

type Message = { role: string; content?: unknown };

/** The tool results of a request's messages, as text (a non-string content as JSON). */
export function toolResultTexts(request: RecordedRequest | undefined): string[] {
  const messages = ((request?.body as { messages?: Message[] } | undefined)?.messages ?? []) as Message[];
  return messages.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

/** What the model was told: the tool results of the last request (each earlier one is in it too), one after another. */
export function toldOf(requests: RecordedRequest[]): string {
  return toolResultTexts(requests.at(-1)).join("\n---\n");
}

type OpenAiTool = { function: { name: string; description: string } };

/** The system prompt of a request (the text of its first message). */
export const systemPromptOf = (r: RecordedRequest): string => String(((r.body.messages as Array<Record<string, unknown>>)[0] as { content?: unknown }).content ?? "");

/** 0: the user's session; n: a request of a sub-agent at depth n (its system prompt says so). */
export const subagentDepthOf = (r: RecordedRequest): number => Number(/You are a sub-agent \(depth (\d+)\)/.exec(systemPromptOf(r))?.[1] ?? 0);

/** The tools a request offered the model. */
export const toolsOf = (r: RecordedRequest): OpenAiTool[] => (r.body.tools as OpenAiTool[] | undefined) ?? [];

/** Their names, in the request's order. */
export const toolNamesOf = (r: RecordedRequest): string[] => toolsOf(r).map((t) => t.function.name);

/** The description of the task tool the request offered ("" when none). */
export const taskDescriptionOf = (r: RecordedRequest): string => toolsOf(r).find((t) => t.function.name === "task")?.function.description ?? "";
