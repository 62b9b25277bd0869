// Finds local OpenAI-compatible servers for the first-run screen: GET /v1/models with a short timeout.
import type { LocalServerView } from "../protocol/messages";

export interface LocalServerCandidate {
  name: string;
  port: number;
}

export const LOCAL_SERVERS: readonly LocalServerCandidate[] = [
  { name: "Ollama", port: 11434 },
  { name: "LM Studio", port: 1234 },
  { name: "llama.cpp", port: 8080 },
];

async function probeOne(c: LocalServerCandidate, host: string, timeoutMs: number): Promise<LocalServerView | undefined> {
  const baseUrl = `http://${host}:${c.port}/v1`;
  try {
    const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
    const model = body.data?.map((m) => m.id).find((id): id is string => typeof id === "string" && id.length > 0);
    return model ? { name: c.name, baseUrl, model } : undefined;
  } catch {
    return undefined;
  }
}

/** The servers that answered with at least one model, in candidate order. Never throws. */
export async function probeLocalServers(candidates: readonly LocalServerCandidate[] = LOCAL_SERVERS, opts: { host?: string; timeoutMs?: number } = {}): Promise<LocalServerView[]> {
  const found = await Promise.all(candidates.map((c) => probeOne(c, opts.host ?? "127.0.0.1", opts.timeoutMs ?? 700)));
  return found.filter((s): s is LocalServerView => s !== undefined);
}
