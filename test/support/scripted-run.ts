/** `yoke run` against the scripted model server (src/demo/scripted-llm-server): its argv, and what the model was told. */
import type { RecordedRequest } from "../../src/demo/scripted-llm-server";

/**
 * The argv (after the CLI's path) of a trusted `yoke run` whose model is "m" at `baseUrl` over the
 * openai-compatible provider (the scripted server's openaiBaseUrl, or an address nothing answers
 * at), in `cwd`, logging to `sessionDir`. The caller appends the mode, settings and message.
 */
export function scriptedRunArgs(baseUrl: string, cwd: string, sessionDir: string): string[] {
  return ["run", "--trust", "--provider", "openai-compatible", "--base-url", baseUrl, "--model", "m", "--cwd", cwd, "--session-dir", sessionDir];
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
